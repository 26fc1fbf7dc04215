//===- ChooseCompiler.cpp - NVRTC, nvcc, or nvcc launcher modules ---------===//
#include "ChooseCompiler.h"

#include "ktune/Cuda/LauncherModule.h"
#include "ktune/Cuda/NvccCompiler.h"
#include "ktune/Cuda/NvrtcCompiler.h"
#include "ktune/Support/CompilerMessage.h"
#include "ktune/Support/FileUtil.h"
#include "ktune/Support/Try.h"

#include <filesystem>

namespace ktune {

namespace fs = std::filesystem;

namespace {

std::string joinWords(const std::vector<std::string> &words) {
  std::string out;
  for (const auto &w : words)
    out += (out.empty() ? "" : " ") + w;
  return out;
}

/// The command as a user would type it (NVRTC's as its options after
/// "nvrtc"): words with shell metacharacters single-quoted.
std::string shellCommand(const std::string &program,
                         const std::vector<std::string> &args) {
  std::string out = program;
  for (const auto &a : args) {
    bool plain = !a.empty() &&
                 a.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMN"
                                     "OPQRSTUVWXYZ0123456789-_=+./,:@%") ==
                     std::string::npos;
    out += " ";
    if (plain) {
      out += a;
      continue;
    }
    out += "'";
    for (char ch : a)
      out += ch == '\'' ? std::string("'\\''") : std::string(1, ch);
    out += "'";
  }
  return out;
}

Expected<std::string> templateSource(const CudaTuneOptions &o) {
  if (!o.templateSource.empty())
    return o.templateSource;
  if (o.templatePath.empty())
    return makeError("no template source and no template path");
  return readFile(o.templatePath);
}

std::string templateDir(const CudaTuneOptions &o) {
  if (o.templatePath.empty())
    return ".";
  fs::path dir = fs::path(o.templatePath).parent_path();
  return dir.empty() ? "." : dir.string();
}

/// The manifest's include_dirs (the rewritten headers: first on every
/// path), made absolute from the manifest's directory, then the caller's.
std::vector<std::string> includeDirs(const CudaTuneOptions &o) {
  std::vector<std::string> out;
  fs::path base = fs::absolute(templateDir(o));
  for (const auto &d : o.manifest.includeDirs)
    out.push_back(
        fs::path(d).is_absolute() ? d : (base / d).lexically_normal().string());
  out.insert(out.end(), o.includeDirs.begin(), o.includeDirs.end());
  return out;
}

/// The manifest's quote_dirs, made absolute from the manifest's directory.
static std::vector<std::string> quoteDirs(const CudaTuneOptions &o) {
  std::vector<std::string> out;
  fs::path base = fs::absolute(templateDir(o));
  for (const auto &d : o.manifest.quoteDirs)
    out.push_back(
        fs::path(d).is_absolute() ? d : (base / d).lexically_normal().string());
  return out;
}

/// The project's flags in nvcc's spelling: the command given to the tool,
/// else the manifest's.
std::vector<std::string> projectFlags(const CudaTuneOptions &o) {
  if (o.projectCommand)
    return projectNvccFlags(*o.projectCommand);
  if (o.manifest.compile)
    return projectNvccFlags(*o.manifest.compile);
  return {};
}

struct Candidate {
  std::unique_ptr<KernelCompiler> compiler;
  CompilerReport report;
};

/// The project's flags and the spec's, as NVRTC takes them.
NvrtcFlags nvrtcFlags(const CudaTuneOptions &o) {
  std::vector<std::string> flags = projectFlags(o);
  flags.insert(flags.end(), o.spec.compileOptions.begin(),
               o.spec.compileOptions.end());
  return nvrtcOptionsFromNvccFlags(flags);
}

Expected<Candidate> nvrtcCandidate(const CudaTuneOptions &o,
                                   const std::string &source,
                                   const std::string &arch,
                                   const NvrtcFlags &mapped) {
  NvrtcSettings s;
  s.arch = arch;
  s.includePaths = includeDirs(o);
  s.includePaths.insert(s.includePaths.begin() + o.manifest.includeDirs.size(),
                        templateDir(o));
  // NVRTC reads no system headers: quoted directories are include paths.
  for (auto &d : quoteDirs(o))
    s.includePaths.push_back(std::move(d));
  s.extraOptions = mapped.options;
  for (const auto &d : o.nvrtcIncludeDirs)
    s.extraOptions.push_back("--include-path=" + d);
  s.cacheDir = o.cacheDir;
  s.jobs = o.jobs;
  std::string name = o.templatePath.empty()
                         ? "kernel.tpl.cu"
                         : fs::path(o.templatePath).filename().string();
  KTUNE_TRY_ASSIGN(auto compiler, NvrtcCompiler::create(source, name, s));
  Candidate c;
  c.report.backend = "nvrtc";
  c.report.options = compiler->options(0);
  c.report.command = shellCommand("nvrtc", c.report.options);
  c.report.dropped = mapped.dropped;
  c.compiler = std::move(compiler);
  return c;
}

NvccCommand nvccCommand(const CudaTuneOptions &o, const std::string &arch) {
  NvccCommand c;
  c.arch = arch.starts_with("compute_") ? "sm_" + arch.substr(8) : arch;
  c.includeDirs = includeDirs(o);
  c.quoteDirs = quoteDirs(o);
  c.projectFlags = projectFlags(o);
  c.extraFlags = nvccFlagsFromNvrtcOptions(o.spec.compileOptions);
  return c;
}

Expected<Candidate> nvccCandidate(const CudaTuneOptions &o,
                                  const std::string &source,
                                  const std::string &arch) {
  NvccSettings s;
  s.command = nvccCommand(o, arch);
  s.templatePath = o.templatePath;
  s.cacheDir = o.cacheDir;
  s.jobs = o.jobs;
  KTUNE_TRY_ASSIGN(auto compiler, NvccCompiler::create(source, s));
  Candidate c;
  c.report.backend = "nvcc";
  c.report.options = compiler->recordedOptions();
  c.report.command = shellCommand(
      s.command.nvcc.empty() ? findNvcc() : s.command.nvcc, c.report.options);
  c.compiler = std::move(compiler);
  return c;
}

/// Launcher mode: nvcc builds each configuration of the launcher into a
/// module, with the project's flags and the rewritten headers first.
Expected<Candidate> launcherCandidate(const CudaTuneOptions &o,
                                      const std::string &source,
                                      const std::string &arch) {
  if (!o.spec.maxRegisters.empty())
    return makeError("a register cap cannot be applied through a launcher: "
                     "drop \"max_registers\" in launcher mode",
                     "max_registers");
  LauncherModuleSettings s;
  static_cast<NvccCommand &>(s) = nvccCommand(o, arch);
  s.templatePath = fs::absolute(o.templatePath).string();
  s.templateSource = source;
  s.cacheDir = o.cacheDir;
  s.jobs = o.jobs;
  if (const ManifestLauncher *l = o.manifest.findLauncher(o.spec.kernel);
      l && !l->kernels.empty())
    s.kernelName = l->kernels.front();
  KTUNE_TRY_ASSIGN(auto compiler, LauncherCompiler::create(std::move(s)));
  Candidate c;
  c.report.backend = "nvcc";
  c.report.reason = "launcher mode: nvcc builds the launcher into a module";
  c.report.options = compiler->recordedOptions();
  c.report.command = shellCommand(findNvcc(), c.report.options);
  c.compiler = std::move(compiler);
  return c;
}

/// A compiler message's place, the template's path where NVRTC wrote its
/// file name alone.
std::string placeOf(const CudaTuneOptions &o, const CompilerMessage &m) {
  std::string file = m.where.substr(0, m.where.rfind(':'));
  if (!o.templatePath.empty() &&
      file == fs::path(o.templatePath).filename().string())
    return o.templatePath + m.where.substr(file.size());
  return m.where;
}

/// "the default configuration (k<...>) does not compile with nvcc: ...",
/// at the compiler's first file:line.
Error defaultDoesNotCompile(const CudaTuneOptions &o, const std::string &name,
                            const std::string &backend, const Error &why,
                            const std::string &also) {
  std::string text = why.message;
  if (text.starts_with("compile error: "))
    text = text.substr(15);
  Error e;
  if (auto first = firstCompilerError(text)) {
    e.where = placeOf(o, *first);
    text = first->message;
  } else if (auto nl = text.find('\n'); nl != std::string::npos) {
    text = text.substr(0, nl);
  }
  e.message = "the default configuration (" + name +
              ") does not compile with " + backend + ": " + text + also;
  return e;
}

} // namespace

