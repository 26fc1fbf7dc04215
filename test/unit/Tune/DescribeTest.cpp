#include "ktune/Tune/Describe.h"

#include <gtest/gtest.h>

using namespace ktune;
using nlohmann::json;
using nlohmann::ordered_json;

namespace {

// Dimensions and arguments deliberately out of name order: the description
// keeps the file's order.
const char *SpecText = R"json({
  "ktune": "spec/1", "kernel": "scale_rows", "template_args": {"T": "float"},
  "dims": {"rows": [1, 256], "cols": [4096, 1000]},
  "args": {
    "out": {"buffer": "float", "shape": ["rows", "cols"], "role": "out"},
    "in": {"buffer": "fp32", "shape": ["rows", "cols"], "init": "uniform",
           "low": 0.5, "high": 2},
    "n": {"value": "rows * cols"},
    "alpha": {"value": 1.5},
    "groups": {"value": "ceil_div(cols, 128)"}},
  "bytes": "8 * rows * cols",
  "tolerance": {"float": {"rtol": 1e-5, "atol": 0}},
  "launch": {"grid": ["ceil_div(n, BLOCK)"], "block": ["BLOCK"], "smem": "0"}})json";

Manifest manifest() {
  auto m = manifestFromJson(json::parse(R"({
    "ktune": "manifest/1", "source": "scale_rows.tpl.cu",
    "kernels": [{
      "name": "scale_rows", "qualified_name": "ops::scale_rows",
      "template_params": [
        {"name": "T", "type": "typename", "tunable": false},
        {"name": "BLOCK", "type": "int", "tunable": true, "kind": "block_size",
         "default": 256, "values": [64, 128, 256, 512]},
        {"name": "UNROLL", "type": "int", "tunable": true, "kind": "unroll",
         "default": 4, "range": {"min": 1, "max": 8, "step": "pow2"}}],
      "args": [{"name": "out", "type": "T *"}, {"name": "in", "type": "const T *"},
               {"name": "n", "type": "int64_t"}, {"name": "alpha", "type": "float"},
               {"name": "groups", "type": "int"}],
      "constraints": ["BLOCK * UNROLL <= 1024"]}]})"));
  EXPECT_TRUE(m) << m.error().str();
  return *m;
}

} // namespace

TEST(Describe, SpecShapesAreEvaluatedInTheFilesOrder) {
  auto d = describeSpec(SpecText, "k.spec.json", nullptr);
  ASSERT_TRUE(d) << d.error().str();
  const ordered_json &s = *d;
  EXPECT_EQ(s["path"], "k.spec.json");
  EXPECT_EQ(s["kernel"], "scale_rows");
  ASSERT_EQ(s["dims"].size(), 2u);
  EXPECT_EQ(s["dims"][0]["name"], "rows");
  EXPECT_EQ(s["dims"][1]["name"], "cols");
  EXPECT_EQ(s["dims"][1]["values"], ordered_json::parse("[4096, 1000]"));
  EXPECT_FALSE(s["shapes_listed"]);

  std::vector<std::string> names;
  for (const auto &a : s["args"])
    names.push_back(a["name"]);
  EXPECT_EQ(names,
            (std::vector<std::string>{"out", "in", "n", "alpha", "groups"}));
  // Canonical dtypes, defaults filled in, sizes and C++ from ktune.
  EXPECT_EQ(s["args"][0]["buffer"], "fp32");
  EXPECT_EQ(s["args"][0]["role"], "out");
  EXPECT_EQ(s["args"][0]["element_bytes"], 4);
  EXPECT_EQ(s["args"][1]["init"], "uniform");
  EXPECT_EQ(s["args"][1]["low"], 0.5);
  EXPECT_EQ(s["args"][2]["kind"], "scalar");
  EXPECT_EQ(s["args"][2]["cpp"], "rows * cols");
  EXPECT_EQ(s["args"][4]["cpp"], "((cols + 128 - 1) / 128)");
  EXPECT_EQ(s["tolerance"]["fp32"]["rtol"], 1e-5);
  EXPECT_EQ(s["launch"]["names"], ordered_json::parse(R"(["n", "BLOCK"])"));

  // Tuning order: the product in name order (cols, rows), rows fastest,
  // values in the file's order.
  ASSERT_EQ(s["shapes"].size(), 4u);
  EXPECT_EQ(s["shapes"][0]["dims"].dump(), R"({"rows":1,"cols":4096})");
  EXPECT_EQ(s["shapes"][2]["dims"].dump(), R"({"rows":1,"cols":1000})");
  const ordered_json &last = s["shapes"][1];
  EXPECT_EQ(last["dims"].dump(), R"({"rows":256,"cols":4096})");
  EXPECT_EQ(last["scalars"]["n"], 256 * 4096);
  EXPECT_EQ(last["scalars"]["alpha"], 1.5);
  EXPECT_EQ(last["scalars"]["groups"], 32);
  EXPECT_EQ(last["buffers"]["in"]["extents"],
            ordered_json::parse("[256, 4096]"));
  EXPECT_EQ(last["buffers"]["in"]["elements"], 256 * 4096);
  EXPECT_EQ(last["buffers"]["in"]["bytes"], 4 * 256 * 4096);
  EXPECT_EQ(last["buffer_bytes"], 8 * 256 * 4096);
  EXPECT_EQ(last["bytes"], 8 * 256 * 4096);
  // No manifest kernel: no launch geometry per shape.
  EXPECT_FALSE(last.contains("launch"));
}

