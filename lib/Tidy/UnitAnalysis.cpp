//===- UnitAnalysis.cpp - Detection once per translation unit -------------===//

#include "UnitAnalysis.h"

#include "ktune/Refactor/Detection.h"

#include "clang/Basic/SourceManager.h"

using namespace clang;

namespace ktune::tidy {

void UnitAnalysis::reset() { *this = UnitAnalysis(); }

void UnitAnalysis::analyse(ASTContext &ctx,
                           const refactor::HeaderFilter *headers) {
  if (Context == &ctx)
    return;
  reset();
  Context = &ctx;
  const SourceManager &sm = ctx.getSourceManager();
  FileID main = sm.getMainFileID();
  Detected.source = sm.getBufferData(main).str();
  std::string file;
  if (auto entry = sm.getFileEntryRefForID(main))
    file = entry->getName().str();
  // Detection only reads the main file and the headers it may follow
  // kernels into, but a parent-map lookup would map the whole unit: under
  // clang-tidy every header body (cub, cuda_bf16.h) is parsed, which made
  // that map most of the check's cost. Restrict the traversal to those
  // files' top-level declarations meanwhile; the scope is restored before
  // the match finder goes on.
  std::vector<Decl *> savedScope = ctx.getTraversalScope();
  std::vector<Decl *> readDecls;
  std::map<FileID, bool> read;
  for (Decl *d : ctx.getTranslationUnitDecl()->decls()) {
    SourceLocation at = sm.getExpansionLoc(d->getLocation());
    FileID fid = sm.getFileID(at);
    auto [it, fresh] = read.try_emplace(fid, sm.isInMainFile(at));
    if (fresh && !it->second && headers && !sm.isInSystemHeader(at))
      if (auto entry = sm.getFileEntryRefForID(fid)) {
        std::string name = entry->getName().str();
        it->second = headers->allows(name, refactor::absolutePathIn("", name));
      }
    if (it->second)
      readDecls.push_back(d);
  }
  ctx.setTraversalScope(readDecls);
  Detected.facts = refactor::collectFacts(ctx, file, headers);
  ctx.setTraversalScope(savedScope);
  Detected.file = Detected.facts.file = file;
  refactor::attributeHelperOccurrences(Detected.facts);
  Detected.candidates =
      refactor::buildCandidates(Detected.facts, Detected.index);
}

const std::vector<Finding> &
UnitAnalysis::findings(ASTContext &ctx, Confidence minConfidence,
                       NamingStyle style,
                       const std::function<bool(const Finding &)> &reported,
                       const refactor::HeaderFilter *headers) {
  analyse(ctx, headers);
  auto key =
      std::make_pair(static_cast<int>(minConfidence), static_cast<int>(style));
  auto it = Findings.find(key);
  if (it != Findings.end())
    return it->second;
  Plan plan =
      defaultPlan(Detected.candidates, Detected.sources(), minConfidence);
  std::vector<Finding> all = findingsForPlan(Detected, plan, style), kept;
  for (auto &f : all)
    if (reported(f))
      kept.push_back(std::move(f));
  combineFixes(kept, Detected, plan);
  return Findings[key] = std::move(kept);
}

} // namespace ktune::tidy
