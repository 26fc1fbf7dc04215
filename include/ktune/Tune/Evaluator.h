//===- ktune/Tune/Evaluator.h - The seam between search and GPU -*- C++ -*-===//
//
// Strategies see the space through a Tuner, which asks an Evaluator for the
// time of one configuration at one shape. The CUDA evaluator (lib/Cuda)
// compiles, prunes, runs, verifies and times; the simulator (lib/Tune)
// replays a journal or a T4 file. Nothing above this interface knows which.
//
//===----------------------------------------------------------------------===//
#ifndef KTUNE_TUNE_EVALUATOR_H
#define KTUNE_TUNE_EVALUATOR_H

#include "ktune/Support/JsonReader.h"
#include "ktune/Tune/Spec.h"

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace ktune {

/// Parameter name -> value, including the "maxrregcount" dimension when the
/// space has one (0 = no cap).
using Configuration = std::map<std::string, int64_t>;

enum class EvalStatus {
  Ok,
  Pruned, // over a hardware limit or a constraint; never launched
  CompileError,
  RuntimeError, // illegal address, sticky CUDA error, launch failure
  Timeout,      // the watchdog killed the worker
  WrongResult,  // output differs from the reference
};
std::string_view
statusName(EvalStatus s); // "ok", "pruned", "compile_error", ...
std::optional<EvalStatus> parseStatus(std::string_view name);
/// How a message says it: "a compile error", "a timeout", ...
std::string_view statusPhrase(EvalStatus s);

/// Orders statuses by name: counts print and serialise in the order they
/// had when they were keyed by name.
struct StatusNameOrder {
  bool operator()(EvalStatus a, EvalStatus b) const {
    return statusName(a) < statusName(b);
  }
};
/// Evaluations by status. In JSON an object keyed by statusName:
/// {"compile_error": 3, "ok": 45}.
using StatusCounts = std::map<EvalStatus, uint64_t, StatusNameOrder>;
void to_json(nlohmann::json &j, const StatusCounts &counts);

struct Resources {
  int registers = -1;
  int spillStores = 0, spillLoads = 0;
  int stackFrame = 0;
  int smemStatic = -1; // bytes
  int smemDynamic = 0; // bytes, from the launch geometry
  int threadsPerBlock = 0;
  int blocksPerSM = -1; // occupancy, when known
};

/// What resourcesToJson writes beyond the known values. Unknown values (-1)
/// and a thread count of 0 are always left out; each file ktune writes keeps
/// its own spelling of the rest.
struct ResourcesJsonOptions {
  /// spill_stores and spill_loads even when both are 0 (results, analysis).
  bool zeroSpills = true;
  /// smem_dynamic even when it is 0 (analysis).
  bool zeroSmemDynamic = false;
  /// stack_frame when it is not 0 (the journal).
  bool stackFrame = false;
};

/// {"registers": 40, "spill_stores": 0, ...}: the one spelling of Resources.
nlohmann::json resourcesToJson(const Resources &r,
                               const ResourcesJsonOptions &options = {});
/// Reads what resourcesToJson wrote (any options): what is not there is
/// unknown (-1) or 0.
Expected<Resources> resourcesFromJson(const JsonReader &json);

struct Timing {
  double medianUs = 0, iqrUs = 0;
  int reps = 0;
  bool graphBatched = false; // timed as a CUDA-graph batch
  bool coldL2 = true;        // L2 flushed between repetitions
};

/// What Nsight Compute measured of one configuration's launches at one
/// shape (`ktune run --profile`). -1: not measured.
struct HardwareCounters {
  int launches = 0; // kernels the configuration launched (a launcher: >= 1)
  double dramReadBytes = -1, dramWriteBytes = -1;
  double dramThroughputPct = -1;       // of the peak, over the elapsed time
  double achievedOccupancyPct = -1;    // warps active / the SM's maximum
  double theoreticalOccupancyPct = -1; // what the launch allows
  double durationUs = -1;              // under the profiler
  int registers = -1;                  // per thread (the largest kernel's)
};
nlohmann::json hardwareCountersToJson(const HardwareCounters &c);

/// How to profile: Nsight Compute's executable, and where its log goes.
struct ProfileRequest {
  std::string ncu;
  std::string logPath;
};

struct EvalResult {
  EvalStatus status = EvalStatus::Ok;
  std::string reason; // for every status other than Ok
  std::optional<Timing> time;
  Resources resources;
  double compileMs = 0; // wall time spent compiling for this result (0 = cache)
  /// The GPU (or virtual device) that measured it when several tune
  /// together; -1 otherwise. Journaled as "gpu".
  int gpu = -1;
  /// The MPI rank whose host measured it in a run across hosts; -1
  /// otherwise. Journaled as "rank".
  int rank = -1;
};

/// Which compiler built the configurations, and why: results, report and
/// messages show it. Empty backend when nothing is compiled (replays).
struct CompilerReport {
  std::string backend; // "nvrtc" or "nvcc"
  std::string reason;  // why this one ("NVRTC cannot compile ...")
  /// The default configuration's compile as a command line: nvcc's argv
  /// (<batch>.cu: the template with the explicit instantiations), or
  /// "nvrtc" and the options NVRTC is given.
  std::string command;
  /// Options every compile gets, as the backend takes them.
  std::vector<std::string> options;
  /// Project or spec flags the backend does not take (NVRTC: -O3,
  /// --expt-relaxed-constexpr, ...), left out.
  std::vector<std::string> dropped;
  uint64_t calls = 0;          // NVRTC programs or nvcc calls
  uint64_t instantiations = 0; // compiled (not from the cache)
  uint64_t cacheHits = 0;
  uint64_t failures = 0;
  double compileSeconds = 0; // summed over calls (they run in parallel)
};
nlohmann::json compilerReportToJson(const CompilerReport &report);
Expected<CompilerReport> compilerReportFromJson(const JsonReader &json);

class Evaluator {
public:
  virtual ~Evaluator() = default;
  /// "NVIDIA H200", "simulated A100", ...
  virtual std::string device() const = 0;
  /// "sm_90", ...
  virtual std::string arch() const = 0;
  /// The compiler and its counters so far (nothing for replays).
  virtual CompilerReport compiler() const { return {}; }
  /// A batch the strategy will ask for soon: compile ahead, in parallel.
  virtual void prepare(const std::vector<Configuration> &upcoming) {}
  virtual EvalResult evaluate(const Shape &shape,
                              const Configuration &config) = 0;
  /// Configurations measured at the same time (one per GPU or worker).
  virtual size_t parallelism() const { return 1; }
  /// Called as each configuration of a batch finishes (never concurrently),
  /// so that it is journaled at once: a kill loses only those in flight.
  using BatchDone = std::function<void(size_t index, EvalResult result)>;
  /// Evaluates `configs` together, at most parallelism() at a time. By
  /// default one after another.
  virtual void evaluateBatch(const Shape &shape,
                             const std::vector<Configuration> &configs,
                             const BatchDone &done) {
    for (size_t i = 0; i < configs.size(); ++i)
      done(i, evaluate(shape, configs[i]));
  }
  /// One configuration at one shape.
  struct ShapedConfig {
    Shape shape;
    Configuration config;
  };
  /// Evaluates configurations of several shapes together, at most
  /// parallelism() at a time, `done` called as each finishes (like
  /// evaluateBatch). By default one after another.
  virtual void evaluateAcrossShapes(const std::vector<ShapedConfig> &tasks,
                                    const BatchDone &done) {
    for (size_t i = 0; i < tasks.size(); ++i)
      done(i, evaluate(tasks[i].shape, tasks[i].config));
  }
  /// True once this evaluator can evaluate nothing more (a host lost): the
  /// result it just returned is no measurement and goes to another worker.
  virtual bool lost() const { return false; }
  /// Re-times configurations interleaved (ABCABC...) for the final choice.
  /// The default just evaluates each again.
  virtual std::vector<EvalResult>
  retime(const Shape &shape, const std::vector<Configuration> &configs) {
    std::vector<EvalResult> out;
    for (const auto &c : configs)
      out.push_back(evaluate(shape, c));
    return out;
  }
  /// One shape's configurations to re-time interleaved.
  struct RetimeJob {
    Shape shape;
    std::vector<Configuration> configs;
    /// What the re-timing is expected to cost, in any unit shared by the
    /// jobs (their search evaluations' wall time): the costliest start
    /// first, so that no device is left with a long one at the end.
    double cost = 0;
  };
  /// Re-times several shapes, each interleaved on one device, the results
  /// in the jobs' order. By default one after another; several devices take
  /// a shape each at once.
  virtual std::vector<std::vector<EvalResult>>
  retimeShapes(const std::vector<RetimeJob> &jobs) {
    std::vector<std::vector<EvalResult>> out;
    for (const auto &j : jobs)
      out.push_back(retime(j.shape, j.configs));
    return out;
  }
  /// Queues a shape's re-timing to run on a device the search can spare
  /// while the search goes on (several devices). Returns false when there
  /// is none to spare: re-time it later.
  virtual bool retimeAside(const RetimeJob &job) { return false; }
  /// The search is over: re-times what is still queued aside on every
  /// device, and returns the results in the order the jobs were queued;
  /// nothing for a job whose device was lost (re-time it now).
  virtual std::vector<std::optional<std::vector<EvalResult>>> collectAside() {
    return {};
  }
  /// Hardware counters of `configs` at `shape`, one each, measured under a
  /// profiler. Evaluators without a GPU cannot.
  virtual Expected<std::vector<HardwareCounters>>
  profile(const Shape &shape, const std::vector<Configuration> &configs,
          const ProfileRequest &request) {
    return makeError("this evaluator has no GPU to profile on");
  }
};

} // namespace ktune

#endif
