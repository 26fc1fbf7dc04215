//===- CudaParser.cpp - Parsing a CUDA file on both sides -----------------===//
//
// A file is parsed once for the host and once for the device (in
// parallel), each side with its own Clang command line
// (ClangCommandLine.cpp), a cached preamble when there is one
// (PreambleCache.cpp), header bodies skipped (BodySkipper) and errors in
// code that does not matter recovered from (ParseRecovery.cpp). Each side's
// AST is handed to the caller while it is alive.
//
//===----------------------------------------------------------------------===//

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
#include "llvm/Support/VirtualFileSystem.h"
#include "llvm/Support/raw_ostream.h"

#include <chrono>
#include <thread>

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
    // A header given as the input that its own headers include again
    // (BGHT's iht.hpp, included back by detail/iht_impl.cuh): nvcc's host
    // compiler honours its `#pragma once`, Clang only in a header.
    if (inputs.size() == 1 && inputs[0].isFile())
      if (auto text = llvm::MemoryBuffer::getFile(inputs[0].getFile());
          text && (*text)->getBuffer().contains("#pragma once"))
        invocation->getLangOpts().IsHeaderFile = true;
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

/// The real file system under the command line's -ivfsoverlay files
/// (ClangCommandLine.cpp), which a tool's own FileManager does not read.
static llvm::IntrusiveRefCntPtr<llvm::vfs::FileSystem>
fileSystemOf(const std::vector<std::string> &cl) {
  llvm::IntrusiveRefCntPtr<llvm::vfs::FileSystem> fs =
      llvm::vfs::getRealFileSystem();
  for (size_t i = 0; i + 1 < cl.size(); ++i)
    if (cl[i] == "-ivfsoverlay")
      if (auto yaml = llvm::MemoryBuffer::getFile(cl[i + 1]))
        if (auto overlay = llvm::vfs::getVFSFromYAML(std::move(*yaml), nullptr,
                                                     cl[i + 1], nullptr, fs))
          fs = overlay.release();
  return fs;
}

/// The main file and the project's headers with nvcc's spellings Clang
/// does not take rewritten in place (nvccSpellings, offsets kept); every
/// other file as it is. The main file is the same file under any path (a
/// header given as the input that its own headers include again, behind
/// `#pragma once`).
class NvccSyntaxFileSystem : public llvm::vfs::ProxyFileSystem {
public:
  NvccSyntaxFileSystem(llvm::IntrusiveRefCntPtr<llvm::vfs::FileSystem> fs,
                       std::shared_ptr<const HeaderFilter> headers,
                       const std::string &mainFile)
      : ProxyFileSystem(std::move(fs)), Headers(std::move(headers)) {
    if (auto status = ProxyFileSystem::status(mainFile))
      Main = status->getUniqueID();
  }

  llvm::ErrorOr<std::unique_ptr<llvm::vfs::File>>
  openFileForRead(const llvm::Twine &path) override {
    auto file = ProxyFileSystem::openFileForRead(path);
    std::string name = path.str();
    if (!file)
      return file;
    auto status = (*file)->status();
    bool main = status && Main && status->getUniqueID() == *Main;
    if (!main && (!Headers || !Headers->allows(name, absolutePathIn("", name))))
      return file;
    auto buffer = (*file)->getBuffer(name);
    if (!status || !buffer)
      return file;
    std::optional<std::string> text = nvccSpellings((*buffer)->getBuffer());
    if (!text)
      return ProxyFileSystem::openFileForRead(path);
    return std::unique_ptr<llvm::vfs::File>(
        new TextFile(std::move(*status), std::move(*text)));
  }

private:
  class TextFile : public llvm::vfs::File {
  public:
    TextFile(llvm::vfs::Status status, std::string text)
        : Status(std::move(status)), Text(std::move(text)) {}
    llvm::ErrorOr<llvm::vfs::Status> status() override { return Status; }
    llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>>
    getBuffer(const llvm::Twine &name, int64_t, bool, bool) override {
      return llvm::MemoryBuffer::getMemBufferCopy(Text, name);
    }
    std::error_code close() override { return {}; }

  private:
    llvm::vfs::Status Status;
    std::string Text;
  };

  std::shared_ptr<const HeaderFilter> Headers;
  std::optional<llvm::sys::fs::UniqueID> Main;
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
  // What nvcc reads and Clang does not (spaced launch chevrons, `__host__
  // __device__` specialisations of `__device__` templates) is rewritten in a
  // copy of the same length.
  std::optional<std::string> mainText;
  if (auto buffer = llvm::MemoryBuffer::getFile(command.file))
    mainText = nvccSpellings((*buffer)->getBuffer());

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
        clang::FileSystemOptions(),
        llvm::makeIntrusiveRefCnt<NvccSyntaxFileSystem>(
            fileSystemOf(*cl), options.headers, std::string(absFile)));
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
          "they call and their launchers, in device code's bodies on the "
          "host side or host code's on the device side, redeclarations of "
          "Clang's builtins, or what nvcc "
          "does not require (a `template` keyword) or takes (default "
          "arguments added out of a class, a specialization for the "
          "device of a host and device template): carrying on from "
          "Clang's recovered AST]");
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
