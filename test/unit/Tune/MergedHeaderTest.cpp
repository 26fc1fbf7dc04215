#include "ktune/Tune/MergedHeader.h"
#include "TempDir.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

using namespace ktune;
using namespace ktune::testing;

namespace {

/// Results of one device: BLOCK/VEC winners at N=1024 and N=4096.
TuneResults fabricated(const std::string &device, const std::string &arch,
                       int64_t block1k, int64_t block4k, int64_t general) {
  TuneResults r;
  r.kernel = "rmsnorm";
  r.device = device;
  r.arch = arch;
  r.params = {"BLOCK", "VEC"};
  for (auto [n, block] :
       {std::pair{int64_t{1024}, block1k}, std::pair{int64_t{4096}, block4k}}) {
    ShapeResult s;
    s.shape = {{"N", n}};
    s.defaultConfig = {{"BLOCK", 256}, {"VEC", 4}};
    s.bestConfig = {{"BLOCK", block}, {"VEC", 8}};
    r.shapes.push_back(s);
  }
  GeneralResult g;
  g.config = {{"BLOCK", general}, {"VEC", 2}};
  r.general = g;
  return r;
}

std::vector<TuneResults> threeDevices() {
  return {fabricated("NVIDIA H100 80GB HBM3", "sm_90", 128, 512, 1024),
          fabricated("NVIDIA A100-SXM4-80GB", "sm_80", 64, 96, 160),
          fabricated("NVIDIA L40S", "sm_89", 32, 48, 80)};
}

int run(const std::string &command) { return std::system(command.c_str()); }

} // namespace

TEST(MergedHeader, PicksEachDevicesOwnThenTheNearestOfItsArchitecture) {
  auto header = renderMergedHeader(threeDevices());
  ASSERT_TRUE(header) << header.error().str();
  TempDir dir;
  std::ofstream(dir.file("k.tuned.h")) << *header;
  // The selection, host side: device properties in, configuration out.
  std::ofstream(dir.file("check.cpp")) << R"(
#include "k.tuned.h"
#include <cstdio>
using namespace ktune_rmsnorm;
static int failures = 0;
static void expect(long long got, long long want, int line) {
  if (got != want) {
    std::printf("line %d: got %lld, want %lld\n", line, got, want);
    ++failures;
  }
}
#define EXPECT(got, want) expect(got, want, __LINE__)
int main() {
  auto *h100 = select_device_tuning("NVIDIA H100 80GB HBM3", 9, 0);
  EXPECT(select_config(h100, 1024).BLOCK, 128);
  EXPECT(select_config(h100, 4096).BLOCK, 512);
  EXPECT(select_config(h100, 4096).VEC, 8);
  EXPECT(select_config(h100, 7).BLOCK, 1024); // other shape: general
  EXPECT(select_config(h100, 7).VEC, 2);
  // Untuned H200 (9.0): the H100's, not the A100's or the L40S's.
  EXPECT(select_config(select_device_tuning("NVIDIA H200", 9, 0), 1024).BLOCK, 128);
  // Each tuned device gets its own, never another's.
  EXPECT(select_config(select_device_tuning("NVIDIA A100-SXM4-80GB", 8, 0), 1024).BLOCK, 64);
  EXPECT(select_config(select_device_tuning("NVIDIA L40S", 8, 9), 1024).BLOCK, 32);
  // A10 (8.6): nearest of its architecture is the L40S (8.9), not the A100 (8.0).
  EXPECT(select_config(select_device_tuning("NVIDIA A10", 8, 6), 4096).BLOCK, 48);
  // A100 40GB (8.0): the A100's.
  EXPECT(select_config(select_device_tuning("NVIDIA A100-PCIE-40GB", 8, 0), 4096).BLOCK, 96);
  // B200 (10.0): nothing tuned of its architecture: the defaults.
  EXPECT(select_device_tuning("NVIDIA B200", 10, 0) == nullptr, 1);
  EXPECT(select_config(select_device_tuning("NVIDIA B200", 10, 0), 1024).BLOCK, 256);
  EXPECT(select_config(nullptr, 1024).VEC, 4);
  return failures;
}
)";
  ASSERT_EQ(run("cd " + dir.file("") +
                " && c++ -std=c++17 -Wall -Werror -o check check.cpp"),
            0)
      << *header;
  EXPECT_EQ(run(dir.file("check")), 0);

  // With nvcc (compile only: no GPU needed), the device-reading part too.
  std::string nvcc = "/usr/local/cuda/bin/nvcc";
  if (!std::filesystem::exists(nvcc))
    GTEST_SKIP() << "nvcc not found: compiled as host C++ only";
  std::ofstream(dir.file("use.cu")) << R"(
#include "k.tuned.h"
__global__ void kernel(float *x) { x[threadIdx.x] = 0; }
int launch(float *x, long long n) {
  ktune_rmsnorm::Config c = ktune_rmsnorm::current_config(n);
  kernel<<<1, (unsigned)c.BLOCK>>>(x);
  return (int)c.VEC;
}
)";
  EXPECT_EQ(run("cd " + dir.file("") + " && " + nvcc +
                " -std=c++17 -c use.cu -o use.o"),
            0);
  // The same per-device checks compiled by nvcc as CUDA: the selection
  // runs on the host, so no GPU is needed to run them.
  ASSERT_EQ(run("cd " + dir.file("") + " && " + nvcc +
                " -std=c++17 -x cu check.cpp -o check_nvcc"),
            0);
  EXPECT_EQ(run(dir.file("check_nvcc")), 0);
}

TEST(MergedHeader, RefusesToMixDevicesOrKernels) {
  auto all = threeDevices();
  all.push_back(all[0]); // the H100 twice
  auto twice = renderMergedHeader(all);
  ASSERT_FALSE(twice);
  EXPECT_NE(twice.error().str().find("twice"), std::string::npos);
  all = threeDevices();
  all[1].kernel = "other";
  EXPECT_FALSE(renderMergedHeader(all));
  all = threeDevices();
  all[2].arch = "recorded";
  EXPECT_FALSE(renderMergedHeader(all));
  EXPECT_FALSE(renderMergedHeader({}));
}
