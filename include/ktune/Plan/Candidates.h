//===- ktune/Plan/Candidates.h - What stage 1 could lift --------*- C++ -*-===//
//
// A candidate is one tunable constant of one kernel with every source site
// that must change with it. `ktune-refactor --candidates` prints them; plans
// refer to them by id. Schema: docs/schemas.md#candidates.
//
//===----------------------------------------------------------------------===//
#ifndef KTUNE_PLAN_CANDIDATES_H
#define KTUNE_PLAN_CANDIDATES_H

#include "ktune/Support/Error.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ktune {

inline constexpr const char *CandidatesVersion = "candidates/1";

enum class ParamKind {
  BlockSize,
  TileSize,
  Unroll,
  VectorWidth,
  ItemsPerThread,
  WarpsPerBlock,
  Other,
};

/// "block_size", "tile_size", "unroll", "vector_width", "items_per_thread",
/// "warps_per_block", "other".
std::string_view kindName(ParamKind kind);
std::optional<ParamKind> parseKind(std::string_view name);

enum class Confidence { High, Medium, Low };
std::string_view confidenceName(Confidence c);
std::optional<Confidence> parseConfidence(std::string_view name);

/// One place in the source that changes with the parameter.
struct SourceSite {
  std::string file; // as given on the command line / in compile_commands
  unsigned line = 0, col = 0; // 1-based, of the first character
  unsigned offset = 0;        // byte offset in the file
  unsigned length = 0;        // bytes replaced
  std::string text;           // the source text [offset, offset+length)
  /// definition | launch_block | launch_grid | launch_bounds |
  /// cub_block_size | template_arg | loop_stride | shared_extent |
  /// unroll_pragma | vector_type | index_arith | other
  std::string role;
  /// How the site is rewritten, "{P}" standing for the parameter's name:
  /// "{P}", "{P} + 1" (a tile's padded extent), "{P} - 1" (the 255 in
  /// `(n + 255) / 256`). A vector_type site may name a type expression.
  std::string replacement = "{P}";
};

struct Candidate {
  std::string id; // stable: derived from kind, kernel and first site
  ParamKind kind = ParamKind::Other;
  std::string kernel;   // qualified kernel name the constant belongs to
  int64_t value = 0;    // the original value
  std::string spelling; // how it is written at its definition ("kBlock", "256")
  Confidence confidence = Confidence::Medium;
  std::string why;      // why it was matched, for people and planners
  std::vector<SourceSite> sites;
  /// Constraints the code implies, in the expression language, candidates
  /// written as "{id}": "{c3} % 32 == 0" (warp-level code),
  /// "{c5} * ({c5} + 1) * 4 <= 49152" (static shared memory), "{c3} <= 1024".
  std::vector<std::string> impliedConstraints;
};

struct CandidateSet {
  std::string file; // the main file analysed
  std::vector<Candidate> candidates;

  const Candidate *find(const std::string &id) const;
};

Expected<CandidateSet> candidatesFromJson(const nlohmann::json &json);
nlohmann::json candidatesToJson(const CandidateSet &set);

} // namespace ktune

#endif
