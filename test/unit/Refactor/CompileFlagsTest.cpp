// nvcc's flags (from compile_commands.json) in Clang's spelling: one row
// per spelling, what Clang gets and which architectures are named.
#include "ktune/Refactor/CompileCommand.h"

#include <gtest/gtest.h>

using namespace ktune::refactor;

namespace {

struct Row {
  std::vector<std::string> nvcc;
  std::vector<std::string> clang;
  std::vector<std::string> archs = {};
  bool openmp = false;
};

std::string show(const std::vector<std::string> &v) {
  std::string s;
  for (const auto &a : v)
    s += (s.empty() ? "" : " ") + a;
  return "[" + s + "]";
}

} // namespace

TEST(CompileFlags, NvccSpellingsTranslated) {
  const Row rows[] = {
      // Include paths: every spelling, relative ones resolved.
      {{"-Iinclude"}, {"-I", "/proj/build/include"}},
      {{"-I", "/abs"}, {"-I", "/abs"}},
      {{"-I=/abs"}, {"-I", "/abs"}},
      {{"--include-path", "../src"}, {"-I", "/proj/src"}},
      {{"--include-path=../src"}, {"-I", "/proj/src"}},
      {{"-isystem", "/sys"}, {"-isystem", "/sys"}},
      {{"--system-include=/sys"}, {"-isystem", "/sys"}},
      {{"-isystem/sys"}, {"-isystem", "/sys"}},
      {{"-isystem./sys"}, {"-isystem", "/proj/build/sys"}},
      {{"-iquote../q"}, {"-iquote", "/proj/q"}},
      {{"-idirafter/late"}, {"-idirafter", "/late"}},
      {{"-iquote", "q"}, {"-iquote", "/proj/build/q"}},
      {{"-idirafter", "/late"}, {"-idirafter", "/late"}},
      {{"-include", "pre.h"}, {"-include", "/proj/build/pre.h"}},
      {{"--pre-include=pre.h"}, {"-include", "/proj/build/pre.h"}},
      // Macros and the language standard.
      {{"-DNDEBUG"}, {"-DNDEBUG"}},
      {{"-D", "N=4"}, {"-DN=4"}},
      {{"--define-macro", "N=4"}, {"-DN=4"}},
      {{"--define-macro=N=4"}, {"-DN=4"}},
      {{"-UFOO"}, {"-UFOO"}},
      {{"--undefine-macro", "FOO"}, {"-UFOO"}},
      {{"-std=c++17"}, {"-std=c++17"}},
      {{"--std", "c++17"}, {"-std=c++17"}},
      {{"--std=c++20"}, {"-std=c++20"}},
      {{"-std", "c++14"}, {"-std=c++14"}},
      // Architectures: collected, never passed on as they are.
      {{"-arch=sm_80"}, {}, {"sm_80"}},
      {{"-arch", "sm_90a"}, {}, {"sm_90a"}},
      {{"-arch=compute_75"}, {}, {"sm_75"}},
      {{"-arch=native"}, {}, {}},
      {{"--gpu-architecture=sm_86"}, {}, {"sm_86"}},
      {{"-gencode", "arch=compute_90,code=sm_90"}, {}, {"sm_90"}},
      {{"-gencode=arch=compute_90a,code=[sm_90a,compute_90a]"}, {}, {"sm_90a"}},
      {{"--generate-code=arch=compute_80,code=[compute_80,sm_80]"},
       {},
       {"sm_80"}},
      {{"-gencode", "arch=compute_80,code=sm_80", "-gencode",
        "arch=compute_90,code=sm_90"},
       {},
       {"sm_80", "sm_90"}},
      {{"--cuda-gpu-arch=sm_80"}, {}, {"sm_80"}},
      {{"--offload-arch=sm_86"}, {}, {"sm_86"}},
      // Host compiler options: preprocessing flags and OpenMP kept.
      {{"-Xcompiler", "-fopenmp"}, {"-fopenmp"}, {}, true},
      {{"-Xcompiler=-fopenmp"}, {"-fopenmp"}, {}, true},
      {{"-Xcompiler", "-fPIC,-fopenmp,-DHOST=1"},
       {"-fopenmp", "-DHOST=1"},
       {},
       true},
      {{"--compiler-options", "-O2 -fopenmp"}, {"-fopenmp"}, {}, true},
      {{"--compiler-options=-Iinc"}, {"-I", "/proj/build/inc"}},
      {{"-fopenmp"}, {"-fopenmp"}, {}, true},
      {{"-fopenmp-simd"}, {}},
      {{"-Xcompiler", "-fno-strict-aliasing"}, {}},
      // nvcc-only flags dropped, their values with them.
      {{"-use_fast_math", "--use_fast_math", "-lineinfo", "-rdc=true", "-O3",
        "-g", "-G", "-x", "cu", "-c", "-o", "k.o"},
       {}},
      // Modes nvcc announces to the code as macros.
      {{"--expt-relaxed-constexpr"}, {"-D__CUDACC_RELAXED_CONSTEXPR__=1"}},
      {{"--expt-extended-lambda"}, {"-D__CUDACC_EXTENDED_LAMBDA__=1"}},
      {{"--extended-lambda"}, {"-D__CUDACC_EXTENDED_LAMBDA__=1"}},
      {{"--threads", "32", "-Xptxas", "-v", "-maxrregcount", "64"}, {}},
      {{"--threads=4", "-Xptxas=-v,-O3", "--maxrregcount=64"}, {}},
      {{"-ccbin", "g++-12", "--compiler-bindir=/usr/bin", "-rdc", "true"}, {}},
      {{"-Xlinker", "-rpath", "-lcuda", "-L/usr/lib", "-L", "/opt/lib"}, {}},
      {{"--cuda-path=/opt/cuda-12", "-MD", "-MF", "k.d", "-MT", "k.o"}, {}},
      // A host compiler's -Werror takes no value: the -I after it stays.
      {{"-Werror", "-Iinc"}, {"-I", "/proj/build/inc"}},
      // A flag without its value at the end keeps nothing.
      {{"-I"}, {}},
      {{"-gencode"}, {}},
  };
  for (const Row &r : rows) {
    TranslatedFlags t = translateCompileFlags(r.nvcc, "/proj/build");
    EXPECT_EQ(t.args, r.clang) << show(r.nvcc) << " -> " << show(t.args);
    EXPECT_EQ(t.gpuArchs, r.archs) << show(r.nvcc);
    EXPECT_EQ(t.openmp, r.openmp) << show(r.nvcc);
  }
}

