//===- ktune/Tidy/Findings.h - Candidates as diagnostics --------*- C++ -*-===//
//
// One finding per lifted parameter: a warning at its first site, notes at
// the sites that change with it, and the edits that lift this parameter
// alone. The edits come from the same planRewrite that ktune-refactor runs,
// applied to a plan holding just that parameter, so the clang-tidy check,
// --export-fixes, --sarif and --warnings all say what `ktune-refactor -o`
// would do.
//
//===----------------------------------------------------------------------===//
#ifndef KTUNE_TIDY_FINDINGS_H
#define KTUNE_TIDY_FINDINGS_H

#include "ktune/Plan/Candidates.h"
#include "ktune/Plan/Plan.h"
#include "ktune/Refactor/Detection.h"
#include "ktune/Refactor/Rewrite.h"
#include "ktune/Refactor/SourceFacts.h"

#include "clang/Tooling/Core/Replacement.h"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ktune::tidy {

/// "ktune-block-size", ...; nullopt for kinds without a check (Other).
std::optional<std::string> checkName(ParamKind kind);
/// Every check name, in a fixed order.
std::vector<std::string> allCheckNames();
/// "block size", "unroll factor", ... as used in messages.
std::string_view kindPhrase(ParamKind kind);

enum class NamingStyle { UpperCase, CamelCase, KCamelCase };
/// The values of the ParameterNaming option.
inline constexpr EnumName<NamingStyle> NamingStyleNames[] = {
    {NamingStyle::UpperCase, "UPPER_CASE"},
    {NamingStyle::CamelCase, "CamelCase"},
    {NamingStyle::KCamelCase, "kCamelCase"},
};
std::optional<NamingStyle> parseNamingStyle(std::string_view text);
/// BLOCK_SIZE -> BlockSize (CamelCase) or kBlockSize (kCamelCase).
std::string applyNamingStyle(const std::string &upperSnake, NamingStyle style);

struct FindingNote {
  SourceSite site;
  std::string message;
};

struct Finding {
  std::string check; // "ktune-block-size"
  ParamKind kind = ParamKind::Other;
  std::string kernel;    // qualified kernel name
  std::string paramName; // the template parameter the fix introduces
  int64_t value = 0;
  Confidence confidence = Confidence::High;
  SourceSite primary;
  std::string message; // without the "[check]" suffix
  std::vector<FindingNote> notes;
  /// Edits lifting this parameter alone, per file (a kernel in a project
  /// header is rewritten there); empty when fixError says why not.
  refactor::FileEdits fix;
  std::string fixError;
  /// Every site of the parameter, in order of position (the main file's
  /// first; the primary is the first).
  std::vector<SourceSite> sites;
  /// The plan parameter (renamed) and its name in the plan.
  PlanParam param;
  std::string planName;
  /// After combineFixes: the parameter whose fix also lifts this one
  /// (empty: this finding carries its own fix, or has none).
  std::string fixedWith;
  /// After combineFixes, on the finding that carries a combined fix: the
  /// other parameters it lifts.
  std::vector<std::string> fixAlsoLifts;
};

/// One finding per parameter of `plan` whose kind has a check, in plan
/// order, each with its single-parameter fix. Parameters are renamed per
/// `style` unless the new name is taken in the source.
std::vector<Finding>
findingsForPlan(const refactor::Detection &detection, const Plan &plan,
                NamingStyle style = NamingStyle::UpperCase);

/// Findings whose fixes overlap (the parameters of one kernel all extend
/// its template parameter list) cannot be applied one by one in a single
/// run. This merges each group of conflicting fixes into one: the first
/// finding of the group carries the rewrite of `plan` restricted to the
/// group's parameters (what ktune-refactor does for those parameters
/// together); the others name it in `fixedWith`.
void combineFixes(std::vector<Finding> &findings,
                  const refactor::Detection &detection, const Plan &plan);

/// True when `a` and `b` edit overlapping text or insert at the same place
/// (applied together they would not give both intended results).
bool editsConflict(const clang::tooling::Replacements &a,
                   const clang::tooling::Replacements &b);
/// The same for edits of several files: a conflict in any one file.
bool editsConflict(const refactor::FileEdits &a, const refactor::FileEdits &b);

} // namespace ktune::tidy

#endif
