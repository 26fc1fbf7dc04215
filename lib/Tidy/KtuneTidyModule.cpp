//===- KtuneTidyModule.cpp - ktune-* checks for clang-tidy ----------------===//
//
// A clang-tidy module, loaded with `clang-tidy --load=KtuneTidy.so`, with
// one check per parameter kind (ktune-block-size, ktune-tile-size, ...).
// Detection, planning and the fix-its are ktune-refactor's own library
// code (collectFacts, buildCandidates, heuristicPlan, planRewrite); this
// file only turns findings into clang-tidy diagnostics.
//
// All checks of a translation unit share one analysis. A CUDA file is
// often checked twice (--cuda-host-only and --cuda-device-only): the host
// pass reports everything it sees, the device pass only parameters all of
// whose sites lie under an #if on __CUDA_ARCH__, which the host never sees.
//
//===----------------------------------------------------------------------===//

#include "ktune/Refactor/Detection.h"
#include "ktune/Tidy/Findings.h"

#include "clang-tidy/ClangTidyCheck.h"
#include "clang-tidy/ClangTidyModule.h"
#include "clang-tidy/ClangTidyModuleRegistry.h"
#include "clang/AST/ASTContext.h"
#include "clang/ASTMatchers/ASTMatchFinder.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Lex/Lexer.h"
#include "clang/Lex/PPCallbacks.h"
#include "clang/Lex/Preprocessor.h"
#include "llvm/ADT/StringExtras.h"

#include <functional>
#include <map>
#include <memory>
#include <optional>

using namespace clang;
using namespace clang::tidy;
using namespace clang::ast_matchers;

namespace ktune::tidy {
namespace {

/// Byte ranges of the main file inside #if/#ifdef chains that test
/// __CUDA_ARCH__: what one compilation side sees and the other does not.
struct ArchRegions {
  std::vector<std::pair<unsigned, unsigned>> spans;
  bool contains(unsigned offset) const {
    for (const auto &[begin, end] : spans)
      if (begin <= offset && offset < end)
        return true;
    return false;
  }
};

class ArchConditionTracker : public PPCallbacks {
public:
  ArchConditionTracker(const SourceManager &sm, ArchRegions &regions)
      : SM(sm), Regions(regions) {}

  void If(SourceLocation loc, SourceRange condition,
          ConditionValueKind) override {
    note(loc, loc, mentionsArch(condition));
  }
  void Elif(SourceLocation loc, SourceRange condition, ConditionValueKind,
            SourceLocation ifLoc) override {
    note(ifLoc, ifLoc, mentionsArch(condition));
  }
  void Ifdef(SourceLocation loc, const Token &name,
             const MacroDefinition &) override {
    note(loc, loc, isArch(name));
  }
  void Ifndef(SourceLocation loc, const Token &name,
              const MacroDefinition &) override {
    note(loc, loc, isArch(name));
  }
  void Endif(SourceLocation loc, SourceLocation ifLoc) override {
    auto it = Open.find(ifLoc.getRawEncoding());
    if (it == Open.end())
      return;
    if (it->second && SM.isWrittenInMainFile(loc))
      Regions.spans.emplace_back(SM.getFileOffset(ifLoc),
                                 SM.getFileOffset(loc));
    Open.erase(it);
  }

private:
  void note(SourceLocation ifLoc, SourceLocation, bool arch) {
    Open[ifLoc.getRawEncoding()] |= arch;
  }
  static bool isArch(const Token &name) {
    const IdentifierInfo *id = name.getIdentifierInfo();
    return id && id->getName() == "__CUDA_ARCH__";
  }
  bool mentionsArch(SourceRange range) const {
    if (range.isInvalid())
      return false;
    bool invalid = false;
    StringRef text = Lexer::getSourceText(CharSourceRange::getTokenRange(range),
                                          SM, LangOptions(), &invalid);
    return !invalid && text.contains("__CUDA_ARCH__");
  }

