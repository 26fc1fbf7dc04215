// The project's flags as ktune's builds and NVRTC take them: nvcc's argv
// (include directories first, the project's -O kept), the translation of
// nvcc's flags for NVRTC (mapped, dropped, passed on) and back.
#include "ktune/Cuda/Nvcc.h"

#include <gtest/gtest.h>

#include <algorithm>

using namespace ktune;

namespace {

bool contains(const std::vector<std::string> &v, const std::string &x) {
  return std::find(v.begin(), v.end(), x) != v.end();
}

} // namespace

TEST(Nvcc, ObjectCommandPutsRewrittenHeadersFirst) {
  NvccCommand c;
  c.nvcc = "/cuda/bin/nvcc";
  c.arch = "sm_90";
  c.includeDirs = {"/out/include"};
  c.projectFlags = {"-I/proj/include", "-O2", "--expt-relaxed-constexpr"};
  c.extraFlags = {"-DKTUNE=1"};
  c.templateDir = "/out";
  auto argv = nvccArgv(c, NvccOutput::Object, "b.cu", "b.o");
  ASSERT_GE(argv.size(), 6u);
  EXPECT_EQ(argv[0], "/cuda/bin/nvcc");
  EXPECT_EQ(argv[1], "-I/out/include");
  auto at = [&](const std::string &x) {
    return std::find(argv.begin(), argv.end(), x) - argv.begin();
  };
  // The rewritten copies shadow the project's originals.
  EXPECT_LT(at("-I/out/include"), at("-I/proj/include"));
  EXPECT_LT(at("-I/proj/include"), at("-I/out"));
  EXPECT_TRUE(contains(argv, "-c"));
  EXPECT_FALSE(contains(argv, "-shared"));
  EXPECT_TRUE(contains(argv, "-arch=sm_90"));
  EXPECT_TRUE(contains(argv, "-DKTUNE=1"));
  EXPECT_FALSE(contains(argv, "-O3")); // the project's -O2 stays
  EXPECT_TRUE(contains(argv, "-std=c++17"));
  EXPECT_EQ(argv.back(), "b.cu");
}

// The original's directory serves its quoted #includes only: a -I would
// also serve <features.h>, and a project header of that name would hide
// glibc's.
TEST(Nvcc, QuoteDirsServeQuotedIncludesOnly) {
  NvccCommand c;
  c.nvcc = "/cuda/bin/nvcc";
  c.includeDirs = {"/out/include"};
  c.quoteDirs = {"/proj/src", "/odd,dir"};
  auto argv = nvccArgv(c, NvccOutput::Object, "b.cu", "b.o");
  auto at = [&](const std::string &x) {
    return std::find(argv.begin(), argv.end(), x) - argv.begin();
  };
  ASSERT_LT(at("-iquote,/proj/src"), static_cast<long>(argv.size()));
  EXPECT_EQ(argv[at("-iquote,/proj/src") - 1], "-Xcompiler");
  EXPECT_FALSE(contains(argv, "-I/proj/src"));
  // -Xcompiler splits at commas: such a directory is an include path.
  EXPECT_TRUE(contains(argv, "-I/odd,dir"));
}

TEST(Nvcc, ProjectFlagsDropClangOnlyAndBuildFlags) {
  CompileCommandInfo c;
  c.directory = "/proj/build";
  c.compiler = "/usr/local/cuda/bin/nvcc";
  c.arguments = {"-x",
                 "cu",
                 "--cuda-gpu-arch=sm_90",
                 "-use_fast_math",
                 "-M",
                 "-dc",
                 "-odir",
                 "objs",
                 "-DNDEBUG"};
  std::vector<std::string> want = {"-use_fast_math", "-DNDEBUG"};
  EXPECT_EQ(projectNvccFlags(c), want);
  // A database's command as Clang gives it: `--` before the input file.
  c.arguments = {"-DSCALE=2.f", "-use_fast_math", "--", "/proj/k.cu"};
  want = {"-DSCALE=2.f", "-use_fast_math"};
  EXPECT_EQ(projectNvccFlags(c), want);
}

TEST(Nvcc, NvrtcTakesTheProjectFlagsItUnderstands) {
  // SGLang's flags: NVRTC refuses -O3 as an option (it only concerns the
  // host), so it is left out and listed; it refuses --expt-relaxed-constexpr
  // too, which changes what compiles: listed as unsupported (nvcc builds).
  NvrtcFlags f =
      nvrtcOptionsFromNvccFlags({"-DNDEBUG",
                                 "-I/fi/include",
                                 "-I",
                                 "/sgl/csrc",
                                 "-O3",
                                 "-std=c++17",
                                 "--expt-relaxed-constexpr",
                                 "--expt-extended-lambda",
                                 "-gencode=arch=compute_90,code=sm_90",
                                 "-use_fast_math",
                                 "-Xcompiler",
                                 "-fPIC",
                                 "--threads=32",
                                 "-Xptxas",
                                 "-O3",
                                 "-lineinfo",
                                 "-fmad=false",
                                 "-maxrregcount=64",
                                 "-isystem",
                                 "/sys/inc",
                                 "-G"});
  std::vector<std::string> want = {"-DNDEBUG",
                                   "--include-path=/fi/include",
                                   "--include-path=/sgl/csrc",
                                   "-std=c++17",
                                   "--use_fast_math",
                                   "--ptxas-options=-O3",
                                   "-lineinfo",
                                   "--fmad=false",
                                   "--maxrregcount=64",
                                   "--include-path=/sys/inc",
                                   "-G"};
  EXPECT_EQ(f.options, want);
  std::vector<std::string> dropped = {"-O3",
                                      "-gencode=arch=compute_90,code=sm_90",
                                      "-Xcompiler -fPIC", "--threads=32"};
  EXPECT_EQ(f.dropped, dropped);
  std::vector<std::string> unsupported = {"--expt-relaxed-constexpr",
                                          "--expt-extended-lambda"};
  EXPECT_EQ(f.unsupported, unsupported);
  // What NVRTC spells its own way passes through unchanged.
  f = nvrtcOptionsFromNvccFlags({"--include-path=/a", "-default-device",
                                 "--ptxas-options=-v", "-dopt=on"});
  EXPECT_EQ(f.options,
            std::vector<std::string>({"--include-path=/a", "-default-device",
                                      "--ptxas-options=-v", "-dopt=on"}));
  EXPECT_TRUE(f.dropped.empty());
  EXPECT_TRUE(f.unsupported.empty());
}

TEST(Nvcc, NvccTakesOptionsWrittenForNvrtc) {
  auto f = nvccFlagsFromNvrtcOptions(
      {"--include-path=/a", "--include-path", "/b", "--ptxas-options=-O1",
       "-default-device", "--gpu-architecture=sm_80", "-use_fast_math",
       "--define-macro=X=1", "-DY"});
  std::vector<std::string> want = {"-I/a",           "-I/b",  "-Xptxas", "-O1",
                                   "-use_fast_math", "-DX=1", "-DY"};
  EXPECT_EQ(f, want);
}

TEST(Nvcc, FindsTheToolkitsCompiler) {
  std::string nvcc = findNvcc();
  EXPECT_FALSE(nvcc.empty());
  if (nvcc == "nvcc")
    GTEST_SKIP() << "no nvcc";
  EXPECT_TRUE(nvccVersionString(nvcc).starts_with("nvcc "));
  EXPECT_NE(nvccVersionString(nvcc), "nvcc unknown");
  EXPECT_EQ(nvccVersionString("/no/such/nvcc"), "nvcc unknown");
}
