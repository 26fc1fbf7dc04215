//===- AnalysisLaunch.cpp - How a configuration uses the GPU --------------===//
//
// The analysis' feedback on the launch, without a profiler: occupancy and
// the resource that limits it (the compiler's resource report against the
// device limits), how much of the GPU the grid fills (the launch geometry
// at the shape: blocks, waves, the last wave's fill, SMs busy), and the
// diagnoses the re-plan rules act on. Rules: docs/run.md#analysis.
//
//===----------------------------------------------------------------------===//
#include "ktune/Run/Analysis.h"

#include "ktune/Support/EnumNames.h"
#include "ktune/Tune/KernelBinding.h"

#include <algorithm>
#include <cstdio>

namespace ktune::run {

using nlohmann::json;

namespace {
constexpr EnumName<DiagnosisKind> DiagnosisNames[] = {
    {DiagnosisKind::SmallGrid, "small_grid"},
    {DiagnosisKind::RegisterLimited, "register_limited"},
};

std::string percentOf(double fraction) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.0f%%", 100.0 * fraction);
  return buf;
}

std::string plural(int64_t n, const std::string &word) {
  return std::to_string(n) + " " + word + (n == 1 ? "" : "s");
}

/// "rows=1 and rows=16", "rows=1, rows=16 and 3 more shapes".
std::string shapeList(const std::vector<std::string> &labels) {
  constexpr size_t Shown = 3;
  std::string s;
  size_t n = std::min(labels.size(), Shown);
  for (size_t i = 0; i < n; ++i)
    s += (i == 0                                 ? ""
          : i + 1 == n && labels.size() <= Shown ? " and "
                                                 : ", ") +
         labels[i];
  if (labels.size() > Shown)
    s += " and " + plural(int64_t(labels.size() - Shown), "more shape");
  return s;
}

/// The best grid reaches fewer than options.minSmsBusy of the SMs on shapes
/// that are not latency-trivial.
void diagnoseSmallGrid(KernelAnalysis &a, const AnalysisOptions &options) {
  Diagnosis d;
  d.kind = DiagnosisKind::SmallGrid;
  d.smCount = a.smCount;
  d.smsBusy = a.smCount;
  std::vector<std::string> where;
  for (const auto &s : a.shapes) {
    const auto &f = s.bestLaunch;
    if (s.latencyTrivial || !f || !f->blocks || f->smCount <= 0 ||
        f->smsBusyFraction() >= options.minSmsBusy)
      continue;
    d.shapes.push_back(s.shape);
    d.smsBusy = std::min(d.smsBusy, f->smsBusy);
    where.push_back(
        std::to_string(f->smsBusy) + " of " + std::to_string(f->smCount) +
        " SMs at " + shapeText(s.shape) + " (" + plural(*f->blocks, "block") +
        (f->threadsPerBlock > 0
             ? " of " + std::to_string(f->threadsPerBlock) + " threads)"
             : ")"));
  }
  if (d.shapes.empty())
    return;
  d.message = "the grid fills " + shapeList(where) + ": fewer than " +
              percentOf(options.minSmsBusy) +
              " of the SMs get a block, the rest of the GPU idles";
  a.diagnoses.push_back(std::move(d));
}

/// Registers limit the best configuration's resident blocks on shapes whose
/// grid has more blocks than the GPU holds at once (or an unknown grid: a
/// launcher's), and a cap on the registers makes one more block resident. One
/// diagnosis per block size and register count.
void diagnoseRegisterLimited(KernelAnalysis &a, const DeviceLimits &device) {
  struct Found {
    Diagnosis d;
    double occupancyNow = 0, occupancyCapped = 0;
    std::vector<std::string> where;
  };
  std::vector<Found> found;
  for (const auto &s : a.shapes) {
    const auto &f = s.bestLaunch;
    if (s.latencyTrivial || !f || !f->occupancy || f->registers <= 0 ||
        f->occupancy->limiter != "registers" ||
        f->occupancy->blocksPerSM <= 0 || (f->waves && *f->waves <= 1.0))
      continue;
    const Occupancy &o = *f->occupancy;
    KernelFootprint k{f->threadsPerBlock, f->registers, f->smem, 0, 0};
    int cap = registerCapFor(device, k, o.blocksPerSM + 1);
    if (cap == 0)
      continue;
    auto same = std::find_if(found.begin(), found.end(), [&](const Found &x) {
      return x.d.threadsPerBlock == f->threadsPerBlock &&
             x.d.registers == f->registers;
    });
    if (same == found.end()) {
      Found x;
      x.d.kind = DiagnosisKind::RegisterLimited;
      x.d.smCount = f->smCount;
      x.d.threadsPerBlock = f->threadsPerBlock;
      x.d.registers = f->registers;
      x.d.blocksPerSM = o.blocksPerSM;
      x.d.minBlocks = o.blocksPerSM + 1;
      x.d.capRegisters = cap;
      x.occupancyNow = o.warpOccupancy;
      k.registers = cap;
      x.occupancyCapped = computeOccupancy(device, k).warpOccupancy;
      found.push_back(std::move(x));
      same = found.end() - 1;
    }
    same->d.shapes.push_back(s.shape);
    std::string waves;
    if (f->waves) {
      char buf[48];
      std::snprintf(buf, sizeof buf, " (%.1f waves)", *f->waves);
      waves = buf;
    }
    same->where.push_back(shapeText(s.shape) + waves);
  }
  for (auto &[d, now, capped, where] : found) {
    d.message = "registers limit occupancy at the best configuration: " +
                std::to_string(d.threadsPerBlock) + " threads x " +
                std::to_string(d.registers) + " registers leave " +
                plural(d.blocksPerSM, "block") + " per SM (" + percentOf(now) +
                " of its warps) at " + shapeList(where) + "; at most " +
                std::to_string(d.capRegisters) + " registers per thread make " +
                std::to_string(d.minBlocks) + " resident (" +
                percentOf(capped) + "): __launch_bounds__(" +
                std::to_string(d.threadsPerBlock) + ", " +
                std::to_string(d.minBlocks) + ")";
    a.diagnoses.push_back(std::move(d));
  }
}

} // namespace

