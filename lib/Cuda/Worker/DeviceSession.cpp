//===- DeviceSession.cpp - The worker's CUDA context, buffers, kernels ----===//
//
// Opening the device, the buffers of one shape, loading kernels and one
// verified run; the checks after it are DeviceChecks.cpp, timing is
// DeviceTiming.cpp.
//
//===----------------------------------------------------------------------===//
#include "DeviceSession.h"

#include "ktune/Cuda/HelperKernels.h"
#include "ktune/Support/DType.h"
#include "ktune/Support/FileUtil.h"
#include "ktune/Support/Try.h"

#include <cudaProfiler.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <dlfcn.h>

namespace ktune::worker {

static constexpr int HelperBlock = 256;

static std::string gib(double bytes) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.2f GiB", bytes / double(1ull << 30));
  return buf;
}

DeviceSession::~DeviceSession() {
  if (!Opened)
    return;
  // Best effort: after a fatal error the worker exits without coming here.
  cuStreamSynchronize(Stream);
  freeShape();
  for (auto &[path, module] : Modules)
    cuModuleUnload(module);
  if (HelperModule)
    cuModuleUnload(HelperModule);
  for (CUevent e : Events)
    cuEventDestroy(e);
  for (CUdeviceptr p : {FlushBuffer, Stats, PairValues})
    if (p)
      cuMemFree(p);
  if (Stream)
    cuStreamDestroy(Stream);
  cuDevicePrimaryCtxRelease(Device);
}

