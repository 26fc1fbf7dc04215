//===- ktune/Plan/Candidates.h - What stage 1 could lift --------*- C++ -*-===//
//
// A candidate is one tunable constant of one kernel with every source site
// that must change with it. `ktune-refactor --candidates` prints them; plans
// refer to them by id. Schema: docs/schemas.md#candidates.
//
//===----------------------------------------------------------------------===//
#ifndef KTUNE_PLAN_CANDIDATES_H
#define KTUNE_PLAN_CANDIDATES_H

#include "ktune/Plan/ParamKind.h"
#include "ktune/Support/EnumNames.h"
#include "ktune/Support/Error.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <iosfwd>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ktune {

class JsonReader;

inline constexpr const char *CandidatesVersion = "candidates/1";

enum class Confidence { High, Medium, Low };
/// "high", "medium", "low" (also the clang-tidy option's values).
inline constexpr EnumName<Confidence> ConfidenceNames[] = {
    {Confidence::High, "high"},
    {Confidence::Medium, "medium"},
    {Confidence::Low, "low"},
};
std::string_view confidenceName(Confidence c);
std::optional<Confidence> parseConfidence(std::string_view name);

/// What a site does in the kernel or at its launch. Spelled in JSON as the
/// snake_case name ("launch_block"); siteRoleName and parseSiteRole are the
/// only translation. The enumerators are declared in the order of their
/// names, so sorting by role sorts as the names always have.
enum class SiteRole {
  CubBlockSize,          // cub_block_size: cub::BlockReduce<T, N>'s N
  CubItemsPerThread,     // cub_items_per_thread: cub::BlockLoad<.., N, I>'s I
  Definition,            // definition: where a named constant's value is
  IndexArith,            // index_arith: blockIdx.x * N
  KernelAttributes,      // kernel_attributes: bounds written for a register cap
  KernelBody,            // kernel_body: a structural parameter's kernel
  LaunchBlock,           // launch_block: <<<g, N>>>
  LaunchBounds,          // launch_bounds: __launch_bounds__(N)
  LaunchBoundsMinBlocks, // launch_bounds_min_blocks: __launch_bounds__(.., N)
  LaunchGrid,            // launch_grid: <<<(n + N - 1) / N, ...>>>
  LaunchSmem,            // launch_smem: <<<g, b, N>>>
  LoopBound,             // loop_bound: for (...; i < N; ...)
  LoopStride,            // loop_stride: for (...; i += N)
  Other,                 // other: a use in no recognised role
  RegisterArray,         // register_array: float r[N] (a local array)
  SharedExtent,          // shared_extent: __shared__ float t[N]
  TemplateArg,           // template_arg: k<N><<<...>>>
  TemplateDefault,       // template_default: template <int B = N>
  UnrollPragma,          // unroll_pragma: #pragma unroll N
  VectorBytes,           // vector_bytes: N / sizeof(T)
  VectorType,            // vector_type: float4 and the like
};

/// "launch_block", ...
std::string_view siteRoleName(SiteRole role);
std::optional<SiteRole> parseSiteRole(std::string_view name);
std::ostream &operator<<(std::ostream &os, SiteRole role);
/// How a candidate's "why" describes a site of `role` ("loop stride");
/// empty for a definition and for other.
std::string_view siteRoleDescription(SiteRole role);
/// How a note at a coupled site names `role` ("launch block dimension").
std::string_view siteRolePhrase(SiteRole role);
/// Roles whose whole expression is delimited already (an array extent, a
/// template argument, a pragma's count): a compound replacement of that
/// whole needs no parentheses.
bool delimitsItsSite(SiteRole role);

