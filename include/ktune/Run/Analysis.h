//===- ktune/Run/Analysis.h - What a tuning round found ---------*- C++ -*-===//
//
// After each round of `ktune run`, the results and the journal of every
// kernel are read back into facts the re-plan rules (Replan.h) and the report
// use: per shape the best configuration and where each of its values sits in
// the parameter's domain (interior, or at the low or high edge), the achieved
// memory bandwidth against the roofline, the spread between configurations
// (best, median, worst), the timing noise, and per parameter how much the
// best time changes across its values; per shape how the default and the
// best configuration use the GPU (occupancy and its limiter, how much of
// the GPU the grid fills), and the diagnoses the re-plan rules act on.
// Guide: docs/run.md#analysis.
//
//===----------------------------------------------------------------------===//
#ifndef KTUNE_RUN_ANALYSIS_H
#define KTUNE_RUN_ANALYSIS_H

#include "ktune/Plan/Manifest.h"
#include "ktune/Support/EnumNames.h"
#include "ktune/Target/DeviceLimits.h"
#include "ktune/Target/Occupancy.h"
#include "ktune/Target/Pruning.h"
#include "ktune/Tune/Journal.h"
#include "ktune/Tune/Results.h"
#include "ktune/Tune/Session.h"
#include "ktune/Tune/Spec.h"
#include "ktune/Tune/Tuner.h"