WExpected<int> DeviceSession::open() {
  if (Opened)
    return 1;
  CUresult init = cuInit(0);
  if (init == CUDA_ERROR_NO_DEVICE)
    return 0;
  KTUNE_CU(init);
  int count = 0;
  KTUNE_CU(cuDeviceGetCount(&count));
  if (count == 0)
    return 0;
  int ordinal = 0;
  if (const char *env = std::getenv("KTUNE_DEVICE"); env && *env)
    ordinal = std::atoi(env);
  if (ordinal < 0 || ordinal >= count)
    return workerError("KTUNE_DEVICE=" + std::to_string(ordinal) +
                       " but there are " + std::to_string(count) + " devices");
  KTUNE_CU(cuDeviceGet(&Device, ordinal));
  KTUNE_CU(cuDevicePrimaryCtxRetain(&Context, Device));
  KTUNE_CU(cuCtxSetCurrent(Context));
  Opened = true;

  auto attr = [this](CUdevice_attribute a, const char *what) -> WExpected<int> {
    int v = 0;
    CUresult r = cuDeviceGetAttribute(&v, a, Device);
    if (r != CUDA_SUCCESS)
      return cuFailure(r, what);
    return v;
  };
#define KTUNE_ATTR(field, attribute)                                           \
  do {                                                                         \
    auto v = attr(attribute, "cuDeviceGetAttribute(" #attribute ")");          \
    if (!v)                                                                    \
      return std::unexpected(v.error());                                       \
    field = *v;                                                                \
  } while (false)
  DeviceLimits &l = Limits;
  char name[256] = {};
  KTUNE_CU(cuDeviceGetName(name, sizeof(name) - 1, Device));
  l.name = name;
  KTUNE_ATTR(l.ccMajor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR);
  KTUNE_ATTR(l.ccMinor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR);
  l.arch = archForComputeCapability(l.ccMajor, l.ccMinor);
  l.fromDevice = true;
  KTUNE_ATTR(l.smCount, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT);
  KTUNE_ATTR(l.warpSize, CU_DEVICE_ATTRIBUTE_WARP_SIZE);
  KTUNE_ATTR(l.maxThreadsPerBlock, CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK);
  KTUNE_ATTR(l.maxBlockDim[0], CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X);
  KTUNE_ATTR(l.maxBlockDim[1], CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y);
  KTUNE_ATTR(l.maxBlockDim[2], CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z);
  KTUNE_ATTR(l.maxGridDim[0], CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X);
  KTUNE_ATTR(l.maxGridDim[1], CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y);
  KTUNE_ATTR(l.maxGridDim[2], CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z);
  KTUNE_ATTR(l.maxThreadsPerSM,
             CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR);
  KTUNE_ATTR(l.maxBlocksPerSM,
             CU_DEVICE_ATTRIBUTE_MAX_BLOCKS_PER_MULTIPROCESSOR);
  KTUNE_ATTR(l.regsPerBlock, CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_BLOCK);
  KTUNE_ATTR(l.regsPerSM, CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_MULTIPROCESSOR);
  KTUNE_ATTR(l.smemPerBlock, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK);
  KTUNE_ATTR(l.smemPerBlockOptin,
             CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN);
  KTUNE_ATTR(l.smemPerSM,
             CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR);
  KTUNE_ATTR(l.reservedSmemPerBlock,
             CU_DEVICE_ATTRIBUTE_RESERVED_SHARED_MEMORY_PER_BLOCK);
  KTUNE_ATTR(l.l2Bytes, CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE);
#undef KTUNE_ATTR
  size_t total = 0;
  KTUNE_CU(cuDeviceTotalMem(&total, Device));
  l.totalMemory = static_cast<int64_t>(total);

  KTUNE_CU(cuStreamCreate(&Stream, CU_STREAM_NON_BLOCKING));
  for (int i = 0; i < 2 * EventPairs; ++i) {
    CUevent e = nullptr;
    KTUNE_CU(cuEventCreate(&e, CU_EVENT_DEFAULT));
    Events.push_back(e);
  }
  // Writing twice the L2 evicts what the previous launch left there.
  FlushBytes = std::max<size_t>(2 * static_cast<size_t>(l.l2Bytes), 8u << 20);
  KTUNE_CU(cuMemAlloc(&FlushBuffer, FlushBytes));
  KTUNE_CU(cuMemAlloc(&Stats, CompareStatsWords * sizeof(uint64_t)));
  KTUNE_CU(cuMemAlloc(&PairValues, 2 * sizeof(double)));
  return count;
}

void DeviceSession::freeShape() {
  for (auto &[key, plan] : Plans)
    if (plan.graph)
      cuGraphExecDestroy(plan.graph);
  Plans.clear();
  for (CUdeviceptr slab : RotationSlabs)
    cuMemFree(slab);
  RotationSlabs.clear();
  RotationSets.clear();
  for (auto &b : Buffers)
    for (CUdeviceptr p : {b.base, b.initial, b.reference})
      if (p)
        cuMemFree(p);
  Buffers.clear();
}

static WExpected<std::string> readImage(const std::string &path) {
  auto bytes = readFile(path);
  if (!bytes)
    return workerError("cannot read module image: " + bytes.error().str());
  if (path.ends_with(".ptx"))
    bytes->push_back('\0'); // PTX is loaded as a C string
  return std::move(*bytes);
}

WExpected<CUfunction>
DeviceSession::helper(const std::map<std::string, std::string> &table,
                      DType dtype, const char *what) {
  auto it = table.find(std::string(dtypeInfo(dtype).name));
  if (it == table.end())
    return workerError(std::string("no ") + what + " helper for " +
                       std::string(dtypeInfo(dtype).name));
  CUfunction f = nullptr;
  KTUNE_CU(cuModuleGetFunction(&f, HelperModule, it->second.c_str()));
  return f;
}

WStatus DeviceSession::launchHelper(CUfunction f, int64_t n, void **params) {
  int64_t blocks = std::clamp<int64_t>((n + HelperBlock - 1) / HelperBlock, 1,
                                       int64_t(Limits.smCount) * 16);
  KTUNE_CU(cuLaunchKernel(f, static_cast<unsigned>(blocks), 1, 1, HelperBlock,
                          1, 1, 0, Stream, params, nullptr));
  return {};
}

WExpected<int64_t>
DeviceSession::setup(const Helpers &helpers,
                     const std::vector<protocol::BufferSpec> &specs) {
  KTUNE_CU(cuStreamSynchronize(Stream));
  freeShape();
  if (helpers.image != HelperImage) {
    if (HelperModule) {
      KTUNE_CU(cuModuleUnload(HelperModule));
      HelperModule = nullptr;
    }
    KTUNE_TRY_ASSIGN(auto image, readImage(helpers.image));
    KTUNE_CU(cuModuleLoadData(&HelperModule, image.data()));
    HelperImage = helpers.image;
  }
  HelperNames = helpers;

  // Check the memory before allocating, for a clear message.
  double need = 0;
  for (const auto &s : specs) {
    double bytes = double(s.count) * double(dtypeInfo(s.dtype).size);
    need += bytes * (1 + (s.role == Role::InOut) + (s.role != Role::In));
  }
  size_t freeBytes = 0, totalBytes = 0;
  KTUNE_CU(cuMemGetInfo(&freeBytes, &totalBytes));
  if (need > 0.95 * double(freeBytes))
    return workerError("the shape's buffers need " + gib(need) +
                       " of device memory (with reference and initial "
                       "copies); " +
                       gib(double(freeBytes)) + " is free");

  for (const auto &s : specs) {
    Buffer b;
    b.spec = s;
    b.bytes = static_cast<size_t>(s.count) * dtypeInfo(s.dtype).size;
    size_t alloc = std::max<size_t>(b.bytes, 256);
    // Record the buffer before allocating so freeShape frees what exists.
    Buffers.push_back(b);
    Buffer &nb = Buffers.back();
    KTUNE_CU(cuMemAlloc(&nb.base, alloc + 2 * GuardBytes));
    nb.ptr = nb.base + GuardBytes;
    KTUNE_WTRY(fillGuards(nb));
    if (s.role == Role::InOut)
      KTUNE_CU(cuMemAlloc(&nb.initial, alloc));
    if (s.role != Role::In)
      KTUNE_CU(cuMemAlloc(&nb.reference, alloc));
  }
  for (auto &b : Buffers) {
    if (b.spec.role == Role::Out || b.spec.count == 0)
      continue;
    KTUNE_TRY_ASSIGN(auto fill, helper(HelperNames.fill, b.spec.dtype, "fill"));
    unsigned long long n = static_cast<unsigned long long>(b.spec.count);
    unsigned long long seed = b.spec.seed;
    int mode = b.spec.fillMode;
    double low = b.spec.low, high = b.spec.high;
    void *params[] = {&b.ptr, &n, &seed, &mode, &low, &high};
    KTUNE_WTRY(launchHelper(fill, b.spec.count, params));
    if (b.spec.role == Role::InOut)
      KTUNE_CU(cuMemcpyDtoDAsync(b.initial, b.ptr, b.bytes, Stream));
  }
  KTUNE_CU(cuStreamSynchronize(Stream));
  return static_cast<int64_t>(need);
}

WExpected<int> DeviceSession::loadLibrary(const std::string &path,
                                          const std::string &function) {
  void *handle = nullptr;
  if (auto it = Libraries.find(path); it != Libraries.end()) {
    handle = it->second;
  } else {
    // Local symbols: every module exports the same entry name.
    handle = ::dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!handle) {
      const char *why = ::dlerror();
      return workerError("cannot open launcher module " + path + ": " +
                         (why ? why : "unknown error"));
    }
    Libraries[path] = handle;
  }
  Kernel k;
  k.entry =
      reinterpret_cast<int (*)(void **)>(::dlsym(handle, function.c_str()));
  if (!k.entry)
    return workerError("launcher module " + path + " has no '" + function +
                       "'");
  k.errorName = reinterpret_cast<const char *(*)(int)>(
      ::dlsym(handle, "ktune_error_name"));
  Kernels.push_back(k);
  return static_cast<int>(Kernels.size() - 1);
}

