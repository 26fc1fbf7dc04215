//===- DeviceFacts.cpp - Device limits shown to planners ------------------===//
#include "ktune/Planner/Planner.h"

#include <limits>
#include <type_traits>

namespace ktune::planner {

using nlohmann::json;

json DeviceFacts::toJson() const {
  return json{{"name", name},
              {"arch", arch},
              {"sm_count", smCount},
              {"warp_size", warpSize},
              {"max_threads_per_block", maxThreadsPerBlock},
              {"max_threads_per_sm", maxThreadsPerSM},
              {"max_blocks_per_sm", maxBlocksPerSM},
              {"regs_per_block", regsPerBlock},
              {"regs_per_sm", regsPerSM},
              {"max_regs_per_thread", maxRegsPerThread},
              {"smem_per_block", smemPerBlock},
              {"smem_per_block_optin", smemPerBlockOptin},
              {"smem_per_sm", smemPerSM},
              {"l2_bytes", l2Bytes}};
}

namespace {

template <class T> Status readField(const json &j, const char *key, T &out) {
  if (!j.contains(key))
    return {};
  const json &v = j[key];
  if constexpr (std::is_same_v<T, std::string>) {
    if (!v.is_string())
      return makeError("expected a string", key);
    out = v.get<std::string>();
  } else {
    if (!v.is_number_integer())
      return makeError("expected an integer", key);
    int64_t value = v.get<int64_t>();
    if (value < 0 || value > std::numeric_limits<T>::max())
      return makeError("out of range: " + std::to_string(value), key);
    out = static_cast<T>(value);
  }
  return {};
}

} // namespace

Expected<DeviceFacts> DeviceFacts::fromJson(const json &j) {
  if (!j.is_object())
    return makeError("device limits must be a JSON object");
  DeviceFacts d;
  Status s;
#define KTUNE_READ(key, field)                                                 \
  if (s = readField(j, key, d.field); !s)                                      \
    return std::unexpected(s.error());
  KTUNE_READ("name", name)
  KTUNE_READ("arch", arch)
  KTUNE_READ("sm_count", smCount)
  KTUNE_READ("warp_size", warpSize)
  KTUNE_READ("max_threads_per_block", maxThreadsPerBlock)
  KTUNE_READ("max_threads_per_sm", maxThreadsPerSM)
  KTUNE_READ("max_blocks_per_sm", maxBlocksPerSM)
  KTUNE_READ("regs_per_block", regsPerBlock)
  KTUNE_READ("regs_per_sm", regsPerSM)
  KTUNE_READ("max_regs_per_thread", maxRegsPerThread)
  KTUNE_READ("smem_per_block", smemPerBlock)
  KTUNE_READ("smem_per_block_optin", smemPerBlockOptin)
  KTUNE_READ("smem_per_sm", smemPerSM)
  KTUNE_READ("l2_bytes", l2Bytes)
#undef KTUNE_READ
  return d;
}

} // namespace ktune::planner
