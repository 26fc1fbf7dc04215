//===- CompileFlags.cpp - nvcc's flags in Clang's spelling ----------------===//
//
// Compile commands of CUDA projects are nvcc's. What matters for parsing is
// translated (include paths, macros, the language standard, the GPU
// architecture, OpenMP), host compiler options given through -Xcompiler
// included, since nvcc preprocesses both sides with them; the rest is
// dropped, with the values of options that take one.
//
//===----------------------------------------------------------------------===//
#include "ktune/Refactor/CompileCommand.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Path.h"

#include <algorithm>

namespace ktune::refactor {
namespace {

enum class FlagKind {
  Path,        // -I dir: passed on, the path made absolute
  File,        // -include file: likewise
  Value,       // -D NAME=1: passed on
  Std,         // --std c++17 -> -std=c++17
  GpuArch,     // -arch sm_90, --cuda-gpu-arch=sm_90
  GenCode,     // -gencode arch=compute_90,code=[sm_90,compute_90]
  HostOptions, // -Xcompiler a,b: translated like direct flags
  OpenMP,      // -fopenmp
};

struct FlagSpec {
  const char *spelling;
  FlagKind kind;
  const char *clang; // the Clang flag for Path/File/Value
};

// Longest spellings first where one is a prefix of another.
const FlagSpec Flags[] = {
    {"--include-path", FlagKind::Path, "-I"},
    {"--system-include", FlagKind::Path, "-isystem"},
    {"-isystem", FlagKind::Path, "-isystem"},
    {"-iquote", FlagKind::Path, "-iquote"},
    {"-idirafter", FlagKind::Path, "-idirafter"},
    {"--pre-include", FlagKind::File, "-include"},
    {"-include", FlagKind::File, "-include"},
    {"-I", FlagKind::Path, "-I"},
    {"--define-macro", FlagKind::Value, "-D"},
    {"-D", FlagKind::Value, "-D"},
    {"--undefine-macro", FlagKind::Value, "-U"},
    {"-U", FlagKind::Value, "-U"},
    {"--std", FlagKind::Std, nullptr},
    {"-std", FlagKind::Std, nullptr},
    {"--gpu-architecture", FlagKind::GpuArch, nullptr},
    {"-arch", FlagKind::GpuArch, nullptr},
    {"--gpu-code", FlagKind::GpuArch, nullptr},
    {"-code", FlagKind::GpuArch, nullptr},
    {"--cuda-gpu-arch", FlagKind::GpuArch, nullptr},
    {"--offload-arch", FlagKind::GpuArch, nullptr},
    {"--generate-code", FlagKind::GenCode, nullptr},
    {"-gencode", FlagKind::GenCode, nullptr},
    {"--compiler-options", FlagKind::HostOptions, nullptr},
    {"-Xcompiler", FlagKind::HostOptions, nullptr},
    {"-fopenmp", FlagKind::OpenMP, nullptr},
};

// nvcc options whose value may follow as the next argument: dropped with it.
const char *const DroppedWithValue[] = {
    "-o",
    "--output-file",
    "-odir",
    "--output-directory",
    "-ccbin",
    "--compiler-bindir",
    "-Xptxas",
    "--ptxas-options",
    "-Xlinker",
    "--linker-options",
    "-Xnvlink",
    "--nvlink-options",
    "-Xarchive",
    "--archive-options",
    "-Xcudafe",
    "-Xfatbin",
    "--fatbin-options",
    "-maxrregcount",
    "--maxrregcount",
    "--threads",
    "-t",
    "-rdc",
    "--relocatable-device-code",
    "-cudart",
    "--cudart",
    "-cudadevrt",
    "--cudadevrt",
    "--default-stream",
    "-default-stream",
    "-ftz",
    "--ftz",
    "-prec-div",
    "--prec-div",
    "-prec-sqrt",
    "--prec-sqrt",
    "-fmad",
    "--fmad",
    "--keep-dir",
    "-keep-dir",
    "-MF",
    "-MT",
    "-MQ",
    "--dependency-output",
    "--dependency-target-name",
    "-x",
    "--x",
    "-L",
    "--library-path",
    "-l",
    "--library",
    "--diag-suppress",
    "-diag-suppress",
    "--diag-error",
    "-diag-error",
    "--diag-warn",
    "-diag-warn",
    "-Werror",
    "--Werror",
    "--split-compile",
    "-split-compile",
    "-time",
    "--time",
    "--machine",
    "-m",
    "--optimize",
    "-dopt",
    "--dopt",
    "--cuda-path",
    "--input-drive-prefix",
    "--dependency-drive-prefix",
    "--drive-prefix",
    "--run-args",
    "--options-file",
    "-optf",
};

bool takesSeparateValue(llvm::StringRef flag) {
  return std::any_of(std::begin(DroppedWithValue), std::end(DroppedWithValue),
                     [&](const char *s) { return flag == s; });
}

/// Options passed through to another tool take any value (`-Xptxas -v`);
/// the others' values never start with '-', so `-Werror -Ifoo` (a host
/// compiler's -Werror) keeps -Ifoo.
bool valueMayStartWithDash(llvm::StringRef flag) {
  return flag.starts_with("-X") || flag.ends_with("-options");
}

std::string absoluteIn(const std::string &dir, const std::string &path) {
  if (path.empty() || llvm::sys::path::is_absolute(path) || dir.empty())
    return path;
  llvm::SmallString<256> p(dir);
  llvm::sys::path::append(p, path);
  llvm::sys::path::remove_dots(p, /*remove_dot_dot=*/true);
  return std::string(p);
}

/// `sm_90`, `compute_90a`, `sm_90,compute_90` -> the real architectures.
void addArchs(llvm::StringRef value, std::vector<std::string> &out) {
  llvm::SmallVector<llvm::StringRef, 4> parts;
  value.trim("[]{}\"").split(parts, ',', -1, false);
  for (llvm::StringRef p : parts) {
    p = p.trim("[]{} \"");
    std::string arch;
    if (p.consume_front("sm_") || p.consume_front("compute_") ||
        p.consume_front("lto_"))
      arch = "sm_" + p.str();
    else
      continue; // native, all, all-major: nothing to pick
    if (std::find(out.begin(), out.end(), arch) == out.end())
      out.push_back(arch);
  }
}

/// `arch=compute_90,code=[sm_90,compute_90]`: the code= architectures, else
/// the arch= one.
void addGenCode(llvm::StringRef value, std::vector<std::string> &out) {
  value = value.trim("\"");
  size_t code = value.find("code=");
  if (code != llvm::StringRef::npos) {
    addArchs(value.substr(code + 5), out);
    return;
  }
  if (value.consume_front("arch="))
    addArchs(value.split(',').first, out);
}

class Translator {
public:
  Translator(const std::string &directory, bool keepUnknown,
             TranslatedFlags &out)
      : Directory(directory), KeepUnknown(keepUnknown), Out(out) {}

