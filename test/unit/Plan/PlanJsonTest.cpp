#include "ktune/Plan/Plan.h"

#include "PlanTestSupport.h"

#include <gtest/gtest.h>

using namespace ktune;
using nlohmann::json;

static const char *Example = R"json({
  "ktune": "plan/1", "planner": "hand",
  "kernels": [
    {"kernel": "rmsnorm",
     "params": [
       {"name": "BLOCK_SIZE", "kind": "block_size", "candidates": ["c3"],
        "default": 256, "values": [64, 128, 256, 512, 1024]},
       {"name": "VEC", "kind": "vector_width", "candidates": ["c5", "c6"],
        "sites": ["examples/rmsnorm.cu:30:17"], "default": 8,
        "range": {"min": 1, "max": 16, "step": "pow2"},
        "note": "16 / sizeof(T)"}],
     "constraints": ["BLOCK_SIZE % 32 == 0", "VEC * 2 <= 16"]}]})json";

TEST(PlanJson, ReadsEveryField) {
  auto plan = planFromJson(json::parse(Example));
  ASSERT_TRUE(plan) << plan.error().str();
  EXPECT_EQ(plan->planner, "hand");
  ASSERT_EQ(plan->kernels.size(), 1u);
  const PlanKernel &k = plan->kernels[0];
  EXPECT_EQ(k.kernel, "rmsnorm");
  ASSERT_EQ(k.params.size(), 2u);
  EXPECT_EQ(k.params[0].name, "BLOCK_SIZE");
  EXPECT_EQ(k.params[0].kind, ParamKind::BlockSize);
  EXPECT_EQ(k.params[0].candidates, std::vector<std::string>{"c3"});
  EXPECT_TRUE(k.params[0].sites.empty());
  EXPECT_EQ(k.params[0].defaultValue, 256);
  EXPECT_EQ(k.params[0].domain.enumerate(),
            (std::vector<int64_t>{64, 128, 256, 512, 1024}));
  EXPECT_EQ(k.params[1].kind, ParamKind::VectorWidth);
  EXPECT_EQ(k.params[1].candidates, (std::vector<std::string>{"c5", "c6"}));
  EXPECT_EQ(k.params[1].sites,
            std::vector<std::string>{"examples/rmsnorm.cu:30:17"});
  EXPECT_TRUE(k.params[1].domain.pow2);
  EXPECT_EQ(k.params[1].domain.enumerate(),
            (std::vector<int64_t>{1, 2, 4, 8, 16}));
  EXPECT_EQ(k.params[1].note, "16 / sizeof(T)");
  EXPECT_EQ(k.constraints.size(), 2u);
}

TEST(PlanJson, RoundTrip) {
  auto plan = planFromJson(json::parse(Example));
  ASSERT_TRUE(plan);
  json out = planToJson(*plan);
  auto again = planFromJson(out);
  ASSERT_TRUE(again) << again.error().str();
  EXPECT_EQ(planToJson(*again), out);
  EXPECT_EQ(out["kernels"][0]["params"][1]["range"]["step"], "pow2");
  EXPECT_FALSE(out["kernels"][0]["params"][0].contains("sites"));
}

TEST(PlanJson, ConstraintsAreOptional) {
  json j = json::parse(Example);
  j["kernels"][0].erase("constraints");
  auto plan = planFromJson(j);
  ASSERT_TRUE(plan) << plan.error().str();
  EXPECT_TRUE(plan->kernels[0].constraints.empty());
}

static Error readError(const std::function<void(json &)> &edit) {
  return ktune::test::errorAfterEdit(Example, planFromJson, edit);
}

TEST(PlanJson, UnknownFieldsAreErrors) {
  Error top = readError([](json &j) { j["kernel"] = "rmsnorm"; });
  EXPECT_EQ(top.where, "kernel");
  EXPECT_NE(top.message.find("did you mean \"kernels\""), std::string::npos)
      << top.message;
  Error param =
      readError([](json &j) { j["kernels"][0]["params"][0]["defualt"] = 256; });
  EXPECT_EQ(param.where, "kernels[0].params[0].defualt");
  EXPECT_NE(param.message.find("did you mean \"default\""), std::string::npos);
  EXPECT_EQ(readError([](json &j) {
              j["kernels"][0]["constraint"] = json::array();
            }).where,
            "kernels[0].constraint");
  EXPECT_EQ(readError([](json &j) {
              j["kernels"][0]["params"][1]["range"]["stpe"] = 2;
            }).where,
            "kernels[0].params[1].range.stpe");
  // "$schema" is accepted so editors can check plans against the schema.
  json j = json::parse(Example);
  j["$schema"] = "plan.schema.json";
  EXPECT_TRUE(planFromJson(j));
}

TEST(PlanJson, ErrorsNameTheJsonPath) {
  using namespace ktune::test;
  const std::vector<BrokenField> cases = {
      {setAt("/ktune", "plan/0"), "ktune"},
      {eraseAt("/kernels"), "kernels"},
      {eraseAt("/kernels/0/kernel"), "kernels[0].kernel"},
      {setAt("/kernels/0/params", json::object()), "kernels[0].params"},
      {setAt("/kernels/0/params/1/name", 7), "kernels[0].params[1].name"},
      {setAt("/kernels/0/params/1/kind", "vec"), "kernels[0].params[1].kind"},
      {setAt("/kernels/0/params/0/candidates", json::array()),
       "kernels[0].params[0].candidates"},
      {setAt("/kernels/0/params/0/candidates/0", 3),
       "kernels[0].params[0].candidates[0]"},
      {setAt("/kernels/0/params/0/default", 2.5),
       "kernels[0].params[0].default"},
      {eraseAt("/kernels/0/params/0/values"), "kernels[0].params[0]"},
      {setAt("/kernels/0/params/0/values", json{1, 2, 2}),
       "kernels[0].params[0].values[2]"},
      {setAt("/kernels/0/constraints/1", true), "kernels[0].constraints[1]"},
      {setAt("/kernels/0/params/1/sites", "a:1:2"),
       "kernels[0].params[1].sites"},
  };
  for (const auto &[edit, where] : cases)
    EXPECT_EQ(readError(edit).where, where);
}