  const SourceManager &SM;
  ArchRegions &Regions;
  std::map<SourceLocation::UIntTy, bool> Open;
};

/// Detection results of the translation unit being checked, shared by
/// every ktune check and dropped at the end of the unit.
struct UnitAnalysis {
  const ASTContext *context = nullptr;
  std::string source;
  refactor::SourceFacts facts;
  CandidateSet candidates;
  refactor::CandidateIndex index;
  std::map<std::pair<int, int>, std::vector<Finding>> findings;

  DetectionResult detection() const {
    return {&facts, &candidates, &index, source};
  }
};

UnitAnalysis &currentUnit() {
  static UnitAnalysis unit;
  return unit;
}

UnitAnalysis &analysisFor(ASTContext &ctx) {
  UnitAnalysis &unit = currentUnit();
  if (unit.context == &ctx)
    return unit;
  unit = UnitAnalysis();
  unit.context = &ctx;
  const SourceManager &sm = ctx.getSourceManager();
  FileID main = sm.getMainFileID();
  unit.source = sm.getBufferData(main).str();
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
  unit.facts = refactor::collectFacts(ctx, file);
  ctx.setTraversalScope(savedScope);
  unit.facts.file = file;
  refactor::attributeHelperOccurrences(unit.facts);
  unit.candidates = refactor::buildCandidates(unit.facts, unit.index);
  return unit;
}

/// What the enabled ktune checks report in this unit at these settings,
/// with conflicting fixes combined (see combineFixes).
const std::vector<Finding> &
findingsFor(UnitAnalysis &unit, Confidence minConfidence, NamingStyle style,
            const std::function<bool(const Finding &)> &reported) {
  auto key =
      std::make_pair(static_cast<int>(minConfidence), static_cast<int>(style));
  auto it = unit.findings.find(key);
  if (it != unit.findings.end())
    return it->second;
  Plan plan = heuristicPlanFor(unit.detection(), minConfidence);
  std::vector<Finding> all = findingsForPlan(unit.detection(), plan, style),
                       kept;
  for (auto &f : all)
    if (reported(f))
      kept.push_back(std::move(f));
  combineFixes(kept, unit.detection(), plan);
  return unit.findings[key] = std::move(kept);
}

class KtuneCheck : public ClangTidyCheck {
public:
  KtuneCheck(StringRef name, ClangTidyContext *context, ParamKind kind)
      : ClangTidyCheck(name, context), Kind(kind), Context(context) {
    std::string confidence = option("MinConfidence", "high");
    if (auto c = parseConfidence(confidence))
      MinConfidence = *c;
    else
      configurationDiag("invalid MinConfidence '%0' for %1: expected high, "
                        "medium or low")
          << confidence << name;
    std::string naming = option("ParameterNaming", "UPPER_CASE");
    if (auto s = parseNamingStyle(naming))
      Naming = *s;
    else
      configurationDiag("invalid ParameterNaming '%0' for %1: expected "
                        "UPPER_CASE, CamelCase or kCamelCase")
          << naming << name;
    std::string all = option("DevicePassReportsAll", "false");
    DevicePassReportsAll = all == "true" || all == "1";
  }

  bool isLanguageVersionSupported(const LangOptions &lang) const override {
    return lang.CUDA;
  }

  void storeOptions(ClangTidyOptions::OptionMap &opts) override {
    Options.store(opts, "MinConfidence",
                  std::string(confidenceName(MinConfidence)));
    Options.store(opts, "ParameterNaming",
                  Naming == NamingStyle::UpperCase   ? "UPPER_CASE"
                  : Naming == NamingStyle::CamelCase ? "CamelCase"
                                                     : "kCamelCase");
    Options.store(opts, "DevicePassReportsAll", DevicePassReportsAll);
  }

  void registerPPCallbacks(const SourceManager &sm, Preprocessor *pp,
                           Preprocessor *) override {
    Regions = ArchRegions();
    pp->addPPCallbacks(std::make_unique<ArchConditionTracker>(sm, Regions));
  }

  void registerMatchers(MatchFinder *finder) override {
    finder->addMatcher(translationUnitDecl().bind("unit"), this);
  }

