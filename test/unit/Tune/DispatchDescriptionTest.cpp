#include "ktune/Tune/DispatchDescription.h"

#include "ktune/Support/FileUtil.h"

#include <gtest/gtest.h>

using namespace ktune;
using nlohmann::json;
using nlohmann::ordered_json;

namespace {

// `hidden` is an argument that carries its dimension; `rows` is an argument
// that means something else (rows of a tile), so the dimension of that name
// is passed as dim_rows; `num_tokens` is a dimension only.
struct Fixture {
  Manifest manifest;
  Spec spec;
  TuneResults results;
  DispatchHeaderInput input;

  Fixture() {
    auto m = manifestFromJson(json::parse(R"({
      "ktune": "manifest/1", "source": "norm.tpl.cu",
      "kernels": [{
        "name": "norm", "qualified_name": "ops::norm",
        "template_params": [
          {"name": "T", "type": "typename", "tunable": false},
          {"name": "BLOCK_SIZE", "type": "int", "tunable": true, "kind": "block_size",
           "default": 256, "values": [64, 128, 256]}],
        "args": [{"name": "out", "type": "T *__restrict__"},
                 {"name": "in", "type": "const T *__restrict__"},
                 {"name": "hidden", "type": "int"}, {"name": "rows", "type": "int"}],
        "launch": {"grid": ["num_tokens"], "block": ["BLOCK_SIZE"], "smem": "0"}}]})"));
    EXPECT_TRUE(m) << m.error().str();
    manifest = *m;
    auto s = specFromJson(json::parse(R"({
      "ktune": "spec/1", "kernel": "norm", "template_args": {"T": "float"},
      "dims": {"num_tokens": [1, 16, 256], "hidden": [4096], "rows": [8]},
      "args": {"out": {"buffer": "fp32", "shape": ["num_tokens", "hidden"], "role": "out"},
               "in": {"buffer": "fp32", "shape": ["num_tokens", "hidden"]},
               "hidden": {"value": "hidden"}, "rows": {"value": "rows * 2"}}})"));
    EXPECT_TRUE(s) << s.error().str();
    auto r = resolveSpec(*s, manifest.kernels[0]);
    EXPECT_TRUE(r) << r.error().str();
    spec = *r;

    results.kernel = "norm";
    results.device = "NVIDIA H100";
    results.arch = "sm_90";
    results.params = {"BLOCK_SIZE"};
    auto shape = [&](int64_t n, int64_t block, double speedup) {
      ShapeResult sr;
      sr.shape = {{"hidden", 4096}, {"num_tokens", n}, {"rows", 8}};
      sr.defaultConfig = {{"BLOCK_SIZE", 256}};
      sr.bestConfig = {{"BLOCK_SIZE", block}};
      sr.speedup = speedup;
      sr.retimed = true;
      results.shapes.push_back(sr);
    };
    shape(1, 64, 1.5);
    shape(16, 256, 1.0);
    shape(256, 128, 1.1);

    input.kernel = &manifest.kernels[0];
    input.spec = &spec;
    input.results = &results;
    input.constraints = {"BLOCK_SIZE % 32 == 0", "hidden % BLOCK_SIZE == 0"};
    input.templateInclude = "norm.tpl.cu";
    input.templateFile = "norm.tpl.cu";
  }
};

} // namespace

TEST(DispatchDescription, LauncherParamsCarryArgumentsDimensionsAndStream) {
  Fixture f;
  auto params = launcherParams(f.manifest.kernels[0], f.spec);
  ASSERT_EQ(params.size(), 7u);
  using S = LauncherParam::Source;
  EXPECT_EQ(params[0].name, "out");
  EXPECT_EQ(params[0].type, "float *__restrict__");
  EXPECT_EQ(params[0].source, S::Buffer);
  EXPECT_EQ(params[2].name, "hidden");
  EXPECT_EQ(params[2].source, S::Scalar);
  EXPECT_EQ(params[3].name, "rows");
  EXPECT_EQ(params[3].source, S::Scalar);
  // Dimensions in the spec's (name) order: hidden is carried by its
  // argument, num_tokens is passed as such, rows under a name of its own.
  EXPECT_EQ(params[4].name, "num_tokens");
  EXPECT_EQ(params[4].source, S::Dim);
  EXPECT_EQ(params[5].name, "dim_rows");
  EXPECT_EQ(params[5].of, "rows");
  EXPECT_EQ(params[5].type, "int64_t");
  EXPECT_EQ(params[6].name, "stream");
  EXPECT_EQ(params[6].source, S::Stream);
}

