#include "ktune/Cuda/NvrtcCompiler.h"

#include "CompileBatches.h"
#include "ktune/Support/Try.h"

#include "ktune/Cuda/CompileCache.h"
#include "ktune/Support/Sha256.h"
#include "ktune/Support/ThreadPool.h"
#include "ktune/Target/DeviceLimits.h"

#include <nvrtc.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <future>
#include <map>
#include <mutex>
#include <unistd.h>

#ifndef KTUNE_CUDA_INCLUDE_DIRS
#define KTUNE_CUDA_INCLUDE_DIRS "/usr/local/cuda/include"
#endif

namespace ktune {

namespace fs = std::filesystem;

std::string nvrtcVersionString() {
  int major = 0, minor = 0;
  if (nvrtcVersion(&major, &minor) != NVRTC_SUCCESS)
    return "nvrtc unknown";
  return "nvrtc " + std::to_string(major) + "." + std::to_string(minor);
}

std::vector<std::string> nvrtcSupportedArchs() {
  int count = 0;
  std::vector<std::string> out;
  if (nvrtcGetNumSupportedArchs(&count) != NVRTC_SUCCESS || count <= 0)
    return out;
  std::vector<int> archs(count);
  if (nvrtcGetSupportedArchs(archs.data()) != NVRTC_SUCCESS)
    return out;
  for (int a : archs)
    out.push_back("sm_" + std::to_string(a));
  return out;
}

std::vector<std::string> cudaIncludeDirs() {
  std::vector<std::string> candidates;
  for (const char *var : {"CUDA_HOME", "CUDA_PATH"})
    if (const char *root = std::getenv(var); root && *root) {
      candidates.push_back((fs::path(root) / "include").string());
      break;
    }
  // Directories the build found ('|'-separated).
  std::string built = KTUNE_CUDA_INCLUDE_DIRS;
  for (size_t start = 0; start <= built.size();) {
    size_t end = built.find_first_of("|;", start);
    if (end == std::string::npos)
      end = built.size();
    if (end > start)
      candidates.push_back(built.substr(start, end - start));
    start = end + 1;
  }
  std::vector<std::string> out;
  std::error_code ec;
  auto add = [&](const fs::path &p) {
    if (!fs::is_directory(p, ec))
      return;
    std::string s = fs::weakly_canonical(p, ec).string();
    if (std::find(out.begin(), out.end(), s) == out.end())
      out.push_back(s);
  };
  for (const auto &c : candidates) {
    add(c);
    add(fs::path(c) / "cccl");
  }
  return out;
}

static std::string nvrtcErrorText(nvrtcResult r) {
  const char *s = nvrtcGetErrorString(r);
  return s ? s : "unknown NVRTC error";
}

/// The first few "error" lines of a compiler log, for a one-line reason.
static std::string firstErrors(const std::string &log) {
  std::string out;
  int count = 0;
  size_t pos = 0;
  while (pos < log.size() && count < 3) {
    size_t end = log.find('\n', pos);
    if (end == std::string::npos)
      end = log.size();
    std::string line = log.substr(pos, end - pos);
    pos = end + 1;
    if (line.find("error") != std::string::npos) {
      out += (out.empty() ? "" : " | ") + line;
      ++count;
    }
  }
  if (out.empty()) {
    out = log.substr(0, 300);
    std::replace(out.begin(), out.end(), '\n', ' ');
  }
  return out;
}

struct NvrtcCompiler::Impl : BatchCompilerState {
  std::string Source, SourceName, SourceSha;
  NvrtcSettings Settings;
  std::string Version;
  std::vector<std::string> IncludeDirs;
  bool IsPtx = false;

  std::vector<std::string> options(int maxRegisters) const {
    std::vector<std::string> o = {"-std=c++17", "-arch=" + Settings.arch};
    for (const auto &dir : IncludeDirs)
      o.push_back("--include-path=" + dir);
    for (const auto &dir : Settings.includePaths)
      o.push_back("--include-path=" + dir);
    if (!IsPtx)
      o.push_back("--ptxas-options=-v");
    if (maxRegisters > 0)
      o.push_back("--maxrregcount=" + std::to_string(maxRegisters));
    for (const auto &x : Settings.extraOptions)
      o.push_back(x);
    return o;
  }

  std::string key(const Instantiation &inst) const {
    return compileCacheKey(CompileKey{SourceSha, inst.nameExpression,
                                      Settings.arch, options(inst.maxRegisters),
                                      Version});
  }

