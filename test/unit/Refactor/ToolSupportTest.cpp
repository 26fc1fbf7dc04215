// What ktune-refactor and `ktune run` share: the compile command, the
// arguments after `--`, the checks of what is asked, errors as text.
#include "ktune/Refactor/ToolSupport.h"
#include "ktune/Refactor/CompileCommand.h"
#include "ktune/Support/FileUtil.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>

using namespace ktune;
using namespace ktune::refactor;
namespace fs = std::filesystem;

namespace {

class TempDir {
public:
  TempDir() {
    std::string tmpl =
        (fs::temp_directory_path() / "ktune-tool-XXXXXX").string();
    if (!mkdtemp(tmpl.data()))
      ADD_FAILURE() << "mkdtemp failed";
    Path = fs::canonical(tmpl);
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(Path, ec);
  }
  std::string operator/(const std::string &name) const {
    return (Path / name).string();
  }

private:
  fs::path Path;
};

void write(const std::string &path, const std::string &text) {
  fs::create_directories(fs::path(path).parent_path());
  ASSERT_TRUE(writeFileAtomically(path, text));
}

} // namespace

TEST(ArgsAfterDashDash, TakenOffTheCommandLine) {
  const char *argv[] = {"tool", "k.cu",      "-o",     "x.cu",
                        "--",   "-Iinclude", "-DFOO=1"};
  int argc = 7;
  auto args = takeArgsAfterDashDash(argc, argv);
  ASSERT_TRUE(args) << args.error().str();
  ASSERT_TRUE(*args);
  EXPECT_EQ(**args, (std::vector<std::string>{"-Iinclude", "-DFOO=1"}));
  EXPECT_EQ(argc, 4);

  const char *none[] = {"tool", "k.cu", "--cuda-gpu-arch", "sm_80"};
  int n = 4;
  auto absent = takeArgsAfterDashDash(n, none);
  ASSERT_TRUE(absent);
  EXPECT_FALSE(*absent);
  EXPECT_EQ(n, 4);

  const char *empty[] = {"tool", "k.cu", "--"};
  int e = 3;
  auto nothing = takeArgsAfterDashDash(e, empty);
  ASSERT_TRUE(nothing);
  ASSERT_TRUE(*nothing);
  EXPECT_TRUE((*nothing)->empty());
  EXPECT_EQ(e, 2);
}

TEST(CompileCommandFor, FlagsAfterDashDashOnly) {
  auto command = compileCommandFor("k.cu", "", std::vector<std::string>{"-DX"});
  ASSERT_TRUE(command);
  EXPECT_EQ(command->file, "k.cu");
  EXPECT_EQ(command->args, std::vector<std::string>{"-DX"});
  EXPECT_FALSE(command->fromDatabase);
}

TEST(CompileCommandFor, DatabaseAboveTheSource) {
  TempDir dir;
  write(dir / "src/k.cu", "__global__ void k() {}\n");
  write(dir / "src/other.cu", "__global__ void o() {}\n");
  write(dir / "compile_commands.json",
        R"([{"directory": ")" + (dir / "build") +
            R"(", "command": "nvcc -DFROM_DB=1 -I../include -c )" +
            (dir / "src/k.cu") + R"(", "file": ")" + (dir / "src/k.cu") +
            R"("}])");
  std::vector<std::string> notes;
  auto found = compileCommandFor(dir / "src/k.cu", "", std::nullopt, &notes);
  ASSERT_TRUE(found) << found.error().str();
  EXPECT_TRUE(found->fromDatabase);
  EXPECT_EQ(found->directory, dir / "build");
  EXPECT_EQ(found->args,
            (std::vector<std::string>{"-DFROM_DB=1", "-I../include", "-c"}));
  EXPECT_TRUE(notes.empty());

  // -p and `--` together: the database's flags, then the extra ones.
  auto both = compileCommandFor(dir / "src/k.cu", dir / "",
                                std::vector<std::string>{"-DEXTRA"}, &notes);
  ASSERT_TRUE(both) << both.error().str();
  EXPECT_EQ(both->args.back(), "-DEXTRA");
  EXPECT_EQ(both->args.front(), "-DFROM_DB=1");

  // A file the database lacks borrows a similar file's flags, with a note.
  auto borrowed =
      compileCommandFor(dir / "src/other.cu", "", std::nullopt, &notes);
  ASSERT_TRUE(borrowed) << borrowed.error().str();
  EXPECT_TRUE(borrowed->fromDatabase);
  ASSERT_EQ(notes.size(), 1u);
  EXPECT_NE(notes[0].find("is not in the compilation database"),
            std::string::npos);
}

