#include "ktune/Tune/Spec.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

using namespace ktune;
using nlohmann::json;

namespace {

const char *ManifestText = R"({
  "ktune": "manifest/1", "source": "rmsnorm.tpl.cu",
  "kernels": [{
    "name": "rmsnorm", "qualified_name": "ops::rmsnorm",
    "template_params": [
      {"name": "T", "type": "typename", "tunable": false},
      {"name": "BLOCK_SIZE", "type": "int", "tunable": true, "kind": "block_size",
       "default": 256, "values": [64, 128, 256, 512, 1024]},
      {"name": "VEC", "type": "int", "tunable": true, "kind": "vector_width",
       "default": 8, "values": [1, 2, 4, 8]}],
    "args": [{"name": "out", "type": "T *"}, {"name": "in", "type": "const T *"},
             {"name": "hidden", "type": "int"}, {"name": "eps", "type": "float"}],
    "constraints": ["BLOCK_SIZE % 32 == 0"],
    "launch": {"grid": ["num_tokens"], "block": ["BLOCK_SIZE"], "smem": "0",
               "from": "rmsnorm.cu:51"}}]})";

json goodSpec() {
  return json::parse(R"({
    "ktune": "spec/1", "kernel": "rmsnorm", "template_args": {"T": "__nv_bfloat16"},
    "dims": {"num_tokens": [1, 16, 256], "hidden": [4096, 8192]},
    "args": {
      "out":    {"buffer": "bf16", "shape": ["num_tokens", "hidden"], "role": "out"},
      "in":     {"buffer": "bf16", "shape": ["num_tokens", "hidden"], "init": "normal"},
      "hidden": {"value": "hidden"},
      "eps":    {"value": 1e-6}},
    "bytes": "4 * num_tokens * hidden + 2 * hidden",
    "tolerance": {"bf16": {"rtol": 1e-2, "atol": 1e-2}}})");
}

ManifestKernel kernel() {
  auto m = manifestFromJson(json::parse(ManifestText));
  EXPECT_TRUE(m) << m.error().str();
  return m->kernels.at(0);
}

/// Reads and validates; returns the error (empty when valid).
Error specError(const json &j) {
  auto s = specFromJson(j);
  if (!s)
    return s.error();
  auto ok = validateSpec(*s, kernel());
  return ok ? Error{} : ok.error();
}

/// The error's "where" (empty when valid).
std::string errorWhere(const json &j) { return specError(j).where; }

std::string errorMessage(const json &j) { return specError(j).message; }

} // namespace

TEST(Spec, GoodSpecReadsAndValidates) {
  auto s = specFromJson(goodSpec());
  ASSERT_TRUE(s) << s.error().str();
  EXPECT_EQ(s->kernel, "rmsnorm");
  EXPECT_EQ(s->templateArgs.at("T"), "__nv_bfloat16");
  ASSERT_EQ(s->args.size(), 4u);
  EXPECT_TRUE(validateSpec(*s, kernel()));
  EXPECT_EQ(s->tolerance.at(DType::BF16).rtol, 1e-2);
  EXPECT_EQ(s->allShapes().size(), 6u);
}

TEST(Spec, AllShapesIsTheCartesianProductOrExplicit) {
  auto s = specFromJson(goodSpec());
  ASSERT_TRUE(s);
  auto shapes = s->allShapes();
  // dims are read in name order: hidden, then num_tokens.
  EXPECT_EQ(shapes.front(), (Shape{{"hidden", 4096}, {"num_tokens", 1}}));
  EXPECT_EQ(shapes.back(), (Shape{{"hidden", 8192}, {"num_tokens", 256}}));

  json j = goodSpec();
  j.erase("dims");
  j["shapes"] = json::array({{{"num_tokens", 7}, {"hidden", 4096}},
                             {{"num_tokens", 3}, {"hidden", 4096}}});
  auto e = specFromJson(j);
  ASSERT_TRUE(e) << e.error().str();
  ASSERT_EQ(e->allShapes().size(), 2u);
  EXPECT_EQ(e->allShapes()[0].at("num_tokens"), 7);
  // dims are filled from the shapes, sorted.
  ASSERT_EQ(e->dims.size(), 2u);
  EXPECT_EQ(e->dims[1].first, "num_tokens");
  EXPECT_EQ(e->dims[1].second, (std::vector<int64_t>{3, 7}));
}

