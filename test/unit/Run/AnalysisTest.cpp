#include "ktune/Run/Analysis.h"

#include "Fabricate.h"

#include <gtest/gtest.h>

#include <cmath>

using namespace ktune;
using namespace ktune::run;
using namespace ktune::testing;

namespace {

SpaceDefinition blockVec() {
  SpaceDefinition d;
  d.params.push_back({"BLOCK", Domain::ofPow2Range(64, 512), 256});
  d.params.push_back({"VEC", Domain::ofValues({1, 2, 4, 8}), 4});
  return d;
}

const InfluenceSummary &influenceOf(const KernelAnalysis &a,
                                    const std::string &p) {
  for (const auto &i : a.influence)
    if (i.param == p)
      return i;
  throw std::runtime_error("no influence for " + p);
}

const EdgeHit *edgeOf(const KernelAnalysis &a, const std::string &p) {
  for (const auto &e : a.edges)
    if (e.param == p)
      return &e;
  return nullptr;
}

} // namespace

TEST(Analysis, BestAtTheHighEdgeIsAnEdgeHit) {
  // VEC: wider is always faster; BLOCK: best at 128, inside its domain.
  auto r = fabricate(
      blockVec(), {{{"n", 1}}, {{"n", 2}}},
      [](const Shape &, const Configuration &c) {
        return 100.0 / static_cast<double>(c.at("VEC")) +
               std::abs(std::log2(c.at("BLOCK") / 128.0)) * 5;
      },
      0.005);
  auto a = analyse(r);
  ASSERT_EQ(a.shapes.size(), 2u);
  EXPECT_EQ(a.shapes[0].bestConfig.at("VEC"), 8);
  EXPECT_EQ(a.shapes[0].bestConfig.at("BLOCK"), 128);
  const EdgeHit *vec = edgeOf(a, "VEC");
  ASSERT_NE(vec, nullptr);
  EXPECT_EQ(vec->edge, "max");
  EXPECT_EQ(vec->value, 8);
  EXPECT_EQ(vec->shapes, 2u);
  EXPECT_EQ(vec->mattered, 2u);
  EXPECT_EQ(edgeOf(a, "BLOCK"), nullptr); // interior
  for (const auto &p : a.shapes[0].placements)
    if (p.param == "BLOCK") {
      EXPECT_EQ(p.placement, Placement::Interior);
      EXPECT_EQ(p.domainMin, 64);
      EXPECT_EQ(p.domainMax, 512);
    }
}

TEST(Analysis, LowEdgeIsReported) {
  auto r = fabricate(
      blockVec(), {{{"n", 1}}},
      [](const Shape &, const Configuration &c) {
        return 10.0 + static_cast<double>(c.at("BLOCK")) / 64.0 +
               static_cast<double>(c.at("VEC"));
      },
      0.005);
  auto a = analyse(r);
  const EdgeHit *block = edgeOf(a, "BLOCK");
  ASSERT_NE(block, nullptr);
  EXPECT_EQ(block->edge, "min");
  EXPECT_EQ(block->value, 64);
}

TEST(Analysis, InfluenceIsTheSpreadOfTheBestTimePerValue) {
  // BLOCK changes the best time by 20%; VEC changes nothing.
  auto r = fabricate(
      blockVec(), {{{"n", 1}}},
      [](const Shape &, const Configuration &c) {
        return c.at("BLOCK") == 256 ? 10.0 : 12.0;
      },
      0.005);
  auto a = analyse(r);
  const auto &block = influenceOf(a, "BLOCK");
  EXPECT_NEAR(block.maxSpreadPct, 20.0, 1e-9);
  EXPECT_FALSE(block.insensitive);
  const auto &vec = influenceOf(a, "VEC");
  EXPECT_NEAR(vec.maxSpreadPct, 0.0, 1e-9);
  EXPECT_TRUE(vec.insensitive);
  // Most influential first.
  EXPECT_EQ(a.influence.front().param, "BLOCK");
  // An insensitive parameter at an edge did not "matter" there.
  if (const EdgeHit *e = edgeOf(a, "VEC")) {
    EXPECT_EQ(e->mattered, 0u);
  }
}

TEST(Analysis, SmallEffectsCountOnlyAboveTheNoise) {
  // VEC moves the time by 1.5%.
  auto time = [](const Shape &, const Configuration &c) {
    return c.at("VEC") == 8 ? 100.0 : 101.5;
  };
  auto quiet = analyse(fabricate(blockVec(), {{{"n", 1}}}, time, 0.002));
  EXPECT_NEAR(quiet.noise, 0.002, 1e-12);
  EXPECT_NEAR(quiet.threshold, 0.01, 1e-12); // the 1% floor
  EXPECT_FALSE(influenceOf(quiet, "VEC").insensitive);

  auto noisy = analyse(fabricate(blockVec(), {{{"n", 1}}}, time, 0.03));
  EXPECT_NEAR(noisy.noise, 0.03, 1e-12);
  EXPECT_TRUE(influenceOf(noisy, "VEC").insensitive);
  EXPECT_NEAR(influenceOf(noisy, "VEC").noisePct, 3.0, 1e-9);
}

