// Fixed arguments in the tuner: a kernel argument fixed at compile time
// takes, at each shape, the default (read at run time) or that shape's
// value, and acts as the default wherever the argument differs.
#include "ktune/Tune/Tuner.h"

#include "Fakes.h"
#include "TempDir.h"

#include <gtest/gtest.h>

using namespace ktune;
using namespace ktune::testing;
using nlohmann::json;

namespace {

/// launch(d, n): FIXED_D fixes the launcher's `d`, bound to dim `cols`;
/// FIXED_N fixes something the launcher computes ("unknown").
Expected<SpaceDefinition> fixedSpace() {
  auto m = manifestFromJson(json::parse(R"J({
    "ktune": "manifest/1", "source": "k.tpl.cu",
    "kernels": [{"name": "launch", "template_params": [
      {"name": "BLOCK", "type": "int", "tunable": true, "kind": "block_size",
       "default": 256, "values": [128, 256]},
      {"name": "FIXED_D", "type": "int", "tunable": true, "kind": "fixed_arg",
       "default": 0, "values": [0], "fixes": "d"},
      {"name": "FIXED_N", "type": "int", "tunable": true, "kind": "fixed_arg",
       "default": 0, "values": [0], "fixes": "unknown"}]}]})J"));
  if (!m)
    return std::unexpected(m.error());
  Spec spec;
  spec.launcherMode = true;
  spec.kernel = "launch";
  spec.dims = {{"rows", {1, 16}}, {"cols", {4096, 11008}}};
  spec.args.push_back({"d", ScalarArg{"cols", "int"}});
  spec.args.push_back({"n", ScalarArg{"rows", "int"}});
  return spaceFromManifest(m->kernels[0], spec);
}

} // namespace

TEST(FixedArgs, TheValuesAreTheShapesAndEachHoldsOnlyAtItsShape) {
  auto def = fixedSpace();
  ASSERT_TRUE(def) << def.error().str();
  auto param = [&](const std::string &name) -> const SpaceParam * {
    for (const auto &p : def->params)
      if (p.name == name)
        return &p;
    return nullptr;
  };
  const SpaceParam *d = param("FIXED_D"), *n = param("FIXED_N");
  ASSERT_TRUE(d && n);
  EXPECT_EQ(d->domain.enumerate(), (std::vector<int64_t>{0, 4096, 11008}));
  // An argument the spec does not set stays read at run time.
  EXPECT_EQ(n->domain.enumerate(), (std::vector<int64_t>{0}));
  EXPECT_EQ(def->constraints,
            (std::vector<std::string>{"FIXED_D == 0 || FIXED_D == (cols)"}));
  EXPECT_EQ(def->fixedArgs.at("FIXED_D"), "cols");

  auto at4096 = SearchSpace::create(def->params, def->constraints, def->dialect,
                                    Shape{{"rows", 1}, {"cols", 4096}});
  ASSERT_TRUE(at4096) << at4096.error().str();
  auto valid = [&](Configuration c) {
    auto p = at4096->fromConfig(c);
    return p && at4096->isValid(*p);
  };
  EXPECT_TRUE(valid({{"BLOCK", 128}, {"FIXED_D", 4096}, {"FIXED_N", 0}}));
  EXPECT_TRUE(valid({{"BLOCK", 128}, {"FIXED_D", 0}, {"FIXED_N", 0}}));
  EXPECT_FALSE(valid({{"BLOCK", 128}, {"FIXED_D", 11008}, {"FIXED_N", 0}}));
  EXPECT_EQ(at4096->validCount(), 4u); // 2 BLOCK x {0, 4096}
}

TEST(FixedArgs, AnotherShapesValueActsAsTheDefault) {
  auto def = fixedSpace();
  ASSERT_TRUE(def) << def.error().str();
  Configuration fixed = {{"BLOCK", 128}, {"FIXED_D", 11008}, {"FIXED_N", 0}};
  EXPECT_EQ(onShape(*def, {{"rows", 1}, {"cols", 11008}}, fixed), fixed);
  EXPECT_EQ(onShape(*def, {{"rows", 1}, {"cols", 4096}}, fixed),
            (Configuration{{"BLOCK", 128}, {"FIXED_D", 0}, {"FIXED_N", 0}}));
}

TEST(FixedArgs, EachShapeTunesItsOwnValueAndTheGeneralConfigurationReadsIt) {
  auto def = fixedSpace();
  ASSERT_TRUE(def) << def.error().str();
  // A fixed argument saves a microsecond where it is the shape's.
  FakeEvaluator eval([](const Shape &shape, const Configuration &c) {
    double t = 10.0 + (c.at("BLOCK") == 128 ? 0.0 : 0.5);
    if (c.at("FIXED_D") != 0)
      t -= 1.0;
    EXPECT_TRUE(c.at("FIXED_D") == 0 || c.at("FIXED_D") == shape.at("cols"))
        << "measured with another shape's value";
    return std::optional<double>(t);
  });
  TempDir dir;
  auto journal = Journal::open(dir.file("j.jsonl"));
  ASSERT_TRUE(journal) << journal.error().str();
  Tuner tuner(*def,
              {{{"rows", 1}, {"cols", 4096}}, {{"rows", 1}, {"cols", 11008}}},
              eval, **journal, scanOptions(100));
  auto r = tuner.run();
  ASSERT_TRUE(r) << r.error().str();
  EXPECT_EQ(r->shapes[0].bestConfig.at("FIXED_D"), 4096);
  EXPECT_EQ(r->shapes[1].bestConfig.at("FIXED_D"), 11008);
  ASSERT_TRUE(r->general);
  EXPECT_EQ(r->general->config.at("BLOCK"), 128);
}
