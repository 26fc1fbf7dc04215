//===- Evaluator.cpp - Status names and counts, resources as JSON --------===//

#include "ktune/Tune/Evaluator.h"

#include "ktune/Support/Try.h"

#include <climits>
#include <utility>

namespace ktune {

namespace {
/// Each status's name in JSON files and how a message says it ("failed with
/// a timeout").
struct StatusSpelling {
  EvalStatus status;
  std::string_view name, phrase;
};

constexpr StatusSpelling Statuses[] = {
    {EvalStatus::Ok, "ok", "ok"},
    {EvalStatus::Pruned, "pruned", "pruned"},
    {EvalStatus::CompileError, "compile_error", "a compile error"},
    {EvalStatus::RuntimeError, "runtime_error", "a runtime error"},
    {EvalStatus::Timeout, "timeout", "a timeout"},
    {EvalStatus::WrongResult, "wrong_result", "a wrong result"},
};

const StatusSpelling *spellingOf(EvalStatus s) {
  for (const StatusSpelling &row : Statuses)
    if (row.status == s)
      return &row;
  return nullptr;
}
} // namespace

std::string_view statusName(EvalStatus s) {
  const StatusSpelling *row = spellingOf(s);
  return row ? row->name : "unknown";
}

std::string_view statusPhrase(EvalStatus s) {
  const StatusSpelling *row = spellingOf(s);
  return row ? row->phrase : "?";
}

std::optional<EvalStatus> parseStatus(std::string_view name) {
  for (const StatusSpelling &row : Statuses)
    if (row.name == name)
      return row.status;
  return std::nullopt;
}

nlohmann::json resourcesToJson(const Resources &r,
                               const ResourcesJsonOptions &options) {
  nlohmann::json j = nlohmann::json::object();
  if (r.registers >= 0)
    j["registers"] = r.registers;
  if (options.zeroSpills || r.spillStores || r.spillLoads) {
    j["spill_stores"] = r.spillStores;
    j["spill_loads"] = r.spillLoads;
  }
  if (options.stackFrame && r.stackFrame)
    j["stack_frame"] = r.stackFrame;
  if (r.smemStatic >= 0)
    j["smem_static"] = r.smemStatic;
  if (options.zeroSmemDynamic || r.smemDynamic)
    j["smem_dynamic"] = r.smemDynamic;
  if (r.threadsPerBlock > 0)
    j["threads_per_block"] = r.threadsPerBlock;
  if (r.blocksPerSM >= 0)
    j["blocks_per_sm"] = r.blocksPerSM;
  return j;
}

nlohmann::json hardwareCountersToJson(const HardwareCounters &c) {
  nlohmann::json j = {{"launches", c.launches}};
  auto put = [&](const char *key, double v) {
    if (v >= 0)
      j[key] = v;
  };
  put("dram_read_bytes", c.dramReadBytes);
  put("dram_write_bytes", c.dramWriteBytes);
  put("dram_throughput_pct", c.dramThroughputPct);
  put("achieved_occupancy_pct", c.achievedOccupancyPct);
  put("theoretical_occupancy_pct", c.theoreticalOccupancyPct);
  put("duration_us", c.durationUs);
  if (c.registers >= 0)
    j["registers"] = c.registers;
  return j;
}

Expected<Resources> resourcesFromJson(const JsonReader &j) {
  if (!j.isObject())
    return j.fail("expected an object");
  Resources r;
  auto field = [&](std::string_view key, int &slot) -> Status {
    KTUNE_TRY_ASSIGN(int64_t v, j.optionalInteger(key, slot, INT_MIN, INT_MAX));
    slot = static_cast<int>(v);
    return {};
  };
  KTUNE_TRY(field("registers", r.registers));
  KTUNE_TRY(field("spill_stores", r.spillStores));
  KTUNE_TRY(field("spill_loads", r.spillLoads));
  KTUNE_TRY(field("stack_frame", r.stackFrame));
  KTUNE_TRY(field("smem_static", r.smemStatic));
  KTUNE_TRY(field("smem_dynamic", r.smemDynamic));
  KTUNE_TRY(field("threads_per_block", r.threadsPerBlock));
  KTUNE_TRY(field("blocks_per_sm", r.blocksPerSM));
  return r;
}

nlohmann::json compilerReportToJson(const CompilerReport &c) {
  return nlohmann::json{{"backend", c.backend},
                        {"reason", c.reason},
                        {"command", c.command},
                        {"options", c.options},
                        {"dropped", c.dropped},
                        {"calls", c.calls},
                        {"instantiations", c.instantiations},
                        {"cache_hits", c.cacheHits},
                        {"failures", c.failures},
                        {"compile_seconds", c.compileSeconds}};
}

Expected<CompilerReport> compilerReportFromJson(const JsonReader &j) {
  if (!j.isObject())
    return j.fail("expected an object");
  CompilerReport c;
  KTUNE_TRY_ASSIGN(c.backend, j.optionalString("backend"));
  KTUNE_TRY_ASSIGN(c.reason, j.optionalString("reason"));
  KTUNE_TRY_ASSIGN(c.command, j.optionalString("command"));
  if (j.hasValue("options")) {
    KTUNE_TRY_ASSIGN(c.options, j["options"].strings());
  }
  if (j.hasValue("dropped")) {
    KTUNE_TRY_ASSIGN(c.dropped, j["dropped"].strings());
  }
  KTUNE_TRY_ASSIGN(c.calls, j.optionalUnsigned("calls", 0));
  KTUNE_TRY_ASSIGN(c.instantiations, j.optionalUnsigned("instantiations", 0));
  KTUNE_TRY_ASSIGN(c.cacheHits, j.optionalUnsigned("cache_hits", 0));
  KTUNE_TRY_ASSIGN(c.failures, j.optionalUnsigned("failures", 0));
  KTUNE_TRY_ASSIGN(c.compileSeconds, j.optionalNumber("compile_seconds", 0.0));
  return c;
}

void to_json(nlohmann::json &j, const StatusCounts &counts) {
  j = nlohmann::json::object();
  for (const auto &[status, n] : counts)
    j[std::string(statusName(status))] = n;
}

} // namespace ktune