  void run(const std::vector<std::string> &args) {
    for (size_t i = 0; i < args.size(); ++i)
      i += one(args, i);
  }

private:
  /// Translates args[i]; returns how many following arguments it consumed.
  size_t one(const std::vector<std::string> &args, size_t i) {
    llvm::StringRef a = args[i];
    for (const FlagSpec &f : Flags) {
      llvm::StringRef s = f.spelling;
      if (!a.starts_with(s))
        continue;
      llvm::StringRef rest = a.substr(s.size());
      bool separate = rest.empty();
      bool joinedByEquals = rest.consume_front("=");
      // -Ipath and -DNAME join without '='; longer flags need it
      // (-include-pch, -std-default are other flags), but for a directory
      // spelled as a path (-isystem/usr/x, as Clang and GCC read it).
      bool pathJoined = f.kind == FlagKind::Path && !separate &&
                        (rest.starts_with("/") || rest.starts_with("."));
      bool joined =
          joinedByEquals || (!separate && s.size() == 2) || pathJoined;
      if (f.kind == FlagKind::OpenMP) {
        if (separate || joinedByEquals) {
          add({"-fopenmp"});
          Out.openmp = true;
          return 0;
        }
        continue;
      }
      if (!separate && !joined)
        continue;
      if (separate && i + 1 >= args.size())
        return 0; // a flag without its value: nothing to keep
      std::string value = separate ? args[i + 1] : rest.str();
      apply(f, value);
      return separate ? 1 : 0;
    }
    // nvcc announces these modes to the code, which may test them (cuco's
    // headers refuse to build without extended lambdas).
    if (a == "--expt-extended-lambda" || a == "-expt-extended-lambda" ||
        a == "--extended-lambda" || a == "-extended-lambda") {
      add({"-D__CUDACC_EXTENDED_LAMBDA__=1"});
      return 0;
    }
    if (a == "--expt-relaxed-constexpr" || a == "-expt-relaxed-constexpr") {
      add({"-D__CUDACC_RELAXED_CONSTEXPR__=1"});
      return 0;
    }
    // A dropped option: its separate value goes with it.
    llvm::StringRef name = a.split('=').first;
    if (!a.contains('=') && takesSeparateValue(name)) {
      Out.dropped.push_back(a.str());
      if (i + 1 >= args.size() ||
          (llvm::StringRef(args[i + 1]).starts_with("-") &&
           !valueMayStartWithDash(name)))
        return 0;
      Out.dropped.push_back(args[i + 1]);
      return 1;
    }
    if (KeepUnknown && !isNvccOnly(a))
      Out.args.push_back(a.str());
    else if (!a.empty())
      Out.dropped.push_back(a.str());
    return 0;
  }