  void check(const MatchFinder::MatchResult &result) override {
    ASTContext &ctx = *result.Context;
    UnitAnalysis &unit = analysisFor(ctx);
    const SourceManager &sm = ctx.getSourceManager();
    SourceLocation start = sm.getLocForStartOfFile(sm.getMainFileID());
    bool devicePass = getLangOpts().CUDAIsDevice;
    auto reported = [&](const Finding &f) {
      if (!Context->isCheckEnabled(f.check))
        return false;
      return !devicePass || DevicePassReportsAll ||
             std::all_of(f.sites.begin(), f.sites.end(),
                         [&](const SourceSite &s) {
                           return Regions.contains(s.offset);
                         });
    };

    for (const Finding &f :
         findingsFor(unit, MinConfidence, Naming, reported)) {
      if (f.kind != Kind)
        continue;
      SourceLocation at = start.getLocWithOffset(f.primary.offset);
      {
        auto d = diag(at, "%0") << f.message;
        d << CharSourceRange::getCharRange(
            at, at.getLocWithOffset(f.primary.length));
        for (const auto &r : f.fix) {
          SourceLocation b = start.getLocWithOffset(r.getOffset());
          if (r.getLength() == 0)
            d << FixItHint::CreateInsertion(b, r.getReplacementText());
          else
            d << FixItHint::CreateReplacement(
                CharSourceRange::getCharRange(
                    b, b.getLocWithOffset(r.getLength())),
                r.getReplacementText());
        }
      }
      for (const auto &n : f.notes)
        diag(start.getLocWithOffset(n.site.offset), "%0", DiagnosticIDs::Note)
            << n.message;
      if (!f.fixedWith.empty())
        diag(at,
             "the fix for '%0' also lifts this one to template parameter "
             "'%1' = %2 (the parameters of one kernel are added together)",
             DiagnosticIDs::Note)
            << f.fixedWith << f.paramName << std::to_string(f.value);
      else if (f.fix.empty())
        diag(at, "no automatic fix: %0", DiagnosticIDs::Note) << f.fixError;
      else if (f.fixAlsoLifts.empty())
        diag(at, "fix lifts it to template parameter '%0' = %1",
             DiagnosticIDs::Note)
            << f.paramName << std::to_string(f.value);
      else
        diag(at,
             "fix lifts it to template parameter '%0' = %1, together "
             "with %2",
             DiagnosticIDs::Note)
            << f.paramName << std::to_string(f.value)
            << ("'" + llvm::join(f.fixAlsoLifts, "', '") + "'");
    }
  }

  void onEndOfTranslationUnit() override { currentUnit() = UnitAnalysis(); }

private:
  /// The check's own option, else `ktune.<name>` (one setting for every
  /// ktune check), else `fallback`.
  std::string option(StringRef name, StringRef fallback) const {
    if (auto local = Options.get(name))
      return local->str();
    const auto &all = Context->getOptions().CheckOptions;
    auto it = all.find(("ktune." + name).str());
    if (it != all.end())
      return it->second.Value;
    return fallback.str();
  }

  ParamKind Kind;
  ClangTidyContext *Context;
  Confidence MinConfidence = Confidence::High;
  NamingStyle Naming = NamingStyle::UpperCase;
  bool DevicePassReportsAll = false;
  ArchRegions Regions;
};

class KtuneModule : public ClangTidyModule {
public:
  void addCheckFactories(ClangTidyCheckFactories &factories) override {
    for (ParamKind kind : {ParamKind::BlockSize, ParamKind::TileSize,
                           ParamKind::Unroll, ParamKind::VectorWidth,
                           ParamKind::ItemsPerThread, ParamKind::WarpsPerBlock})
      factories.registerCheckFactory(
          *checkName(kind), [kind](StringRef name, ClangTidyContext *context) {
            return std::make_unique<KtuneCheck>(name, context, kind);
          });
  }
};

} // namespace
} // namespace ktune::tidy

static clang::tidy::ClangTidyModuleRegistry::Add<ktune::tidy::KtuneModule>
    KtuneModuleRegistration("ktune-module",
                            "ktune: hardcoded CUDA tuning constants");
