//===- Evaluator.cpp - Status names and counts, resources as JSON --------===//

#include "ktune/Tune/Evaluator.h"

#include "ktune/Support/EnumNames.h"
#include "ktune/Support/Try.h"

#include <climits>
#include <utility>

namespace ktune {

namespace {
constexpr EnumName<EvalStatus> StatusNames[] = {
    {EvalStatus::Ok, "ok"},
    {EvalStatus::Pruned, "pruned"},
    {EvalStatus::CompileError, "compile_error"},
    {EvalStatus::RuntimeError, "runtime_error"},
    {EvalStatus::Timeout, "timeout"},
    {EvalStatus::WrongResult, "wrong_result"},
};
} // namespace

std::string_view statusName(EvalStatus s) {
  return nameOf(StatusNames, s, "unknown");
}

std::optional<EvalStatus> parseStatus(std::string_view name) {
  return parseName(StatusNames, name);
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

void to_json(nlohmann::json &j, const StatusCounts &counts) {
  j = nlohmann::json::object();
  for (const auto &[status, n] : counts)
    j[std::string(statusName(status))] = n;
}

} // namespace ktune
