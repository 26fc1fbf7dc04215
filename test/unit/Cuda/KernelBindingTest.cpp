#include "ktune/Tune/KernelBinding.h"

#include "CudaTestUtil.h"

#include <gtest/gtest.h>

#include <cstring>

using namespace ktune;
using namespace ktune::test;

namespace {

KernelBinding siluBinding(CudaTuneOptions o = siluOptions("")) {
  auto b = KernelBinding::create(o.manifest.kernels[0], o.spec);
  EXPECT_TRUE(b) << (b ? "" : b.error().str());
  return *b;
}

template <class T> T decode(const std::string &bytes) {
  T v{};
  EXPECT_EQ(bytes.size(), sizeof(T));
  std::memcpy(&v, bytes.data(), sizeof(T));
  return v;
}

const Shape Small = {{"tokens", 64}, {"d", 4096}};

} // namespace

TEST(KernelBinding, NameExpressionInTemplateParameterOrder) {
  auto b = siluBinding();
  auto name = b.nameExpression({{"BLOCK_SIZE", 128}, {"VEC", 2}});
  ASSERT_TRUE(name) << name.error().str();
  EXPECT_EQ(*name, "ops::silu_and_mul<__nv_bfloat16, 128, 2>");
  EXPECT_EQ(b.defaultConfig(),
            (Configuration{{"BLOCK_SIZE", 256}, {"VEC", 4}}));
}

TEST(KernelBinding, CompletesConfigurations) {
  auto b = siluBinding();
  auto full = b.complete({{"VEC", 8}, {"maxrregcount", 64}});
  ASSERT_TRUE(full);
  EXPECT_EQ(full->at("BLOCK_SIZE"), 256);
  EXPECT_EQ(full->at("VEC"), 8);
  EXPECT_EQ(KernelBinding::maxRegisters(*full), 64);
  auto name = b.nameExpression(*full);
  ASSERT_TRUE(name);
  EXPECT_EQ(name->find("maxrregcount"), std::string::npos);

  auto unknown = b.complete({{"TILE", 8}});
  ASSERT_FALSE(unknown);
  EXPECT_NE(unknown.error().message.find("'TILE'"), std::string::npos);
  EXPECT_FALSE(b.complete({{"maxrregcount", 300}}));
}

TEST(KernelBinding, LaunchArgumentsAndBuffers) {
  auto b = siluBinding();
  Configuration c{{"BLOCK_SIZE", 512}, {"VEC", 2}};
  auto launch = b.launch(Small, c);
  ASSERT_TRUE(launch) << launch.error().str();
  EXPECT_EQ(launch->grid, (std::array<int64_t, 3>{64, 1, 1}));
  EXPECT_EQ(launch->block, (std::array<int64_t, 3>{512, 1, 1}));
  EXPECT_EQ(launch->smemDynamic, 0);

  auto args = b.args(Small, c);
  ASSERT_TRUE(args) << args.error().str();
  ASSERT_EQ(args->size(), 3u);
  EXPECT_EQ((*args)[0].buffer, 0);
  EXPECT_EQ((*args)[1].buffer, 1);
  EXPECT_EQ((*args)[2].buffer, -1);
  EXPECT_EQ(decode<int32_t>((*args)[2].bytes), 4096);

  auto buffers = b.buffers(Small, 7);
  ASSERT_TRUE(buffers) << buffers.error().str();
  ASSERT_EQ(buffers->size(), 2u);
  EXPECT_EQ((*buffers)[0].name, "out");
  EXPECT_EQ((*buffers)[0].count, 64 * 4096);
  EXPECT_EQ((*buffers)[0].role, Role::Out);
  EXPECT_EQ((*buffers)[1].count, 64 * 2 * 4096);
  EXPECT_EQ((*buffers)[1].bytes(), 64 * 2 * 4096 * 2);
  EXPECT_NE((*buffers)[0].seed, (*buffers)[1].seed);
  auto again = b.buffers(Small, 7);
  EXPECT_EQ((*again)[1].seed, (*buffers)[1].seed); // same seed, same data
  EXPECT_NE(b.buffers(Small, 8)->at(1).seed, (*buffers)[1].seed);
}

TEST(KernelBinding, LaunchExpressionsSeeScalarArgumentsAndParameters) {
  auto o = siluOptions("");
  // "d" is both a dimension and a scalar argument; the spec computes the
  // argument from another dimension here.
  o.spec.dims = {{"tokens", {64}}, {"hidden", {1000}}};
  o.spec.args[0] =
      bufferArg("out", DType::BF16, {"tokens", "hidden"}, Role::Out);
  o.spec.args[1] =
      bufferArg("in", DType::BF16, {"tokens", "2 * hidden"}, Role::In);
  o.spec.args[2] = scalarArg("d", "hidden");
  o.spec.launch = LaunchGeometry{{"ceil_div(d, BLOCK_SIZE * VEC)", "tokens"},
                                 {"BLOCK_SIZE"},
                                 "VEC * 4 * BLOCK_SIZE",
                                 ""};
  auto b = siluBinding(o);
  auto launch = b.launch({{"tokens", 64}, {"hidden", 1000}},
                         {{"BLOCK_SIZE", 128}, {"VEC", 2}});
  ASSERT_TRUE(launch) << launch.error().str();
  EXPECT_EQ(launch->grid, (std::array<int64_t, 3>{4, 64, 1}));
  EXPECT_EQ(launch->smemDynamic, 1024);
  auto bad = b.launch({{"tokens", 64}}, {{"BLOCK_SIZE", 128}, {"VEC", 2}});
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().str().find("hidden"), std::string::npos)
      << bad.error().str();
}

