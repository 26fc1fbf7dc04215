// Launch parameters and launcher mode on the tuner's side: manifest/2 read
// per the stage-1 contract, the launcher seen as an entry point, sizeof(T)
// in launch expressions, launcher-mode specs, the space and the dispatch
// header.
#include "ktune/Tune/DispatchHeader.h"
#include "ktune/Tune/Tuner.h"

#include <gtest/gtest.h>

using namespace ktune;
using nlohmann::json;

namespace {

const char *ManifestText = R"json({
  "ktune": "manifest/2", "source": "act.tpl.cu", "original": "act.cu",
  "files": [{"path": "act.tpl.cu", "original": "/src/act.cu", "role": "main"},
            {"path": "include/act.cuh", "original": "/src/act.cuh", "role": "header"}],
  "include_dirs": ["include"],
  "compile": {"directory": "/src/build", "compiler": "nvcc",
              "arguments": ["-O3", "--expt-relaxed-constexpr", "-Iinc"]},
  "kernels": [{
    "name": "act_kernel", "qualified_name": "ops::act_kernel",
    "template_params": [{"name": "T", "type": "typename", "tunable": false}],
    "launch_params": [{"name": "BLOCK_CAP", "type": "unsigned", "kind": "block_size",
                       "default": 1024, "values": [256, 512, 1024],
                       "launcher": "silu_and_mul"}],
    "args": [{"name": "out", "type": "T *__restrict__"},
             {"name": "in", "type": "const T *__restrict__"},
             {"name": "d", "type": "const uint", "canonical_type": "unsigned int"}],
    "constraints": ["BLOCK_CAP % 32 == 0"],
    "launch": {"grid": ["num_tokens"],
               "block": ["std::min(d / (16 / sizeof(T)), BLOCK_CAP)"], "smem": "0"
}
}],
  "launchers": [{
    "name": "silu_and_mul", "qualified_name": "ops::silu_and_mul",
    "template_params": [{"name": "T", "type": "typename", "tunable": false},
                        {"name": "BLOCK_CAP", "type": "unsigned", "tunable": true,
                         "kind": "block_size", "default": 1024, "values": [256, 512, 1024]}],
    "args": [{"name": "out", "type": "T *"}, {"name": "in", "type": "const T *"},
             {"name": "d", "type": "int"},
             {"name": "num_tokens", "type": "int64_t", "canonical_type": "long"},
             {"name": "stream", "type": "cudaStream_t"}],
    "returns": "void", "kernels": ["ops::act_kernel"], "from": "act.cu:20",
    "forwarder": true}]
})json";

Manifest manifest() {
  auto m = manifestFromJson(json::parse(ManifestText));
  EXPECT_TRUE(m) << m.error().str();
  return *m;
}

Spec parsedSpec(const json &j) {
  auto s = specFromJson(j);
  EXPECT_TRUE(s) << s.error().str();
  return *s;
}

const char *KernelSpecText = R"({
    "ktune": "spec/1", "kernel": "act_kernel", "template_args": {"T": "__nv_bfloat16"},
    "dims": {"num_tokens": [64, 4096], "d": [11008]},
    "args": {"out": {"buffer": "bf16", "shape": ["num_tokens", "d"], "role": "out"},
             "in": {"buffer": "bf16", "shape": ["num_tokens", "2 * d"]},
             "d": {"value": "d"}}})";

Spec kernelSpec() { return parsedSpec(json::parse(KernelSpecText)); }

/// The same shapes and buffers for the launcher, which takes num_tokens too.
Spec launcherSpec() {
  json j = json::parse(KernelSpecText);
  j.erase("kernel");
  j["launcher"] = "silu_and_mul";
  j["args"]["num_tokens"] = {{"value", "num_tokens"}};
  return parsedSpec(j);
}

} // namespace

TEST(ManifestV2, ReadsTheContractFields) {
  Manifest m = manifest();
  EXPECT_EQ(m.version, "manifest/2");
  ASSERT_EQ(m.files.size(), 2u);
  EXPECT_EQ(m.files[1].role, "header");
  EXPECT_EQ(m.includeDirs, std::vector<std::string>{"include"});
  ASSERT_TRUE(m.compile);
  EXPECT_EQ(m.compile->arguments.size(), 3u);
  const ManifestKernel &k = m.kernels[0];
  ASSERT_EQ(k.launchParams.size(), 1u);
  EXPECT_TRUE(k.launchParams[0].tunable);
  EXPECT_EQ(k.launchParams[0].launcher, "silu_and_mul");
  EXPECT_EQ(k.args[2].effectiveType(), "unsigned int");
  // The space's dimensions: tunable template parameters, then launch ones.
  ASSERT_EQ(k.tunableParams().size(), 1u);
  EXPECT_EQ(k.tunableParams()[0]->name, "BLOCK_CAP");
  EXPECT_NE(k.findParam("BLOCK_CAP"), nullptr);
  ASSERT_EQ(m.launchers.size(), 1u);
  EXPECT_TRUE(m.launchers[0].forwarder);
  EXPECT_EQ(m.launchers[0].args[3].canonicalType, "long");

  // Written back as manifest/2 and read again the same.
  auto again = manifestFromJson(manifestToJson(m));
  ASSERT_TRUE(again) << again.error().str();
  EXPECT_EQ(manifestToJson(*again), manifestToJson(m));
}