TEST(DispatchDescription, MatchesTheHeadersSignature) {
  Fixture f;
  auto text = readFile(std::string(KTUNE_SOURCE_DIR) +
                       "/templates/dispatch_header.h.in");
  ASSERT_TRUE(text) << text.error().str();
  auto header = renderDispatchHeader(*text, "dispatch_header.h.in", f.input);
  ASSERT_TRUE(header) << header.error().str();
  auto d = describeDispatch(f.input, "out/norm.tuned.h");
  ASSERT_TRUE(d) << d.error().str();
  std::string signature;
  for (const auto &p : (*d)["params"])
    signature += (signature.empty() ? "" : ", ") +
                 p["type"].get<std::string>() + " " +
                 p["name"].get<std::string>();
  for (const auto &e : (*d)["entry_points"])
    EXPECT_NE(header->find("inline cudaError_t " +
                           e["name"].get<std::string>() + "(" + signature +
                           " = 0)"),
              std::string::npos)
        << signature << "\n"
        << *header;
}

TEST(DispatchDescription, DescribesEntryPointsConfigurationsAndShapes) {
  Fixture f;
  f.results.general = GeneralResult{{{"BLOCK_SIZE", 128}}, 1.2, {}, 3};
  auto d = describeDispatch(f.input, "out/norm.tuned.h");
  ASSERT_TRUE(d) << d.error().str();
  const ordered_json &j = *d;
  EXPECT_EQ(j["ktune"], "dispatch/1");
  EXPECT_EQ(j["kernel"], "norm");
  EXPECT_EQ(j["qualified_kernel"], "ops::norm");
  EXPECT_EQ(j["header"], "norm.tuned.h");
  EXPECT_EQ(j["entry_points"][0]["name"], "launch_norm_tuned");
  EXPECT_EQ(j["entry_points"][1]["name"], "launch_norm_general");
  EXPECT_EQ(
      j["params"][1].dump(),
      R"({"name":"in","type":"const float *__restrict__","from":"buffer","arg":"in"})");
  EXPECT_EQ(
      j["params"][5].dump(),
      R"({"name":"dim_rows","type":"int64_t","from":"dim","dim":"rows"})");
  EXPECT_EQ(j["params"][6]["default"], "0");
  EXPECT_EQ(j["default_config"].dump(), R"({"BLOCK_SIZE":256})");
  EXPECT_EQ(j["general_config"].dump(), R"({"BLOCK_SIZE":128})");
  EXPECT_EQ(j["general_geomean_speedup"], 1.2);
  // Buckets only where a dimension was tuned at several values.
  EXPECT_EQ(
      j["tuned_dims"][1].dump(),
      R"({"dim":"num_tokens","values":[1,16,256],"bucket_bounds":[4,64]})");
  EXPECT_FALSE(j["tuned_dims"][0].contains("bucket_bounds"));
  EXPECT_EQ(j["runtime_constraints"].dump(), R"(["hidden % BLOCK_SIZE == 0"])");
  ASSERT_EQ(j["shapes"].size(), 3u);
  EXPECT_EQ(j["shapes"][0]["launches"], "tuned");
  EXPECT_EQ(j["shapes"][0]["config"].dump(), R"({"BLOCK_SIZE":64})");
  EXPECT_EQ(j["shapes"][0]["speedup"], 1.5);
  EXPECT_EQ(j["shapes"][1]["launches"], "default");
  EXPECT_EQ(j["shapes"][1]["shape"].dump(),
            R"({"hidden":4096,"num_tokens":16,"rows":8})");

  f.results.general.reset();
  auto none = describeDispatch(f.input, "norm.tuned.h");
  ASSERT_TRUE(none);
  EXPECT_TRUE((*none)["general_geomean_speedup"].is_null());
  EXPECT_EQ((*none)["general_config"].dump(), R"({"BLOCK_SIZE":256})");
}

TEST(DispatchDescription, LivesBesideTheHeader) {
  EXPECT_EQ(dispatchDescriptionPath("out/norm.tuned.h"), "out/norm.tuned.json");
  EXPECT_EQ(dispatchDescriptionPath("norm.hpp"), "norm.json");
  EXPECT_EQ(dispatchDescriptionPath("out/norm"), "out/norm.json");
  EXPECT_EQ(dispatchDescriptionPath("x.json"), "x.json.json");
}
