#include "ktune/Tune/DispatchHeader.h"
#include "ktune/Tune/DispatchDescription.h"

#include "ktune/Support/FileUtil.h"

#include <gtest/gtest.h>

using namespace ktune;
using nlohmann::json;

namespace {

struct Fixture {
  Manifest manifest;
  Spec spec;
  TuneResults results;
  DispatchHeaderInput input;

  Fixture() {
    auto m = manifestFromJson(json::parse(R"({
      "ktune": "manifest/1", "source": "rmsnorm.tpl.cu",
      "kernels": [{
        "name": "rmsnorm", "qualified_name": "ops::rmsnorm",
        "template_params": [
          {"name": "T", "type": "typename", "tunable": false},
          {"name": "BLOCK_SIZE", "type": "int", "tunable": true, "kind": "block_size",
           "default": 256, "values": [64, 128, 256, 512]},
          {"name": "VEC", "type": "int", "tunable": true, "kind": "vector_width",
           "default": 8, "values": [2, 4, 8]}],
        "args": [{"name": "out", "type": "T *__restrict__"},
                 {"name": "in", "type": "const T *__restrict__"},
                 {"name": "hidden", "type": "int"}, {"name": "eps", "type": "float"}],
        "launch": {"grid": ["num_tokens"], "block": ["BLOCK_SIZE"],
                   "smem": "BLOCK_SIZE / 32 * 4", "from": "rmsnorm.cu:51"}}]})"));
    EXPECT_TRUE(m) << m.error().str();
    manifest = *m;
    auto s = specFromJson(json::parse(R"({
      "ktune": "spec/1", "kernel": "rmsnorm", "template_args": {"T": "__nv_bfloat16"},
      "dims": {"num_tokens": [1, 16, 256, 4096], "hidden": [4096]},
      "args": {"out": {"buffer": "bf16", "shape": ["num_tokens", "hidden"], "role": "out"},
               "in": {"buffer": "bf16", "shape": ["num_tokens", "hidden"]},
               "hidden": {"value": "hidden"}, "eps": {"value": 1e-6}}})"));
    EXPECT_TRUE(s) << s.error().str();
    auto r = resolveSpec(*s, manifest.kernels[0]);
    EXPECT_TRUE(r) << r.error().str();
    spec = *r;

    results.kernel = "rmsnorm";
    results.device = "NVIDIA H200";
    results.arch = "sm_90";
    results.templateSha256 = "0123abcd";
    results.params = {"BLOCK_SIZE", "VEC"};
    auto shape = [&](int64_t n, Configuration best, double speedup) {
      ShapeResult sr;
      sr.shape = {{"hidden", 4096}, {"num_tokens", n}};
      sr.defaultConfig = {{"BLOCK_SIZE", 256}, {"VEC", 8}};
      sr.bestConfig = std::move(best);
      sr.speedup = speedup;
      sr.retimed = true;
      results.shapes.push_back(sr);
    };
    shape(1, {{"BLOCK_SIZE", 64}, {"VEC", 2}}, 1.4);
    shape(16, {{"BLOCK_SIZE", 128}, {"VEC", 4}}, 1.2);
    shape(256, {{"BLOCK_SIZE", 256}, {"VEC", 8}}, 1.0); // the default won
    shape(4096, {{"BLOCK_SIZE", 512}, {"VEC", 8}}, 1.1);
    results.general =
        GeneralResult{{{"BLOCK_SIZE", 128}, {"VEC", 4}}, 1.15, {}, 4};

    input.kernel = &manifest.kernels[0];
    input.spec = &spec;
    input.results = &results;
    input.constraints = {"BLOCK_SIZE % 32 == 0", "hidden % (VEC * 8) == 0"};
    input.templateInclude = "rmsnorm.tpl.cu";
    input.templateFile = "rmsnorm.tpl.cu";
  }

  std::string render() {
    auto text = readFile(std::string(KTUNE_SOURCE_DIR) +
                         "/templates/dispatch_header.h.in");
    EXPECT_TRUE(text) << text.error().str();
    auto h = renderDispatchHeader(*text, "dispatch_header.h.in", input);
    EXPECT_TRUE(h) << h.error().str();
    return h ? *h : "";
  }
};

bool has(const std::string &text, const std::string &what) {
  return text.find(what) != std::string::npos;
}

} // namespace

