//===- ktune/Tune/T4.h - Kernel Tuner T4 results export ---------*- C++ -*-===//
//
// The T4 results format of the auto-tuning community (Kernel Tuner,
// benchmark_hub): one result per evaluation, in the order it was made, with
// its configuration, times, invalidity and measurements. Our reading of the
// format is written down as a JSON Schema in docs/schemas/t4.schema.json.
// Reading T4 files for simulation lives in ktune/Tune/Simulator.h.
//
//===----------------------------------------------------------------------===//
#ifndef KTUNE_TUNE_T4_H
#define KTUNE_TUNE_T4_H

#include "ktune/Tune/Journal.h"

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace ktune {

inline constexpr const char *T4SchemaVersion = "1.0.0";

/// "correct", "compile", "runtime", "timeout", "correctness", "constraints".
std::string_view t4Invalidity(EvalStatus status);
/// The outcome a T4 "invalidity" stands for (a runtime error for one it does
/// not know).
EvalStatus statusOfInvalidity(std::string_view invalidity);

/// The T4 document of `entries` in order. Re-timings are left out (they
/// re-measure configurations already listed), and so are results without a
/// time that did not fail (compile-only runs). A non-empty shape's
/// dimensions are written into each configuration beside the parameters, as
/// T4 files do with problem parameters. Times are in milliseconds; each
/// result's `runtimes` holds the median of its repetitions.
nlohmann::json journalToT4(const std::vector<JournalEntry> &entries);

} // namespace ktune

#endif