TEST(Spec, RoundTripThroughJson) {
  json j = goodSpec();
  j["domains"] = {{"VEC", {{"values", {2, 8}}}}};
  j["constraints"] = {"VEC * BLOCK_SIZE <= hidden"};
  j["max_registers"] = {0, 64, 128};
  j["compile_options"] = {"-use_fast_math"};
  auto s = specFromJson(j);
  ASSERT_TRUE(s) << s.error().str();
  auto again = specFromJson(specToJson(*s));
  ASSERT_TRUE(again) << again.error().str();
  EXPECT_EQ(specToJson(*again), specToJson(*s));
  EXPECT_EQ(again->maxRegisters, (std::vector<int64_t>{0, 64, 128}));
  EXPECT_EQ(again->domains.at("VEC").values, (std::vector<int64_t>{2, 8}));
}

TEST(Spec, ResolveOrdersArgumentsAndFillsTypes) {
  auto s = specFromJson(goodSpec());
  ASSERT_TRUE(s);
  auto r = resolveSpec(*s, kernel());
  ASSERT_TRUE(r) << r.error().str();
  ASSERT_EQ(r->args.size(), 4u);
  EXPECT_EQ(r->args[0].name, "out");
  EXPECT_EQ(r->args[1].name, "in");
  EXPECT_EQ(r->args[2].name, "hidden");
  EXPECT_EQ(std::get<ScalarArg>(r->args[3].arg).ctype, "float");
  ASSERT_TRUE(r->launch);
  EXPECT_EQ(r->launch->block[0], "BLOCK_SIZE");
}

TEST(Spec, DTypes) {
  EXPECT_EQ(parseDType("bf16"), DType::BF16);
  EXPECT_EQ(parseDType("bfloat16"), DType::BF16);
  EXPECT_EQ(parseDType("half"), DType::F16);
  EXPECT_FALSE(parseDType("bf17"));
  EXPECT_EQ(dtypeName(DType::F8E4M3), "fp8e4m3");
  EXPECT_EQ(dtypeSize(DType::BF16), 2u);
  EXPECT_EQ(dtypeSize(DType::I64), 8u);
  for (auto t :
       {DType::F32, DType::F16, DType::BF16, DType::F8E4M3, DType::F8E5M2,
        DType::I8, DType::U8, DType::I32, DType::U32, DType::I64, DType::F64})
    EXPECT_EQ(parseDType(dtypeName(t)), t);
}

// Reading errors: each names the JSON path of the bad value.
TEST(SpecErrors, Version) {
  json j = goodSpec();
  j["ktune"] = "spec/9";
  EXPECT_EQ(errorWhere(j), "ktune");
  j.erase("ktune");
  EXPECT_EQ(errorWhere(j), "ktune");
}

TEST(SpecErrors, UnknownTopLevelField) {
  json j = goodSpec();
  j["tolerence"] = json::object();
  EXPECT_EQ(errorWhere(j), "tolerence");
}

TEST(SpecErrors, Kernel) {
  json j = goodSpec();
  j.erase("kernel");
  EXPECT_EQ(errorWhere(j), "kernel");
  j["kernel"] = "layernorm";
  EXPECT_EQ(errorWhere(j), "kernel");
}

TEST(SpecErrors, Dims) {
  json j = goodSpec();
  j["dims"]["num_tokens"] = {1, "x"};
  EXPECT_EQ(errorWhere(j), "dims.num_tokens[1]");
  j["dims"]["num_tokens"] = json::array();
  EXPECT_EQ(errorWhere(j), "dims.num_tokens");
  j["dims"]["num_tokens"] = {4, 4};
  EXPECT_EQ(errorWhere(j), "dims.num_tokens[1]");
  j = goodSpec();
  j["dims"]["BLOCK_SIZE"] = {1};
  EXPECT_EQ(errorWhere(j), "dims.BLOCK_SIZE");
}

TEST(SpecErrors, Shapes) {
  json j = goodSpec();
  j["shapes"] =
      json::array({{{"num_tokens", 1}, {"hidden", 4096}}, {{"num_tokens", 2}}});
  EXPECT_EQ(errorWhere(j), "shapes[1]");
  j["shapes"] =
      json::array({{{"num_tokens", 1}, {"hidden", 4096}, {"batch", 2}}});
  EXPECT_EQ(errorWhere(j), "shapes[0].batch");
  j["shapes"] = json::array({{{"num_tokens", 1}, {"hidden", "big"}}});
  EXPECT_EQ(errorWhere(j), "shapes[0].hidden");
}

