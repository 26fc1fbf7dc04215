#include "ktune/Refactor/Refactorer.h"

#include "ktune/Refactor/Rewrite.h"
#include "ktune/Support/FileUtil.h"
#include "ktune/Support/Sha256.h"

#include "clang/AST/ASTContext.h"

#include <filesystem>
#include <mutex>

namespace ktune::refactor {

llvm::Expected<Analysis> analyzeFile(const CompileCommand &command,
                                     const ParserOptions &options) {
  Analysis a;
  a.file = command.file;
  auto text = readFile(command.file);
  if (!text)
    return toLLVMError(text.error());
  a.source = std::move(*text);

  SourceFacts sides[2];
  std::mutex mutex;
  auto onAST = [&](clang::ASTContext &ctx, CudaSide side) {
    SourceFacts f = collectFacts(ctx, command.file);
    std::lock_guard<std::mutex> lock(mutex);
    sides[side == CudaSide::Host ? 0 : 1] = std::move(f);
  };
  if (auto err = parseBothSides(command, options, onAST, &a.stats))
    return err;
  a.facts = std::move(sides[0]);
  a.facts.file = command.file;
  mergeFacts(a.facts, sides[1]);
  attributeHelperOccurrences(a.facts);
  for (const FunctionFacts *k : a.facts.kernels())
    if (!k->cannotTemplate.empty())
      a.facts.notes.push_back(command.file + ":" + std::to_string(k->line) +
                              ": kernel " + k->qualifiedName +
                              " cannot become a template (" +
                              k->cannotTemplate + "): nothing in it is lifted");
  a.candidates = buildCandidates(a.facts, a.index);
  return a;
}

Plan defaultPlan(const Analysis &analysis) {
  SourceTexts sources{{analysis.file, analysis.source}};
  HeuristicOptions options;
  options.sources = &sources;
  return heuristicPlan(analysis.candidates, options);
}

static std::string relativeTo(const std::string &path,
                              const std::string &fromFile) {
  namespace fs = std::filesystem;
  std::error_code ec;
  fs::path dir = fs::absolute(fs::path(fromFile), ec).parent_path();
  fs::path rel = fs::relative(fs::absolute(fs::path(path), ec), dir, ec);
  if (ec || rel.empty())
    return path;
  return rel.string();
}

llvm::Expected<TemplateOutput> makeTemplate(const Analysis &analysis,
                                            const Plan &plan,
                                            const std::string &templatePath,
                                            const std::string &manifestPath,
                                            const std::string &planOrigin) {
  SourceTexts sources{{analysis.file, analysis.source}};
  std::vector<ktune::Error> errors =
      validatePlan(plan, analysis.candidates, sources);
  if (!errors.empty()) {
    std::string message;
    for (const auto &e : errors)
      message += (message.empty() ? "" : "\n") + planOrigin + ": " + e.str();
    return llvm::createStringError(message);
  }
  auto rewrite = planRewrite(analysis.facts, analysis.candidates,
                             analysis.index, plan, analysis.source);
  if (!rewrite) {
    std::string message = llvm::toString(rewrite.takeError());
    return llvm::createStringError(planOrigin + ": " + message);
  }
  auto text = applyRewrite(analysis.source, rewrite->replacements);
  if (!text)
    return text.takeError();

  TemplateOutput out;
  out.text = std::move(*text);
  out.notes = rewrite->notes;
  out.manifest.source = relativeTo(templatePath, manifestPath);
  out.manifest.original = relativeTo(analysis.file, manifestPath);
  out.manifest.sourceSha256 = sha256Hex(out.text);
  out.manifest.kernels = std::move(rewrite->kernels);
  out.manifest.launchers = std::move(rewrite->launchers);
  return out;
}

} // namespace ktune::refactor