/// One place in the source that changes with the parameter.
struct SourceSite {
  std::string file; // as given on the command line / in compile_commands
  unsigned line = 0, col = 0; // 1-based, of the first character
  unsigned offset = 0;        // byte offset in the file
  unsigned length = 0;        // bytes replaced
  std::string text;           // the source text [offset, offset+length)
  SiteRole role = SiteRole::Other;
  /// How the site is rewritten, "{P}" standing for the parameter's name:
  /// "{P}", "{P} + 1" (a tile's padded extent), "{P} - 1" (the 255 in
  /// `(n + 255) / 256`). A vector_type site may name a type expression.
  std::string replacement = "{P}";
  /// Written around the replacement where the site inserts text (length
  /// 0): an argument added to a call (before ", ": `GET_BLOCKS(n)` ->
  /// `GET_BLOCKS(n, P)`), or a local constant that shadows a header's
  /// constant for a launch spelled in a macro's body (before " constexpr int
  /// BLOCK_SIZE = ", after ";", at the start of the function's body).
  std::string before, after;
  /// Spelled in the body of a function-like macro that launchers of several
  /// kernels expand: one edit serves them all, so every candidate with
  /// this site is lifted, under one name, or none is.
  bool shared = false;
};

struct Candidate {
  std::string id; // stable: derived from kind, kernel and first site
  ParamKind kind = ParamKind::Other;
  std::string kernel;   // qualified kernel name the constant belongs to
  int64_t value = 0;    // the original value
  std::string spelling; // how it is written at its definition ("kBlock", "256")
  Confidence confidence = Confidence::Medium;
  std::string why; // why it was matched, for people and planners
  std::vector<SourceSite> sites;
  /// Constraints the code implies, in the expression language, candidates
  /// written as "{id}": "{c3} % 32 == 0" (warp-level code),
  /// "{c5} * ({c5} + 1) * 4 <= 49152" (static shared memory), "{c3} <= 1024".
  std::vector<std::string> impliedConstraints;
  /// The C++ type of the constant ("unsigned int" for `1024U`, "size_t"):
  /// a parameter replacing it keeps it. Empty: int.
  std::string type;
  /// Every site is in host code around a launch (`std::min(d, 1024U)` as the
  /// block): lifting it makes the launcher a template and leaves the kernel
  /// unchanged (a launch parameter of the manifest).
  bool launchParam = false;
  /// A constant of one case of a configuration table (`if (seqlen <= 128)
  /// k<32><<<g, 32>>>(); else ...`): the table's "file:line", the case's
  /// place in it (0 first), and when the case is reached, over the launching
  /// function's parameters, or "unknown". Empty table: no case.
  std::string caseTable;
  int caseIndex = -1;
  std::string caseCondition;
  /// fixed_arg: the kernel argument it fixes at compile time (its name).
  std::string fixesArgument;
};

/// The name the heuristic planner gives a candidate before it is made
/// unique: "BLOCK_SIZE", "TILE_Y", "FIXED_D" (HeuristicChoices.cpp).
std::string suggestedParamName(const Candidate &c);

/// A parameter the refactorer introduces (row_split's body, a register
/// cap's bounds): no constant of the code holds it, so the default plan
/// never lifts it; the tuning loop proposes it from its diagnoses.
bool isIntroduced(const Candidate &c);

/// What a register cap writes before a kernel's name where it has no
/// bounds: none at 0 (bounds of 0 and 0 emit no directive), else M blocks
/// of at most 1024 threads.
inline constexpr const char *RegisterCapBounds =
    "__launch_bounds__({P} > 0 ? 1024 : 0, {P}) ";

/// A structural parameter a kernel cannot take, and why.
struct Refusal {
  std::string kernel;
  ParamKind kind = ParamKind::RowSplit;
  std::string why; // "file:line:col: ..." first
};

struct CandidateSet {
  std::string file; // the main file analysed
  std::vector<Candidate> candidates;
  std::vector<Refusal> refusals;

  const Candidate *find(const std::string &id) const;
};

Expected<CandidateSet> candidatesFromJson(const nlohmann::json &json);
nlohmann::json candidatesToJson(const CandidateSet &set);

} // namespace ktune

#endif