TEST(ManifestV2, ManifestOneStillReads) {
  auto m = manifestFromJson(json::parse(R"({"ktune": "manifest/1",
    "source": "a.tpl.cu", "kernels": []})"));
  ASSERT_TRUE(m) << m.error().str();
  EXPECT_TRUE(m->launchers.empty());
  EXPECT_EQ(manifestToJson(*m)["ktune"], "manifest/1");
}

TEST(ManifestV2, LaunchParamNamesAKnownLauncher) {
  json j = json::parse(ManifestText);
  j["kernels"][0]["launch_params"][0]["launcher"] = "gelu_and_mul";
  auto m = manifestFromJson(j);
  ASSERT_FALSE(m);
  EXPECT_NE(m.error().str().find("gelu_and_mul"), std::string::npos);
  j = json::parse(ManifestText);
  j["kernels"][0]["launch_params"][0].erase("launcher");
  EXPECT_FALSE(manifestFromJson(j));
}

TEST(ManifestV2, LaunchExpressionsResolveSizeofAndStdMin) {
  auto sizeOf = [](const std::string &t) -> std::optional<int64_t> {
    if (t == "T")
      return 2;
    return std::nullopt;
  };
  EXPECT_EQ(
      resolveLaunchExpression("std::min(d / (16 / sizeof(T)), CAP)", sizeOf),
      "min(d / (16 / 2), CAP)");
  EXPECT_EQ(resolveLaunchExpression("sizeof( T ) * n", sizeOf), "2 * n");
  // Unknown types stay, so the parse error names them.
  EXPECT_EQ(resolveLaunchExpression("sizeof(U)", sizeOf), "sizeof(U)");
  EXPECT_EQ(resolveLaunchExpression("mystd::min(a)", sizeOf), "mystd::min(a)");
}

TEST(ManifestV2, LauncherAsKernel) {
  Manifest m = manifest();
  auto k = launcherAsKernel(m, "silu_and_mul");
  ASSERT_TRUE(k) << k.error().str();
  EXPECT_EQ(k->qualifiedName, "ops::silu_and_mul");
  ASSERT_EQ(k->tunableParams().size(), 1u);
  EXPECT_EQ(k->args.size(), 5u);
  // The kernel's constraint names only the launcher's parameters: kept.
  EXPECT_EQ(k->constraints, std::vector<std::string>{"BLOCK_CAP % 32 == 0"});
  EXPECT_TRUE(k->launch);
  auto missing = launcherAsKernel(m, "gelu_and_mul");
  ASSERT_FALSE(missing);
  EXPECT_NE(missing.error().str().find("silu_and_mul"), std::string::npos);
}

TEST(LaunchParams, KernelModeSpaceAndGeometry) {
  Manifest m = manifest();
  auto spec = resolveSpec(kernelSpec(), m.kernels[0]);
  ASSERT_TRUE(spec) << spec.error().str();
  ASSERT_TRUE(spec->launch);
  EXPECT_EQ(spec->launch->block[0], "min(d / (16 / 2), BLOCK_CAP)");
  auto space = spaceFromManifest(m.kernels[0], *spec);
  ASSERT_TRUE(space) << space.error().str();
  ASSERT_EQ(space->params.size(), 1u);
  EXPECT_EQ(space->params[0].name, "BLOCK_CAP");
  EXPECT_EQ(space->params[0].defaultValue, 1024);
}

TEST(LaunchParams, KernelModeHeaderPassesTheCapToTheGeometryOnly) {
  Manifest m = manifest();
  auto spec = resolveSpec(kernelSpec(), m.kernels[0]);
  ASSERT_TRUE(spec) << spec.error().str();
  TuneResults r;
  r.device = "NVIDIA H100";
  ShapeResult s;
  s.shape = {{"num_tokens", 4096}, {"d", 11008}};
  s.defaultConfig = {{"BLOCK_CAP", 1024}};
  s.bestConfig = {{"BLOCK_CAP", 512}};
  s.speedup = 1.3;
  r.shapes.push_back(s);
  r.params = {"BLOCK_CAP"};
  DispatchHeaderInput in;
  in.kernel = &m.kernels[0];
  in.spec = &*spec;
  in.results = &r;
  in.templateInclude = "act.tpl.cu";
  auto text = renderDispatchHeader(R"(template <{{param_decls}}>
inline {{return_type}} launch({{signature}}) {
{{launch_body}}}
{{config_fields}}{{dispatch_body}}{{launcher_alias}})",
                                   "t.h.in", in);
  ASSERT_TRUE(text) << text.error().str();
  EXPECT_NE(text->find("template <unsigned BLOCK_CAP>"), std::string::npos);
  // The kernel is instantiated without the launch parameter.
  EXPECT_NE(text->find("ops::act_kernel<__nv_bfloat16><<<grid"),
            std::string::npos)
      << *text;
  EXPECT_NE(text->find("BLOCK_CAP"), std::string::npos);
  EXPECT_NE(text->find("launch<512>"), std::string::npos) << *text;
  EXPECT_NE(text->find("unsigned BLOCK_CAP;"), std::string::npos);
}

