//===- DeviceLimits.cpp - Hardware limits of a GPU ------------------------===//
#include "ktune/Target/DeviceLimits.h"
#include "ktune/Support/Try.h"

#include <cctype>
#include <limits>
#include <type_traits>

namespace ktune {

using nlohmann::json;

Expected<std::array<int, 2>> parseArch(std::string_view arch) {
  std::string_view digits;
  if (arch.starts_with("sm_"))
    digits = arch.substr(3);
  else if (arch.starts_with("compute_"))
    digits = arch.substr(8);
  else
    return makeError("architecture '" + std::string(arch) +
                     "' is not of the form sm_XY or compute_XY");
  // Feature suffixes (sm_90a, sm_100f) do not change the limits.
  while (!digits.empty() &&
         std::isalpha(static_cast<unsigned char>(digits.back())))
    digits.remove_suffix(1);
  if (digits.size() < 2 || digits.size() > 3)
    return makeError("architecture '" + std::string(arch) +
                     "' is not of the form sm_XY or compute_XY");
  for (char c : digits)
    if (!std::isdigit(static_cast<unsigned char>(c)))
      return makeError("architecture '" + std::string(arch) +
                       "' is not of the form sm_XY or compute_XY");
  int value = std::stoi(std::string(digits));
  return std::array<int, 2>{value / 10, value % 10};
}

std::string archForComputeCapability(int major, int minor) {
  return "sm_" + std::to_string(major) + std::to_string(minor);
}

namespace {
struct StaticPart {
  const char *arch;
  const char *part;
  int smCount, maxThreadsPerSM, maxBlocksPerSM;
  int64_t smemPerBlockOptin, smemPerSM, l2Bytes;
};
// Public figures of one common part per architecture. SM count and L2 size
// only matter for timing, which compile-only mode never does.
constexpr StaticPart StaticParts[] = {
    {"sm_80", "A100", 108, 2048, 32, 166912, 167936, 40ll << 20},
    {"sm_86", "RTX 3090", 82, 1536, 16, 101376, 102400, 6ll << 20},
    {"sm_89", "L4", 58, 1536, 24, 101376, 102400, 48ll << 20},
    {"sm_90", "H100 SXM", 132, 2048, 32, 232448, 233472, 50ll << 20},
    {"sm_100", "B200", 148, 2048, 32, 232448, 233472, 126ll << 20},
};
} // namespace

std::vector<std::string> staticArchs() {
  std::vector<std::string> out;
  for (const auto &p : StaticParts)
    out.push_back(p.arch);
  return out;
}

Expected<DeviceLimits> staticDeviceLimits(std::string_view arch) {
  KTUNE_TRY_ASSIGN(auto cc, parseArch(arch));
  std::string base = archForComputeCapability(cc[0], cc[1]);
  for (const auto &p : StaticParts) {
    if (base != p.arch)
      continue;
    DeviceLimits l;
    l.name = base + " (static limits of " + p.part + ")";
    l.arch = base;
    l.ccMajor = cc[0];
    l.ccMinor = cc[1];
    l.smCount = p.smCount;
    l.maxThreadsPerSM = p.maxThreadsPerSM;
    l.maxBlocksPerSM = p.maxBlocksPerSM;
    l.smemPerBlockOptin = p.smemPerBlockOptin;
    l.smemPerSM = p.smemPerSM;
    l.reservedSmemPerBlock = 1024;
    l.l2Bytes = p.l2Bytes;
    return l;
  }
  std::string known;
  for (const auto &p : StaticParts)
    known += std::string(known.empty() ? "" : ", ") + p.arch;
  return makeError("no static limits for architecture '" + std::string(arch) +
                   "' (known: " + known + ")");
}

json deviceLimitsToJson(const DeviceLimits &l) {
  return json{{"name", l.name},
              {"arch", l.arch},
              {"cc", {l.ccMajor, l.ccMinor}},
              {"from_device", l.fromDevice},
              {"sm_count", l.smCount},
              {"warp_size", l.warpSize},
              {"max_threads_per_block", l.maxThreadsPerBlock},
              {"max_block_dim", l.maxBlockDim},
              {"max_grid_dim", l.maxGridDim},
              {"max_threads_per_sm", l.maxThreadsPerSM},
              {"max_blocks_per_sm", l.maxBlocksPerSM},
              {"regs_per_block", l.regsPerBlock},
              {"regs_per_sm", l.regsPerSM},
              {"max_regs_per_thread", l.maxRegsPerThread},
              {"smem_per_block", l.smemPerBlock},
              {"smem_per_block_optin", l.smemPerBlockOptin},
              {"smem_per_sm", l.smemPerSM},
              {"reserved_smem_per_block", l.reservedSmemPerBlock},
              {"l2_bytes", l.l2Bytes},
              {"total_memory", l.totalMemory}};
}

namespace {

/// Reads `key` of `j` into `out` where it is present; an absent key is an
/// error only when every key is `required`.
template <class T>
Status readField(const json &j, const char *key, bool required, T &out) {
  if (!j.contains(key)) {
    if (required)
      return makeError("missing", key);
    return {};
  }
  const json &v = j[key];
  auto integer = [&](const json &n, auto &to) -> Status {
    using I = std::remove_reference_t<decltype(to)>;
    if (!n.is_number_integer())
      return makeError("expected an integer", key);
    int64_t value = n.get<int64_t>();
    if (value < 0 || value > std::numeric_limits<I>::max())
      return makeError("out of range: " + std::to_string(value), key);
    to = static_cast<I>(value);
    return {};
  };
  if constexpr (std::is_same_v<T, std::string>) {
    if (!v.is_string())
      return makeError("expected a string", key);
    out = v.get<std::string>();
  } else if constexpr (std::is_same_v<T, bool>) {
    if (!v.is_boolean())
      return makeError("expected true or false", key);
    out = v.get<bool>();
  } else if constexpr (std::is_integral_v<T>) {
    return integer(v, out);
  } else { // a fixed number of integers: [x, y, z], [major, minor]
    if (!v.is_array() || v.size() != out.size())
      return makeError("expected " + std::to_string(out.size()) + " integers",
                       key);
    for (size_t i = 0; i < out.size(); ++i)
      if (auto s = integer(v[i], out[i]); !s)
        return s;
  }
  return {};
}

Expected<DeviceLimits> readDeviceLimits(const json &j, DeviceLimits l,
                                        bool required) {
  if (!j.is_object())
    return makeError("device limits must be a JSON object");
  std::array<int, 2> cc{l.ccMajor, l.ccMinor};
  Status s;
#define KTUNE_READ(key, field)                                                 \
  if (s = readField(j, key, required, field); !s)                              \
    return std::unexpected(s.error());
  KTUNE_READ("name", l.name)
  KTUNE_READ("arch", l.arch)
  KTUNE_READ("cc", cc)
  KTUNE_READ("from_device", l.fromDevice)
  KTUNE_READ("sm_count", l.smCount)
  KTUNE_READ("warp_size", l.warpSize)
  KTUNE_READ("max_threads_per_block", l.maxThreadsPerBlock)
  KTUNE_READ("max_block_dim", l.maxBlockDim)
  KTUNE_READ("max_grid_dim", l.maxGridDim)
  KTUNE_READ("max_threads_per_sm", l.maxThreadsPerSM)
  KTUNE_READ("max_blocks_per_sm", l.maxBlocksPerSM)
  KTUNE_READ("regs_per_block", l.regsPerBlock)
  KTUNE_READ("regs_per_sm", l.regsPerSM)
  KTUNE_READ("max_regs_per_thread", l.maxRegsPerThread)
  KTUNE_READ("smem_per_block", l.smemPerBlock)
  KTUNE_READ("smem_per_block_optin", l.smemPerBlockOptin)
  KTUNE_READ("smem_per_sm", l.smemPerSM)
  KTUNE_READ("reserved_smem_per_block", l.reservedSmemPerBlock)
  KTUNE_READ("l2_bytes", l.l2Bytes)
  KTUNE_READ("total_memory", l.totalMemory)
#undef KTUNE_READ
  l.ccMajor = cc[0];
  l.ccMinor = cc[1];
  if (l.warpSize <= 0 || l.maxThreadsPerBlock <= 0 || l.maxThreadsPerSM <= 0)
    return makeError("device limits are not positive");
  return l;
}

} // namespace

Expected<DeviceLimits> deviceLimitsFromJson(const json &j) {
  return readDeviceLimits(j, DeviceLimits{}, /*required=*/true);
}

Expected<DeviceLimits> deviceLimitsFromJson(const json &j,
                                            const DeviceLimits &defaults) {
  return readDeviceLimits(j, defaults, /*required=*/false);
}

DeviceLimits assumedDeviceLimits() {
  DeviceLimits l = *staticDeviceLimits("sm_90");
  l.name = "unknown device (sm_90 defaults)";
  return l;
}

} // namespace ktune
