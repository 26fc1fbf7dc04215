//===- ktune/Cuda/WorkerProtocol.h - Tuner <-> worker messages --*- C++ -*-===//
//
// The tuner talks to its worker process in JSON lines: one request object per
// line on the worker's stdin, one reply object per line on its stdout.
//
//   {"op":"hello"}                    -> {"ok":true,"protocol":2,"limits":{..}}
//   {"op":"setup","helper_image":..,"helpers":{..},"buffers":[..]}
//                                     -> buffers allocated, inputs filled
//   {"op":"load","image":..,"function":..}   -> {"handle":h,"attributes":{..}}
//   {"op":"unload_all"}
//   {"op":"run","handle":h,"launch":{..},"poison":255,"reference":false}
//                                     -> per output buffer: mismatch count,
//                                        first index, got/want, max error
//   {"op":"time","handle":h,"launch":{..},"cold_l2":true,...}
//                                     -> per-launch samples in microseconds
//   {"op":"profile","handle":h,"launch":{..}}
//                                     -> one launch after a marker kernel,
//                                        between cuProfilerStart and Stop
//   {"op":"quit"}                     -> the worker exits (no reply)
//
// A failure is {"ok":false,"error":"..","fatal":true|false}; after a fatal
// one (a sticky CUDA error: illegal address, trap, launch failure) the worker
// exits, and the tuner starts a new one. Types here are shared by both sides.
//
//===----------------------------------------------------------------------===//
#ifndef KTUNE_CUDA_WORKERPROTOCOL_H
#define KTUNE_CUDA_WORKERPROTOCOL_H

#include "ktune/Cuda/TimingStats.h"
#include "ktune/Tune/KernelBinding.h"
#include "ktune/Tune/Spec.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace ktune::protocol {

inline constexpr int Version = 2;

struct BufferSpec {
  std::string name;
  DType dtype = DType::F32;
  int64_t count = 0;
  Role role = Role::In;
  int fillMode = 0; // see fillMode()
  double low = -1, high = 1;
  uint64_t seed = 0;
  double rtol = 0, atol = 0; // verification of outputs
};

struct Launch {
  LaunchDims dims;
  std::vector<KernelArgValue> args;
};

struct TimeOptions {
  bool coldL2 = true;
  StoppingRule rule;
  /// > 0: exactly this many samples, no stopping rule (interleaved retiming).
  int fixedReps = 0;
  /// Kernels faster than this are timed as CUDA-graph batches.
  double batchThresholdUs = 20.0;
  /// Aim for batches (graph replays) of about this long.
  double batchTargetUs = 1000.0;
};

struct TimeResult {
  std::vector<double> samplesUs; // per launch
  bool batched = false;
  int batchSize = 1;    // launches per sample
  int rotationSets = 1; // buffer sets rotated through in a batch
  double wallSeconds = 0;
};

struct BufferCheck {
  std::string name;
  uint64_t mismatches = 0;
  uint64_t firstIndex = 0;
  double got = 0, want = 0; // at firstIndex
  double maxAbsErr = 0;
  uint64_t nonFinite = 0;     // NaN/Inf produced where the reference is finite
  uint64_t wantNonFinite = 0; // NaN/Inf in the reference itself
  /// Bytes changed in the guard regions just before / after the buffer: an
  /// out-of-bounds write (checked for every buffer, inputs too).
  uint64_t guardBefore = 0, guardAfter = 0;
};

/// What the driver says of a loaded function: the "load" reply's
/// "attributes", read by the worker and handed on by the client.
struct FunctionAttributes {
  int registers = 0, smemStatic = 0, localBytes = 0, maxThreadsPerBlock = 0,
      binaryVersion = 0;
};

struct RunResult {
  double milliseconds = 0; // the one launch, by events
  std::vector<BufferCheck> checks;
};

std::string hexEncode(std::string_view bytes);
Expected<std::string> hexDecode(std::string_view hex);

nlohmann::json toJson(const BufferSpec &b);
Expected<BufferSpec> bufferSpecFromJson(const nlohmann::json &j);
nlohmann::json toJson(const Launch &l);
Expected<Launch> launchFromJson(const nlohmann::json &j);
nlohmann::json toJson(const TimeOptions &o);
Expected<TimeOptions> timeOptionsFromJson(const nlohmann::json &j);
nlohmann::json toJson(const TimeResult &r);
Expected<TimeResult> timeResultFromJson(const nlohmann::json &j);
nlohmann::json toJson(const BufferCheck &c);
Expected<BufferCheck> bufferCheckFromJson(const nlohmann::json &j);
/// nlohmann's conversions (`json(a)`, `j.get<FunctionAttributes>()`); the
/// reading one throws json::exception on a missing or mistyped key.
void to_json(nlohmann::json &j, const FunctionAttributes &a);
void from_json(const nlohmann::json &j, FunctionAttributes &a);

} // namespace ktune::protocol

#endif