TEST(CompileCommandFor, BuildPathMustHoldTheDatabase) {
  TempDir dir;
  write(dir / "k.cu", "");
  auto missing = compileCommandFor(dir / "k.cu", dir / "", std::nullopt);
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().where, "-p");
  EXPECT_EQ(missing.error().message.rfind(
                "cannot load a compilation database from '", 0),
            0u);
}

// What checkActions says when it refuses, or "" where it accepts.
static std::string refusal(const RefactorActions &a) {
  auto checked = checkActions(a);
  return checked ? "" : checked.error().str();
}

TEST(CheckActions, RefusesWhatCannotGoTogether) {
  RefactorActions a;
  a.input = "k.cu";
  EXPECT_EQ(refusal(a).rfind("nothing to do:", 0), 0u);

  a.candidates = true;
  EXPECT_EQ(refusal(a), "");
  a.output = "out.cu";
  a.manifest = "out.json";
  EXPECT_EQ(refusal(a).rfind("--candidates only prints", 0), 0u);

  a.candidates = false;
  EXPECT_EQ(refusal(a), "");
  a.planFile = "plan.json";
  a.plannerSpec = "command:x";
  EXPECT_EQ(refusal(a), "--plan and --planner command:x both say where the "
                        "plan comes from; give one");

  a.planFile.clear();
  a.output = "./k.cu";
  EXPECT_EQ(refusal(a),
            "-o ./k.cu is the input file; refusing to overwrite it");
  a.output = "out.cu";
  a.emitPlan = "k.cu";
  EXPECT_NE(refusal(a), "");
}

TEST(ToolSupport, SmallPieces) {
  EXPECT_EQ(defaultManifestPath("dir/k.tpl.cu"), "dir/k.tpl.json");
  EXPECT_TRUE(samePath("a/../k.cu", "k.cu"));
  EXPECT_FALSE(samePath("a/k.cu", "k.cu"));

  EXPECT_EQ(preambleBuildMode(PreambleBuild::Never), PreambleBuild::Never);
  ::setenv("KTUNE_PREAMBLE_BUILD", "foreground", 1);
  EXPECT_EQ(preambleBuildMode(std::nullopt), PreambleBuild::Foreground);
  ::unsetenv("KTUNE_PREAMBLE_BUILD");
  EXPECT_EQ(preambleBuildMode(std::nullopt), PreambleBuild::Background);

  Manifest m;
  m.kernels.resize(1);
  EXPECT_EQ(manifestSummary(m), "0 parameters in 1 kernel");

  ParseStats stats;
  stats.preambleReused[1] = true;
  std::string times = parseTimesText(stats);
  EXPECT_EQ(times.rfind("parsed host side in ", 0), 0u);
  EXPECT_NE(times.find(" s, device side in "), std::string::npos);
  EXPECT_NE(times.find("(cached preamble)"), std::string::npos);
}

TEST(ToolSupport, ErrorText) {
  ErrorText parse = errorText(llvm::make_error<ParseError>(
      "k.cu:1:1: error: x\n", "k.cu: cannot parse (1 error on the host side)"));
  EXPECT_EQ(parse.diagnostics, "k.cu:1:1: error: x\n");
  EXPECT_EQ(parse.lines, std::vector<std::string>{
                             "k.cu: cannot parse (1 error on the host side)"});

  ErrorText plan =
      errorText(llvm::createStringError("p.json: first\n\np.json: second"));
  EXPECT_TRUE(plan.diagnostics.empty());
  EXPECT_EQ(plan.summary, "p.json: first\n\np.json: second");
  EXPECT_EQ(plan.lines,
            (std::vector<std::string>{"p.json: first", "p.json: second"}));
}