WExpected<int> DeviceSession::load(const std::string &image,
                                   const std::string &function,
                                   FunctionAttributes &a) {
  if (image.ends_with(".so"))
    return loadLibrary(image, function);
  CUmodule module = nullptr;
  if (auto it = Modules.find(image); it != Modules.end()) {
    module = it->second;
  } else {
    KTUNE_TRY_ASSIGN(auto bytes, readImage(image));
    KTUNE_CU(cuModuleLoadData(&module, bytes.data()));
    Modules[image] = module;
  }
  CUfunction f = nullptr;
  KTUNE_CU(cuModuleGetFunction(&f, module, function.c_str()));
  KTUNE_CU(cuFuncGetAttribute(&a.registers, CU_FUNC_ATTRIBUTE_NUM_REGS, f));
  KTUNE_CU(cuFuncGetAttribute(&a.smemStatic,
                              CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, f));
  KTUNE_CU(
      cuFuncGetAttribute(&a.localBytes, CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES, f));
  KTUNE_CU(cuFuncGetAttribute(&a.maxThreadsPerBlock,
                              CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, f));
  KTUNE_CU(cuFuncGetAttribute(&a.binaryVersion,
                              CU_FUNC_ATTRIBUTE_BINARY_VERSION, f));
  Kernels.push_back(Kernel{f, 48 * 1024});
  return static_cast<int>(Kernels.size() - 1);
}

