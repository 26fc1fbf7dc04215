//===- HeuristicChoices.h - Names and domains of parameters -----*- C++ -*-===//
//
// Private to lib/Plan: what the heuristic planner (HeuristicPlanner.cpp)
// calls a candidate it lifts, and the values it lets the parameter take.
//
//===----------------------------------------------------------------------===//
#ifndef KTUNE_LIB_PLAN_HEURISTICCHOICES_H
#define KTUNE_LIB_PLAN_HEURISTICCHOICES_H

#include "ktune/Plan/Candidates.h"
#include "ktune/Plan/Domain.h"

#include <string>
#include <string_view>

namespace ktune::heuristic {

/// "kBlockSize" -> "BLOCK_SIZE", "num_stages" -> "NUM_STAGES"; empty when
/// the spelling is no identifier.
std::string upperSnake(std::string_view spelling);

/// The parameter name a candidate suggests before it is made unique:
/// "BLOCK_SIZE", "BLOCK_SIZE_X", "TILE_Y", "UNROLL", or the spelling's.
std::string baseName(const Candidate &c);

struct ChosenDomain {
  Domain domain;
  std::string note;
};

/// A launch parameter's block is one launcher's, and a block spelled only
/// at a launch and in its template argument (`norm<1024><<<g, 1024>>>`
/// beside `norm<32><<<g, 32>>>`) is that launch's: not one dimension of
/// the kernel's block among others.
bool blockOfOneLaunch(const Candidate &c);

/// The domain of a candidate of its kind (powers of two around the
/// original, which it always holds), and a note when the choice is narrow.
ChosenDomain domainFor(const Candidate &c, bool multiDimBlock);

} // namespace ktune::heuristic

#endif