TEST(SpecErrors, Args) {
  json j = goodSpec();
  j["args"]["out"] = {{"shape", {"num_tokens"}}};
  EXPECT_EQ(errorWhere(j), "args.out");
  j["args"]["out"] = {{"buffer", "bf17"}, {"shape", {"num_tokens"}}};
  EXPECT_EQ(errorWhere(j), "args.out.buffer");
  j["args"]["out"] = {{"buffer", "bf16"},
                      {"shape", {"num_tokens", "hidden +"}}};
  EXPECT_EQ(errorWhere(j), "args.out.shape[1]");
  j["args"]["out"] = {
      {"buffer", "bf16"}, {"shape", {"num_tokens"}}, {"role", "output"}};
  EXPECT_EQ(errorWhere(j), "args.out.role");
  j["args"]["out"] = {
      {"buffer", "bf16"}, {"shape", {"num_tokens"}}, {"colour", 1}};
  EXPECT_EQ(errorWhere(j), "args.out.colour");
  j["args"]["out"] = {
      {"buffer", "bf16"}, {"shape", {"num_tokens"}}, {"init", "random"}};
  EXPECT_EQ(errorWhere(j), "args.out.init");
  j = goodSpec();
  j["args"]["eps"] = {{"value", true}};
  EXPECT_EQ(errorWhere(j), "args.eps.value");
}

TEST(SpecErrors, Launch) {
  json j = goodSpec();
  j["launch"] = {{"block", {"BLOCK_SIZE"}}};
  EXPECT_EQ(errorWhere(j), "launch.grid");
  j["launch"] = {{"grid", {"1", "1", "1", "1"}}, {"block", {"BLOCK_SIZE"}}};
  EXPECT_EQ(errorWhere(j), "launch.grid");
  j["launch"] = {
      {"grid", {"num_tokens"}}, {"block", {"BLOCK_SIZE"}}, {"smem", "x"}};
  EXPECT_EQ(errorWhere(j), "launch.smem");
}

TEST(SpecErrors, Tolerance) {
  json j = goodSpec();
  j["tolerance"] = {{"bf17", {{"rtol", 0.1}}}};
  EXPECT_EQ(errorWhere(j), "tolerance.bf17");
  j["tolerance"] = {{"bf16", {{"rtol", -0.1}}}};
  EXPECT_EQ(errorWhere(j), "tolerance.bf16.rtol");
  j["tolerance"] = {{"bf16", {{"rtoll", 0.1}}}};
  EXPECT_EQ(errorWhere(j), "tolerance.bf16.rtoll");
}

TEST(SpecErrors, DomainsConstraintsRegisters) {
  json j = goodSpec();
  j["domains"] = {{"VEC", {{"values", {1, "two"}}}}};
  EXPECT_EQ(errorWhere(j), "domains.VEC.values[1]");
  j["domains"] = {{"VEC", {{"values", {1, 2}}}}};
  EXPECT_EQ(errorWhere(j), "domains.VEC"); // leaves out the default 8
  EXPECT_NE(errorMessage(j).find("default 8"), std::string::npos);
  j["domains"] = {{"WARPS", {{"values", {1, 2}}}}};
  EXPECT_EQ(errorWhere(j), "domains.WARPS");
  j = goodSpec();
  j["constraints"] = {"VEC <= 8", "VEC * (BLOCK_SIZE"};
  EXPECT_EQ(errorWhere(j), "constraints[1]");
  j["constraints"] = {"VEC * WARPS <= 8"};
  EXPECT_EQ(errorWhere(j), "constraints[0]");
  j = goodSpec();
  j["max_registers"] = {0, 8};
  EXPECT_EQ(errorWhere(j), "max_registers[1]");
}

// Cross-checks against the manifest.
TEST(SpecErrors, ArgumentsAgainstTheKernel) {
  json j = goodSpec();
  j["args"].erase("eps");
  EXPECT_EQ(errorWhere(j), "args.eps");
  EXPECT_NE(errorMessage(j).find("float"), std::string::npos);
  j = goodSpec();
  j["args"]["bogus"] = {{"value", 1}};
  EXPECT_EQ(errorWhere(j), "args.bogus");
  j = goodSpec();
  j["args"]["out"] = {{"value", 0}};
  EXPECT_EQ(errorWhere(j), "args.out");
  j = goodSpec();
  j["args"]["hidden"] = {{"buffer", "i32"}, {"shape", {"1"}}};
  EXPECT_EQ(errorWhere(j), "args.hidden");
}

TEST(SpecErrors, TemplateArguments) {
  json j = goodSpec();
  j["template_args"] = json::object();
  EXPECT_EQ(errorWhere(j), "template_args.T");
  j["template_args"] = {{"T", "float"}, {"BLOCK_SIZE", "128"}};
  EXPECT_EQ(errorWhere(j), "template_args.BLOCK_SIZE");
  j["template_args"] = {{"T", "float"}, {"U", "int"}};
  EXPECT_EQ(errorWhere(j), "template_args.U");
}

