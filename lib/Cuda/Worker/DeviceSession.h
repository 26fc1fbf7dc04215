//===- DeviceSession.h - The worker's CUDA context and buffers --*- C++ -*-===//
//
// Everything the worker does on the GPU, through the driver API: device
// limits, the buffers of one shape (inputs filled on the device from a seed,
// a pristine copy of in/out buffers, reference outputs), loaded kernels, one
// verified run, and timing (per-launch events with an L2 flush before each,
// or CUDA-graph batches for kernels too short for that).
//
//===----------------------------------------------------------------------===//
#ifndef KTUNE_LIB_CUDA_WORKER_DEVICESESSION_H
#define KTUNE_LIB_CUDA_WORKER_DEVICESESSION_H

#include "CudaCheck.h"

#include "ktune/Cuda/WorkerProtocol.h"
#include "ktune/Target/DeviceLimits.h"

#include <cuda.h>

#include <map>
#include <string>
#include <vector>

namespace ktune::worker {

/// Start/stop event pairs: the most launches timed between synchronisations.
inline constexpr int EventPairs = 64;
/// Bytes before and after every buffer, filled with GuardPattern: a kernel
/// that writes just outside its buffer (y[n], y[-1]) changes them.
inline constexpr size_t GuardBytes = 4096;
inline constexpr unsigned char GuardPattern = 0xA5;

using protocol::FunctionAttributes;

class DeviceSession {
public:
  DeviceSession() = default;
  ~DeviceSession();
  DeviceSession(const DeviceSession &) = delete;
  DeviceSession &operator=(const DeviceSession &) = delete;

  /// cuInit, the device (ordinal $KTUNE_DEVICE or 0), its primary context, a
  /// stream and events. Returns the number of devices (0: nothing else works).
  WExpected<int> open();
  const DeviceLimits &limits() const { return Limits; }

  struct Helpers {
    std::string image;
    std::map<std::string, std::string> fill, compare,
        readPair; // dtype -> symbol
  };
  /// Frees the previous shape's buffers, allocates these and fills inputs.
  WExpected<int64_t> setup(const Helpers &helpers,
                           const std::vector<protocol::BufferSpec> &buffers);

  WExpected<int> load(const std::string &image, const std::string &function,
                      FunctionAttributes &attributes);
  WStatus unloadAll();

  /// One launch: in/out buffers restored, outputs poisoned with `poison`
  /// bytes, then either stored as the reference or compared with it.
  WExpected<protocol::RunResult> run(int handle, const protocol::Launch &launch,
                                     int poison, bool makeReference,
                                     int &blocksPerSM);

  /// One launch under a profiler: in/out buffers restored, then the helper
  /// module's marker kernel and the configuration's launch between
  /// cuProfilerStart and cuProfilerStop (Nsight Compute started with
  /// profiling off measures just these).
  WStatus profile(int handle, const protocol::Launch &launch);

  WExpected<protocol::TimeResult> time(int handle,
                                       const protocol::Launch &launch,
                                       const protocol::TimeOptions &options);

private:
  struct Buffer {
    protocol::BufferSpec spec;
    size_t bytes = 0;
    CUdeviceptr base = 0;      // the allocation: guard, data, guard
    CUdeviceptr ptr = 0;       // the data, GuardBytes into the allocation
    CUdeviceptr initial = 0;   // inout: the state before any run
    CUdeviceptr reference = 0; // out/inout: the reference outputs
  };
  /// A kernel, or (launcher mode) a host entry point of a loaded module:
  /// `int ktune_launch(void **args)` returning a cudaError_t.
  struct Kernel {
    CUfunction function = nullptr;
    int dynamicSmemLimit = 48 * 1024;
    int (*entry)(void **) = nullptr;
    const char *(*errorName)(int) = nullptr;
  };
  struct BatchPlan {
    bool batched = false;
    int batchSize = 1;
    int rotationSets = 1;
    CUgraphExec graph = nullptr;
  };

  void freeShape();
  WExpected<CUfunction> helper(const std::map<std::string, std::string> &table,
                               DType dtype, const char *what);
  WStatus launchHelper(CUfunction f, int64_t n, void **params);
  WStatus prepareLaunch(Kernel &k, const protocol::Launch &launch);
  /// The kernel of `handle`, prepared for `launch`, with its parameters in
  /// set 0's buffers (run and profile).
  WExpected<Kernel *> readyToLaunch(int handle, const protocol::Launch &launch,
                                    std::vector<uint64_t> &storage,
                                    std::vector<void *> &params);
  /// Kernel parameter storage for buffer set `set`.
  WStatus buildParams(const protocol::Launch &launch, int set,
                      std::vector<uint64_t> &storage,
                      std::vector<void *> &params);
  WStatus launch(const Kernel &k, const protocol::Launch &l, void **params);
  WExpected<int> loadLibrary(const std::string &path,
                             const std::string &function);
  WStatus restoreInOut(int set);
  WStatus flushL2(int rep);
  WExpected<double> estimateMicros(Kernel &k, const protocol::Launch &l,
                                   bool coldL2);
  WStatus ensureRotationSets(int sets);
  WExpected<BatchPlan> planBatch(Kernel &k, const protocol::Launch &l,
                                 const protocol::TimeOptions &o,
                                 double estimateUs);
  WExpected<protocol::BufferCheck> compare(const Buffer &b);
  WStatus fillGuards(const Buffer &b);
  /// Bytes of the guards before and after the data that differ from the
  /// pattern (a kernel wrote out of bounds); restores them.
  WStatus checkGuards(const Buffer &b, uint64_t &before, uint64_t &after);

  bool Opened = false;
  CUdevice Device = 0;
  CUcontext Context = nullptr;
  CUstream Stream = nullptr;
  DeviceLimits Limits;
  std::vector<CUevent> Events; // start/stop pairs
  CUdeviceptr FlushBuffer = 0;
  size_t FlushBytes = 0;
  CUdeviceptr Stats = 0;      // compare results
  CUdeviceptr PairValues = 0; // two doubles

  CUmodule HelperModule = nullptr;
  std::string HelperImage;
  Helpers HelperNames;

  std::vector<Buffer> Buffers;
  /// Extra copies of every buffer, for rotating through in graph batches
  /// (set 0 is Buffers itself; set s is RotationSets[s - 1]), carved out of
  /// RotationSlabs.
  std::vector<std::vector<CUdeviceptr>> RotationSets;
  std::vector<CUdeviceptr> RotationSlabs;

  std::map<std::string, CUmodule> Modules;
  /// Launcher modules (dlopen handles) by path; closed on unloadAll.
  std::map<std::string, void *> Libraries;
  std::vector<Kernel> Kernels;
  std::map<std::string, BatchPlan> Plans; // by handle + launch + mode
};

/// The worker's main loop on stdin/stdout; returns the exit code.
int serveWorker(int inFd, int outFd);

} // namespace ktune::worker

#endif
