//===- ktune/Refactor/Detection.h - Finding tunable constants ---*- C++ -*-===//
//
// Detection in two steps. collectFacts reads one AST (one compilation side)
// and records kernels, helpers, launches and every spelled constant in a
// role that matters for performance (launch block dims, __launch_bounds__,
// cub block sizes, loop strides, shared-memory extents, #pragma unroll,
// register arrays, vector widths). buildCandidates groups the merged facts
// into candidates: the same constant in every site that must change with
// it, with its kind, confidence, reasons and the constraints the code
// implies. Both are usable on their own, e.g. from a clang-tidy check's
// MatchFinder callback:
//
//   auto facts = collectFacts(*Result.Context, "kernel.cu");
//   attributeHelperOccurrences(facts);
//   CandidateSet set = buildCandidates(facts);
//
//===----------------------------------------------------------------------===//
#ifndef KTUNE_REFACTOR_DETECTION_H
#define KTUNE_REFACTOR_DETECTION_H

#include "ktune/Plan/Candidates.h"
#include "ktune/Plan/Plan.h"
#include "ktune/Refactor/HeaderFilter.h"
#include "ktune/Refactor/SourceFacts.h"

#include <string>

namespace clang {
class ASTContext;
}

namespace ktune::refactor {

/// Reads the main file of `ctx`, and the kernels it launches and their
/// helpers in the headers `headers` lets through (none when null).
/// `fileAsGiven` is recorded in the main file's sites.
SourceFacts collectFacts(clang::ASTContext &ctx, const std::string &fileAsGiven,
                         const HeaderFilter *headers = nullptr);

/// Groups facts (after attributeHelperOccurrences) into candidates with
/// stable ids. Pure: the same facts give the same candidates.
CandidateSet buildCandidates(const SourceFacts &facts);

/// Which candidate each occurrence ended up in: (position, kernel id) ->
/// candidate id. Rewriting uses it to find the functions a site lies in.
struct CandidateIndex {
  std::map<std::pair<Position, std::string>, std::string> byOccurrence;
  /// Candidate id -> kernel function id.
  std::map<std::string, std::string> kernelOf;
  /// Candidate id -> existing kernel template parameter it sets (-1: none).
  std::map<std::string, int> boundParam;
};

/// What buildCandidates adds beyond the constants of the code.
struct CandidateOptions {
  /// A register cap (`__launch_bounds__`' minimum, kind min_blocks) for
  /// each kernel that can take one: what `ktune run` proposes where
  /// registers limit occupancy. Off, they are neither listed nor accepted.
  bool registerCaps = false;
  /// A fixed_arg parameter for each integer argument a kernel reads and
  /// never writes: what `ktune run` proposes at shapes where the kernel is
  /// latency-bound. Off, they are neither listed nor accepted.
  bool fixedArgs = false;
};

/// Like buildCandidates, also returning the index.
CandidateSet buildCandidates(const SourceFacts &facts, CandidateIndex &index,
                             const CandidateOptions &options = {});

/// What detection found in one file (one side, or both merged): the value
/// ktune-refactor (Analysis, Refactorer.h) and the clang-tidy module both
/// work from.
struct Detection {
  std::string file;   // as given
  std::string source; // its text when analysed
  SourceFacts facts;  // facts.files: the headers read besides the file
  CandidateSet candidates;
  CandidateIndex index;

  /// The text of every file candidates' sites name (the main file and the
  /// headers read), by the path sites give.
  SourceTexts sources() const;
};

/// Facts and candidates for one AST: collectFacts + attribution + grouping.
CandidateSet detectCandidates(clang::ASTContext &ctx,
                              const std::string &fileAsGiven,
                              const HeaderFilter *headers = nullptr);

} // namespace ktune::refactor

#endif