WStatus DeviceSession::unloadAll() {
  KTUNE_CU(cuStreamSynchronize(Stream));
  for (auto &[key, plan] : Plans)
    if (plan.graph)
      KTUNE_CU(cuGraphExecDestroy(plan.graph));
  Plans.clear();
  Kernels.clear();
  for (auto &[path, module] : Modules)
    KTUNE_CU(cuModuleUnload(module));
  Modules.clear();
  for (auto &[path, handle] : Libraries)
    ::dlclose(handle);
  Libraries.clear();
  return {};
}

WStatus DeviceSession::prepareLaunch(Kernel &k, const protocol::Launch &l) {
  int64_t smem = l.dims.smemDynamic;
  if (!k.entry && smem > k.dynamicSmemLimit) {
    KTUNE_CU(cuFuncSetAttribute(k.function,
                                CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                                static_cast<int>(smem)));
    k.dynamicSmemLimit = static_cast<int>(smem);
  }
  for (const auto &a : l.args) {
    if (a.buffer >= static_cast<int>(Buffers.size()))
      return workerError("argument names buffer " + std::to_string(a.buffer) +
                         " but the shape has " +
                         std::to_string(Buffers.size()));
    if (a.buffer == KernelArgValue::StreamSlot && !k.entry)
      return workerError("a stream argument is for launchers only");
    if (a.buffer < 0 && a.buffer != KernelArgValue::StreamSlot &&
        (a.bytes.empty() || a.bytes.size() > 16))
      return workerError("scalar argument of " +
                         std::to_string(a.bytes.size()) + " bytes");
  }
  return {};
}

WStatus DeviceSession::buildParams(const protocol::Launch &l, int set,
                                   std::vector<uint64_t> &storage,
                                   std::vector<void *> &params) {
  storage.assign(2 * l.args.size(), 0);
  params.assign(l.args.size(), nullptr);
  for (size_t i = 0; i < l.args.size(); ++i) {
    const auto &a = l.args[i];
    if (a.buffer >= 0) {
      CUdeviceptr p =
          set == 0 ? Buffers[a.buffer].ptr : RotationSets[set - 1][a.buffer];
      std::memcpy(&storage[2 * i], &p, sizeof(p));
    } else if (a.buffer == KernelArgValue::StreamSlot) {
      CUstream s = Stream;
      std::memcpy(&storage[2 * i], &s, sizeof(s));
    } else {
      std::memcpy(&storage[2 * i], a.bytes.data(), a.bytes.size());
    }
    params[i] = &storage[2 * i];
  }
  return {};
}

WStatus DeviceSession::launch(const Kernel &k, const protocol::Launch &l,
                              void **params) {
  if (k.entry) {
    int e = k.entry(params);
    if (e != 0)
      return workerError(std::string("the launcher returned ") +
                         (k.errorName ? k.errorName(e) : "an error") + " (" +
                         std::to_string(e) + ")");
    return {};
  }
  const auto &d = l.dims;
  KTUNE_CU(cuLaunchKernel(
      k.function, static_cast<unsigned>(d.grid[0]),
      static_cast<unsigned>(d.grid[1]), static_cast<unsigned>(d.grid[2]),
      static_cast<unsigned>(d.block[0]), static_cast<unsigned>(d.block[1]),
      static_cast<unsigned>(d.block[2]), static_cast<unsigned>(d.smemDynamic),
      Stream, params, nullptr));
  return {};
}