std::string_view diagnosisKindName(DiagnosisKind kind) {
  return nameOf(DiagnosisNames, kind, "small_grid");
}

std::optional<LaunchFacts>
launchFacts(const DeviceLimits &device, const Resources &r,
            const std::optional<LaunchDims> &launch) {
  LaunchFacts f;
  f.threadsPerBlock = launch && launch->threadsPerBlock() > 0
                          ? launch->threadsPerBlock()
                          : r.threadsPerBlock;
  if (f.threadsPerBlock <= 0 && !launch)
    return std::nullopt;
  f.threadsPerBlock = std::max<int64_t>(f.threadsPerBlock, 0); // 0: unknown
  f.registers = r.registers;
  int64_t smemStatic = std::max(0, r.smemStatic);
  int64_t smemDynamic = launch ? launch->smemDynamic : r.smemDynamic;
  f.smem = smemStatic + smemDynamic;
  f.smCount = device.smCount;
  if (r.registers >= 0 && f.threadsPerBlock > 0)
    f.occupancy = computeOccupancy(
        device, {f.threadsPerBlock, r.registers, smemStatic, smemDynamic, 0});
  if (!launch)
    return f;
  f.blocks = launch->blocks();
  f.smsBusy = static_cast<int>(std::min<int64_t>(*f.blocks, device.smCount));
  if (f.occupancy && f.occupancy->blocksPerSM > 0 && device.smCount > 0 &&
      *f.blocks > 0) {
    int64_t slots = int64_t(device.smCount) * f.occupancy->blocksPerSM;
    int64_t before = (*f.blocks - 1) / slots; // full waves before the last
    f.waves = double(*f.blocks) / double(slots);
    f.tailFill = double(*f.blocks - before * slots) / double(slots);
  }
  return f;
}

