//===- DeviceTiming.cpp - Timing launches in the worker -------------------===//
//
// Per-launch events with an L2 flush before each, or, for kernels too short
// for that, CUDA-graph batches rotating through copies of the buffers.
//
//===----------------------------------------------------------------------===//
#include "DeviceSession.h"

#include "ktune/Cuda/TimingStats.h"
#include "ktune/Support/Try.h"

#include <algorithm>
#include <chrono>
#include <cmath>

namespace ktune::worker {

using Clock = std::chrono::steady_clock;

static double secondsSince(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

WStatus DeviceSession::flushL2(int rep) {
  KTUNE_CU(cuMemsetD8Async(FlushBuffer, static_cast<unsigned char>(rep & 0xff),
                           FlushBytes, Stream));
  return {};
}

WExpected<double> DeviceSession::estimateMicros(Kernel &k,
                                                const protocol::Launch &l,
                                                bool coldL2) {
  constexpr int Reps = 5;
  std::vector<uint64_t> storage;
  std::vector<void *> params;
  KTUNE_WTRY(buildParams(l, 0, storage, params));
  for (int i = 0; i < Reps; ++i) {
    KTUNE_WTRY(restoreInOut(0));
    if (coldL2)
      KTUNE_WTRY(flushL2(i));
    KTUNE_CU(cuEventRecord(Events[2 * i], Stream));
    KTUNE_WTRY(launch(k, l, params.data()));
    KTUNE_CU(cuEventRecord(Events[2 * i + 1], Stream));
  }
  KTUNE_CU(cuStreamSynchronize(Stream));
  std::vector<double> us;
  for (int i = 0; i < Reps; ++i) {
    float ms = 0;
    KTUNE_CU(cuEventElapsedTime(&ms, Events[2 * i], Events[2 * i + 1]));
    us.push_back(ms * 1000.0);
  }
  return summarize(us).median;
}

WStatus DeviceSession::ensureRotationSets(int sets) {
  int missing = sets - 1 - static_cast<int>(RotationSets.size());
  if (missing <= 0)
    return {};
  // One allocation holds every new set: thousands of small cuMemAlloc calls
  // would cost more than the timing.
  std::vector<size_t> offsets;
  size_t setBytes = 0;
  for (const auto &b : Buffers) {
    offsets.push_back(setBytes);
    setBytes += (std::max<size_t>(b.bytes, 1) + 255) / 256 * 256;
  }
  CUdeviceptr slab = 0;
  KTUNE_CU(cuMemAlloc(&slab, setBytes * static_cast<size_t>(missing)));
  RotationSlabs.push_back(slab);
  for (int s = 0; s < missing; ++s) {
    std::vector<CUdeviceptr> set;
    for (size_t i = 0; i < Buffers.size(); ++i) {
      const Buffer &b = Buffers[i];
      CUdeviceptr p = slab + static_cast<size_t>(s) * setBytes + offsets[i];
      set.push_back(p);
      if (b.bytes == 0)
        continue;
      // Each set holds the same inputs: real data, never zeros.
      if (b.spec.role == Role::In)
        KTUNE_CU(cuMemcpyDtoDAsync(p, b.ptr, b.bytes, Stream));
      else if (b.spec.role == Role::InOut)
        KTUNE_CU(cuMemcpyDtoDAsync(p, b.initial, b.bytes, Stream));
    }
    RotationSets.push_back(std::move(set));
  }
  KTUNE_CU(cuStreamSynchronize(Stream));
  return {};
}

WExpected<DeviceSession::BatchPlan>
DeviceSession::planBatch(Kernel &k, const protocol::Launch &l,
                         const protocol::TimeOptions &o, double estimateUs) {
  BatchPlan plan;
  if (estimateUs >= o.batchThresholdUs)
    return plan;
  double footprint = 0;
  for (const auto &b : Buffers)
    footprint += double((std::max<size_t>(b.bytes, 1) + 255) / 256 * 256);
  int sets = 1;
  if (o.coldL2) {
    // Rotate through enough copies that a set is evicted (three L2 sizes of
    // other sets' traffic) before it is used again.
    sets =
        static_cast<int>(std::ceil(3.0 * double(Limits.l2Bytes) / footprint));
    sets = std::clamp(sets, 1, 4096);
    size_t freeBytes = 0, totalBytes = 0;
    KTUNE_CU(cuMemGetInfo(&freeBytes, &totalBytes));
    int affordable = 1 + static_cast<int>(0.5 * double(freeBytes) / footprint);
    sets = std::max(1, std::min(sets, affordable));
    KTUNE_WTRY(ensureRotationSets(sets));
  }
  int launches =
      static_cast<int>(std::ceil(o.batchTargetUs / std::max(estimateUs, 0.5)));
  launches = std::clamp(launches, std::max(sets, 2), 20000);
  launches = (launches + sets - 1) / sets * sets;

  std::vector<std::vector<uint64_t>> storage(sets);
  std::vector<std::vector<void *>> params(sets);
  for (int s = 0; s < sets; ++s)
    KTUNE_WTRY(buildParams(l, s, storage[s], params[s]));

  KTUNE_CU(cuStreamBeginCapture(Stream, CU_STREAM_CAPTURE_MODE_THREAD_LOCAL));
  const auto &d = l.dims;
  CUresult failed = CUDA_SUCCESS;
  int entryFailed = 0;
  for (int j = 0; j < launches && failed == CUDA_SUCCESS && !entryFailed; ++j)
    if (k.entry)
      entryFailed = k.entry(params[j % sets].data());
    else
      failed = cuLaunchKernel(
          k.function, static_cast<unsigned>(d.grid[0]),
          static_cast<unsigned>(d.grid[1]), static_cast<unsigned>(d.grid[2]),
          static_cast<unsigned>(d.block[0]), static_cast<unsigned>(d.block[1]),
          static_cast<unsigned>(d.block[2]),
          static_cast<unsigned>(d.smemDynamic), Stream, params[j % sets].data(),
          nullptr);
  CUgraph graph = nullptr;
  CUresult ended = cuStreamEndCapture(Stream, &graph);
  if (k.entry && (entryFailed || ended != CUDA_SUCCESS)) {
    // A launcher that cannot be captured (synchronous calls, allocations)
    // is timed call by call with events instead.
    if (graph)
      cuGraphDestroy(graph);
    return BatchPlan{};
  }
  if (failed != CUDA_SUCCESS || ended != CUDA_SUCCESS) {
    if (graph)
      cuGraphDestroy(graph);
    CUresult r = failed != CUDA_SUCCESS ? failed : ended;
    return workerError(cuErrorText(r) + " while capturing a CUDA graph of " +
                       std::to_string(launches) + " launches");
  }
  CUgraphExec exec = nullptr;
  CUresult inst = cuGraphInstantiate(&exec, graph, 0);
  cuGraphDestroy(graph);
  if (inst != CUDA_SUCCESS)
    return cuFailure(inst, "cuGraphInstantiate");
  plan.batched = true;
  plan.batchSize = launches;
  plan.rotationSets = sets;
  plan.graph = exec;
  return plan;
}

WExpected<protocol::TimeResult>
DeviceSession::time(int handle, const protocol::Launch &l,
                    const protocol::TimeOptions &o) {
  if (handle < 0 || handle >= static_cast<int>(Kernels.size()))
    return workerError("unknown kernel handle " + std::to_string(handle));
  auto start = Clock::now();
  Kernel &k = Kernels[handle];
  KTUNE_WTRY(prepareLaunch(k, l));
  std::vector<uint64_t> storage;
  std::vector<void *> params;
  KTUNE_WTRY(buildParams(l, 0, storage, params));
  const bool hasInOut =
      std::any_of(Buffers.begin(), Buffers.end(),
                  [](const Buffer &b) { return b.spec.role == Role::InOut; });

  // Warm-up: module load, instruction cache, clocks.
  for (int i = 0; i < 3; ++i) {
    KTUNE_WTRY(restoreInOut(0));
    KTUNE_WTRY(launch(k, l, params.data()));
  }
  KTUNE_CU(cuStreamSynchronize(Stream));

  std::string key = std::to_string(handle) + (o.coldL2 ? "c" : "w") +
                    protocol::toJson(l).dump();
  auto found = Plans.find(key);
  if (found == Plans.end()) {
    KTUNE_TRY_ASSIGN(auto estimate, estimateMicros(k, l, o.coldL2));
    KTUNE_TRY_ASSIGN(auto plan, planBatch(k, l, o, estimate));
    found = Plans.emplace(key, plan).first;
  }
  const BatchPlan &plan = found->second;

  protocol::TimeResult result;
  result.batched = plan.batched;
  result.batchSize = plan.batchSize;
  result.rotationSets = plan.rotationSets;
  auto &samples = result.samplesUs;
  const size_t wanted = std::max<size_t>(
      1, o.fixedReps > 0 ? static_cast<size_t>(o.fixedReps) : o.rule.maxReps);
  if (plan.batched) {
    KTUNE_CU(cuGraphLaunch(plan.graph, Stream)); // warm-up replay
    KTUNE_CU(cuStreamSynchronize(Stream));
  }
  int rep = 0;
  for (;;) {
    size_t chunk = std::min<size_t>(o.fixedReps > 0 ? EventPairs : 10,
                                    wanted - samples.size());
    chunk = std::min<size_t>(chunk, EventPairs);
    for (size_t i = 0; i < chunk; ++i, ++rep) {
      if (plan.batched) {
        KTUNE_CU(cuEventRecord(Events[2 * i], Stream));
        KTUNE_CU(cuGraphLaunch(plan.graph, Stream));
        KTUNE_CU(cuEventRecord(Events[2 * i + 1], Stream));
        continue;
      }
      if (hasInOut)
        KTUNE_WTRY(restoreInOut(0));
      if (o.coldL2)
        KTUNE_WTRY(flushL2(rep));
      KTUNE_CU(cuEventRecord(Events[2 * i], Stream));
      KTUNE_WTRY(launch(k, l, params.data()));
      KTUNE_CU(cuEventRecord(Events[2 * i + 1], Stream));
    }
    KTUNE_CU(cuStreamSynchronize(Stream));
    for (size_t i = 0; i < chunk; ++i) {
      float ms = 0;
      KTUNE_CU(cuEventElapsedTime(&ms, Events[2 * i], Events[2 * i + 1]));
      samples.push_back(double(ms) * 1000.0 / double(plan.batchSize));
    }
    if (samples.size() >= wanted)
      break;
    if (o.fixedReps <= 0 && o.rule.done(samples, secondsSince(start)))
      break;
  }
  result.wallSeconds = secondsSince(start);
  return result;
}

} // namespace ktune::worker