  /// Compiles `batch` (same maxRegisters) as one program; on failure splits
  /// it to find the instantiations that fail.
  void compileBatch(std::vector<Pending> batch) {
    if (batch.empty())
      return;
    const int maxRegs = batch.front().Inst.maxRegisters;
    auto opts = options(maxRegs);
    std::vector<const char *> optPtrs;
    for (const auto &o : opts)
      optPtrs.push_back(o.c_str());

    auto start = std::chrono::steady_clock::now();
    // Where a driver is installed, NVRTC reuses machine code from the
    // driver's compute cache for a program it has seen before, and then
    // ptxas reports nothing. An empty kernel with a unique name makes every
    // program new; our own cache already keeps us from compiling twice.
    static std::atomic<uint64_t> Counter{0};
    std::string source = Source +
                         "\nextern \"C\" __global__ void ktune_unique_" +
                         std::to_string(::getpid()) + "_" +
                         std::to_string(start.time_since_epoch().count()) +
                         "_" + std::to_string(Counter++) + "() {}\n";
    nvrtcProgram prog = nullptr;
    nvrtcResult r = nvrtcCreateProgram(&prog, source.c_str(),
                                       SourceName.c_str(), 0, nullptr, nullptr);
    if (r != NVRTC_SUCCESS) {
      for (auto &p : batch)
        finish(p, std::unexpected(
                      Error{"nvrtcCreateProgram: " + nvrtcErrorText(r), ""}));
      return;
    }
    struct ProgramGuard {
      nvrtcProgram &P;
      ~ProgramGuard() {
        if (P)
          nvrtcDestroyProgram(&P);
      }
    } guard{prog};

    for (auto &p : batch) {
      r = nvrtcAddNameExpression(prog, p.Inst.nameExpression.c_str());
      if (r != NVRTC_SUCCESS) {
        for (auto &q : batch)
          finish(q, std::unexpected(Error{"nvrtcAddNameExpression(" +
                                              p.Inst.nameExpression +
                                              "): " + nvrtcErrorText(r),
                                          ""}));
        return;
      }
    }
    nvrtcResult compiled = nvrtcCompileProgram(
        prog, static_cast<int>(optPtrs.size()), optPtrs.data());
    std::string log;
    size_t logSize = 0;
    if (nvrtcGetProgramLogSize(prog, &logSize) == NVRTC_SUCCESS &&
        logSize > 1) {
      log.resize(logSize);
      if (nvrtcGetProgramLog(prog, log.data()) != NVRTC_SUCCESS)
        log.clear();
      while (!log.empty() && log.back() == '\0')
        log.pop_back();
    }
    double ms = std::chrono::duration<double, std::milli>(
                    std::chrono::steady_clock::now() - start)
                    .count();
    ++Programs;
    CompileMicros += static_cast<int64_t>(ms * 1000);

    if (compiled != NVRTC_SUCCESS) {
      if (compiled == NVRTC_ERROR_COMPILATION && batch.size() > 1) {
        size_t half = batch.size() / 2;
        std::vector<Pending> second(
            std::make_move_iterator(batch.begin() + half),
            std::make_move_iterator(batch.end()));
        batch.resize(half);
        compileBatch(std::move(batch));
        compileBatch(std::move(second));
        return;
      }
      Instantiations += batch.size();
      for (auto &p : batch) {
        CacheEntry e;
        e.ok = false;
        e.nameExpression = p.Inst.nameExpression;
        e.error = compiled == NVRTC_ERROR_COMPILATION
                      ? "compile error: " + firstErrors(log)
                      : "NVRTC failed: " + nvrtcErrorText(compiled) + ": " +
                            firstErrors(log);
        e.log = log.substr(0, 64 * 1024);
        e.compileMs = ms;
        if (compiled == NVRTC_ERROR_COMPILATION)
          storeAndFinish(p, std::move(e), IsPtx); // deterministic
        else {
          ++Failures;
          finish(p, std::unexpected(Error{e.error, ""}));
        }
      }
      return;
    }

    std::string image;
    size_t imageSize = 0;
    r = IsPtx ? nvrtcGetPTXSize(prog, &imageSize)
              : nvrtcGetCUBINSize(prog, &imageSize);
    if (r == NVRTC_SUCCESS) {
      image.resize(imageSize);
      r = IsPtx ? nvrtcGetPTX(prog, image.data())
                : nvrtcGetCUBIN(prog, image.data());
    }
    if (r != NVRTC_SUCCESS || image.empty()) {
      for (auto &p : batch)
        finish(p, std::unexpected(Error{
                      std::string("cannot read the compiled ") +
                          (IsPtx ? "PTX" : "cubin") + ": " + nvrtcErrorText(r),
                      ""}));
      return;
    }
    auto imagePath = Cache->storeImage(image, IsPtx);
    if (!imagePath) {
      for (auto &p : batch)
        finish(p, std::unexpected(
                      Error{"compile cache: " + imagePath.error().str(), ""}));
      return;
    }
    auto functions = parsePtxasLog(log);
    // Front-end warnings: the log lines that are not ptxas's.
    std::string frontEnd;
    {
      size_t pos = 0;
      while (pos < log.size()) {
        size_t end = log.find('\n', pos);
        if (end == std::string::npos)
          end = log.size();
        std::string_view line(log.data() + pos, end - pos);
        if (!line.starts_with("ptxas") && !line.empty())
          frontEnd.append(line).append("\n");
        pos = end + 1;
      }
      if (frontEnd.size() > 16 * 1024)
        frontEnd.resize(16 * 1024);
    }
    Instantiations += batch.size();
    for (auto &p : batch) {
      const char *lowered = nullptr;
      r = nvrtcGetLoweredName(prog, p.Inst.nameExpression.c_str(), &lowered);
      if (r != NVRTC_SUCCESS || !lowered) {
        finish(p, std::unexpected(Error{"no lowered name for '" +
                                            p.Inst.nameExpression +
                                            "': " + nvrtcErrorText(r),
                                        ""}));
        continue;
      }
      CacheEntry e;
      e.ok = true;
      e.nameExpression = p.Inst.nameExpression;
      e.loweredName = lowered;
      e.imagePath = *imagePath;
      bool attributed = false;
      if (auto it = functions.find(e.loweredName); it != functions.end()) {
        e.resources = it->second;
        attributed = e.resources.registers >= 0;
      }
      e.resources.entry = true;
      // Without this function's lines (PTX, or a log we could not read),
      // keep the whole log for whoever looks.
      e.log = attributed || IsPtx ? frontEnd + e.resources.log
                                  : log.substr(0, 64 * 1024);
      e.resources.log.clear();
      e.compileMs = ms / static_cast<double>(batch.size());
      storeAndFinish(p, std::move(e), IsPtx);
    }
  }
};

NvrtcCompiler::NvrtcCompiler() : I(std::make_unique<Impl>()) {}

NvrtcCompiler::~NvrtcCompiler() {
  I->Pool.reset(); // finish queued compiles before the settings go
}

Expected<std::unique_ptr<NvrtcCompiler>>
NvrtcCompiler::create(std::string source, std::string sourceName,
                      NvrtcSettings settings) {
  std::unique_ptr<NvrtcCompiler> c(new NvrtcCompiler());
  Impl &I = *c->I;
  KTUNE_TRY_ASSIGN(auto cc, parseArch(settings.arch));
  I.IsPtx = settings.arch.starts_with("compute_");
  {
    std::string base = archForComputeCapability(cc[0], cc[1]);
    auto supported = nvrtcSupportedArchs();
    if (!supported.empty() && std::find(supported.begin(), supported.end(),
                                        base) == supported.end()) {
      std::string list;
      for (const auto &a : supported)
        list += (list.empty() ? "" : " ") + a;
      return makeError(nvrtcVersionString() + " cannot compile for " +
                       settings.arch + " (supported: " + list + ")");
    }
  }
  I.Source = std::move(source);
  I.SourceName = sourceName.empty() ? "kernel.cu" : std::move(sourceName);
  I.SourceSha = sha256Hex(I.Source);
  I.Version = nvrtcVersionString();
  I.IncludeDirs = cudaIncludeDirs();
  if (settings.maxBatch < 1)
    settings.maxBatch = 1;
  KTUNE_TRY(I.open(settings.cacheDir, "compile", settings.jobs));
  I.Settings = std::move(settings);
  return c;
}

const std::string &NvrtcCompiler::arch() const { return I->Settings.arch; }

std::vector<std::string> NvrtcCompiler::options(int maxRegisters) const {
  return I->options(maxRegisters);
}

std::vector<std::string> NvrtcCompiler::recordedOptions() const {
  return I->Settings.extraOptions;
}

std::string NvrtcCompiler::cacheKey(const Instantiation &inst) const {
  return I->key(inst);
}

void NvrtcCompiler::prefetch(const std::vector<Instantiation> &insts) {
  Impl *impl = I.get();
  prefetchInBatches(*I, insts, [impl](const CacheEntry &e) {
    return compiledKernelFrom(e, true, impl->IsPtx);
  });
}

Expected<CompiledKernel> NvrtcCompiler::get(const Instantiation &inst) {
  return compiledOnce(
      *I, inst, [this](const std::vector<Instantiation> &i) { prefetch(i); });
}

CompileStats NvrtcCompiler::stats() const { return I->stats(); }

} // namespace ktune
