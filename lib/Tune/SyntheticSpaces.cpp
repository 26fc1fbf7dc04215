//===- SyntheticSpaces.cpp - Spaces with known structure ------------------===//
//
// Benchmarks for strategies besides recorded spaces, so defaults are not
// fitted to one data set. Times are deterministic functions of the
// configuration, with a fixed pseudo-random multiplicative jitter (hash of
// the configuration) standing in for effects no model captures.
//
//===----------------------------------------------------------------------===//

#include "ktune/Tune/StrategyBench.h"

#include <algorithm>
#include <cmath>

namespace ktune {

namespace {

uint64_t mix(uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

/// A factor in [1 - amplitude, 1 + amplitude] fixed per configuration.
double jitter(const Configuration &config, uint64_t salt, double amplitude) {
  uint64_t h = salt;
  for (const auto &[name, value] : config) {
    for (char c : name)
      h = mix(h ^ static_cast<unsigned char>(c));
    h = mix(h ^ static_cast<uint64_t>(value));
  }
  double u = static_cast<double>(h >> 11) / static_cast<double>(1ull << 53);
  return 1.0 + amplitude * (2.0 * u - 1.0);
}

SpaceParam param(std::string name, std::vector<int64_t> values) {
  SpaceParam p;
  p.name = std::move(name);
  p.defaultValue = values.front();
  p.domain = Domain::ofValues(std::move(values));
  return p;
}

/// A tiled GEMM (M = N = K = 4096, fp32 FMA) on a 108-SM device: waves of
/// tiles, occupancy from registers and shared memory, arithmetic intensity
/// of the tile, latency hiding by pipeline stages, vector width and
/// unrolling, and a split-K reduction cost. Register estimates above 255
/// fail at run time (as spilling/launch failures do).
std::optional<double> gemmTime(const Configuration &c) {
  const double M = 4096, N = 4096, K = 4096, SMs = 108;
  double bm = c.at("block_m"), bn = c.at("block_n"), bk = c.at("block_k");
  double warps = c.at("warps"), stages = c.at("stages"), vec = c.at("vec");
  double unroll = c.at("unroll"), split = c.at("split_k");
  double threads = warps * 32;
  double perThread = bm * bn / threads;
  double regs = 24 + perThread + 4 * vec * std::min(unroll, 4.0) + 2 * stages;
  if (regs > 255)
    return std::nullopt;
  double smem = (bm + bn) * bk * 4 * stages;
  double byRegs = std::floor(65536 / (threads * std::max(regs, 32.0)));
  double bySmem = std::floor(164 * 1024 / std::max(smem, 1.0));
  double blocksPerSM =
      std::max(1.0, std::min({byRegs, bySmem, 2048 / threads, 32.0}));
  double tiles = std::ceil(M / bm) * std::ceil(N / bn) * split;
  double waves = std::ceil(tiles / (SMs * blocksPerSM));
  // Per-tile time: FMA work at a rate limited by arithmetic intensity and
  // by how well warps hide latency.
  double flops = 2 * bm * bn * K / split;
  double intensity = bm * bn / (bm + bn); // reuse per loaded element
  double memoryBound = std::min(1.0, intensity / 48.0);
  double warpsPerSM = warps * blocksPerSM;
  double latencyHiding =
      std::min(1.0, 0.25 + 0.08 * warpsPerSM + 0.15 * (stages - 1));
  double vecEfficiency = vec >= 4 ? 1.0 : 0.7 + 0.1 * vec;
  double unrollEfficiency = unroll * vec > 16 ? 0.85 : 0.8 + 0.05 * unroll;
  double ratePerSM = 128 * 2 * 1.4e3; // FLOP per microsecond per SM
  double tileTime =
      flops / (ratePerSM / blocksPerSM) /
      (memoryBound * latencyHiding * vecEfficiency * unrollEfficiency);
  double reduction =
      split > 1 ? M * N * split * 4 / 1.5e6 : 0; // bytes / (B/us)
  double time = waves * tileTime + reduction + 5.0;
  return time * jitter(c, 0x6e6d, 0.04);
}

/// A smooth bowl with periodic ripples over six 10-valued parameters: many
/// local minima around one global basin.
std::optional<double> ruggedTime(const Configuration &c) {
  static const double centre[6] = {6.3, 2.1, 8.6, 4.4, 5.8, 1.2};
  double f = 0;
  int k = 0;
  for (const auto &[name, value] : c) {
    double d = static_cast<double>(value) - centre[k++ % 6];
    f += 0.04 * d * d + 0.35 * (1 - std::cos(2 * M_PI * d / 3.0));
  }
  return 100.0 * std::exp(0.25 * f) * jitter(c, 0x7275, 0.02);
}

BenchSpace makeSynthetic(std::string name, std::vector<SpaceParam> params,
                         std::vector<std::string> constraints,
                         FunctionEvaluator::Function f) {
  BenchSpace b;
  b.name = std::move(name);
  auto space = SearchSpace::create(std::move(params), constraints);
  b.space = std::move(*space); // the definitions above are valid
  b.evaluator = std::make_shared<FunctionEvaluator>(f, b.name);
  double best = std::numeric_limits<double>::infinity();
  b.space.forEachValid([&](const Point &p) {
    if (auto t = f(b.space.toConfig(p)))
      best = std::min(best, *t);
    return true;
  });
  b.optimumUs = best;
  return b;
}

} // namespace

std::vector<BenchSpace> syntheticBenchSpaces() {
  std::vector<BenchSpace> out;
  out.push_back(makeSynthetic(
      "gemm",
      {param("block_m", {16, 32, 64, 128, 256}),
       param("block_n", {16, 32, 64, 128, 256}),
       param("block_k", {8, 16, 32, 64}), param("warps", {1, 2, 4, 8, 16}),
       param("stages", {1, 2, 3, 4, 5}), param("vec", {1, 2, 4, 8}),
       param("unroll", {1, 2, 4, 8}), param("split_k", {1, 2, 4, 8})},
      {"(block_m + block_n) * block_k * 4 * stages <= 98304",
       "block_m * block_n >= warps * 32 * vec", "block_k % vec == 0"},
      gemmTime));
  std::vector<SpaceParam> rugged;
  for (int k = 0; k < 6; ++k) {
    std::vector<int64_t> values(10);
    for (int v = 0; v < 10; ++v)
      values[v] = v;
    rugged.push_back(param("x" + std::to_string(k), values));
  }
  out.push_back(makeSynthetic("rugged", std::move(rugged),
                              {"x0 + x1 + x2 + x3 + x4 + x5 <= 36"},
                              ruggedTime));
  return out;
}

} // namespace ktune