TEST(SpecErrors, ExpressionsEvaluatedPerShape) {
  json j = goodSpec();
  j["args"]["out"]["shape"] = {"num_tokens - 1", "hidden"}; // 0 at num_tokens=1
  EXPECT_EQ(errorWhere(j), "args.out.shape[0]");
  EXPECT_NE(errorMessage(j).find("num_tokens=1"), std::string::npos);
  j = goodSpec();
  j["args"]["in"]["shape"] = {"num_tokens", "hiden"};
  EXPECT_EQ(errorWhere(j), "args.in.shape[1]");
  j = goodSpec();
  j["args"]["hidden"] = {{"value", "hidden / 0"}};
  EXPECT_EQ(errorWhere(j), "args.hidden.value");
  j = goodSpec();
  j["bytes"] = "4 * num_token";
  EXPECT_EQ(errorWhere(j), "bytes");
}

TEST(SpecErrors, LaunchGeometryFromTheManifestIsChecked) {
  json j = goodSpec();
  j["dims"] = {{"tokens", {1, 2}}, {"hidden", {4096}}};
  j["args"]["out"]["shape"] = {"tokens", "hidden"};
  j["args"]["in"]["shape"] = {"tokens", "hidden"};
  j["bytes"] = "4 * tokens * hidden";
  // The manifest's grid names num_tokens, which is no longer a dimension.
  EXPECT_EQ(errorWhere(j), "launch.grid[0] (from the manifest)");
  j["launch"] = {{"grid", {"tokens"}}, {"block", {"BLOCK_SIZE"}}};
  EXPECT_EQ(errorWhere(j), "");
  j["launch"] = {{"grid", {"tokens - 1"}}, {"block", {"BLOCK_SIZE"}}};
  EXPECT_EQ(errorWhere(j), "launch.grid[0]");
}

TEST(SpecErrors, MissingLaunchGeometry) {
  auto m = manifestFromJson(json::parse(ManifestText));
  ASSERT_TRUE(m);
  ManifestKernel k = m->kernels[0];
  k.launch.reset();
  auto s = specFromJson(goodSpec());
  ASSERT_TRUE(s);
  auto ok = validateSpec(*s, k);
  ASSERT_FALSE(ok);
  EXPECT_EQ(ok.error().where, "launch");
}

// The specs shipped with the examples are read without error.
TEST(Spec, ExampleSpecsRead) {
  namespace fs = std::filesystem;
  size_t read = 0;
  for (const char *dir : {"/examples", "/examples/handwritten"}) {
    fs::path root = fs::path(KTUNE_SOURCE_DIR) / std::string(dir).substr(1);
    if (!fs::is_directory(root))
      continue;
    for (const auto &entry : fs::directory_iterator(root)) {
      std::string name = entry.path().filename().string();
      if (name.size() < 10 || name.substr(name.size() - 10) != ".spec.json")
        continue;
      std::ifstream in(entry.path());
      auto j = json::parse(in, nullptr, false);
      ASSERT_FALSE(j.is_discarded()) << name;
      auto s = specFromJson(j);
      EXPECT_TRUE(s) << name << ": " << (s ? "" : s.error().str());
      ++read;
    }
  }
  EXPECT_GT(read, 0) << "no example specs found in examples/";
}

TEST(Spec, RegisterCapsAreWithdrawnWhereAHeaderCannotApplyThem) {
  auto s = specFromJson(json::parse(R"({"ktune": "spec/1", "kernel": "k",
    "dims": {"n": [1]}, "args": {}, "max_registers": [0, 32, 64]})"));
  ASSERT_TRUE(s) << s.error().str();
  auto note = withdrawRegisterCaps(*s);
  ASSERT_TRUE(note);
  EXPECT_NE(note->find("max_registers [0, 32, 64] not searched"),
            std::string::npos);
  EXPECT_NE(note->find("MIN_BLOCKS"), std::string::npos);
  EXPECT_TRUE(s->maxRegisters.empty());
  EXPECT_FALSE(withdrawRegisterCaps(*s));
}

TEST(Spec, TheCompilerCanBeChosen) {
  auto base = json::parse(R"({"ktune": "spec/1", "kernel": "k",
    "dims": {"n": [1]}, "args": {}})");
  auto s = specFromJson(base);
  ASSERT_TRUE(s);
  EXPECT_EQ(s->compiler, CompilerChoice::Auto);
  base["compiler"] = "nvcc";
  s = specFromJson(base);
  ASSERT_TRUE(s) << s.error().str();
  EXPECT_EQ(s->compiler, CompilerChoice::Nvcc);
  EXPECT_EQ(specToJson(*s)["compiler"], "nvcc");
  base["compiler"] = "gcc";
  s = specFromJson(base);
  ASSERT_FALSE(s);
  EXPECT_EQ(s.error().where, "compiler");
}
