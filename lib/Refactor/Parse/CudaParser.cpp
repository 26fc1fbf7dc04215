#include "ktune/Refactor/CudaParser.h"
#include "ktune/Refactor/CompileCommand.h"

#include "ParseInternal.h"

#include "clang/AST/ASTConsumer.h"
#include "clang/AST/ASTContext.h"
#include "clang/Basic/DiagnosticOptions.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Basic/Version.h"
#include "clang/Frontend/CompilerInstance.h"
#include "clang/Frontend/FrontendAction.h"
#include "clang/Frontend/TextDiagnosticPrinter.h"
#include "clang/Lex/PreprocessorOptions.h"
#include "clang/Tooling/Tooling.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/raw_ostream.h"

#include <chrono>
#include <cstdlib>
#include <thread>

#ifndef KTUNE_CLANG_RESOURCE_DIR
#define KTUNE_CLANG_RESOURCE_DIR ""
#endif
#ifndef KTUNE_SOURCE_SHARE_DIR
#define KTUNE_SOURCE_SHARE_DIR ""
#endif
#ifndef KTUNE_DEFAULT_CUDA_PATH
#define KTUNE_DEFAULT_CUDA_PATH ""
#endif

namespace ktune::refactor {

char ParseError::ID = 0;

void ParseError::log(llvm::raw_ostream &os) const {
  os << Diagnostics;
  if (!Diagnostics.empty() && Diagnostics.back() != '\n')
    os << "\n";
  os << Summary;
}

std::error_code ParseError::convertToErrorCode() const {
  return llvm::inconvertibleErrorCode();
}

std::string_view sideName(CudaSide side) {
  return side == CudaSide::Host ? "host" : "device";
}

static bool isDirectory(const std::string &p) {
  return !p.empty() && llvm::sys::fs::is_directory(p);
}

static bool isToolkit(const std::string &p) {
  return isDirectory(p) && llvm::sys::fs::exists(p + "/include/cuda_runtime.h");
}

std::optional<std::string> findCudaToolkit(const std::string &explicitPath) {
  if (!explicitPath.empty())
    return isToolkit(explicitPath) ? std::optional(explicitPath) : std::nullopt;
  for (const char *var : {"CUDA_PATH", "CUDA_HOME"})
    if (const char *v = std::getenv(var); v && isToolkit(v))
      return std::string(v);
  for (std::string p :
       {std::string(KTUNE_DEFAULT_CUDA_PATH), std::string("/usr/local/cuda")})
    if (isToolkit(p))
      return p;
  if (auto nvcc = llvm::sys::findProgramByName("nvcc")) {
    llvm::SmallString<256> real;
    if (!llvm::sys::fs::real_path(*nvcc, real)) {
      std::string root =
          llvm::sys::path::parent_path(llvm::sys::path::parent_path(real))
              .str();
      if (isToolkit(root))
        return root;
    }
  }
  return std::nullopt;
}

static int anchorForExecutablePath;

std::string findShareDir() {
  if (const char *v = std::getenv("KTUNE_SHARE_DIR"); v && isDirectory(v))
    return v;
  std::string exe = llvm::sys::fs::getMainExecutable(
      "ktune-refactor", static_cast<void *>(&anchorForExecutablePath));
  if (!exe.empty()) {
    llvm::SmallString<256> p(llvm::sys::path::parent_path(exe));
    llvm::sys::path::append(p, "..", "share", "ktune");
    llvm::sys::path::remove_dots(p, /*remove_dot_dot=*/true);
    if (isDirectory(std::string(p) + "/cuda-compat"))
      return std::string(p);
    // A build directory inside the source tree: <src>/build/bin/tool.
    p = llvm::sys::path::parent_path(exe);
    llvm::sys::path::append(p, "..", "..", "share", "ktune");
    llvm::sys::path::remove_dots(p, /*remove_dot_dot=*/true);
    if (isDirectory(std::string(p) + "/cuda-compat"))
      return std::string(p);
  }
  return KTUNE_SOURCE_SHARE_DIR;
}

std::string defaultCacheDir() {
  if (const char *v = std::getenv("KTUNE_CACHE_DIR"); v && *v)
    return std::string(v) + "/preamble";
  if (const char *v = std::getenv("XDG_CACHE_HOME"); v && *v)
    return std::string(v) + "/ktune/preamble";
  if (const char *v = std::getenv("HOME"); v && *v)
    return std::string(v) + "/.cache/ktune/preamble";
  return {};
}

static std::string resourceDir(const ParserOptions &options) {
  if (!options.resourceDir.empty())
    return options.resourceDir;
  // A binary carried to a machine without LLVM (KTUNE_STATIC_CLANG) finds
  // clang's builtin headers where this says.
  if (const char *v = std::getenv("KTUNE_CLANG_RESOURCE_DIR"); v && *v)
    return v;
  // Headers packaged beside the tool (scripts/package-gpu.sh) come before
  // the build machine's Clang: they are the ones the binary was made with.
  std::string exe = llvm::sys::fs::getMainExecutable(
      "ktune-refactor", static_cast<void *>(&anchorForExecutablePath));
  llvm::SmallString<256> p(llvm::sys::path::parent_path(exe));
  llvm::sys::path::append(p, "..", "lib", "clang",
                          std::to_string(CLANG_VERSION_MAJOR));
  llvm::sys::path::remove_dots(p, /*remove_dot_dot=*/true);
  if (isDirectory(std::string(p) + "/include") ||
      !isDirectory(KTUNE_CLANG_RESOURCE_DIR))
    return std::string(p);
  return KTUNE_CLANG_RESOURCE_DIR;
}

/// Arguments given after `--` go to Clang as they are, except those that
/// would change what kind of job runs.
static std::vector<std::string>
filterUserArgs(const std::vector<std::string> &args) {
  std::vector<std::string> out;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string &a = args[i];
    if (a == "-o" || a == "-x") {
      ++i;
      continue;
    }
    if (a == "-c" || a == "-S" || a == "-E" || a == "-fsyntax-only" ||
        a == "--cuda-host-only" || a == "--cuda-device-only" ||
        (a.rfind("-o", 0) == 0 && a.size() > 2))
      continue;
    out.push_back(a);
  }
  return out;
}

