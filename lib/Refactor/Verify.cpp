//===- Verify.cpp - Compile the original and the template, compare PTX ----===//

#include "ktune/Refactor/Verify.h"

#include "PtxCompare.h"

#include "ktune/Plan/CompileDatabase.h"
#include "ktune/Refactor/CompileCommand.h"
#include "ktune/Support/FileUtil.h"
#include "ktune/Support/Process.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"

#include <cstdlib>

namespace ktune::refactor {

namespace fs = llvm::sys::fs;
namespace path = llvm::sys::path;

std::optional<std::string> findNvcc(const std::string &cudaPath) {
  std::vector<std::string> roots = {cudaPath};
  for (const char *var : {"CUDA_PATH", "CUDA_HOME"})
    if (const char *v = std::getenv(var))
      roots.push_back(v);
  for (const std::string &root : roots) {
    llvm::SmallString<256> nvcc(root);
    path::append(nvcc, "bin", "nvcc");
    if (!root.empty() && fs::can_execute(nvcc))
      return std::string(nvcc);
  }
  if (auto onPath = llvm::sys::findProgramByName("nvcc"))
    return *onPath;
  llvm::SmallString<256> built(KTUNE_DEFAULT_CUDA_PATH);
  path::append(built, "bin", "nvcc");
  if (!llvm::StringRef(KTUNE_DEFAULT_CUDA_PATH).empty() &&
      fs::can_execute(built))
    return std::string(built);
  return std::nullopt;
}

std::vector<std::string> nvccFlagsFor(const CompileCommand &command) {
  llvm::SmallString<256> dir(command.directory);
  if (dir.empty())
    fs::current_path(dir);
  TranslatedFlags t = translateCompileFlags(command.args, std::string(dir));
  std::vector<std::string> out;
  for (const std::string &a : t.args) {
    llvm::StringRef s = a;
    if (s == "-fopenmp")
      out.push_back("-Xcompiler=-fopenmp");
    else if (s == "-iquote" || s == "-idirafter")
      out.push_back("-I"); // nvcc knows neither; the value follows
    else if (s.consume_front("-iquote") || s.consume_front("-idirafter"))
      out.push_back("-I" + s.str());
    else
      out.push_back(a);
  }
  for (const std::string &a : command.args)
    if (llvm::StringRef(a).starts_with("--expt-") ||
        llvm::StringRef(a).starts_with("-expt-"))
      out.push_back(a);
  return out;
}

namespace {

/// A temporary directory, removed with everything in it.
struct ScratchDir {
  llvm::SmallString<256> path;
  ~ScratchDir() {
    if (!path.empty())
      fs::remove_directories(path);
  }
};

/// The PTX of `source`, or an error with nvcc's messages.
llvm::Expected<std::string> compilePtx(const VerifyOptions &options,
                                       const std::string &source,
                                       const std::vector<std::string> &includes,
                                       const std::string &ptxPath,
                                       const std::string &what) {
  std::vector<std::string> argv = {
      options.nvcc, "-arch=" + options.gpuArch, "-ptx", "-w", "-o", ptxPath};
  bool hasStd = false;
  for (const std::string &f : options.flags)
    hasStd |= llvm::StringRef(f).starts_with("-std");
  if (!hasStd)
    argv.push_back("-std=c++17");
  argv.insert(argv.end(), includes.begin(), includes.end());
  argv.insert(argv.end(), options.flags.begin(), options.flags.end());
  argv.push_back(source);
  ProcessOptions po;
  po.timeoutSeconds = options.timeoutSeconds;
  auto run = runProcess(argv, "", po);
  if (!run)
    return llvm::createStringError(options.nvcc + ": " + run.error().str());
  if (run->timedOut || run->exitCode != 0) {
    std::string said = llvm::StringRef(run->err + run->out).trim().str();
    if (said.size() > 4000)
      said = said.substr(0, 4000) + "\n...";
    return llvm::createStringError(what + " does not compile with nvcc" +
                                   (run->timedOut ? " (timed out)" : "") +
                                   (said.empty() ? "" : ":\n") + said);
  }
  auto ptx = readFile(ptxPath);
  if (!ptx)
    return llvm::createStringError(ptx.error().str());
  return std::move(*ptx);
}

/// $KTUNE_VERIFY_TAMPER applied to `text` (see Verify.h).
std::string tampered(std::string text) {
  const char *spec = std::getenv("KTUNE_VERIFY_TAMPER");
  if (!spec)
    return text;
  auto [from, to] = llvm::StringRef(spec).split("=>");
  if (size_t at = text.find(from.str());
      !from.empty() && at != std::string::npos)
    text.replace(at, from.size(), to.str());
  return text;
}

} // namespace

llvm::Expected<std::string> verifyTemplate(const Analysis &analysis,
                                           const TemplateOutput &out,
                                           const std::string &templatePath,
                                           const VerifyOptions &options) {
  ScratchDir scratch;
  if (auto ec = fs::createUniqueDirectory("ktune-verify", scratch.path))
    return llvm::createStringError("cannot create a temporary directory: " +
                                   ec.message());
  std::string tmp(scratch.path);
  llvm::SmallString<256> originalDir(analysis.file);
  fs::make_absolute(originalDir);
  path::remove_filename(originalDir);
  std::string origIncludes = std::string(originalDir);

  // The original finds its quoted #includes beside it; so does the
  // template, through -iquote (a -I would also serve <...> includes).
  std::vector<std::string> quoteOriginal = nvccQuoteDir(origIncludes);
  auto original = compilePtx(options, analysis.file, {}, tmp + "/original.ptx",
                             "the original " + analysis.file);
  if (!original)
    return original.takeError();

  // The template and its headers, laid out as they would be written.
  llvm::SmallString<256> templateDir(templatePath);
  fs::make_absolute(templateDir);
  path::remove_filename(templateDir);
  std::map<std::string, std::string> headerCopies;
  for (const HeaderOutput &h : out.headers) {
    llvm::SmallString<256> at(h.path);
    fs::make_absolute(at);
    llvm::StringRef rel = at;
    if (!rel.consume_front(templateDir) || !rel.consume_front("/"))
      rel = path::filename(at);
    std::string copy = tmp + "/" + rel.str();
    headerCopies[copy] = h.original;
    fs::create_directories(path::parent_path(copy));
    if (auto s = writeFileAtomically(copy, h.text); !s)
      return llvm::createStringError(s.error().str());
  }
  std::vector<std::string> originalNames;
  for (const auto &[name, body] : ptxFunctions(*original))
    originalNames.push_back(name);
  std::vector<std::string> uninstantiated;
  std::string source = tmp + "/" + path::filename(templatePath).str();
  // As the manifest says: the copies on both paths, ahead of the original's
  // directory, which quoted #includes search before any -I.
  std::vector<std::string> includes = {"-I", tmp};
  if (!out.headers.empty()) {
    includes.insert(includes.end(), {"-I", tmp + "/include"});
    for (auto &f : nvccQuoteDir(tmp + "/include"))
      includes.push_back(std::move(f));
  }
  includes.insert(includes.end(), quoteOriginal.begin(), quoteOriginal.end());
  // The instances by `decltype(&k<...>)`, then, where a host function
  // shares a kernel's name, through pointers of the kernels' types.
  llvm::Expected<std::string> tpl = std::string();
  for (bool typed : {false, true}) {
    uninstantiated.clear();
    std::string instances = defaultInstantiations(
        out.manifest.kernels, originalNames, uninstantiated, typed);
    if (auto s = writeFileAtomically(source, tampered(out.text) + instances);
        !s)
      return llvm::createStringError(s.error().str());
    tpl = compilePtx(options, source, includes, tmp + "/template.ptx",
                     "the template");
    if (tpl || typed)
      break;
    std::string message = llvm::toString(tpl.takeError());
    if (message.find("instance of overloaded function") == std::string::npos)
      return llvm::createStringError(message);
  }
  if (!tpl)
    return tpl.takeError();

  std::vector<PtxMismatch> mismatches =
      comparePtx(*original, *tpl, analysis.file, source, headerCopies);
  if (!mismatches.empty()) {
    std::string message;
    for (const PtxMismatch &m : mismatches)
      message +=
          (message.empty() ? "" : "\n") + m.function +
          (m.diff.empty() ? ": missing from the template's PTX"
                          : ": PTX differs at the defaults (" + m.diff + ")");
    return llvm::createStringError(message);
  }
  std::string summary = std::to_string(originalNames.size()) +
                        " function(s) PTX-identical at the defaults (nvcc, " +
                        options.gpuArch + ")";
  for (const std::string &k : uninstantiated)
    summary += "; " + k + " is not instantiated by the original";
  return summary;
}

llvm::Expected<std::string> selfCheck(const Analysis &analysis,
                                      const TemplateOutput &out,
                                      const std::string &templatePath,
                                      const ParserOptions &parsing) {
  VerifyOptions options;
  auto nvcc = findNvcc(parsing.cudaPath);
  if (!nvcc)
    return llvm::createStringError(
        "the self-check needs nvcc: none found (give --cuda-path, or set "
        "CUDA_PATH)");
  options.nvcc = *nvcc;
  options.gpuArch = parsing.gpuArch;
  options.flags = nvccFlagsFor(analysis.command);
  return verifyTemplate(analysis, out, templatePath, options);
}

} // namespace ktune::refactor
