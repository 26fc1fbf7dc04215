// Configuration tables in the tuner: a parameter of one case moves only at
// the shapes that reach its case, and the general configuration holds every
// case's winners.
#include "ktune/Tune/Tuner.h"

#include "Fakes.h"
#include "TempDir.h"

#include <gtest/gtest.h>

#include <cmath>

using namespace ktune;
using namespace ktune::testing;
using nlohmann::json;

namespace {

/// launch(seqlen): SMALL for seqlen <= 128, LARGE otherwise (a launcher's
/// parameters, as ktune-refactor writes them), seqlen bound to dim s.
Expected<SpaceDefinition> tableSpace() {
  auto m = manifestFromJson(json::parse(R"J({
    "ktune": "manifest/1", "source": "k.tpl.cu",
    "kernels": [{"name": "launch", "template_params": [
      {"name": "SMALL", "type": "int", "tunable": true, "kind": "block_size",
       "default": 32, "values": [32, 64, 128], "case": "(seqlen) <= (128)"},
      {"name": "LARGE", "type": "int", "tunable": true, "kind": "block_size",
       "default": 128, "values": [128, 256, 512],
       "case": "!((seqlen) <= (128))"},
      {"name": "ANY", "type": "int", "tunable": true, "kind": "unroll",
       "default": 1, "values": [1, 2], "case": "unknown"}]}]})J"));
  if (!m)
    return std::unexpected(m.error());
  Spec spec;
  spec.launcherMode = true;
  spec.kernel = "launch";
  spec.args.push_back({"seqlen", ScalarArg{"s", "int"}});
  return spaceFromManifest(m->kernels[0], spec);
}

} // namespace

TEST(CaseTables, ACaseParameterMovesOnlyWhereItsCaseIsReached) {
  auto def = tableSpace();
  ASSERT_TRUE(def) << def.error().str();
  EXPECT_EQ(def->caseConditions.size(), 2u); // "unknown" restricts nothing
  EXPECT_EQ(def->caseConditions.at("SMALL"), "s <= 128");
  EXPECT_EQ(def->constraints,
            (std::vector<std::string>{"(s <= 128) || SMALL == 32",
                                      "(!(s <= 128)) || LARGE == 128"}));
  auto small = SearchSpace::create(def->params, def->constraints, def->dialect,
                                   Shape{{"s", 64}});
  ASSERT_TRUE(small) << small.error().str();
  auto valid = [&](const SearchSpace &space, Configuration c) {
    auto p = space.fromConfig(c);
    return p && space.isValid(*p);
  };
  EXPECT_TRUE(valid(*small, {{"SMALL", 128}, {"LARGE", 128}, {"ANY", 2}}));
  EXPECT_FALSE(valid(*small, {{"SMALL", 32}, {"LARGE", 256}, {"ANY", 1}}));
  EXPECT_EQ(small->validCount(), 6u); // 3 SMALL x 2 ANY
}

TEST(CaseTables, AConfigurationActsOnAShapeThroughItsCaseAlone) {
  auto def = tableSpace();
  ASSERT_TRUE(def) << def.error().str();
  Configuration both = {{"SMALL", 64}, {"LARGE", 512}, {"ANY", 2}};
  EXPECT_EQ(onShape(*def, {{"s", 16}}, both),
            (Configuration{{"SMALL", 64}, {"LARGE", 128}, {"ANY", 2}}));
  EXPECT_EQ(onShape(*def, {{"s", 4096}}, both),
            (Configuration{{"SMALL", 32}, {"LARGE", 512}, {"ANY", 2}}));
}

TEST(CaseTables, TheGeneralConfigurationKeepsEveryCasesWinner) {
  auto def = tableSpace();
  ASSERT_TRUE(def) << def.error().str();
  // The small case is fastest at 128 threads, the large one at 256; a
  // parameter of the case a shape does not reach changes nothing there.
  FakeEvaluator eval([](const Shape &shape, const Configuration &c) {
    bool small = shape.at("s") <= 128;
    int64_t block = small ? c.at("SMALL") : c.at("LARGE");
    int64_t best = small ? 128 : 256;
    return std::optional<double>(10.0 + std::abs(block - best) / 32.0);
  });
  TempDir dir;
  auto journal = Journal::open(dir.file("j.jsonl"));
  ASSERT_TRUE(journal) << journal.error().str();
  Tuner tuner(*def, {{{"s", 16}}, {{"s", 4096}}}, eval, **journal,
              scanOptions(100));
  auto r = tuner.run();
  ASSERT_TRUE(r) << r.error().str();
  // Each shape searched its own case only.
  for (const auto &e : (*journal)->entries()) {
    bool small = e.key.shape.at("s") <= 128;
    EXPECT_EQ(e.key.config.at(small ? "LARGE" : "SMALL"), small ? 128 : 32)
        << "shape s=" << e.key.shape.at("s");
  }
  EXPECT_EQ(r->shapes[0].bestConfig.at("SMALL"), 128);
  EXPECT_EQ(r->shapes[1].bestConfig.at("LARGE"), 256);
  ASSERT_TRUE(r->general);
  EXPECT_EQ(r->general->config.at("SMALL"), 128);
  EXPECT_EQ(r->general->config.at("LARGE"), 256);
  // 13 -> 10 us and 14 -> 10 us: both cases' gains, where either winner
  // alone would keep the other case at its default.
  EXPECT_NEAR(r->general->geomeanSpeedup, std::sqrt(1.3 * 1.4), 1e-9);
}

TEST(CaseTables, MergedCasesNeedCaseParameters) {
  SpaceDefinition plain;
  plain.params.push_back({"B", Domain::ofValues({32, 64}), 32});
  EXPECT_FALSE(mergedCases(plain, {{"B", 32}}, {{{{"n", 1}}, {{"B", 64}}}}));
}
