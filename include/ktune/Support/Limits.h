//===- ktune/Support/Limits.h - Sizes untrusted input may ask for -*- C++
//-*-===//
//
// Every size a file can set (how much is read, how deep JSON nests, how many
// shapes a spec spans) is bounded, so hostile or mistaken input ends with one
// clear error instead of exhausting memory or the stack. docs/limits.md lists
// these limits together with the ones kept beside their readers
// (Domain::MaxSize, planner::MaxReplyBytes, expression limits).
//
//===----------------------------------------------------------------------===//
#ifndef KTUNE_SUPPORT_LIMITS_H
#define KTUNE_SUPPORT_LIMITS_H

#include <cstddef>
#include <cstdint>

namespace ktune::limits {

/// A JSON file (plan, candidates, manifest, spec, results, T1, T4, device
/// facts): far above any real one (the largest T4 recordings are ~10 MiB).
inline constexpr size_t MaxJsonFileBytes = size_t(64) << 20;

/// A journal holds one line per evaluation (~0.5 KiB): 256 MiB is about half
/// a million evaluations.
inline constexpr size_t MaxJournalBytes = size_t(256) << 20;

/// Nesting of JSON arrays and objects; ktune's files nest fewer than 10 deep.
inline constexpr size_t MaxJsonDepth = 256;

/// Shapes a spec spans (its listed shapes, or the product of its dims).
inline constexpr uint64_t MaxShapes = uint64_t(1) << 16;

/// Values of all the parameters' domains of a search space together (each
/// is also at most Domain::MaxSize); the space itself, their product, is
/// never enumerated beyond what a strategy visits.
inline constexpr uint64_t MaxSpaceValues = uint64_t(1) << 22;

} // namespace ktune::limits

#endif