#include <nlohmann/json.hpp>

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace ktune::run {

/// The copy bandwidth the roofline is drawn at, and where it came from.
struct Roofline {
  std::optional<double> tbps; // 10^12 bytes per second; nullopt = unknown
  std::string source;         // "--roofline-tbps", "measured ...", "table: ..."
};

/// A device-to-device copy bandwidth ktune knows for a device name
/// ("NVIDIA H200": 4.25 TB/s, measured read+write); nullopt otherwise.
std::optional<double> knownCopyBandwidthTBps(const std::string &device);

/// Bytes a kernel must move at `shape`: the spec's `bytes` expression, else
/// every input buffer read once and every output written once (an inout
/// buffer both). `fromExpression` tells which.
struct ShapeBytes {
  double bytes = 0;
  bool fromExpression = false;
};
Expected<ShapeBytes> bytesAtShape(const Spec &spec, const Shape &shape);

/// Where the best configuration's value of a parameter sits in its domain.
enum class Placement { Interior, LowEdge, HighEdge, Only };
/// "interior", "min", "max", "only" (a domain of one value).
inline constexpr EnumName<Placement> PlacementNames[] = {
    {Placement::Interior, "interior"},
    {Placement::LowEdge, "min"},
    {Placement::HighEdge, "max"},
    {Placement::Only, "only"},
};
std::string_view placementName(Placement p);

struct ParamPlacement {
  std::string param;
  int64_t value = 0;
  Placement placement = Placement::Interior;
  int64_t domainMin = 0, domainMax = 0;
};

/// How much the best time at a shape changes across one parameter's values:
/// for each value, the fastest measured configuration having it.
struct ParamInfluence {
  std::string param;
  std::map<int64_t, double> bestUsByValue; // values with a measurement
  /// (slowest - fastest) / fastest of bestUsByValue, in %; 0 with fewer
  /// than two values measured.
  double spreadPct = 0;
  bool measured() const { return bestUsByValue.size() >= 2; }
};

/// How one configuration uses the GPU at one shape: the blocks resident per
/// SM and the resource that limits them (from the configuration's
/// resources and the device limits), and how much of the GPU its grid fills
/// (from the launch geometry at the shape).
struct LaunchFacts {
  int64_t threadsPerBlock = 0;
  int registers = -1; // per thread; -1 unknown
  int64_t smem = 0;   // static + dynamic shared memory per block, bytes
  /// Absent when the registers are unknown.
  std::optional<Occupancy> occupancy;
  /// The grid's block count; absent when the launch geometry is unknown (a
  /// launcher computes it).
  std::optional<int64_t> blocks;
  int smCount = 0;
  /// SMs given at least one block: min(blocks, SMs).
  int smsBusy = 0;
  /// blocks / (SMs x resident blocks), and how full the last wave is (a
  /// fraction); with both the grid and the occupancy.
  std::optional<double> waves, tailFill;

  double smsBusyFraction() const {
    return smCount > 0 ? double(smsBusy) / smCount : 0;
  }
};

/// The facts of a configuration using `resources`, launched as `launch`
/// (nullopt: geometry unknown) on `device`; nullopt without a thread count.
std::optional<LaunchFacts> launchFacts(const DeviceLimits &device,
                                       const Resources &resources,
                                       const std::optional<LaunchDims> &launch);

/// The most registers per thread with which `kernel`'s blocks reach
/// `minBlocks` resident per SM (its other resources unchanged); 0 when no
/// count from 16 up does.
int registerCapFor(const DeviceLimits &device, KernelFootprint kernel,
                   int minBlocks);

struct ShapeAnalysis {
  Shape shape;
  Configuration defaultConfig, bestConfig;
  std::optional<double> defaultUs, bestUs; // from the results (re-timed)
  double bestIqrUs = 0;
  double speedup = 1.0;
  /// The re-timed choice: the fastest finalist's lead over the default and
  /// the noise threshold it had to beat (TuneResults' ShapeResult).
  std::optional<double> margin, noiseThreshold;
  bool keptWithinNoise = false;
  Resources defaultResources, bestResources;
  /// How the default and the best configuration use the GPU (absent when
  /// their threads per block or the device are unknown).
  std::optional<LaunchFacts> defaultLaunch, bestLaunch;
  /// `ktune run --profile`: Nsight Compute's counters of the default and
  /// the best configuration, or why there are none.
  bool profiled = false;
  std::optional<HardwareCounters> defaultCounters, bestCounters;
  std::string countersError;
  /// The default runs in less than AnalysisOptions::latencyFloorUs: launch
  /// latency dominates, and the grid diagnosis leaves the shape alone.
  bool latencyTrivial = false;
  /// Spread of the measured (ok) configurations' search times.
  std::optional<double> fastestUs, medianUs, slowestUs;
  /// Timing noise: the median relative IQR (IQR / median) of the ok
  /// measurements, as a fraction.
  double noise = 0;
  size_t evaluated = 0, ok = 0;
  StatusCounts statusCounts;

  std::optional<double> bytes;
  bool bytesFromExpression = false;
  /// Least time the bytes take at the roofline bandwidth, in µs.
  std::optional<double> idealUs;
  std::optional<double> bestTBps, rooflinePct, defaultRooflinePct;
  /// The ideal time is long enough for bandwidth to matter
  /// (AnalysisOptions::minIdealUs); shorter shapes are latency-bound.
  bool bandwidthRelevant = false;

  std::vector<ParamPlacement> placements;
  std::vector<ParamInfluence> influences;
  /// Best time so far after each budgeted evaluation (the default first),
  /// in µs; failed evaluations repeat the previous value (absent before
  /// the first success).
  std::vector<std::optional<double>> bestSoFarUs;
};

/// A parameter whose best value sat on an edge of its domain.
struct EdgeHit {
  std::string param;
  std::string edge; // "min" | "max"
  int64_t value = 0;
  size_t shapes = 0;   // shapes where the best sat there
  size_t mattered = 0; // of those, shapes where the parameter's spread was
                       // above the noise (or could not be measured)
};

/// A parameter over all shapes: the largest spread it made, against the
/// noise.
struct InfluenceSummary {
  std::string param;
  double maxSpreadPct = 0; // over shapes with >= 2 values measured
  double noisePct = 0;     // the threshold it is compared with, in %
  size_t shapesMeasured = 0;
  bool insensitive = false; // measured somewhere, never above the threshold
};

/// What the launch facts say about a kernel, for the re-plan rules, the
/// report and planners.
enum class DiagnosisKind {
  SmallGrid,       // "small_grid": the best grid leaves most SMs idle
  RegisterLimited, // "register_limited": registers cap the resident blocks
};
std::string_view diagnosisKindName(DiagnosisKind kind);

struct Diagnosis {
  DiagnosisKind kind = DiagnosisKind::SmallGrid;
  std::string message;       // one sentence with the figures
  std::vector<Shape> shapes; // where it holds
  /// SmallGrid: the fewest SMs busy over those shapes, of smCount.
  int smsBusy = 0, smCount = 0;
  /// RegisterLimited: the best configuration's block and registers, its
  /// resident blocks per SM, and the cap (registers per thread) that makes
  /// minBlocks resident: `__launch_bounds__(threadsPerBlock, minBlocks)`.
  int64_t threadsPerBlock = 0;
  int registers = 0, blocksPerSM = 0, minBlocks = 0, capRegisters = 0;
};

struct KernelAnalysis {
  std::string kernel;
  /// Launcher mode: the plan's kernels the launcher launches (the analysis
  /// speaks for them).
  std::vector<std::string> planKernels;
  bool compileOnly = false;
  std::vector<std::string> params; // the space's, plan parameters first
  std::map<std::string, Domain> domains;
  std::vector<ShapeAnalysis> shapes;
  std::vector<EdgeHit> edges;
  std::vector<InfluenceSummary> influence; // most influential first
  /// Median of the shapes' noise, as a fraction.
  double noise = 0;
  /// The threshold a gain or a spread must exceed: max(noise, minEffect).
  double threshold = 0;
  /// Highest % of the roofline over bandwidth-relevant shapes (all shapes
  /// when none is), and whether that is below AnalysisOptions::farBelowPct
  /// on a bandwidth-relevant shape.
  std::optional<double> rooflinePct;
  bool farFromRoofline = false;
  bool anyBandwidthRelevant = false;
  /// Geometric means over shapes with both times.
  std::optional<double> geomeanBestUs;
  double geomeanSpeedup = 1.0;
  std::optional<GeneralResult> general;
  StatusCounts statusCounts; // all shapes
  uint64_t evaluated = 0;
  std::vector<std::string> notes;
  /// The device limits the launch facts were computed with (empty name:
  /// none were), and what they say.
  std::string limitsName;
  int smCount = 0;
  std::vector<Diagnosis> diagnoses;
};

struct AnalysisOptions {
  /// Smallest effect taken for real, whatever the measured noise (1 %).
  double minEffect = 0.01;
  /// Shapes whose ideal time at the roofline is shorter are latency-bound
  /// and do not count for the roofline rule.
  double minIdealUs = 5.0;
  /// A kernel is far from its roofline below this % (on a relevant shape).
  double farBelowPct = 80.0;
  /// A shape whose default runs faster than this (µs) is latency-trivial.
  double latencyFloorUs = 2.0;
  /// The grid is small when its blocks reach fewer than this fraction of
  /// the SMs.
  double minSmsBusy = 0.5;
};

struct KernelRoundInput {
  const TuneResults *results = nullptr;
  /// The journal's entries; those of other templates, kernels or devices
  /// are ignored.
  const std::vector<JournalEntry> *journal = nullptr;
  const SpaceDefinition *space = nullptr;
  const Spec *spec = nullptr; // resolved
  Roofline roofline;
  /// The kernel as tuned (its launch geometry, with the spec's) and the
  /// device limits: without both there are no launch facts.
  const ManifestKernel *manifestKernel = nullptr;
  std::optional<DeviceLimits> device;
  /// Hardware counters per shape (`--profile`); null when not profiled.
  const std::vector<ShapeProfile> *profiles = nullptr;
};

/// Reads one kernel's round. Errors only for a spec `bytes` expression that
/// does not evaluate.
Expected<KernelAnalysis> analyzeKernel(const KernelRoundInput &input,
                                       const AnalysisOptions &options = {});

/// Adds the launch facts of every shape's default and best configuration
/// and the kernel's diagnoses (analyzeKernel calls it last).
void analyzeLaunches(const KernelRoundInput &input,
                     const AnalysisOptions &options, KernelAnalysis &analysis);

nlohmann::json launchFactsToJson(const LaunchFacts &facts);
nlohmann::json diagnosisToJson(const Diagnosis &diagnosis);
nlohmann::json shapeAnalysisToJson(const ShapeAnalysis &shape);
nlohmann::json kernelAnalysisToJson(const KernelAnalysis &analysis);

/// Geometric mean of the per-shape ratio previous best / this best over
/// shapes both rounds timed; nullopt when none.
std::optional<double> roundGain(const KernelAnalysis &previous,
                                const KernelAnalysis &current);

} // namespace ktune::run

#endif
