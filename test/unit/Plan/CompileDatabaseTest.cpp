// A project's compile command read from compile_commands.json without
// Clang: "arguments" or a shell "command", matched by path or file name.
#include "ktune/Plan/CompileDatabase.h"

#include "ktune/Support/FileUtil.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <unistd.h>

using namespace ktune;
namespace fs = std::filesystem;

namespace {

std::string databaseDir(const std::string &text) {
  std::string tmpl = (fs::temp_directory_path() / "ktune-ccdb-XXXXXX").string();
  EXPECT_TRUE(mkdtemp(tmpl.data()));
  EXPECT_TRUE(writeFileAtomically(tmpl + "/compile_commands.json", text));
  return tmpl;
}

} // namespace

TEST(CompileDatabase, SplitsCommandLinesAsAShellWould) {
  EXPECT_EQ(
      splitCommandLine("nvcc -DA=\"x y\" 'q r'  -I\\ s  k.cu"),
      std::vector<std::string>({"nvcc", "-DA=x y", "q r", "-I s", "k.cu"}));
  EXPECT_TRUE(splitCommandLine("   ").empty());
}

TEST(CompileDatabase, FindsTheCommandByPathThenByName) {
  std::string dir = databaseDir(R"([
    {"directory": "/proj/build", "file": "/proj/src/other.cu",
     "arguments": ["/cuda/bin/nvcc", "-O2", "-c", "/proj/src/other.cu"]},
    {"directory": "/proj/build", "file": "../src/act.cu",
     "command": "/cuda/bin/nvcc -DNDEBUG --expt-relaxed-constexpr -c ../src/act.cu -o act.o"}])");
  auto c = compileCommandFromDatabase(dir, "/elsewhere/act.cu");
  ASSERT_TRUE(c) << c.error().str();
  EXPECT_EQ(c->compiler, "/cuda/bin/nvcc");
  EXPECT_EQ(c->directory, "/proj/build");
  EXPECT_EQ(c->arguments,
            std::vector<std::string>(
                {"-DNDEBUG", "--expt-relaxed-constexpr", "-c", "-o", "act.o"}));
  c = compileCommandFromDatabase(dir, "/proj/src/other.cu");
  ASSERT_TRUE(c) << c.error().str();
  EXPECT_EQ(c->arguments, std::vector<std::string>({"-O2", "-c"}));
  auto missing = compileCommandFromDatabase(dir, "none.cu");
  ASSERT_FALSE(missing);
  EXPECT_NE(missing.error().str().find("no compile command for none.cu"),
            std::string::npos);
  fs::remove_all(dir);
}

TEST(CompileDatabase, RefusesWhatIsNotADatabase) {
  std::string dir = databaseDir(R"({"file": "a.cu"})");
  EXPECT_FALSE(compileCommandFromDatabase(dir, "a.cu"));
  fs::remove_all(dir);
  dir = databaseDir(R"([{"file": "a.cu", "arguments": []}])");
  EXPECT_FALSE(compileCommandFromDatabase(dir, "a.cu"));
  fs::remove_all(dir);
  EXPECT_FALSE(compileCommandFromDatabase("/no/such/dir", "a.cu"));
}