static bool hasPrefixArg(const std::vector<std::string> &args,
                         std::string_view prefix) {
  for (const auto &a : args)
    if (a.rfind(prefix, 0) == 0)
      return true;
  return false;
}

llvm::Expected<std::vector<std::string>>
clangCommandLine(const CompileCommand &command, const ParserOptions &options,
                 CudaSide side) {
  TranslatedFlags flags =
      command.fromDatabase
          ? translateCompileFlags(command.args, command.directory)
          : translateCompileFlags(filterUserArgs(command.args),
                                  command.directory, /*keepUnknown=*/true);
  const std::vector<std::string> &user = flags.args;
  std::string share =
      options.shareDir.empty() ? findShareDir() : options.shareDir;
  if (!isDirectory(share + "/cuda-compat"))
    return llvm::createStringError(
        "cannot find ktune's share/ktune/cuda-compat directory (looked in '" +
        share + "'); set KTUNE_SHARE_DIR");

  std::vector<std::string> cl{"clang-tool", "-x", "cuda"};
  if (!hasPrefixArg(user, "-std="))
    cl.push_back("-std=c++17");
  cl.push_back("-fsyntax-only");
  cl.push_back("-Wno-unknown-cuda-version");
  // A header given as the input file (its #pragma once is no mistake).
  cl.push_back("-Wno-pragma-once-outside-header");
  cl.push_back("-resource-dir");
  cl.push_back(resourceDir(options));

  bool userChoseToolkit =
      hasPrefixArg(user, "--cuda-path") || hasPrefixArg(user, "-nocudainc");
  if (!userChoseToolkit) {
    std::optional<std::string> cuda;
    if (!options.noCudaToolkit) {
      cuda = findCudaToolkit(options.cudaPath);
      if (!cuda && !options.cudaPath.empty())
        return llvm::createStringError("no CUDA toolkit at --cuda-path '" +
                                       options.cudaPath + "'");
    }
    if (cuda) {
      cl.push_back("--cuda-path=" + *cuda);
      cl.push_back("-isystem");
      cl.push_back(share + "/cuda-compat");
      if (isDirectory(*cuda + "/include/cccl")) {
        cl.push_back("-isystem");
        cl.push_back(*cuda + "/include/cccl");
      }
    } else {
      cl.push_back("-nocudainc");
      cl.push_back("-nocudalib");
      cl.push_back("-include");
      cl.push_back(share + "/cuda-shim/ktune_cuda_shim.h");
    }
    // What nvcc's implicit includes declare and Clang's CUDA headers do
    // not; headers nvcc's host compiler finds on its own path (omp.h) are
    // looked for last.
    cl.push_back("-include");
    cl.push_back(share + "/cuda-compat/ktune_clang_cuda_intrinsics.h");
    cl.push_back("-include");
    cl.push_back(share + "/cuda-compat/ktune_nvcc_implicit.h");
    cl.push_back("-idirafter");
    cl.push_back(share + "/cuda-compat/host-fallback");
  }
  if (side == CudaSide::Host) {
    cl.push_back("--cuda-host-only");
  } else {
    cl.push_back("--cuda-device-only");
    // nvcc preprocesses the device side with the host compiler's -fopenmp
    // too; Clang's device side ignores it: the macro, as the host side has
    // it.
    if (flags.openmp)
      cl.push_back("-D_OPENMP=202011");
    cl.push_back("--cuda-gpu-arch=" +
                 chooseGpuArch(flags.gpuArchs, options.gpuArch)
                     .value_or(options.gpuArch));
  }
  cl.insert(cl.end(), user.begin(), user.end());
  cl.push_back(command.file);
  return cl;
}

