//===- KtuneCheck.cpp - What every ktune-* check does ---------------------===//

#include "KtuneCheck.h"

#include "clang/AST/ASTContext.h"
#include "clang/ASTMatchers/ASTMatchFinder.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Lex/Preprocessor.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/YAMLParser.h"

#include <algorithm>
#include <array>

using namespace clang;
using namespace clang::tidy;
using namespace clang::ast_matchers;

namespace clang::tidy {

namespace {
/// clang-tidy's view of one of ktune's name tables (EnumNames.h).
template <class E, size_t N>
ArrayRef<std::pair<E, StringRef>>
optionMapping(const ktune::EnumName<E> (&table)[N]) {
  static const std::array<std::pair<E, StringRef>, N> Mapping = [&] {
    std::array<std::pair<E, StringRef>, N> m;
    for (size_t i = 0; i < N; ++i)
      m[i] = {table[i].first, StringRef(table[i].second)};
    return m;
  }();
  return Mapping;
}
} // namespace

ArrayRef<std::pair<ktune::Confidence, StringRef>>
OptionEnumMapping<ktune::Confidence>::getEnumMapping() {
  return optionMapping(ktune::ConfidenceNames);
}

ArrayRef<std::pair<ktune::tidy::NamingStyle, StringRef>>
OptionEnumMapping<ktune::tidy::NamingStyle>::getEnumMapping() {
  return optionMapping(ktune::tidy::NamingStyleNames);
}

} // namespace clang::tidy