  void apply(const FlagSpec &f, const std::string &value) {
    switch (f.kind) {
    case FlagKind::Path:
    case FlagKind::File:
      add({f.clang, absoluteIn(Directory, value)});
      return;
    case FlagKind::Value:
      add({std::string(f.clang) + value});
      return;
    case FlagKind::Std:
      add({"-std=" + value});
      return;
    case FlagKind::GpuArch:
      addArchs(value, Out.gpuArchs);
      return;
    case FlagKind::GenCode:
      addGenCode(value, Out.gpuArchs);
      return;
    case FlagKind::HostOptions: {
      // nvcc splits the value at commas; a quoted value may hold spaces.
      std::vector<std::string> host;
      llvm::SmallVector<llvm::StringRef, 8> parts;
      llvm::StringRef(value).split(parts, ',', -1, false);
      for (llvm::StringRef p : parts) {
        llvm::SmallVector<llvm::StringRef, 4> words;
        p.split(words, ' ', -1, false);
        for (llvm::StringRef w : words)
          host.push_back(w.str());
      }
      Translator inner(Directory, /*keepUnknown=*/false, Out);
      inner.run(host);
      return;
    }
    case FlagKind::OpenMP:
      return;
    }
  }

  /// Flags Clang does not know, from nvcc: dropped even among the
  /// arguments given after `--`.
  static bool isNvccOnly(llvm::StringRef a) {
    static const char *const prefixes[] = {
        "--expt-",
        "--extended-lambda",
        "-extended-lambda",
        "-expt-",
        "-use_fast_math",
        "--use_fast_math",
        "-lineinfo",
        "--generate-line-info",
        "-rdc=",
        "--relocatable-device-code",
        "-dc",
        "--device-c",
        "-dw",
        "--device-w",
        "-dlink",
        "--device-link",
        "-Xptxas",
        "--ptxas-options",
        "-Xcudafe",
        "-maxrregcount",
        "--maxrregcount",
        "--threads",
        "-res-usage",
        "--resource-usage",
        "-Wno-deprecated-gpu-targets",
        "-Wext-lambda",
        "--keep",
        "-keep",
        "--source-in-ptx",
        "-src-in-ptx",
        "--allow-unsupported-compiler",
        "-allow-unsupported-compiler",
        "--forward-unknown-to-host",
        "-forward-unknown-to-host",
        "-ftz=",
        "-prec-div=",
        "-prec-sqrt=",
        "-fmad=",
        "--ftz=",
        "--prec-div=",
        "--prec-sqrt=",
        "--fmad=",
        "-cudart=",
        "--cudart=",
        "--default-stream=",
        "-default-stream=",
        "--diag-suppress",
        "-diag-suppress",
        "--display-error-number",
        "-err-no",
        "--Werror",
        "-Werror=all-warnings",
        "-G",
        "--device-debug",
        "--dlink-time-opt",
        "-dlto",
        "--extra-device-vectorization",
        "-extra-device-vectorization",
        "-ewp",
        "--gpu-",
        "-Xfatbin",
        "-Xnvlink",
        "-Xlinker",
        "-Xarchive",
        "-ccbin",
        "--compiler-bindir",
        "-odir",
        "--output-directory",
    };
    return std::any_of(std::begin(prefixes), std::end(prefixes),
                       [&](const char *p) { return a.starts_with(p); });
  }