TEST(Describe, WithTheKernelTheLaunchIsEvaluatedAtTheDefault) {
  Manifest m = manifest();
  auto d = describeSpec(SpecText, "k.spec.json", &m.kernels[0]);
  ASSERT_TRUE(d) << d.error().str();
  // The scalar's C type comes from the manifest.
  EXPECT_EQ((*d)["args"][3]["type"], "float");
  const ordered_json &last = (*d)["shapes"][1];
  EXPECT_EQ(last["launch"]["grid"], ordered_json::parse("[4096]"));
  EXPECT_EQ(last["launch"]["block"], ordered_json::parse("[256]"));
  EXPECT_EQ(last["launch"]["smem"], 0);
}

TEST(Describe, SpecErrorsNameTheFileAndPath) {
  auto bad = describeSpec(R"({"ktune": "spec/1", "kernel": "k",
      "dims": {"n": [4, 0]},
      "args": {"x": {"buffer": "fp32", "shape": ["n"]}}})",
                          "k.spec.json", nullptr);
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().where, "k.spec.json: args.x.shape[0]");
  EXPECT_NE(bad.error().message.find("is 0 at shape {n=0}"), std::string::npos)
      << bad.error().message;

  auto unknown = describeSpec(R"({"ktune": "spec/1", "kernel": "k",
      "dims": {"n": [4]}, "args": {"x": {"value": "m + 1"}}})",
                              "k.spec.json", nullptr);
  ASSERT_FALSE(unknown);
  EXPECT_EQ(unknown.error().where, "k.spec.json: args.x.value");

  auto syntax = describeSpec("{", "k.spec.json", nullptr);
  ASSERT_FALSE(syntax);
  EXPECT_NE(syntax.error().str().find("k.spec.json"), std::string::npos);
}

TEST(Describe, ManifestKernelListsTheValidConfigurations) {
  Manifest m = manifest();
  auto d = describeManifestKernel(m.kernels[0]);
  ASSERT_TRUE(d) << d.error().str();
  EXPECT_EQ((*d)["params"], ordered_json::parse(R"(["BLOCK", "UNROLL"])"));
  EXPECT_EQ((*d)["default"].dump(), R"({"BLOCK":256,"UNROLL":4})");
  EXPECT_FALSE(d->contains("default_error"));
  EXPECT_EQ((*d)["cartesian"], 16);
  // BLOCK * UNROLL <= 1024 rules out 256x8, 512x4 and 512x8.
  EXPECT_EQ((*d)["valid"], 13);
  EXPECT_FALSE((*d)["truncated"]);
  ASSERT_EQ((*d)["configurations"].size(), 13u);
  EXPECT_EQ((*d)["configurations"][0].dump(), R"({"BLOCK":64,"UNROLL":1})");
  EXPECT_EQ((*d)["configurations"][1].dump(), R"({"BLOCK":64,"UNROLL":2})");
  EXPECT_EQ((*d)["configurations"][12].dump(), R"({"BLOCK":512,"UNROLL":2})");

  auto capped = describeManifestKernel(m.kernels[0], 5);
  ASSERT_TRUE(capped);
  EXPECT_EQ((*capped)["valid"], 13);
  EXPECT_TRUE((*capped)["truncated"]);
  EXPECT_EQ((*capped)["configurations"].size(), 5u);
}

TEST(Describe, ADefaultThatViolatesAConstraintIsReported) {
  Manifest m = manifest();
  ManifestKernel k = m.kernels[0];
  k.constraints = {"BLOCK <= 128"};
  auto d = describeManifestKernel(k);
  ASSERT_TRUE(d) << d.error().str();
  EXPECT_EQ((*d)["default_error"],
            "the default configuration violates the constraint "
            "'BLOCK <= 128'");
  EXPECT_EQ((*d)["valid"], 8);
}

TEST(Describe, InputsNeedASpecOrAManifest) {
  auto none = describeInputs({});
  ASSERT_FALSE(none);
  EXPECT_NE(none.error().message.find("nothing to describe"),
            std::string::npos);
  auto missing = describeInputs({"", "", "/nonexistent/k.spec.json", ""});
  ASSERT_FALSE(missing);
}
