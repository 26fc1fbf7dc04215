#include "ktune/Target/DeviceLimits.h"
#include "ktune/Support/Try.h"

#include <cctype>

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

Expected<DeviceLimits> deviceLimitsFromJson(const json &j) {
  try {
    DeviceLimits l;
    l.name = j.at("name").get<std::string>();
    l.arch = j.at("arch").get<std::string>();
    l.ccMajor = j.at("cc").at(0).get<int>();
    l.ccMinor = j.at("cc").at(1).get<int>();
    l.fromDevice = j.at("from_device").get<bool>();
    l.smCount = j.at("sm_count").get<int>();
    l.warpSize = j.at("warp_size").get<int>();
    l.maxThreadsPerBlock = j.at("max_threads_per_block").get<int>();
    l.maxBlockDim = j.at("max_block_dim").get<std::array<int64_t, 3>>();
    l.maxGridDim = j.at("max_grid_dim").get<std::array<int64_t, 3>>();
    l.maxThreadsPerSM = j.at("max_threads_per_sm").get<int>();
    l.maxBlocksPerSM = j.at("max_blocks_per_sm").get<int>();
    l.regsPerBlock = j.at("regs_per_block").get<int>();
    l.regsPerSM = j.at("regs_per_sm").get<int>();
    l.maxRegsPerThread = j.at("max_regs_per_thread").get<int>();
    l.smemPerBlock = j.at("smem_per_block").get<int64_t>();
    l.smemPerBlockOptin = j.at("smem_per_block_optin").get<int64_t>();
    l.smemPerSM = j.at("smem_per_sm").get<int64_t>();
    l.reservedSmemPerBlock = j.at("reserved_smem_per_block").get<int64_t>();
    l.l2Bytes = j.at("l2_bytes").get<int64_t>();
    l.totalMemory = j.at("total_memory").get<int64_t>();
    if (l.warpSize <= 0 || l.maxThreadsPerBlock <= 0 || l.maxThreadsPerSM <= 0)
      return makeError("device limits are not positive");
    return l;
  } catch (const json::exception &e) {
    return makeError(std::string("malformed device limits: ") + e.what());
  }
}

} // namespace ktune