TEST(LauncherMode, SpecNamesExactlyOneEntryPoint) {
  auto both = specFromJson(json::parse(R"({"ktune": "spec/1",
    "kernel": "k", "launcher": "l", "args": {}})"));
  EXPECT_FALSE(both);
  auto s = launcherSpec();
  EXPECT_TRUE(s.launcherMode);
  EXPECT_EQ(specToJson(s)["launcher"], "silu_and_mul");
  auto stream = specFromJson(json::parse(R"({"ktune": "spec/1",
    "launcher": "l", "args": {"s": {"stream": true}}})"));
  ASSERT_TRUE(stream) << stream.error().str();
  EXPECT_TRUE(std::get<ScalarArg>(stream->args[0].arg).stream);
  EXPECT_EQ(specToJson(*stream)["args"]["s"], json({{"stream", true}}));
}

TEST(LauncherMode, ResolveGivesTheStreamAndNeedsNoGeometry) {
  Manifest m = manifest();
  auto k = launcherAsKernel(m, "silu_and_mul");
  ASSERT_TRUE(k);
  auto spec = resolveSpec(launcherSpec(), *k);
  ASSERT_TRUE(spec) << spec.error().str();
  ASSERT_EQ(spec->args.size(), 5u);
  const auto &stream = std::get<ScalarArg>(spec->args[4].arg);
  EXPECT_TRUE(stream.stream);
  EXPECT_EQ(std::get<ScalarArg>(spec->args[3].arg).ctype, "long");
  EXPECT_FALSE(spec->launch);
  // A stream argument given a value is refused.
  Spec bad = launcherSpec();
  ScalarArg v;
  v.value = "0";
  bad.args.push_back({"stream", v});
  EXPECT_FALSE(resolveSpec(bad, *k));
}

TEST(LauncherMode, HeaderExposesTheLauncherAsCalled) {
  Manifest m = manifest();
  auto k = launcherAsKernel(m, "silu_and_mul");
  ASSERT_TRUE(k);
  auto spec = resolveSpec(launcherSpec(), *k);
  ASSERT_TRUE(spec) << spec.error().str();
  TuneResults r;
  for (int64_t t : {64, 4096}) {
    ShapeResult s;
    s.shape = {{"num_tokens", t}, {"d", 11008}};
    s.defaultConfig = {{"BLOCK_CAP", 1024}};
    s.bestConfig = {{"BLOCK_CAP", t == 64 ? 1024 : 512}};
    s.speedup = t == 64 ? 1.0 : 1.3;
    r.shapes.push_back(s);
  }
  r.params = {"BLOCK_CAP"};
  DispatchHeaderInput in;
  in.kernel = &*k;
  in.spec = &*spec;
  in.results = &r;
  in.launcherReturns = "void";
  auto text = renderDispatchHeader(R"({{launch_comment}}
template <{{param_decls}}>
inline {{return_type}} launch({{signature}}) {
{{launch_body}}}
inline {{return_type}} launch_{{kernel}}_tuned({{signature_with_default_stream}}) {
{{dispatch_body}}}
{{launcher_alias}})",
                                   "t.h.in", in);
  ASSERT_TRUE(text) << text.error().str();
  const std::string sig = "__nv_bfloat16 * out, const __nv_bfloat16 * in, "
                          "int d, int64_t num_tokens, cudaStream_t stream";
  EXPECT_NE(text->find("inline void launch(" + sig + ")"), std::string::npos)
      << *text;
  EXPECT_NE(text->find("return ops::silu_and_mul<__nv_bfloat16, BLOCK_CAP>("
                       "out, in, d, num_tokens, stream);"),
            std::string::npos)
      << *text;
  // The dimension comes from the argument that carries it: no extra
  // parameter, and the signature is the original's.
  EXPECT_NE(text->find("bucket_num_tokens == 1"), std::string::npos) << *text;
  EXPECT_NE(text->find("inline void silu_and_mul(" + sig + ")"),
            std::string::npos)
      << *text;
  EXPECT_NE(text->find("namespace ktune_tuned"), std::string::npos);
}
