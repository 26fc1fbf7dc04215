//===- T4.cpp - Kernel Tuner T4 results export ----------------------------===//
#include "ktune/Tune/T4.h"

#include "ktune/Support/EnumNames.h"

#include <algorithm>

namespace ktune {

using nlohmann::json;

/// Kernel Tuner's word for each outcome ("invalidity").
static constexpr EnumName<EvalStatus> InvalidityNames[] = {
    {EvalStatus::Ok, "correct"},
    {EvalStatus::Pruned, "constraints"},
    {EvalStatus::CompileError, "compile"},
    {EvalStatus::RuntimeError, "runtime"},
    {EvalStatus::Timeout, "timeout"},
    {EvalStatus::WrongResult, "correctness"},
};

std::string_view t4Invalidity(EvalStatus status) {
  return nameOf(InvalidityNames, status, "runtime");
}

EvalStatus statusOfInvalidity(std::string_view invalidity) {
  // "correct" is not an invalidity; "runtime" and anything unknown are
  // runtime errors.
  auto status = parseName(InvalidityNames, invalidity);
  return status && *status != EvalStatus::Ok ? *status
                                             : EvalStatus::RuntimeError;
}

/// The strings Kernel Tuner puts in place of a failed measurement.
static std::string_view failureValue(EvalStatus status) {
  switch (status) {
  case EvalStatus::CompileError:
    return "CompilationFailedConfig";
  case EvalStatus::RuntimeError:
  case EvalStatus::Timeout:
    return "RuntimeFailedConfig";
  default:
    return "InvalidConfig";
  }
}

json journalToT4(const std::vector<JournalEntry> &entries) {
  json results = json::array();
  for (const auto &e : entries) {
    if (e.phase == JournalPhase::Retime)
      continue;
    bool measured = e.result.status == EvalStatus::Ok && e.result.time;
    if (e.result.status == EvalStatus::Ok && !measured)
      continue;
    json config = json::object();
    for (const auto &[name, value] : e.key.shape)
      config[name] = value;
    for (const auto &[name, value] : e.key.config)
      config[name] = value;
    double compileMs = std::max(0.0, e.result.compileMs);
    double runMs = measured ? e.result.time->medianUs / 1000.0 *
                                  std::max(1, e.result.time->reps)
                            : 0.0;
    json times = {{"compilation", compileMs},
                  {"framework", std::max(0.0, e.evalMs - compileMs - runMs)},
                  {"search_algorithm", std::max(0.0, e.searchMs)},
                  {"validation", 0.0}};
    json r = {{"timestamp", e.at},
              {"configuration", std::move(config)},
              {"invalidity", t4Invalidity(e.result.status)},
              {"correctness", measured ? 1 : 0},
              {"objectives", json::array({"time"})}};
    if (measured) {
      double ms = e.result.time->medianUs / 1000.0;
      times["runtimes"] = json::array({ms});
      r["measurements"] =
          json::array({{{"name", "time"}, {"value", ms}, {"unit", "ms"}}});
    } else {
      r["measurements"] =
          json::array({{{"name", "time"},
                        {"value", failureValue(e.result.status)},
                        {"unit", "ms"}}});
    }
    r["times"] = std::move(times);
    results.push_back(std::move(r));
  }
  json metadata = {{"timeunit", "milliseconds"}, {"generator", "ktune"}};
  if (!entries.empty()) {
    metadata["kernel"] = entries.front().key.kernel;
    metadata["device"] = entries.front().key.device;
    metadata["arch"] = entries.front().key.arch;
    metadata["template_sha256"] = entries.front().key.templateSha256;
  }
  return {{"schema_version", T4SchemaVersion},
          {"metadata", std::move(metadata)},
          {"results", std::move(results)}};
}

} // namespace ktune