  void add(std::initializer_list<std::string> flag) {
    Out.args.insert(Out.args.end(), flag.begin(), flag.end());
  }

  const std::string &Directory;
  bool KeepUnknown;
  TranslatedFlags &Out;
};

} // namespace

TranslatedFlags translateCompileFlags(const std::vector<std::string> &args,
                                      const std::string &directory,
                                      bool keepUnknown) {
  TranslatedFlags out;
  Translator(directory, keepUnknown, out).run(args);
  return out;
}

std::vector<std::string>
joinNvccOptionValues(const std::vector<std::string> &args) {
  // Options Clang knows keep their own spelling.
  static const char *const clangKnows[] = {
      "-o",  "-x",       "-L",       "-l",      "-MF",       "-MT",
      "-MQ", "-isystem", "-include", "-iquote", "-idirafter"};
  auto isNvccValueOption = [](llvm::StringRef a) {
    if (std::any_of(std::begin(clangKnows), std::end(clangKnows),
                    [&](const char *k) { return a == k; }))
      return false;
    if (takesSeparateValue(a))
      return true;
    return std::any_of(std::begin(Flags), std::end(Flags),
                       [&](const FlagSpec &f) {
                         return a == f.spelling && f.kind != FlagKind::OpenMP &&
                                llvm::StringRef(f.spelling).size() > 2;
                       });
  };
  std::vector<std::string> out;
  for (size_t i = 0; i < args.size(); ++i) {
    llvm::StringRef a = args[i];
    if (i + 1 < args.size() && isNvccValueOption(a) &&
        (!llvm::StringRef(args[i + 1]).starts_with("-") ||
         valueMayStartWithDash(a))) {
      out.push_back(a.str() + "=" + args[i + 1]);
      ++i;
      continue;
    }
    out.push_back(a.str());
  }
  return out;
}

std::optional<std::string> chooseGpuArch(const std::vector<std::string> &archs,
                                         const std::string &preferred) {
  // Clang 19 knows architectures up to sm_90a.
  auto known = [](const std::string &a) {
    llvm::StringRef n = llvm::StringRef(a).drop_front(3);
    unsigned v = 0;
    n.consumeInteger(10, v);
    return v >= 30 && v <= 90;
  };
  if (std::find(archs.begin(), archs.end(), preferred) != archs.end() &&
      known(preferred))
    return preferred;
  std::optional<std::string> best;
  unsigned bestValue = 0;
  for (const std::string &a : archs) {
    if (!known(a))
      continue;
    unsigned v = 0;
    llvm::StringRef(a).drop_front(3).consumeInteger(10, v);
    if (!best || v >= bestValue) {
      best = a;
      bestValue = v;
    }
  }
  return best;
}

} // namespace ktune::refactor
