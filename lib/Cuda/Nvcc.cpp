//===- Nvcc.cpp - Calling nvcc with the project's flags -------------------===//
#include "ktune/Cuda/Nvcc.h"

#include "ktune/Support/FileUtil.h"
#include "ktune/Support/Process.h"
#include "ktune/Support/Try.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <mutex>
#include <regex>

namespace ktune {

namespace fs = std::filesystem;

std::string findNvcc() {
  for (const char *var : {"CUDA_HOME", "CUDA_PATH"})
    if (const char *root = std::getenv(var); root && *root) {
      fs::path p = fs::path(root) / "bin" / "nvcc";
      if (fs::exists(p))
        return p.string();
    }
#ifdef KTUNE_NVCC
  if (fs::exists(KTUNE_NVCC))
    return KTUNE_NVCC;
#endif
  return "nvcc";
}

std::string nvccVersionString(const std::string &nvcc) {
  static std::mutex mutex;
  static std::map<std::string, std::string> known;
  std::lock_guard lock(mutex);
  if (auto it = known.find(nvcc); it != known.end())
    return it->second;
  std::string version = "nvcc unknown";
  ProcessOptions options;
  options.timeoutSeconds = 30;
  if (auto r = runProcess({nvcc, "--version"}, "", options);
      r && r->exitCode == 0) {
    static const std::regex Release(R"(release (\d+)\.(\d+))");
    std::smatch m;
    if (std::regex_search(r->out, m, Release))
      version = "nvcc " + m[1].str() + "." + m[2].str();
  }
  known[nvcc] = version;
  return version;
}

static bool startsWithAny(const std::string &a,
                          std::initializer_list<const char *> prefixes) {
  for (const char *p : prefixes)
    if (a.starts_with(p))
      return true;
  return false;
}

/// A host compiler's command (g++, clang++ on a .cpp): its flags mean
/// nothing to nvcc except the preprocessor's and the language standard.
static bool isHostCompiler(const std::string &compiler) {
  std::string name = fs::path(compiler).filename().string();
  if (name.empty() || name.find("nvcc") != std::string::npos)
    return false;
  return name.find("clang") != std::string::npos ||
         name.find("g++") != std::string::npos ||
         name.find("gcc") != std::string::npos || name == "c++" || name == "cc";
}

std::vector<std::string> projectNvccFlags(const CompileCommandInfo &c) {
  const bool hostCompiler = isHostCompiler(c.compiler);
  auto absolute = [&](const std::string &dir) {
    if (dir.empty() || fs::path(dir).is_absolute() || c.directory.empty())
      return dir;
    return (fs::path(c.directory) / dir).lexically_normal().string();
  };
  std::vector<std::string> out;
  const auto &a = c.arguments;
  for (size_t i = 0; i < a.size(); ++i) {
    const std::string &x = a[i];
    bool hasValue = i + 1 < a.size();
    // Clang's databases put `--` before the input: only files follow.
    if (x == "--")
      break;
    // Flags with a separate value that ktune replaces or that make no sense
    // for its builds.
    if (x == "-o" || x == "-MF" || x == "-MT" || x == "-MQ" ||
        x == "-gencode" || x == "-arch" || x == "-code" ||
        x == "--generate-code" || x == "--gpu-architecture" ||
        x == "--gpu-code" || x == "-ccbin" || x == "--compiler-bindir" ||
        x == "--output-file" || x == "-x" || x == "--dependency-output" ||
        x == "-odir" || x == "--output-directory") {
      ++i;
      continue;
    }
    if (x == "-c" || x == "--compile" || x == "-M" || x == "-MD" ||
        x == "-MMD" || x == "-MP" || x == "-shared" || x == "--shared" ||
        x == "-dc" || x == "--device-c" || x == "-rdc=true" ||
        startsWithAny(x, {"-gencode=", "-arch=", "-code=", "--generate-code=",
                          "--gpu-architecture=", "--gpu-code=", "-MF",
                          "-ccbin=", "--compiler-bindir=", "--output-file=",
                          "--cuda-", "--offload-arch", "-xcuda",
                          "--dependency-output=", "-odir="}) ||
        x.ends_with(".cu") || x.ends_with(".o") || x.ends_with(".cpp") ||
        x.ends_with(".cc"))
      continue;
    if ((x == "-I" || x == "-isystem") && hasValue) {
      out.push_back(x);
      out.push_back(absolute(a[++i]));
      continue;
    }
    if (x.starts_with("-I") && x.size() > 2) {
      out.push_back("-I" + absolute(x.substr(2)));
      continue;
    }
    if (hostCompiler) {
      if ((x == "-D" || x == "-U") && hasValue) {
        out.push_back(x);
        out.push_back(a[++i]);
      } else if (startsWithAny(x, {"-D", "-U", "-std="})) {
        out.push_back(x);
      }
      continue;
    }
    out.push_back(x);
  }
  return out;
}

std::vector<std::string> nvccArgv(const NvccCommand &c, NvccOutput kind,
                                  const std::string &source,
                                  const std::string &output) {
  std::vector<std::string> argv = {c.nvcc.empty() ? findNvcc() : c.nvcc};
  for (const auto &d : c.includeDirs)
    argv.push_back("-I" + d);
  for (const auto &d : c.quoteDirs)
    for (auto &f : nvccQuoteDir(d))
      argv.push_back(std::move(f));
  bool hasStd = false, hasOpt = false;
  for (const auto *flags : {&c.projectFlags, &c.extraFlags})
    for (const auto &f : *flags) {
      hasStd = hasStd || f.starts_with("-std") || f.starts_with("--std");
      hasOpt = hasOpt || f.starts_with("-O");
    }
  if (!hasStd)
    argv.push_back("-std=c++17");
  if (!hasOpt)
    argv.push_back("-O3");
  argv.insert(argv.end(), c.projectFlags.begin(), c.projectFlags.end());
  argv.insert(argv.end(), c.extraFlags.begin(), c.extraFlags.end());
  if (!c.templateDir.empty())
    argv.push_back("-I" + c.templateDir);
  // Code for this GPU, and ptxas's report.
  argv.insert(argv.end(), {"-arch=" + c.arch, "-Xptxas", "-v"});
  if (kind == NvccOutput::SharedModule)
    argv.insert(argv.end(), {"-shared", "-Xcompiler", "-fPIC"});
  else
    argv.push_back("-c");
  argv.insert(argv.end(), {"-o", output, source});
  return argv;
}

Expected<NvccRun> runNvcc(const std::vector<std::string> &argv,
                          double timeoutSeconds) {
  ProcessOptions options;
  options.timeoutSeconds = timeoutSeconds;
  auto r = runProcess(argv, "", options);
  if (!r)
    return makeError("cannot run " + argv.front() + ": " + r.error().str());
  NvccRun run;
  run.timedOut = r->timedOut;
  run.ok = !r->timedOut && r->exitCode == 0;
  run.log = r->err + r->out;
  run.seconds = r->seconds;
  return run;
}

NvrtcFlags nvrtcOptionsFromNvccFlags(const std::vector<std::string> &flags) {
  NvrtcFlags out;
  auto drop = [&](std::string f) { out.dropped.push_back(std::move(f)); };
  // nvcc's name (with or without one dash) -> NVRTC's.
  static const std::map<std::string, std::string> Renamed = {
      {"-use_fast_math", "--use_fast_math"},
      {"--use_fast_math", "--use_fast_math"},
      {"-lineinfo", "-lineinfo"},
      {"--generate-line-info", "-lineinfo"},
      {"-G", "-G"},
      {"--device-debug", "-G"},
      {"-w", "-w"},
      {"--disable-warnings", "-w"},
      {"-restrict", "--restrict"},
      {"--restrict", "--restrict"},
  };
  static const char *const ValuePrefixes[] = {
      "-fmad=",          "--fmad=",          "-ftz=",
      "--ftz=",          "-prec-div=",       "--prec-div=",
      "-prec-sqrt=",     "--prec-sqrt=",     "-maxrregcount=",
      "--maxrregcount=", "--diag-suppress=", "-diag-suppress="};
  // Flags about the host compiler, the build or the front end's C++
  // extensions NVRTC does not offer, with a separate value or without.
  static const char *const DroppedWithValue[] = {"-Xcompiler",
                                                 "--compiler-options",
                                                 "-Xlinker",
                                                 "--linker-options",
                                                 "-Xnvlink",
                                                 "-Xarchive",
                                                 "-Xfatbin",
                                                 "-ccbin",
                                                 "--compiler-bindir",
                                                 "-o",
                                                 "-MF",
                                                 "-MT",
                                                 "-MQ",
                                                 "-gencode",
                                                 "-arch",
                                                 "-code",
                                                 "-x",
                                                 "--threads",
                                                 "-t",
                                                 "-odir"};
  for (size_t i = 0; i < flags.size(); ++i) {
    const std::string &f = flags[i];
    bool hasValue = i + 1 < flags.size();
    if ((f == "-I" || f == "-isystem" || f == "--include-path") && hasValue) {
      out.options.push_back("--include-path=" + flags[++i]);
    } else if (f.starts_with("-I") && f.size() > 2) {
      out.options.push_back("--include-path=" + f.substr(2));
    } else if (f.starts_with("-isystem") && f.size() > 8) {
      out.options.push_back("--include-path=" + f.substr(8));
    } else if ((f == "-D" || f == "-U") && hasValue) {
      out.options.push_back(f + flags[++i]);
    } else if (f.starts_with("-D") || f.starts_with("-U") ||
               f.starts_with("--define-macro=") ||
               f.starts_with("--include-path=") ||
               f.starts_with("--ptxas-options=")) {
      out.options.push_back(f);
    } else if (f.starts_with("-std=") || f.starts_with("--std=")) {
      out.options.push_back("-std=" + f.substr(f.find('=') + 1));
    } else if ((f == "-Xptxas" || f == "--ptxas-options") && hasValue) {
      out.options.push_back("--ptxas-options=" + flags[++i]);
    } else if (f.starts_with("-Xptxas=")) {
      out.options.push_back("--ptxas-options=" + f.substr(8));
    } else if (auto it = Renamed.find(f); it != Renamed.end()) {
      out.options.push_back(it->second);
    } else if (std::any_of(std::begin(ValuePrefixes), std::end(ValuePrefixes),
                           [&](const char *p) { return f.starts_with(p); })) {
      std::string value = f.substr(f.find('=') + 1);
      std::string name = f.substr(0, f.find('='));
      while (name.starts_with("-"))
        name.erase(0, 1);
      out.options.push_back("--" + name + "=" + value);
    } else if (std::any_of(std::begin(DroppedWithValue),
                           std::end(DroppedWithValue),
                           [&](const char *p) { return f == p; })) {
      drop(hasValue ? f + " " + flags[++i] : f);
    } else if (f.starts_with("--expt-") || f.starts_with("-expt-") ||
               f == "--extended-lambda" || f == "-extended-lambda") {
      // The front end's C++ extensions: what compiles depends on them.
      out.unsupported.push_back(f);
    } else if (f.starts_with("-O") || f == "-g" || f == "--debug" ||
               f == "-c" || f == "--compile" || f == "-shared" ||
               f == "-fPIC" || f.starts_with("-Xcompiler=") ||
               f.starts_with("--compiler-options=") ||
               f.starts_with("-Xlinker=") || f.starts_with("--threads") ||
               f.starts_with("-gencode=") || f.starts_with("-arch=") ||
               f.starts_with("-code=") || f.starts_with("--generate-code=") ||
               f.starts_with("--gpu-architecture=") ||
               f.starts_with("--gpu-code=") || f.starts_with("-ccbin=") ||
               f.starts_with("-W") || f.starts_with("-M") ||
               f.starts_with("--keep") || f == "-keep" ||
               f.starts_with("-rdc") || f.starts_with("--relocatable") ||
               f == "-dc" || f.starts_with("--cudart") ||
               f.starts_with("-cudart") || f.starts_with("--cuda-") ||
               f.starts_with("--offload-arch") || f == "-xcuda") {
      drop(f);
    } else {
      out.options.push_back(f);
    }
  }
  return out;
}

std::vector<std::string>
nvccFlagsFromNvrtcOptions(const std::vector<std::string> &options) {
  std::vector<std::string> out;
  for (size_t i = 0; i < options.size(); ++i) {
    const std::string &o = options[i];
    if (o.starts_with("--include-path=")) {
      out.push_back("-I" + o.substr(15));
    } else if (o == "--include-path" && i + 1 < options.size()) {
      out.push_back("-I" + options[++i]);
    } else if (o.starts_with("--ptxas-options=")) {
      out.insert(out.end(), {"-Xptxas", o.substr(16)});
    } else if (o.starts_with("--gpu-architecture=") || o.starts_with("-arch") ||
               o == "--device-as-default-execution-space" ||
               o == "-default-device" || o.starts_with("--pch") ||
               o.starts_with("-pch") || o.starts_with("--dopt") ||
               o.starts_with("-dopt")) {
      continue; // ktune sets the architecture; the rest is NVRTC's own
    } else if (o.starts_with("--define-macro=")) {
      out.push_back("-D" + o.substr(15));
    } else {
      out.push_back(o);
    }
  }
  return out;
}

} // namespace ktune