namespace {

/// What the errors of one side's parse came to.
struct Recovery {
  bool recovered = false; // errors only in unrelated host code
  std::string firstError, blocking;
};

/// Skips the bodies of functions outside the main file and the headers
/// detection may follow kernels into (nothing else is analysed) and hands
/// the finished AST to the callback; after errors only when they all lie in
/// code that does not matter (ParseRecovery.cpp).
class SideConsumer : public clang::ASTConsumer {
public:
  SideConsumer(clang::SourceManager &sm, const SideCallback &onAST,
               CudaSide side, bool skipHeaderBodies,
               const HeaderFilter *headers, const ErrorRecorder *errors,
               Recovery &recovery)
      : SM(sm), OnAST(onAST), Side(side), SkipHeaderBodies(skipHeaderBodies),
        Bodies(headers), Errors(errors), Outcome(recovery) {}

  bool shouldSkipFunctionBody(clang::Decl *d) override {
    return SkipHeaderBodies && Bodies.skip(SM, d);
  }

  void HandleTranslationUnit(clang::ASTContext &ctx) override {
    if (ctx.getDiagnostics().hasErrorOccurred()) {
      if (!Errors || Errors->Errors.empty())
        return;
      RecoveryVerdict verdict = judgeErrors(ctx, Errors->Errors);
      Outcome.firstError = Errors->Errors.front().text;
      Outcome.blocking = verdict.blocking;
      if (!verdict.recoverable)
        return;
      Outcome.recovered = true;
    }
    OnAST(ctx, Side);
  }

private:
  clang::SourceManager &SM;
  const SideCallback &OnAST;
  CudaSide Side;
  bool SkipHeaderBodies;
  BodySkipper Bodies;
  const ErrorRecorder *Errors;
  Recovery &Outcome;
};

class SideFrontendAction : public clang::ASTFrontendAction {
public:
  SideFrontendAction(const SideCallback &onAST, CudaSide side, bool skip,
                     const HeaderFilter *headers, const ErrorRecorder *errors,
                     Recovery &recovery)
      : OnAST(onAST), Side(side), Skip(skip), Headers(headers), Errors(errors),
        Outcome(recovery) {}
  std::unique_ptr<clang::ASTConsumer>
  CreateASTConsumer(clang::CompilerInstance &ci, llvm::StringRef) override {
    return std::make_unique<SideConsumer>(ci.getSourceManager(), OnAST, Side,
                                          Skip, Headers, Errors, Outcome);
  }

private:
  const SideCallback &OnAST;
  CudaSide Side;
  bool Skip;
  const HeaderFilter *Headers;
  const ErrorRecorder *Errors;
  Recovery &Outcome;
};

/// Runs one side: sets up the preamble, then parses.
class SideToolAction : public clang::tooling::ToolAction {
public:
  SideToolAction(const SideCallback &onAST, CudaSide side,
                 const ParserOptions &options, std::string argsKey,
                 const ErrorRecorder *errors, const std::string *mainText)
      : OnAST(onAST), Side(side), Options(options), ArgsKey(std::move(argsKey)),
        Errors(errors), MainText(mainText) {}

