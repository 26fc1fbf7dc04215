//===- UnitAnalysis.cpp - Detection once per translation unit -------------===//

#include "UnitAnalysis.h"

#include "ktune/Refactor/Detection.h"

#include "clang/Basic/SourceManager.h"

using namespace clang;

namespace ktune::tidy {

void UnitAnalysis::reset() { *this = UnitAnalysis(); }

void UnitAnalysis::analyse(ASTContext &ctx) {
  if (Context == &ctx)
    return;
  reset();
  Context = &ctx;
  const SourceManager &sm = ctx.getSourceManager();
  FileID main = sm.getMainFileID();
  Source = sm.getBufferData(main).str();
  std::string file;
  if (auto entry = sm.getFileEntryRefForID(main))
    file = entry->getName().str();
  // Detection only reads the main file, but a parent-map lookup would map
  // the whole unit: under clang-tidy every header body (cub, cuda_bf16.h)
  // is parsed, which made that map most of the check's cost. Restrict the
  // traversal to the main file's top-level declarations meanwhile; the
  // scope is restored before the match finder goes on.
  std::vector<Decl *> savedScope = ctx.getTraversalScope();
  std::vector<Decl *> mainDecls;
  for (Decl *d : ctx.getTranslationUnitDecl()->decls())
    if (sm.isInMainFile(sm.getExpansionLoc(d->getLocation())))
      mainDecls.push_back(d);
  ctx.setTraversalScope(mainDecls);
  Facts = refactor::collectFacts(ctx, file);
  ctx.setTraversalScope(savedScope);
  Facts.file = file;
  refactor::attributeHelperOccurrences(Facts);
  Candidates = refactor::buildCandidates(Facts, Index);
}

const std::vector<Finding> &
UnitAnalysis::findings(ASTContext &ctx, Confidence minConfidence,
                       NamingStyle style,
                       const std::function<bool(const Finding &)> &reported) {
  analyse(ctx);
  auto key =
      std::make_pair(static_cast<int>(minConfidence), static_cast<int>(style));
  auto it = Findings.find(key);
  if (it != Findings.end())
    return it->second;
  Plan plan = heuristicPlanFor(detection(), minConfidence);
  std::vector<Finding> all = findingsForPlan(detection(), plan, style), kept;
  for (auto &f : all)
    if (reported(f))
      kept.push_back(std::move(f));
  combineFixes(kept, detection(), plan);
  return Findings[key] = std::move(kept);
}

} // namespace ktune::tidy
