//===- PreambleCache.cpp - Precompiled preambles kept on disk -------------===//
//
// A file's leading #include block precompiled once and reused while its
// text, the compile arguments and the headers it read are unchanged
// (ParseInternal.h).
//
//===----------------------------------------------------------------------===//

#include "ParseInternal.h"

#include "ktune/Support/FileUtil.h"
#include "ktune/Support/Sha256.h"

#include "clang/Basic/DiagnosticOptions.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Frontend/CompilerInstance.h"
#include "clang/Frontend/PrecompiledPreamble.h"
#include "clang/Lex/Lexer.h"
#include "clang/Lex/PPCallbacks.h"
#include "clang/Lex/PreprocessorOptions.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/VirtualFileSystem.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <sys/stat.h>

namespace ktune::refactor {
namespace {

/// The cached files of one preamble. A preamble that reads a project
/// header is not used (`declined` records that, with its `deps`): Clang
/// cannot place a macro's expansion in such a header when it comes from a
/// precompiled preamble (Lexer::makeFileCharRange fails on loaded
/// locations), so detection would miss the header's macro sites.
struct CacheEntry {
  std::string pch, deps, declined;
};

/// Records every file the preamble reads, for validation by later runs,
/// and the project headers among them.
class DependencyRecorder : public clang::PPCallbacks {
public:
  DependencyRecorder(const clang::SourceManager &sm, const HeaderFilter *headers,
                     std::set<std::string> &out, std::set<std::string> &project)
      : SM(sm), Headers(headers), Out(out), Project(project) {}

  void FileChanged(clang::SourceLocation loc, FileChangeReason reason,
                   clang::SrcMgr::CharacteristicKind kind,
                   clang::FileID) override {
    if (reason != EnterFile)
      return;
    clang::FileID id = SM.getFileID(SM.getExpansionLoc(loc));
    if (id == SM.getMainFileID())
      return;
    auto entry = SM.getFileEntryRefForID(id);
    if (!entry)
      return;
    std::string name = entry->getName().str();
    Out.insert(name);
    if (Headers && kind == clang::SrcMgr::C_User &&
        Headers->allows(name, absolutePathIn("", name)))
      Project.insert(name);
  }

  void FileSkipped(const clang::FileEntryRef &file, const clang::Token &,
                   clang::SrcMgr::CharacteristicKind) override {
    Out.insert(file.getName().str());
  }

private:
  const clang::SourceManager &SM;
  const HeaderFilter *Headers;
  std::set<std::string> &Out, &Project;
};

class RecordingCallbacks : public clang::PreambleCallbacks {
public:
  explicit RecordingCallbacks(const HeaderFilter *headers)
      : Headers(headers), Bodies(headers) {}
  void BeforeExecute(clang::CompilerInstance &ci) override {
    SM = &ci.getSourceManager();
  }
  std::unique_ptr<clang::PPCallbacks> createPPCallbacks() override {
    return std::make_unique<DependencyRecorder>(*SM, Headers, Files,
                                                ProjectHeaders);
  }
  // Only the bodies of the headers detection follows kernels into are kept.
  bool shouldSkipFunctionBody(clang::Decl *d) override {
    return !SM || Bodies.skip(*SM, d);
  }