TEST(KernelBinding, ConstraintsFromManifestAndSpec) {
  auto o = siluOptions("");
  o.manifest.kernels[0].constraints = {"BLOCK_SIZE % 32 == 0"};
  o.spec.constraints = {"BLOCK_SIZE * VEC <= d", "UNKNOWN_LIMIT > 0"};
  auto b = siluBinding(o);
  Shape shape{{"tokens", 1}, {"d", 512}};
  EXPECT_FALSE(b.violatedConstraint(shape, {{"BLOCK_SIZE", 128}, {"VEC", 4}}));
  auto v = b.violatedConstraint(shape, {{"BLOCK_SIZE", 256}, {"VEC", 4}});
  ASSERT_TRUE(v);
  EXPECT_EQ(*v, "BLOCK_SIZE * VEC <= d");
  EXPECT_EQ(*b.violatedConstraint(shape, {{"BLOCK_SIZE", 48}, {"VEC", 1}}),
            "BLOCK_SIZE % 32 == 0");
}

TEST(KernelBinding, ErrorsNameTheSpecPath) {
  auto o = siluOptions("");
  o.spec.args.pop_back();
  auto missing = KernelBinding::create(o.manifest.kernels[0], o.spec);
  ASSERT_FALSE(missing);
  EXPECT_NE(missing.error().message.find("'d'"), std::string::npos);

  o = siluOptions("");
  o.spec.args[2] = bufferArg("d", DType::I32, {"1"}, Role::In);
  auto notPointer = KernelBinding::create(o.manifest.kernels[0], o.spec);
  ASSERT_FALSE(notPointer);
  EXPECT_EQ(notPointer.error().where, "args.d");

  o = siluOptions("");
  o.spec.args[0] = scalarArg("out", "1");
  EXPECT_FALSE(KernelBinding::create(o.manifest.kernels[0], o.spec));

  o = siluOptions("");
  std::get<BufferArg>(o.spec.args[1].arg).init = "random";
  auto badInit = KernelBinding::create(o.manifest.kernels[0], o.spec);
  ASSERT_FALSE(badInit);
  EXPECT_EQ(badInit.error().where, "args.in.init");

  o = siluOptions("");
  o.spec.templateArgs.clear();
  auto noT = KernelBinding::create(o.manifest.kernels[0], o.spec);
  ASSERT_FALSE(noT);
  EXPECT_NE(noT.error().message.find("'T'"), std::string::npos);

  o = siluOptions("");
  o.spec.templateArgs["VEC"] = "4";
  EXPECT_FALSE(KernelBinding::create(o.manifest.kernels[0], o.spec));

  o = siluOptions("");
  o.manifest.kernels[0].launch.reset();
  auto noLaunch = KernelBinding::create(o.manifest.kernels[0], o.spec);
  ASSERT_FALSE(noLaunch);
  EXPECT_EQ(noLaunch.error().where, "launch");

  o = siluOptions("");
  o.spec.launch = LaunchGeometry{{"tokens +"}, {"BLOCK_SIZE"}, "0", ""};
  auto badExpr = KernelBinding::create(o.manifest.kernels[0], o.spec);
  ASSERT_FALSE(badExpr);
  EXPECT_EQ(badExpr.error().where.rfind("launch.grid[0]", 0), 0u)
      << badExpr.error().str();
}