WStatus DeviceSession::restoreInOut(int set) {
  for (size_t i = 0; i < Buffers.size(); ++i) {
    const Buffer &b = Buffers[i];
    if (b.spec.role != Role::InOut || b.bytes == 0)
      continue;
    CUdeviceptr dst = set == 0 ? b.ptr : RotationSets[set - 1][i];
    KTUNE_CU(cuMemcpyDtoDAsync(dst, b.initial, b.bytes, Stream));
  }
  return {};
}

WExpected<DeviceSession::Kernel *>
DeviceSession::readyToLaunch(int handle, const protocol::Launch &l,
                             std::vector<uint64_t> &storage,
                             std::vector<void *> &params) {
  if (handle < 0 || handle >= static_cast<int>(Kernels.size()))
    return workerError("unknown kernel handle " + std::to_string(handle));
  if (Buffers.empty() && !l.args.empty())
    for (const auto &a : l.args)
      if (a.buffer >= 0)
        return workerError("run before setup");
  Kernel &k = Kernels[handle];
  KTUNE_WTRY(prepareLaunch(k, l));
  KTUNE_WTRY(buildParams(l, 0, storage, params));
  return &k;
}

WExpected<protocol::RunResult>
DeviceSession::run(int handle, const protocol::Launch &l, int poison,
                   bool makeReference, int &blocksPerSM) {
  std::vector<uint64_t> storage;
  std::vector<void *> params;
  KTUNE_TRY_ASSIGN(Kernel * kernel, readyToLaunch(handle, l, storage, params));
  Kernel &k = *kernel;

  KTUNE_WTRY(restoreInOut(0));
  for (const auto &b : Buffers)
    if (b.spec.role == Role::Out && b.bytes > 0)
      KTUNE_CU(cuMemsetD8Async(b.ptr, static_cast<unsigned char>(poison),
                               b.bytes, Stream));
  KTUNE_CU(cuEventRecord(Events[0], Stream));
  KTUNE_WTRY(launch(k, l, params.data()));
  KTUNE_CU(cuEventRecord(Events[1], Stream));
  KTUNE_CU(cuStreamSynchronize(Stream));

  protocol::RunResult result;
  float ms = 0;
  KTUNE_CU(cuEventElapsedTime(&ms, Events[0], Events[1]));
  result.milliseconds = ms;
  blocksPerSM = -1;
  if (!k.entry)
    KTUNE_CU(cuOccupancyMaxActiveBlocksPerMultiprocessor(
        &blocksPerSM, k.function, static_cast<int>(l.dims.threadsPerBlock()),
        static_cast<size_t>(l.dims.smemDynamic)));

  for (auto &b : Buffers) {
    uint64_t before = 0, after = 0;
    KTUNE_WTRY(checkGuards(b, before, after));
    protocol::BufferCheck check;
    check.name = b.spec.name;
    if (b.spec.role != Role::In) {
      if (makeReference && b.bytes > 0)
        KTUNE_CU(cuMemcpyDtoDAsync(b.reference, b.ptr, b.bytes, Stream));
      KTUNE_TRY_ASSIGN(auto compared, compare(b));
      check = compared;
    }
    check.guardBefore = before;
    check.guardAfter = after;
    result.checks.push_back(check);
  }
  return result;
}

WStatus DeviceSession::profile(int handle, const protocol::Launch &l) {
  if (!HelperModule)
    return workerError("profile before setup");
  CUfunction marker = nullptr;
  KTUNE_CU(cuModuleGetFunction(&marker, HelperModule, ProfileMarkerKernel));
  std::vector<uint64_t> storage;
  std::vector<void *> params;
  KTUNE_TRY_ASSIGN(Kernel * k, readyToLaunch(handle, l, storage, params));
  KTUNE_WTRY(restoreInOut(0));
  KTUNE_CU(cuStreamSynchronize(Stream));
  KTUNE_CU(cuProfilerStart());
  KTUNE_CU(
      cuLaunchKernel(marker, 1, 1, 1, 1, 1, 1, 0, Stream, nullptr, nullptr));
  WStatus launched = launch(*k, l, params.data());
  CUresult synced = cuStreamSynchronize(Stream);
  KTUNE_CU(cuProfilerStop());
  KTUNE_WTRY(launched);
  KTUNE_CU(synced);
  return {};
}

} // namespace ktune::worker
