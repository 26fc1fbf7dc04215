//===- Refactorer.cpp - Stage 1 end to end --------------------------------===//
//
// analyzeFile (parse both sides, collect and merge the facts, group the
// candidates) and makeTemplate (check the plan, rewrite, place the header
// copies, describe the result in a manifest): what ktune-refactor does.
//
//===----------------------------------------------------------------------===//

#include "ktune/Refactor/Refactorer.h"

#include "ktune/Refactor/Rewrite.h"
#include "ktune/Refactor/ToolSupport.h"

#include "Rewrite/ParamNames.h"
#include "Rewrite/RewriteInternal.h"
#include "ktune/Support/FileUtil.h"
#include "ktune/Support/Sha256.h"

#include "clang/AST/ASTContext.h"
#include "llvm/Support/Path.h"

#include <filesystem>
#include <mutex>

namespace ktune::refactor {

SourceTexts Detection::sources() const {
  SourceTexts texts{{file, source}};
  for (unsigned i = 1; i < facts.files.size(); ++i)
    texts.emplace(facts.files[i].path, facts.files[i].text);
  return texts;
}

llvm::Expected<std::shared_ptr<const HeaderFilter>>
headerFilterFor(const CompileCommand &command, const ParserOptions &options,
                const std::optional<std::string> &regex) {
  auto args = clangCommandLine(command, options, CudaSide::Host);
  if (!args)
    return args.takeError();
  std::vector<std::string> roots = includeRoots(*args, command.file, "");
  if (!regex)
    return std::make_shared<const HeaderFilter>(
        HeaderFilter::under(std::move(roots)));
  auto filter = HeaderFilter::matching(*regex, std::move(roots));
  if (!filter)
    return filter.takeError();
  return std::make_shared<const HeaderFilter>(std::move(*filter));
}

llvm::Expected<Analysis> analyzeFile(const CompileCommand &command,
                                     const ParserOptions &givenOptions,
                                     const CandidateOptions &candidates) {
  Analysis a;
  a.file = command.file;
  a.command = command;
  auto text = readFile(command.file);
  if (!text)
    return toLLVMError(text.error());
  a.source = std::move(*text);
  if (a.source.size() >= MaxFileBytes)
    return llvm::createStringError(command.file +
                                   ": 16 MiB or larger: not refactored");

  ParserOptions options = givenOptions;
  if (!options.headers) {
    auto headers = headerFilterFor(command, options, std::nullopt);
    if (!headers)
      return headers.takeError();
    options.headers = std::move(*headers);
  }
  SourceFacts sides[2];
  std::mutex mutex;
  auto onAST = [&](clang::ASTContext &ctx, CudaSide side) {
    SourceFacts f = collectFacts(ctx, command.file, options.headers.get());
    std::set<std::string> names = macroNames(ctx);
    std::lock_guard<std::mutex> lock(mutex);
    a.macros.merge(names);
    sides[side == CudaSide::Host ? 0 : 1] = std::move(f);
  };
  if (auto err = parseBothSides(command, options, onAST, &a.stats))
    return err;
  sides[0].file = sides[1].file = command.file;
  dropSideDivergentConstants(sides[0], sides[1]);
  a.facts = std::move(sides[0]);
  a.facts.file = command.file;
  mergeFacts(a.facts, sides[1]);
  // The main file as read: Clang parsed a copy of the same length in which
  // spaced launch chevrons are joined (Parse/NvccSyntax.cpp); the output keeps
  // them.
  if (!a.facts.files.empty() && a.facts.files[0].text.size() == a.source.size())
    a.facts.files[0].text = a.source;
  a.facts.notes.insert(a.facts.notes.begin(), a.stats.notes.begin(),
                       a.stats.notes.end());
  attributeHelperOccurrences(a.facts);
  for (const FunctionFacts *k : a.facts.kernels())
    if (!k->cannotTemplate.empty())
      a.facts.notes.push_back(
          a.facts.pathOf(filePart(k->offset)) + ":" + std::to_string(k->line) +
          ": kernel " + k->qualifiedName + " cannot become a template (" +
          k->cannotTemplate + "): nothing in its code is lifted");
  a.candidates = buildCandidates(a.facts, a.index, candidates);
  return a;
}

/// `path` relative to the directory of `fromFile`; absolute when the two
/// share no directory but the root (`../../work/...` says nothing more).
static std::string relativeTo(const std::string &path,
                              const std::string &fromFile) {
  namespace fs = std::filesystem;
  std::error_code ec;
  fs::path dir = fs::absolute(fs::path(fromFile), ec).parent_path();
  fs::path target = fs::absolute(fs::path(path), ec).lexically_normal();
  fs::path rel = fs::relative(target, dir, ec);
  if (ec || rel.empty())
    return path;
  // The first directory below the root.
  auto top = [](const fs::path &p) {
    auto it = p.begin();
    if (it != p.end())
      ++it;
    return it == p.end() ? fs::path() : *it;
  };
  if (top(dir.lexically_normal()) != top(target))
    return target.string();
  return rel.string();
}

/// The project's compile command, as the manifest records it: a
/// database's command without -c, -o and the input; arguments given after
/// `--` are the project's, nvcc's unless Clang's CUDA flags. None when
/// there were no flags.
static std::optional<CompileCommandInfo>
compileInfo(const CompileCommand &command) {
  if (!command.fromDatabase && command.args.empty())
    return std::nullopt;
  CompileCommandInfo info;
  info.directory =
      command.directory.empty() ? absolutePathIn("", ".") : command.directory;
  info.compiler = command.fromDatabase
                      ? llvm::sys::path::filename(command.compiler).str()
                      : compilerForFlags(command.args);
  for (size_t i = 0; i < command.args.size(); ++i) {
    const std::string &a = command.args[i];
    if (a == "-o" || a == "--output-file") {
      ++i;
      continue;
    }
    if (a == "-c" || a == "--compile" || a.rfind("--output-file=", 0) == 0)
      continue;
    info.arguments.push_back(a);
  }
  return info;
}

llvm::Expected<TemplateOutput>
makeTemplate(const Analysis &analysis, const Plan &givenPlan,
             const std::string &templatePath, const std::string &manifestPath,
             const std::string &planOrigin, const RewriteOptions &options) {
  SourceTexts sources = analysis.sources();
  std::vector<std::string> renames;
  Plan plan = withoutMacroNames(givenPlan, analysis.macros, sources, renames);
  std::vector<ktune::Error> errors =
      validatePlan(plan, analysis.candidates, sources);
  if (!errors.empty()) {
    std::string message;
    for (const auto &e : errors)
      message += (message.empty() ? "" : "\n") + planOrigin + ": " + e.str();
    return llvm::createStringError(message);
  }
  auto rewrite = planRewrite(analysis.facts, analysis.candidates,
                             analysis.index, plan, analysis.source, options);
  if (!rewrite) {
    std::string message = llvm::toString(rewrite.takeError());
    return llvm::createStringError(planOrigin + ": " + message);
  }
  auto marked = withLineMarks(analysis.facts, analysis.source, *rewrite);
  if (!marked)
    return marked.takeError();
  auto tree = buildOutputTree(analysis.facts, analysis.source, *marked);
  if (!tree)
    return tree.takeError();

  TemplateOutput out;
  out.text = std::move(tree->mainText);
  out.notes = std::move(renames);
  out.notes.insert(out.notes.end(), rewrite->notes.begin(),
                   rewrite->notes.end());
  Manifest &m = out.manifest;
  m.source = relativeTo(templatePath, manifestPath);
  m.original = relativeTo(analysis.file, manifestPath);
  m.sourceSha256 = sha256Hex(out.text);
  m.kernels = std::move(rewrite->kernels);
  m.launchers = std::move(rewrite->launchers);
  m.files.push_back({m.source, m.original, "main"});
  std::string includeDir =
      (std::filesystem::path(templatePath).parent_path() / "include").string();
  for (auto &h : tree->headers) {
    HeaderOutput header;
    header.path = (std::filesystem::path(includeDir) / h.includePath).string();
    header.original = h.originalPath;
    header.text = std::move(h.text);
    header.rewritten = h.rewritten;
    for (const SourceFile &read : analysis.facts.files)
      if (samePath(header.path, read.absolutePath))
        return llvm::createStringError(
            header.path + " would overwrite " + read.path +
            ": write the output somewhere else (the originals are never "
            "changed)");
    m.files.push_back({relativeTo(header.path, manifestPath),
                       relativeTo(h.originalAbsolutePath, manifestPath),
                       "header"});
    out.headers.push_back(std::move(header));
  }
  // The copies first; the original's directory for quoted #includes only:
  // they are found there as before, and <...> ones are not (a project's
  // `features.h` would hide glibc's). Quoted directories come before -I
  // ones, so the copies are a quoted directory too, ahead of the original's
  // (`#include "kernel.cuh"` beside the original must read the copy).
  if (!out.headers.empty()) {
    m.includeDirs.push_back(relativeTo(includeDir, manifestPath));
    m.quoteDirs.push_back(m.includeDirs.back());
  }
  m.quoteDirs.push_back(
      relativeTo(std::filesystem::path(absolutePathIn("", analysis.file))
                     .parent_path()
                     .string(),
                 manifestPath));
  m.compile = compileInfo(analysis.command);
  return out;
}

} // namespace ktune::refactor