TEST(KernelBinding, ScalarTypesAndEncoding) {
  using expr::Value;
  auto t = parseScalarType("const int64_t");
  ASSERT_TRUE(t);
  EXPECT_EQ(t->size, 8u);
  EXPECT_EQ(decode<int64_t>(*encodeScalar(*t, Value::ofInt(-5))), -5);
  EXPECT_EQ(decode<int64_t>(*encodeScalar(*t, Value::ofFloat(3.0))), 3);
  EXPECT_FALSE(encodeScalar(*t, Value::ofFloat(3.5)));

  auto i32 = parseScalarType("int");
  EXPECT_FALSE(encodeScalar(*i32, Value::ofInt(int64_t(1) << 31)));
  auto u32 = parseScalarType("unsigned int");
  EXPECT_EQ(decode<uint32_t>(*encodeScalar(*u32, Value::ofInt(4000000000ll))),
            4000000000u);
  EXPECT_FALSE(encodeScalar(*u32, Value::ofInt(-1)));
  auto glibc = parseScalarType("const uint");
  ASSERT_TRUE(glibc);
  EXPECT_EQ(glibc->kind, ScalarType::Kind::UnsignedInt);
  EXPECT_EQ(glibc->size, 4u);
  EXPECT_EQ(parseScalarType("ulong")->size, 8u);
  auto size = parseScalarType("std::size_t");
  ASSERT_TRUE(size);
  EXPECT_EQ(size->kind, ScalarType::Kind::UnsignedInt);

  auto f = parseScalarType("float");
  EXPECT_EQ(decode<float>(*encodeScalar(*f, Value::ofFloat(1e-6))), 1e-6f);
  auto d = parseScalarType("double");
  EXPECT_EQ(decode<double>(*encodeScalar(*d, Value::ofInt(3))), 3.0);
  auto h = parseScalarType("__half");
  EXPECT_EQ(decode<uint16_t>(*encodeScalar(*h, Value::ofFloat(1.0))), 0x3C00);
  EXPECT_EQ(decode<uint16_t>(*encodeScalar(*h, Value::ofFloat(-2.5))), 0xC100);
  EXPECT_EQ(decode<uint16_t>(*encodeScalar(*h, Value::ofFloat(65504))), 0x7BFF);
  EXPECT_EQ(decode<uint16_t>(*encodeScalar(*h, Value::ofFloat(1e6))), 0x7C00);
  auto bf = parseScalarType("__nv_bfloat16");
  EXPECT_EQ(decode<uint16_t>(*encodeScalar(*bf, Value::ofFloat(1.0))), 0x3F80);
  EXPECT_EQ(decode<uint16_t>(*encodeScalar(*bf, Value::ofFloat(-3.0))), 0xC040);
  auto b = parseScalarType("bool");
  EXPECT_EQ(decode<uint8_t>(*encodeScalar(*b, Value::ofInt(7))), 1);

  EXPECT_FALSE(parseScalarType("float *"));
  EXPECT_FALSE(parseScalarType("Params"));
}

TEST(KernelBinding, ScalarOfTemplateType) {
  auto o = siluOptions("");
  o.manifest.kernels[0].args.push_back({"eps", "T"});
  o.spec.templateArgs["T"] = "float"; // `T eps` is then a float
  o.spec.args.push_back(scalarArg("eps", "1e-6"));
  auto b = KernelBinding::create(o.manifest.kernels[0], o.spec);
  ASSERT_TRUE(b) << b.error().str();
  auto args = b->args(Small, b->defaultConfig());
  ASSERT_TRUE(args);
  EXPECT_EQ(decode<float>(args->back().bytes), 1e-6f);
}

TEST(KernelBinding, ScalarTypesComeFromTheManifestsCanonicalTypes) {
  // `const uint n`, `int64_t offset` and an enum: the spec spells no type.
  auto o = siluOptions("");
  o.manifest.kernels[0].args.push_back({"n", "const uint", "unsigned int", ""});
  o.manifest.kernels[0].args.push_back({"offset", "int64_t", "long", ""});
  o.spec.args.push_back(scalarArg("n", "4000000000"));
  o.spec.args.push_back(scalarArg("offset", "-3"));
  auto b = KernelBinding::create(o.manifest.kernels[0], o.spec);
  ASSERT_TRUE(b) << b.error().str();
  auto args = b->args(Small, b->defaultConfig());
  ASSERT_TRUE(args) << args.error().str();
  ASSERT_GE(args->size(), 2u);
  EXPECT_EQ(decode<uint32_t>((*args)[args->size() - 2].bytes), 4000000000u);
  EXPECT_EQ(decode<int64_t>(args->back().bytes), -3);
}

TEST(KernelBinding, EnumsWithoutAnUnderlyingTypeReachLaunchersOnly) {
  auto o = siluOptions("");
  o.manifest.kernels[0].args.push_back(
      {"mode", "at::ScalarType", "at::ScalarType", "at::ScalarType"});
  o.spec.args.push_back(scalarArg("mode", "2"));
  // A kernel's parameter must have its exact size: the spec must say it.
  auto b = KernelBinding::create(o.manifest.kernels[0], o.spec);
  ASSERT_FALSE(b);
  EXPECT_EQ(b.error().where, "args.mode");
  EXPECT_NE(b.error().message.find("enum type 'at::ScalarType'"),
            std::string::npos);
  // A launcher reads it as the enum itself: eight bytes hold its value.
  o.spec.launcherMode = true;
  b = KernelBinding::create(o.manifest.kernels[0], o.spec);
  ASSERT_TRUE(b) << b.error().str();
  auto args = b->args(Small, b->defaultConfig());
  ASSERT_TRUE(args);
  EXPECT_EQ(decode<int64_t>(args->back().bytes), 2);
  // An underlying type from the manifest, or the spec's "type", is used.
  o.spec.launcherMode = false;
  o.manifest.kernels[0].args.back().canonicalType = "unsigned char";
  b = KernelBinding::create(o.manifest.kernels[0], o.spec);
  ASSERT_TRUE(b) << b.error().str();
  EXPECT_EQ(b->args(Small, b->defaultConfig())->back().bytes.size(), 1u);
}