int registerCapFor(const DeviceLimits &device, KernelFootprint kernel,
                   int minBlocks) {
  // Fewer registers never make fewer blocks resident: the first count from
  // the top that reaches minBlocks is the cap.
  for (int regs = device.maxRegsPerThread; regs >= 16; --regs) {
    kernel.registers = regs;
    if (computeOccupancy(device, kernel).byRegisters >= minBlocks)
      return regs;
  }
  return 0;
}

void analyzeLaunches(const KernelRoundInput &in, const AnalysisOptions &options,
                     KernelAnalysis &a) {
  if (!in.device)
    return;
  const DeviceLimits &device = *in.device;
  a.limitsName = device.name;
  a.smCount = device.smCount;
  std::optional<KernelBinding> binding;
  if (in.manifestKernel && in.spec) {
    auto b = KernelBinding::create(*in.manifestKernel, *in.spec);
    if (b && b->hasGeometry())
      binding = std::move(*b);
    else if (!b)
      a.notes.push_back("the launch geometry cannot be evaluated (" +
                        b.error().str() + "): no grid facts");
  }
  auto geometry =
      [&](const Shape &shape,
          const Configuration &config) -> std::optional<LaunchDims> {
    if (!binding || config.empty())
      return std::nullopt;
    auto complete = binding->complete(config);
    if (!complete)
      return std::nullopt;
    if (auto dims = binding->launch(shape, *complete))
      return *dims;
    // The grid alone (threads per block unknown: 0).
    auto grid = binding->gridDims(shape, *complete);
    if (!grid)
      return std::nullopt;
    LaunchDims dims;
    dims.grid = *grid;
    dims.block = {0, 1, 1};
    return dims;
  };
  for (auto &s : a.shapes) {
    s.defaultLaunch = launchFacts(device, s.defaultResources,
                                  geometry(s.shape, s.defaultConfig));
    s.bestLaunch =
        launchFacts(device, s.bestResources, geometry(s.shape, s.bestConfig));
  }
  diagnoseSmallGrid(a, options);
  diagnoseRegisterLimited(a, device);
}

json launchFactsToJson(const LaunchFacts &f) {
  auto optional = [](const auto &v) { return v ? json(*v) : json(nullptr); };
  json j{{"threads_per_block", f.threadsPerBlock},
         {"registers", f.registers >= 0 ? json(f.registers) : json(nullptr)},
         {"smem_bytes", f.smem}};
  if (f.occupancy) {
    j["blocks_per_sm"] = f.occupancy->blocksPerSM;
    j["limiter"] = f.occupancy->limiter;
    j["warp_occupancy"] = f.occupancy->warpOccupancy;
  } else {
    j["blocks_per_sm"] = j["limiter"] = j["warp_occupancy"] = nullptr;
  }
  j["grid_blocks"] = optional(f.blocks);
  j["sm_count"] = f.smCount;
  j["sms_busy"] = f.blocks ? json(f.smsBusy) : json(nullptr);
  j["waves"] = optional(f.waves);
  j["tail_fill"] = optional(f.tailFill);
  return j;
}

json diagnosisToJson(const Diagnosis &d) {
  json shapes = json::array();
  for (const auto &s : d.shapes)
    shapes.push_back(s);
  json j{{"kind", std::string(diagnosisKindName(d.kind))},
         {"message", d.message},
         {"shapes", shapes}};
  if (d.kind == DiagnosisKind::SmallGrid) {
    j["sms_busy"] = d.smsBusy;
    j["sm_count"] = d.smCount;
  } else {
    j["threads_per_block"] = d.threadsPerBlock;
    j["registers"] = d.registers;
    j["blocks_per_sm"] = d.blocksPerSM;
    j["min_blocks"] = d.minBlocks;
    j["cap_registers"] = d.capRegisters;
  }
  return j;
}

} // namespace ktune::run