TEST(DispatchHeader, BucketBoundsAreGeometricMidpoints) {
  EXPECT_EQ(bucketBounds({1, 16, 256, 4096}),
            (std::vector<int64_t>{4, 64, 1024}));
  EXPECT_EQ(bucketBounds({4096, 8192}), (std::vector<int64_t>{5792}));
  EXPECT_EQ(bucketBounds({0, 10}), (std::vector<int64_t>{5}));
  EXPECT_EQ(bucketBounds({7}), (std::vector<int64_t>{}));
  EXPECT_EQ(bucketBounds({1, 2}), (std::vector<int64_t>{1}));
}

TEST(DispatchHeader, FillPlaceholdersNamesUnknownOnesWithTheirLine) {
  auto ok = fillPlaceholders("a {{x}} b", "t.in", {{"x", "1"}});
  ASSERT_TRUE(ok);
  EXPECT_EQ(*ok, "a 1 b");
  auto bad = fillPlaceholders("line\n{{nope}}", "t.in", {{"x", "1"}});
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().where, "t.in:2");
  EXPECT_FALSE(fillPlaceholders("{{x", "t.in", {{"x", "1"}}));
}

TEST(DispatchHeader, LaunchesTheBestForTheNearestTunedShape) {
  Fixture f;
  std::string h = f.render();
  // The template is included and the launcher has args, dims, stream.
  EXPECT_TRUE(has(h, "#include \"rmsnorm.tpl.cu\"")) << h;
  EXPECT_TRUE(has(h, "inline cudaError_t launch_rmsnorm_tuned(__nv_bfloat16 "
                     "*__restrict__ out, const __nv_bfloat16 *__restrict__ in, "
                     "int hidden, float eps, int64_t num_tokens, cudaStream_t "
                     "stream = 0)"))
      << h;
  // hidden is both an argument and a dimension: passed once.
  EXPECT_FALSE(has(h, "int64_t hidden")) << h;
  // Buckets of num_tokens: bounds 4, 64, 1024.
  EXPECT_TRUE(has(h, "const int bucket_num_tokens = num_tokens <= 4LL ? 0 : "
                     "num_tokens <= 64LL ? 1 : num_tokens <= 1024LL ? 2 : 3;"))
      << h;
  // hidden was tuned at one value: it must match exactly.
  EXPECT_TRUE(has(h, "if (hidden == 4096LL && bucket_num_tokens == 0) {")) << h;
  EXPECT_TRUE(has(h, "launch<64, 2>(out, in, hidden, eps, num_tokens, stream)"))
      << h;
  EXPECT_TRUE(has(h, "bucket_num_tokens == 1")) << h;
  EXPECT_TRUE(has(h, "launch<128, 4>")) << h;
  EXPECT_TRUE(has(h, "bucket_num_tokens == 3")) << h;
  EXPECT_TRUE(has(h, "launch<512, 8>")) << h;
  // Where the default won there is no branch: it falls through.
  EXPECT_FALSE(has(h, "bucket_num_tokens == 2")) << h;
  // Constraints over dimensions are checked before a tuned launch.
  EXPECT_TRUE(has(h, "if (((hidden % (2 * 8)) == 0))")) << h;
  // The default instantiation is the fallback.
  EXPECT_TRUE(has(h, "  return ktune_rmsnorm_detail::launch<256, 8>(out, in, "
                     "hidden, eps, num_tokens, stream);\n}"))
      << h;
  // Geometry translated to C++ inside the templated launcher.
  EXPECT_TRUE(has(h, "const dim3 grid(static_cast<unsigned int>(num_tokens));"))
      << h;
  EXPECT_TRUE(
      has(h, "const size_t smem = static_cast<size_t>((BLOCK_SIZE / 32) * 4);"))
      << h;
  EXPECT_TRUE(has(h, "ops::rmsnorm<__nv_bfloat16, BLOCK_SIZE, VEC><<<grid, "
                     "block, smem, stream>>>(out, in, hidden, eps);"))
      << h;
  // The configurations as constants.
  EXPECT_TRUE(has(h, "rmsnorm_default_config = {256, 8};")) << h;
  EXPECT_TRUE(has(h, "rmsnorm_general_config = {128, 4};")) << h;
  EXPECT_TRUE(has(h, "inline cudaError_t launch_rmsnorm_general(")) << h;
  EXPECT_FALSE(has(h, "{{")) << h;
}