TEST(Analysis, SpreadBetweenConfigurations) {
  auto r = fabricate(
      blockVec(), {{{"n", 1}}},
      [](const Shape &, const Configuration &c) {
        return static_cast<double>(c.at("BLOCK") + c.at("VEC"));
      },
      0.01);
  auto a = analyse(r);
  const auto &s = a.shapes[0];
  EXPECT_DOUBLE_EQ(*s.fastestUs, 65.0);
  EXPECT_DOUBLE_EQ(*s.slowestUs, 520.0);
  // 16 configurations: the median of the middle two.
  EXPECT_DOUBLE_EQ(*s.medianUs, (136.0 + 257.0) / 2.0);
  EXPECT_EQ(s.ok, 16u);
  EXPECT_DOUBLE_EQ(s.speedup, 260.0 / 65.0);
}

TEST(Analysis, RooflineFromTheSpecBytes) {
  // 4.25e6 bytes move in 1 us at 4.25 TB/s; the kernel takes 2 us.
  SpaceDefinition d = blockVec();
  auto r = fabricate(
      d, {{{"n", 4}}, {{"n", 40}}},
      [](const Shape &s, const Configuration &c) {
        return 2.0 * static_cast<double>(s.at("n")) +
               (c.at("VEC") == 8 ? 0.0 : 1.0);
      },
      0.005, "4250000 * n");
  auto a = analyse(r);
  ASSERT_TRUE(a.shapes[0].rooflinePct);
  EXPECT_NEAR(*a.shapes[0].idealUs, 4.0, 1e-9);
  EXPECT_NEAR(*a.shapes[0].rooflinePct, 50.0, 1e-9);
  EXPECT_NEAR(*a.shapes[0].bestTBps, 2.125, 1e-9);
  EXPECT_FALSE(a.shapes[0].bandwidthRelevant); // 4 us ideal: latency-bound
  EXPECT_TRUE(a.shapes[1].bandwidthRelevant);  // 40 us ideal
  EXPECT_TRUE(a.anyBandwidthRelevant);
  EXPECT_NEAR(*a.rooflinePct, 50.0, 1e-9);
  EXPECT_TRUE(a.farFromRoofline);
  // The default (VEC=4) is slower: a smaller share.
  EXPECT_LT(*a.shapes[1].defaultRooflinePct, *a.shapes[1].rooflinePct);
}

TEST(Analysis, NearTheRooflineIsNotFar) {
  auto r = fabricate(
      blockVec(), {{{"n", 100}}},
      [](const Shape &s, const Configuration &c) {
        return 1.1 * static_cast<double>(s.at("n")) +
               (c.at("VEC") == 8 ? 0.0 : 5.0);
      },
      0.005, "4250000 * n");
  auto a = analyse(r);
  EXPECT_NEAR(*a.rooflinePct, 100.0 / 1.1, 1e-6);
  EXPECT_FALSE(a.farFromRoofline);
}

TEST(Analysis, OnlyLatencyBoundShapesNeverCountAsFar) {
  auto r = fabricate(
      blockVec(), {{{"n", 1}}},
      [](const Shape &, const Configuration &) { return 3.0; }, 0.005,
      "4250000 * n");
  auto a = analyse(r);
  EXPECT_FALSE(a.anyBandwidthRelevant);
  ASSERT_TRUE(a.rooflinePct);
  EXPECT_NEAR(*a.rooflinePct, 100.0 / 3.0, 1e-9);
  EXPECT_FALSE(a.farFromRoofline);
  EXPECT_FALSE(a.notes.empty());
}

TEST(Analysis, BytesFromBuffersWithoutAnExpression) {
  Spec spec;
  spec.args.push_back({"in", BufferArg{DType::F32, {"n"}, Role::In}});
  spec.args.push_back({"out", BufferArg{DType::BF16, {"n", "2"}, Role::Out}});
  spec.args.push_back({"acc", BufferArg{DType::F16, {"n"}, Role::InOut}});
  spec.args.push_back({"count", ScalarArg{"n", "int"}});
  auto b = bytesAtShape(spec, {{"n", 1000}});
  ASSERT_TRUE(b) << b.error().str();
  EXPECT_FALSE(b->fromExpression);
  // in: 4n read; out: 2*2n written; acc: 2n read and written.
  EXPECT_DOUBLE_EQ(b->bytes, 4000.0 + 4000.0 + 4000.0);

  spec.bytes = "6 * n";
  b = bytesAtShape(spec, {{"n", 1000}});
  ASSERT_TRUE(b);
  EXPECT_TRUE(b->fromExpression);
  EXPECT_DOUBLE_EQ(b->bytes, 6000.0);

  spec.bytes = "6 * missing";
  EXPECT_FALSE(bytesAtShape(spec, {{"n", 1000}}));
}