namespace ktune::tidy {

KtuneCheck::KtuneCheck(StringRef name, ClangTidyContext *context,
                       ParamKind kind, std::shared_ptr<UnitAnalysis> unit)
    : ClangTidyCheck(name, context), Kind(kind), TidyContext(context),
      Unit(unit ? std::move(unit) : std::make_shared<UnitAnalysis>()),
      Global("ktune", context->getOptions().CheckOptions, context) {
  MinConfidence = enumOption("MinConfidence", Confidence::High,
                             "expected high, medium or low");
  Naming = enumOption("ParameterNaming", NamingStyle::UpperCase,
                      "expected UPPER_CASE, CamelCase or kCamelCase");
  DevicePassReportsAll = boolOption("DevicePassReportsAll", false);
  const ClangTidyOptions &opts = context->getOptions();
  if (opts.HeaderFilterRegex && !opts.HeaderFilterRegex->empty()) {
    auto filter = refactor::HeaderFilter::matching(
        *opts.HeaderFilterRegex, {},
        opts.ExcludeHeaderFilterRegex.value_or(""));
    if (filter)
      Headers = std::move(*filter);
    else
      configurationDiag("%0") << llvm::toString(filter.takeError());
  }
}

namespace {
/// Where a site (or an edit) of the files detection read lies in the unit.
SourceLocation locationIn(const SourceManager &sm, StringRef mainName,
                          StringRef file, unsigned offset) {
  FileID fid = sm.getMainFileID();
  if (file != mainName) {
    auto ref = sm.getFileManager().getOptionalFileRef(file);
    fid = ref ? sm.translateFile(*ref) : FileID();
    if (fid.isInvalid())
      return {};
  }
  return sm.getLocForStartOfFile(fid).getLocWithOffset(offset);
}
} // namespace

template <typename T>
T KtuneCheck::enumOption(StringRef name, T fallback, StringRef expected) {
  std::optional<StringRef> text = Options.get(name);
  if (!text)
    text = Global.get(name);
  if (!text)
    return fallback;
  for (const auto &[value, spelling] : OptionEnumMapping<T>::getEnumMapping())
    if (spelling == *text)
      return value;
  configurationDiag("invalid %0 '%1' for %2: %3")
      << name << *text << getID() << expected;
  return fallback;
}

// Read as Options.get<bool> reads it (YAML booleans, else an integer, non-
// zero meaning true). That template's instance in clang-tidy is mangled in a
// way a GCC-built plugin cannot link against, so the conversion is the same
// one, made here.
bool KtuneCheck::boolOption(StringRef name, bool fallback) {
  std::string key = (getID() + "." + name).str();
  std::optional<StringRef> text = Options.get(name);
  if (!text) {
    text = Global.get(name);
    key = ("ktune." + name).str();
  }
  if (!text)
    return fallback;
  if (std::optional<bool> value = llvm::yaml::parseBool(*text))
    return *value;
  long long number = 0;
  if (!text->getAsInteger(10, number))
    return number != 0;
  configurationDiag(
      "invalid configuration value '%0' for option '%1'; expected a bool")
      << *text << key;
  return fallback;
}

void KtuneCheck::storeOptions(ClangTidyOptions::OptionMap &opts) {
  Options.store(opts, "MinConfidence", MinConfidence);
  Options.store(opts, "ParameterNaming", Naming);
  // As store<bool> writes it (see boolOption for why not that template).
  Options.store(opts, "DevicePassReportsAll",
                DevicePassReportsAll ? "true" : "false");
}

void KtuneCheck::registerPPCallbacks(const SourceManager &sm, Preprocessor *pp,
                                     Preprocessor *) {
  Regions = ArchRegions();
  pp->addPPCallbacks(std::make_unique<ArchConditionTracker>(sm, Regions));
}

void KtuneCheck::registerMatchers(MatchFinder *finder) {
  finder->addMatcher(translationUnitDecl().bind("unit"), this);
}

void KtuneCheck::onStartOfTranslationUnit() { Unit->reset(); }

void KtuneCheck::onEndOfTranslationUnit() { Unit->reset(); }

void KtuneCheck::check(const MatchFinder::MatchResult &result) {
  ASTContext &ctx = *result.Context;
  const SourceManager &sm = ctx.getSourceManager();
  std::string mainName;
  if (auto entry = sm.getFileEntryRefForID(sm.getMainFileID()))
    mainName = entry->getName().str();
  auto at = [&](StringRef file, unsigned offset) {
    return locationIn(sm, mainName, file, offset);
  };
  bool devicePass = getLangOpts().CUDAIsDevice;
  // The host pass reports everything it sees; the device pass only what
  // lies under an #if on __CUDA_ARCH__, which the host never sees.
  auto reported = [&](const Finding &f) {
    if (!TidyContext->isCheckEnabled(f.check))
      return false;
    return !devicePass || DevicePassReportsAll ||
           std::all_of(
               f.sites.begin(), f.sites.end(), [&](const SourceSite &s) {
                 return s.file == mainName ? Regions.contains(s.offset)
                                           : Regions.contains(s.file, s.offset);
               });
  };

  for (const Finding &f : Unit->findings(ctx, MinConfidence, Naming, reported,
                                         Headers ? &*Headers : nullptr)) {
    if (f.kind != Kind)
      continue;
    SourceLocation primary = at(f.primary.file, f.primary.offset);
    if (primary.isInvalid())
      continue;
    {
      auto d = diag(primary, "%0") << f.message;
      d << CharSourceRange::getCharRange(
          primary, primary.getLocWithOffset(f.primary.length));
      for (const auto &[file, edits] : f.fix)
        for (const auto &r : edits) {
          SourceLocation b = at(r.getFilePath(), r.getOffset());
          if (b.isInvalid())
            continue;
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
      if (SourceLocation loc = at(n.site.file, n.site.offset); loc.isValid())
        diag(loc, "%0", DiagnosticIDs::Note) << n.message;
    if (!f.fixedWith.empty())
      diag(primary,
           "the fix for '%0' also lifts this one to template parameter "
           "'%1' = %2 (the parameters of one kernel are added together)",
           DiagnosticIDs::Note)
          << f.fixedWith << f.paramName << std::to_string(f.value);
    else if (f.fix.empty())
      diag(primary, "no automatic fix: %0", DiagnosticIDs::Note) << f.fixError;
    else if (f.fixAlsoLifts.empty())
      diag(primary, "fix lifts it to template parameter '%0' = %1",
           DiagnosticIDs::Note)
          << f.paramName << std::to_string(f.value);
    else
      diag(primary,
           "fix lifts it to template parameter '%0' = %1, together "
           "with %2",
           DiagnosticIDs::Note)
          << f.paramName << std::to_string(f.value)
          << ("'" + llvm::join(f.fixAlsoLifts, "', '") + "'");
  }
}

} // namespace ktune::tidy
