//===- KtuneCheck.h - What every ktune-* check does -------------*- C++ -*-===//
//
// The ktune checks differ only in the kind of parameter they report
// (BlockSizeCheck: ParamKind::BlockSize, ...). This base reads the options,
// tracks the __CUDA_ARCH__ regions, and turns the unit's findings of its
// kind into diagnostics with fix-its and notes.
//
// Options (per check, else `ktune.<Option>` for every ktune check):
// MinConfidence (high, medium, low), ParameterNaming (UPPER_CASE,
// CamelCase, kCamelCase), DevicePassReportsAll (bool). docs/checks/.
//
//===----------------------------------------------------------------------===//
#ifndef KTUNE_LIB_TIDY_KTUNECHECK_H
#define KTUNE_LIB_TIDY_KTUNECHECK_H

#include "ArchRegions.h"
#include "UnitAnalysis.h"

#include "ktune/Refactor/HeaderFilter.h"

#include "clang-tidy/ClangTidyCheck.h"

#include <memory>
#include <optional>

namespace clang::tidy {
template <> struct OptionEnumMapping<ktune::Confidence> {
  static ArrayRef<std::pair<ktune::Confidence, StringRef>> getEnumMapping();
};
template <> struct OptionEnumMapping<ktune::tidy::NamingStyle> {
  static ArrayRef<std::pair<ktune::tidy::NamingStyle, StringRef>>
  getEnumMapping();
};
} // namespace clang::tidy

namespace ktune::tidy {

class KtuneCheck : public clang::tidy::ClangTidyCheck {
public:
  /// `unit` is shared by the checks of one module instance; a check made
  /// without one analyses on its own.
  KtuneCheck(llvm::StringRef name, clang::tidy::ClangTidyContext *context,
             ParamKind kind, std::shared_ptr<UnitAnalysis> unit = nullptr);

  bool
  isLanguageVersionSupported(const clang::LangOptions &lang) const override {
    return lang.CUDA;
  }
  void storeOptions(clang::tidy::ClangTidyOptions::OptionMap &opts) override;
  void registerPPCallbacks(const clang::SourceManager &sm,
                           clang::Preprocessor *pp,
                           clang::Preprocessor *) override;
  void registerMatchers(clang::ast_matchers::MatchFinder *finder) override;
  void
  check(const clang::ast_matchers::MatchFinder::MatchResult &result) override;
  void onStartOfTranslationUnit() override;
  void onEndOfTranslationUnit() override;

private:
  /// An enumerated option: the check's own value, else `ktune.<name>`,
  /// else `fallback`; an unknown value is a configuration error.
  template <typename T>
  T enumOption(llvm::StringRef name, T fallback, llvm::StringRef expected);
  bool boolOption(llvm::StringRef name, bool fallback);

  ParamKind Kind;
  clang::tidy::ClangTidyContext *TidyContext;
  std::shared_ptr<UnitAnalysis> Unit;
  /// The `ktune.*` options, shared by every ktune check.
  OptionsView Global;
  Confidence MinConfidence = Confidence::High;
  NamingStyle Naming = NamingStyle::UpperCase;
  bool DevicePassReportsAll = false;
  ArchRegions Regions;
  /// The headers clang-tidy reports in (--header-filter, less
  /// --exclude-header-filter): kernels are followed into them, fixes edit
  /// them. None without a header filter.
  std::optional<refactor::HeaderFilter> Headers;
};

} // namespace ktune::tidy

#endif