  bool runInvocation(std::shared_ptr<clang::CompilerInvocation> invocation,
                     clang::FileManager *files,
                     std::shared_ptr<clang::PCHContainerOperations> pchOps,
                     clang::DiagnosticConsumer *diags) override {
    const auto &inputs = invocation->getFrontendOpts().Inputs;
    if (inputs.size() == 1 && inputs[0].isFile()) {
      auto buffer =
          MainText
              ? llvm::MemoryBuffer::getMemBuffer(*MainText, inputs[0].getFile())
              : llvm::MemoryBuffer::getFile(inputs[0].getFile());
      if (buffer)
        Preamble = configurePreamble(
            *invocation, **buffer, Options.cacheDir, ArgsKey, pchOps,
            Options.buildPreambleOnMiss || OnlyPreamble, Options.headers.get());
      if (OnlyPreamble)
        return true;
    }
    if (MainText && inputs.size() == 1 && inputs[0].isFile())
      invocation->getPreprocessorOpts().addRemappedFile(
          inputs[0].getFile(),
          llvm::MemoryBuffer::getMemBufferCopy(*MainText, inputs[0].getFile())
              .release());
    invocation->getFrontendOpts().SkipFunctionBodies = Options.skipHeaderBodies;
    // Every error is judged (ParseRecovery.cpp): none may go unreported.
    invocation->getDiagnosticOpts().ErrorLimit = 0;
    clang::CompilerInstance compiler(std::move(pchOps));
    compiler.setInvocation(std::move(invocation));
    compiler.setFileManager(files);
    compiler.createDiagnostics(diags, /*ShouldOwnClient=*/false);
    if (!compiler.hasDiagnostics())
      return false;
    compiler.createSourceManager(*files);
    // The summary Clang prints ("1 error generated") is ours to give.
    compiler.setVerboseOutputStream(llvm::nulls());
    SideFrontendAction action(OnAST, Side, Options.skipHeaderBodies,
                              Options.headers.get(), Errors, Outcome);
    bool ok = compiler.ExecuteAction(action);
    files->clearStatCache();
    return ok;
  }

  PreambleUse Preamble = PreambleUse::None;
  bool OnlyPreamble = false; // build the preamble, parse nothing
  Recovery Outcome;

private:
  const SideCallback &OnAST;
  CudaSide Side;
  const ParserOptions &Options;
  std::string ArgsKey;
  const ErrorRecorder *Errors;
  const std::string *MainText; // the main file as parsed, when not as read
};

struct SideResult {
  bool ok = false;
  unsigned errors = 0;
  std::string diagnostics;
  std::string setupError;
  Recovery recovery;
  PreambleUse preamble = PreambleUse::None;
  double seconds = 0;
};

SideResult runSide(const CompileCommand &command, const ParserOptions &options,
                   const SideCallback &onAST, CudaSide side,
                   bool onlyPreamble = false) {
  SideResult result;
  auto start = std::chrono::steady_clock::now();
  auto cl = clangCommandLine(command, options, side);
  if (!cl) {
    result.setupError = llvm::toString(cl.takeError());
    return result;
  }
  std::string key = clang::getClangFullVersion();
  for (const auto &a : *cl)
    key += '\x1f' + a;
  llvm::SmallString<256> absFile(command.file);
  llvm::sys::fs::make_absolute(absFile);
  key += '\x1f' + std::string(absFile);
  // Spaced launch chevrons (`k << < g, b >> > (x)`), which nvcc reads and
  // Clang does not, are joined in a copy of the same length.
  std::optional<std::string> mainText;
  if (auto buffer = llvm::MemoryBuffer::getFile(command.file))
    mainText = joinSpacedLaunchChevrons((*buffer)->getBuffer());

  auto attempt = [&](const ParserOptions &opts) {
    std::string text;
    llvm::raw_string_ostream os(text);
    // The printer keeps a reference-counted pointer to its options.
    llvm::IntrusiveRefCntPtr<clang::DiagnosticOptions> diagOpts(
        new clang::DiagnosticOptions());
    diagOpts->ShowColors = false;
    clang::TextDiagnosticPrinter printer(os, diagOpts.get());
    ErrorRecorder recorder(printer);
    auto files = llvm::makeIntrusiveRefCnt<clang::FileManager>(
        clang::FileSystemOptions());
    SideToolAction action(onAST, side, opts, key, &recorder,
                          mainText ? &*mainText : nullptr);
    action.OnlyPreamble = onlyPreamble;
    clang::tooling::ToolInvocation invocation(
        *cl, &action, files.get(),
        std::make_shared<clang::PCHContainerOperations>());
    invocation.setDiagnosticConsumer(&recorder);
    result.ok = invocation.run();
    result.errors = recorder.getNumErrors();
    result.preamble = action.Preamble;
    result.recovery = action.Outcome;
    os.flush();
    result.diagnostics = text;
  };
  attempt(options);
  auto mentionsPreamble = [](const std::string &d) {
    return d.find("precompiled") != std::string::npos ||
           d.find("PCH") != std::string::npos ||
           d.find("AST file") != std::string::npos;
  };
  if ((!result.ok || result.errors) && result.preamble != PreambleUse::None &&
      mentionsPreamble(result.diagnostics)) {
    ParserOptions plain = options;
    plain.cacheDir.clear();
    attempt(plain);
  }
  result.seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();
  return result;
}

} // namespace