TEST(CompileFlags, ArgumentsAfterDashDashKeepClangFlags) {
  // After `--` the user speaks Clang, but nvcc's own flags are still
  // dropped rather than refused by Clang.
  TranslatedFlags t = translateCompileFlags(
      {"-Iinc", "-Wno-unused", "--expt-relaxed-constexpr", "-nocudainc",
       "-use_fast_math", "--cuda-gpu-arch=sm_80", "-fno-exceptions"},
      "", /*keepUnknown=*/true);
  EXPECT_EQ(t.args,
            (std::vector<std::string>{"-I", "inc", "-Wno-unused",
                                      "-D__CUDACC_RELAXED_CONSTEXPR__=1",
                                      "-nocudainc", "-fno-exceptions"}));
  EXPECT_EQ(t.gpuArchs, (std::vector<std::string>{"sm_80"}));
}

TEST(CompileFlags, DeviceArchitectureChosen) {
  // The preferred one when named, else the newest Clang 19 knows.
  EXPECT_EQ(chooseGpuArch({"sm_80", "sm_90"}, "sm_90"), "sm_90");
  EXPECT_EQ(chooseGpuArch({"sm_80", "sm_86"}, "sm_90"), "sm_86");
  EXPECT_EQ(chooseGpuArch({"sm_80", "sm_100"}, "sm_90"), "sm_80");
  EXPECT_EQ(chooseGpuArch({"sm_90a"}, "sm_90"), "sm_90a");
  EXPECT_EQ(chooseGpuArch({"sm_120"}, "sm_90"), std::nullopt);
  EXPECT_EQ(chooseGpuArch({}, "sm_90"), std::nullopt);
}