TEST(Analysis, UnknownRooflineIsSaid) {
  auto r = fabricate(
      blockVec(), {{{"n", 1}}},
      [](const Shape &, const Configuration &) { return 3.0; }, 0.005);
  auto a = analyse(r, std::nullopt);
  EXPECT_FALSE(a.rooflinePct);
  EXPECT_FALSE(a.farFromRoofline);
  ASSERT_FALSE(a.notes.empty());
  EXPECT_NE(a.notes.front().find("--roofline-tbps"), std::string::npos);
}

TEST(Analysis, BestSoFarTraceStartsAtTheDefaultAndNeverRises) {
  auto r = fabricate(
      blockVec(), {{{"n", 1}}},
      [](const Shape &, const Configuration &c) -> std::optional<double> {
        if (c.at("VEC") == 2)
          return std::nullopt; // failures keep the previous best
        return static_cast<double>(c.at("BLOCK")) /
               static_cast<double>(c.at("VEC"));
      },
      0.01);
  auto a = analyse(r);
  const auto &trace = a.shapes[0].bestSoFarUs;
  ASSERT_EQ(trace.size(), 16u);
  ASSERT_TRUE(trace.front());
  EXPECT_DOUBLE_EQ(*trace.front(), 64.0); // the default 256 / 4
  for (size_t i = 1; i < trace.size(); ++i)
    EXPECT_LE(*trace[i], *trace[i - 1]);
  EXPECT_DOUBLE_EQ(*trace.back(), 8.0); // 64 / 8
  EXPECT_EQ(a.shapes[0].statusCounts.at(EvalStatus::CompileError), 4u);
}

TEST(Analysis, OtherTemplatesAndRetimesAreIgnored) {
  auto r = fabricate(
      blockVec(), {{{"n", 1}}},
      [](const Shape &, const Configuration &c) {
        return static_cast<double>(c.at("BLOCK"));
      },
      0.01);
  JournalEntry foreign = r.journal.back();
  foreign.key.templateSha256 = "another template";
  foreign.result.time->medianUs = 0.001;
  r.journal.push_back(foreign);
  JournalEntry retime = r.journal.front();
  retime.phase = JournalPhase::Retime;
  retime.result.time->medianUs = 0.002;
  r.journal.push_back(retime);
  auto a = analyse(r);
  EXPECT_DOUBLE_EQ(*a.shapes[0].fastestUs, 64.0);
  EXPECT_EQ(a.shapes[0].bestSoFarUs.size(), 16u);
}

TEST(Analysis, RoundGainIsTheGeometricMeanOverCommonShapes) {
  auto time = [](double scale) {
    return [scale](const Shape &s, const Configuration &) {
      return scale * static_cast<double>(s.at("n"));
    };
  };
  std::vector<Shape> shapes{{{"n", 1}}, {{"n", 2}}};
  auto before = analyse(fabricate(blockVec(), shapes, time(2.0), 0.01));
  auto after = analyse(fabricate(blockVec(), shapes, time(1.0), 0.01));
  auto gain = roundGain(before, after);
  ASSERT_TRUE(gain);
  EXPECT_NEAR(*gain, 2.0, 1e-12);
  auto none = analyse(fabricate(blockVec(), {{{"n", 7}}}, time(1.0), 0.01));
  EXPECT_FALSE(roundGain(before, none));
}

TEST(Analysis, KnownCopyBandwidth) {
  EXPECT_EQ(knownCopyBandwidthTBps("NVIDIA H200"), 4.25);
  EXPECT_FALSE(knownCopyBandwidthTBps("NVIDIA A100-SXM4-80GB"));
}

TEST(Analysis, JsonCarriesTheFindings) {
  auto r = fabricate(
      blockVec(), {{{"n", 1}}},
      [](const Shape &, const Configuration &c) {
        return 100.0 / static_cast<double>(c.at("VEC"));
      },
      0.005, "4250000 * n");
  auto j = kernelAnalysisToJson(analyse(r));
  EXPECT_EQ(j["kernel"], "k");
  // BLOCK makes no difference: its best value (the first of the ties) sits
  // on an edge where it did not matter; VEC's mattered on every shape.
  bool vec = false;
  for (const auto &e : j["edges_hit"]) {
    if (e["param"] == "VEC") {
      vec = true;
      EXPECT_EQ(e["edge"], "max");
      EXPECT_EQ(e["mattered"], 1);
    } else {
      EXPECT_EQ(e["mattered"], 0);
    }
  }
  EXPECT_TRUE(vec);
  EXPECT_EQ(j["shapes"][0]["best"]["config"]["VEC"], 8);
  EXPECT_TRUE(j["shapes"][0]["roofline"]["best_pct"].is_number());
  EXPECT_EQ(j["shapes"][0]["best_so_far_us"].size(), 16u);
}