llvm::Error parseBothSides(const CompileCommand &command,
                           const ParserOptions &options,
                           const SideCallback &onAST, ParseStats *stats) {
  if (!llvm::sys::fs::exists(command.file))
    return llvm::createStringError(command.file + ": no such file");
  SideResult host, device;
  std::thread hostThread(
      [&] { host = runSide(command, options, onAST, CudaSide::Host); });
  device = runSide(command, options, onAST, CudaSide::Device);
  hostThread.join();

  if (stats) {
    stats->seconds[0] = host.seconds;
    stats->seconds[1] = device.seconds;
    stats->preambleReused[0] = host.preamble == PreambleUse::Reused;
    stats->preambleReused[1] = device.preamble == PreambleUse::Reused;
    stats->preambleMissed[0] = host.preamble == PreambleUse::Missed;
    stats->preambleMissed[1] = device.preamble == PreambleUse::Missed;
  }
  for (SideResult *r : {&host, &device})
    if (!r->setupError.empty())
      return llvm::createStringError(r->setupError);
  // Report the host side's diagnostics first; the device side usually
  // repeats them, so it is shown only when the host side compiled.
  for (auto [r, side] : {std::pair{&host, CudaSide::Host},
                         std::pair{&device, CudaSide::Device}}) {
    if ((r->ok && r->errors == 0) || r->recovery.recovered)
      continue;
    std::string summary = command.file + ": cannot parse (" +
                          std::to_string(r->errors) + " error" +
                          (r->errors == 1 ? "" : "s") + " on the " +
                          std::string(sideName(side)) + " side)";
    if (!r->recovery.blocking.empty())
      summary += ": " + r->recovery.blocking;
    return llvm::make_error<ParseError>(r->diagnostics, summary);
  }
  // Errors only in host code unrelated to the kernels: say so once.
  for (auto [r, side] : {std::pair{&host, CudaSide::Host},
                         std::pair{&device, CudaSide::Device}}) {
    if (!r->recovery.recovered)
      continue;
    if (stats)
      stats->notes.push_back(
          r->recovery.firstError + " [" + std::to_string(r->errors) + " error" +
          (r->errors == 1 ? "" : "s") + " on the " +
          std::string(sideName(side)) +
          " side, all in host code outside the kernels, the functions "
          "they call and their launchers: carrying on from Clang's "
          "recovered AST]");
    break;
  }
  return llvm::Error::success();
}

llvm::Error buildPreambles(const CompileCommand &command,
                           const ParserOptions &options) {
  if (options.cacheDir.empty())
    return llvm::Error::success();
  SideCallback none = [](clang::ASTContext &, CudaSide) {};
  SideResult host, device;
  std::thread hostThread(
      [&] { host = runSide(command, options, none, CudaSide::Host, true); });
  device = runSide(command, options, none, CudaSide::Device, true);
  hostThread.join();
  for (SideResult *r : {&host, &device})
    if (!r->setupError.empty())
      return llvm::createStringError(r->setupError);
  return llvm::Error::success();
}

} // namespace ktune::refactor