TEST(DispatchHeader, ADimensionThatAnArgumentRedefinesGetsItsOwnName) {
  Fixture f;
  // The argument `hidden` is now twice the dimension `hidden`.
  for (auto &a : f.spec.args)
    if (a.name == "hidden")
      std::get<ScalarArg>(a.arg).value = "2 * hidden";
  std::string h = f.render();
  EXPECT_TRUE(has(h, "int hidden, float eps, int64_t dim_hidden, int64_t "
                     "num_tokens"))
      << h;
  EXPECT_TRUE(has(h, "dim_hidden == 4096LL")) << h;
  EXPECT_TRUE(has(h, "((dim_hidden % (2 * 8)) == 0)")) << h;
}

TEST(DispatchHeader, AChosenRegisterCapIsRefusedNotPromised) {
  // A --maxrregcount cap is a compile option of the whole translation unit:
  // no header can apply it, so none may promise the time measured with it.
  Fixture f;
  f.results.params.push_back("maxrregcount");
  f.results.shapes[0].bestConfig["maxrregcount"] = 64;
  auto text = readFile(std::string(KTUNE_SOURCE_DIR) +
                       "/templates/dispatch_header.h.in");
  ASSERT_TRUE(text);
  auto h = renderDispatchHeader(*text, "t", f.input);
  ASSERT_FALSE(h);
  EXPECT_NE(h.error().message.find("maxrregcount=64"), std::string::npos)
      << h.error().message;
  EXPECT_NE(h.error().message.find("cannot apply"), std::string::npos);
  EXPECT_FALSE(describeDispatch(f.input, "k.tuned.h"));
  // The same as the general configuration.
  f.results.shapes[0].bestConfig["maxrregcount"] = 0;
  f.results.general = GeneralResult{{{"maxrregcount", 32}}, 1.1, {}, 1};
  EXPECT_FALSE(renderDispatchHeader(*text, "t", f.input));
  // Caps searched but never chosen (0 = none) leave no trace in the header.
  f.results.general.reset();
  std::string ok = f.render();
  EXPECT_FALSE(has(ok, "maxrregcount;")) << ok;
  EXPECT_FALSE(has(ok, "register cap")) << ok;
}

TEST(DispatchHeader, NoLaunchGeometryIsAnError) {
  Fixture f;
  f.manifest.kernels[0].launch.reset();
  f.spec.launch.reset();
  auto text = readFile(std::string(KTUNE_SOURCE_DIR) +
                       "/templates/dispatch_header.h.in");
  ASSERT_TRUE(text);
  auto h = renderDispatchHeader(*text, "t", f.input);
  ASSERT_FALSE(h);
  EXPECT_EQ(h.error().where, "launch");
}

TEST(DispatchHeader, AFixedArgumentLaunchesOnlyWhereTheArgumentHasItsValue) {
  Fixture f;
  // FIXED_HIDDEN fixes the argument `hidden` (kind fixed_arg): tuned at 4096
  // for one token.
  TemplateParam fixed;
  fixed.name = "FIXED_HIDDEN";
  fixed.type = "int";
  fixed.tunable = true;
  fixed.kind = ParamKind::FixedArg;
  fixed.defaultValue = 0;
  fixed.domain = Domain::ofValues({0, 4096});
  fixed.fixes = "hidden";
  f.manifest.kernels[0].templateParams.push_back(fixed);
  f.input.kernel = &f.manifest.kernels[0];
  f.results.params.push_back("FIXED_HIDDEN");
  for (auto &s : f.results.shapes) {
    s.defaultConfig["FIXED_HIDDEN"] = 0;
    s.bestConfig["FIXED_HIDDEN"] = s.shape.at("num_tokens") == 1 ? 4096 : 0;
  }
  f.results.general->config["FIXED_HIDDEN"] = 0;
  f.input.constraints.push_back(
      "FIXED_HIDDEN == 0 || FIXED_HIDDEN == (hidden)");
  std::string h = f.render();
  // Where `hidden` is 4096 the fixed instantiation, else the same
  // configuration reading it at run time.
  EXPECT_TRUE(has(h,
                  "if (((hidden % (2 * 8)) == 0) && ((4096 == 0) || (4096 == "
                  "hidden)))\n      return ktune_rmsnorm_detail::launch<64, "
                  "2, 4096>("))
      << h;
  EXPECT_TRUE(has(h, "      return ktune_rmsnorm_detail::launch<64, 2, 0>("))
      << h;
  EXPECT_TRUE(has(h, "launch<128, 4, 0>")) << h;
  EXPECT_FALSE(has(h, "launch<128, 4, 4096>")) << h;
}