  std::set<std::string> Files, ProjectHeaders;

private:
  const clang::SourceManager *SM = nullptr;
  const HeaderFilter *Headers;
  BodySkipper Bodies;
};

/// Counts errors only; the main parse reports them.
class ErrorCounter : public clang::DiagnosticConsumer {};

bool statFile(const std::string &path, long long &size, long long &mtime) {
  struct stat st;
  if (::stat(path.c_str(), &st) != 0)
    return false;
  size = static_cast<long long>(st.st_size);
  mtime = static_cast<long long>(st.st_mtime);
  return true;
}

/// "size mtime path" per line; true when every file is unchanged.
bool dependenciesUnchanged(const std::string &depsPath) {
  std::ifstream in(depsPath);
  if (!in)
    return false;
  std::string line;
  bool any = false;
  while (std::getline(in, line)) {
    std::istringstream fields(line);
    long long size = 0, mtime = 0, nowSize = 0, nowMtime = 0;
    std::string path;
    if (!(fields >> size >> mtime) || !std::getline(fields >> std::ws, path))
      return false;
    if (!statFile(path, nowSize, nowMtime) || nowSize != size ||
        nowMtime != mtime)
      return false;
    any = true;
  }
  return any;
}

std::string formatDependencies(const std::set<std::string> &files) {
  std::string out;
  for (const auto &f : files) {
    long long size = 0, mtime = 0;
    if (!statFile(f, size, mtime))
      continue;
    out += std::to_string(size) + " " + std::to_string(mtime) + " " + f + "\n";
  }
  return out;
}

/// Keeps the cache from growing without bound: the newest `keep` entries.
void pruneCache(const std::string &dir, size_t keep) {
  namespace fs = std::filesystem;
  std::error_code ec;
  std::vector<std::pair<fs::file_time_type, fs::path>> entries;
  // Only finished entries (named by their key); a build in progress
  // writes a temporary "preamble-*.pch" that must not be touched.
  for (const auto &e : fs::directory_iterator(dir, ec))
    if ((e.path().extension() == ".pch" ||
         e.path().extension() == ".declined") &&
        e.path().stem().string().size() == 64)
      entries.emplace_back(e.last_write_time(ec), e.path());
  if (entries.size() <= keep)
    return;
  std::sort(entries.begin(), entries.end(),
            [](auto &a, auto &b) { return a.first > b.first; });
  for (size_t i = keep; i < entries.size(); ++i)
    for (const char *ext : {".pch", ".deps", ".declined"}) {
      fs::path file = entries[i].second;
      fs::remove(file.replace_extension(ext), ec);
    }
}

void usePrecompiled(clang::CompilerInvocation &invocation,
                    clang::PreambleBounds bounds, const std::string &pch) {
  auto &pp = invocation.getPreprocessorOpts();
  pp.PrecompiledPreambleBytes = {bounds.Size, bounds.PreambleEndsAtStartOfLine};
  // The preamble recorded a main file holding only the preamble's bytes.
  pp.DisablePCHOrModuleValidation = clang::DisableValidationForModuleKind::PCH;
  pp.UsePredefines = false; // the preamble carries them
  pp.ImplicitPCHInclude = pch;
}

} // namespace

PreambleUse
configurePreamble(clang::CompilerInvocation &invocation,
                  const llvm::MemoryBuffer &mainBuffer,
                  const std::string &cacheDir, const std::string &argsKey,
                  std::shared_ptr<clang::PCHContainerOperations> pchOps,
                  bool buildOnMiss, const HeaderFilter *headers) {
  if (cacheDir.empty())
    return PreambleUse::None;
  clang::PreambleBounds bounds = clang::Lexer::ComputePreamble(
      mainBuffer.getBuffer(), invocation.getLangOpts(), /*MaxLines=*/0);
  if (bounds.Size == 0)
    return PreambleUse::None;

  std::string preambleText =
      mainBuffer.getBuffer().substr(0, bounds.Size).str();
  // Which header bodies a preamble keeps is ktune's choice (BodySkipper,
  // ParseInternal.h): a change to it must not reuse preambles built before.
  constexpr const char *BodyPolicy =
      "bodies/4: kernels, launching host code, constructors, short integer "
      "host functions";
  std::string key =
      sha256Hex(std::string(BodyPolicy) + '\0' + argsKey + '\0' + preambleText +
                '\0' + (bounds.PreambleEndsAtStartOfLine ? "1" : "0") + '\0' +
                (headers ? headers->key() : "none"));
  CacheEntry entry{cacheDir + "/" + key + ".pch",
                   cacheDir + "/" + key + ".deps",
                   cacheDir + "/" + key + ".declined"};

  if (llvm::sys::fs::exists(entry.declined) &&
      dependenciesUnchanged(entry.deps))
    return PreambleUse::None;
  if (llvm::sys::fs::exists(entry.pch) && dependenciesUnchanged(entry.deps)) {
    usePrecompiled(invocation, bounds, entry.pch);
    return PreambleUse::Reused;
  }

  if (!buildOnMiss)
    return PreambleUse::Missed;
  if (llvm::sys::fs::create_directories(cacheDir))
    return PreambleUse::None;

  // Build into the cache directory, then move the file to its final name.
  clang::CompilerInvocation preambleInvocation(invocation);
  preambleInvocation.getFrontendOpts().SkipFunctionBodies = true;
  ErrorCounter counter;
  auto diags = clang::CompilerInstance::createDiagnostics(
      &preambleInvocation.getDiagnosticOpts(), &counter,
      /*ShouldOwnClient=*/false);
  RecordingCallbacks callbacks(headers);
  auto built = clang::PrecompiledPreamble::Build(
      preambleInvocation, &mainBuffer, bounds, *diags,
      llvm::vfs::getRealFileSystem(), pchOps, /*StoreInMemory=*/false, cacheDir,
      callbacks);
  if (!built || counter.getNumErrors() > 0 || diags->hasErrorOccurred() ||
      diags->hasFatalErrorOccurred())
    return PreambleUse::None; // the main parse reports the errors

  // The preamble's temporary file name is only visible through the options
  // it sets on an invocation.
  clang::CompilerInvocation probe(invocation);
  auto vfs = llvm::vfs::getRealFileSystem();
  auto copy = llvm::MemoryBuffer::getMemBufferCopy(
      mainBuffer.getBuffer(), mainBuffer.getBufferIdentifier());
  built->AddImplicitPreamble(probe, vfs, copy.get());
  std::string tempPch = probe.getPreprocessorOpts().ImplicitPCHInclude;
  // AddImplicitPreamble remapped the main file to `copy`: drop the mapping
  // before `copy` goes away.
  probe.getPreprocessorOpts().clearRemappedFiles();
  if (tempPch.empty())
    return PreambleUse::None;

  std::string deps = formatDependencies(callbacks.Files);
  if (!writeFileAtomically(entry.deps, deps))
    return PreambleUse::None;
  if (!callbacks.ProjectHeaders.empty()) {
    llvm::sys::fs::remove(tempPch);
    std::string names;
    for (const auto &h : callbacks.ProjectHeaders)
      names += h + "\n";
    writeFileAtomically(entry.declined, names);
    pruneCache(cacheDir, 16);
    return PreambleUse::None;
  }
  llvm::sys::fs::remove(entry.declined);
  if (llvm::sys::fs::rename(tempPch, entry.pch))
    return PreambleUse::None;
  pruneCache(cacheDir, 16);
  usePrecompiled(invocation, bounds, entry.pch);
  return PreambleUse::Built;
}

} // namespace ktune::refactor