Expected<ChosenCompiler> chooseCompiler(const CudaTuneOptions &o,
                                        const KernelBinding &binding,
                                        const std::string &arch) {
  KTUNE_TRY_ASSIGN(auto source, templateSource(o));
  KTUNE_TRY_ASSIGN(auto name, binding.nameExpression(binding.defaultConfig()));
  const Instantiation reference{name, 0};
  std::string forcedBy =
      o.compilerChoiceFrom.empty() ? "the spec" : o.compilerChoiceFrom;

  Candidate chosen;
  if (o.spec.launcherMode) {
    KTUNE_TRY_ASSIGN(chosen, launcherCandidate(o, source, arch));
  } else if (o.compiler == CompilerChoice::Nvcc) {
    KTUNE_TRY_ASSIGN(chosen, nvccCandidate(o, source, arch));
    chosen.report.reason = "nvcc, as " + forcedBy + " asks";
  } else if (NvrtcFlags mapped = nvrtcFlags(o); !mapped.unsupported.empty()) {
    // Dropping such a flag would tune another program than the user's.
    std::string flags = joinWords(mapped.unsupported);
    if (o.compiler == CompilerChoice::Nvrtc)
      return makeError("NVRTC cannot honour " + flags + " (" + forcedBy +
                       " asks for NVRTC): let ktune choose, or ask for nvcc");
    KTUNE_TRY_ASSIGN(chosen, nvccCandidate(o, source, arch));
    chosen.report.reason =
        "NVRTC cannot honour " + flags + ": nvcc builds with it";
  } else {
    KTUNE_TRY_ASSIGN(chosen, nvrtcCandidate(o, source, arch, mapped));
    if (o.compiler == CompilerChoice::Nvrtc) {
      chosen.report.reason = "NVRTC, as " + forcedBy + " asks";
    } else if (auto ok = chosen.compiler->get(reference); ok) {
      chosen.report.reason = "NVRTC compiles the default configuration";
    } else {
      // The project's compiler, with its flags.
      std::string why = ok.error().message;
      if (why.starts_with("compile error: "))
        why = why.substr(15);
      if (auto first = firstCompilerError(why))
        why = placeOf(o, *first) + ": " + first->message;
      else
        why = why.substr(0, why.find('\n'));
      auto nvcc = nvccCandidate(o, source, arch);
      if (!nvcc)
        return makeError("NVRTC cannot compile the default configuration (" +
                         why +
                         ") and nvcc cannot be used: " + nvcc.error().str());
      chosen = std::move(*nvcc);
      chosen.report.reason =
          "NVRTC cannot compile the default configuration: " + why;
    }
  }
  auto compiled = chosen.compiler->get(reference);
  if (!compiled)
    return std::unexpected(
        defaultDoesNotCompile(o, name, chosen.report.backend, compiled.error(),
                              chosen.report.reason.starts_with("NVRTC cannot")
                                  ? " (NVRTC does not compile it either)"
                                  : ""));
  return ChosenCompiler{std::move(chosen.compiler), std::move(chosen.report)};
}

} // namespace ktune
