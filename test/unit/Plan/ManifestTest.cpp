#include "ktune/Plan/Manifest.h"

#include <gtest/gtest.h>

using namespace ktune;
using nlohmann::json;

static const char *Example = R"({
  "ktune": "manifest/1", "source": "rmsnorm.tpl.cu", "original": "rmsnorm.cu",
  "source_sha256": "abc",
  "kernels": [{
    "name": "rmsnorm", "qualified_name": "ops::rmsnorm",
    "template_params": [
      {"name": "T", "type": "typename", "tunable": false},
      {"name": "BLOCK_SIZE", "type": "int", "tunable": true, "kind": "block_size",
       "default": 256, "values": [64, 128, 256, 512, 1024]}],
    "args": [{"name": "out", "type": "T*"}, {"name": "hidden", "type": "int"}],
    "constraints": ["BLOCK_SIZE % 32 == 0"],
    "launch": {"grid": ["num_tokens"], "block": ["BLOCK_SIZE"], "smem": "0",
               "from": "rmsnorm.cu:51"}}]})";

TEST(Manifest, RoundTrip) {
  auto m = manifestFromJson(json::parse(Example));
  ASSERT_TRUE(m) << m.error().str();
  ASSERT_EQ(m->kernels.size(), 1u);
  const auto *k = m->findKernel("ops::rmsnorm");
  ASSERT_NE(k, nullptr);
  ASSERT_EQ(k->tunableParams().size(), 1u);
  EXPECT_EQ(k->tunableParams()[0]->defaultValue, 256);
  auto again = manifestFromJson(manifestToJson(*m));
  ASSERT_TRUE(again);
  EXPECT_EQ(manifestToJson(*again), manifestToJson(*m));
}

TEST(Manifest, ErrorsNameTheJsonPath) {
  auto j = json::parse(Example);
  j["kernels"][0]["template_params"][1]["default"] = 100;
  auto m = manifestFromJson(j);
  ASSERT_FALSE(m);
  EXPECT_EQ(m.error().where, "kernels[0].template_params[1].default");

  j = json::parse(Example);
  j["ktune"] = "manifest/9";
  m = manifestFromJson(j);
  ASSERT_FALSE(m);
  EXPECT_NE(m.error().message.find("unsupported manifest version"), std::string::npos);

  j = json::parse(Example);
  j["kernels"][0]["launch"]["grid"] = json::array();
  m = manifestFromJson(j);
  ASSERT_FALSE(m);
  EXPECT_EQ(m.error().where, "kernels[0].launch.grid");
}

// Fields of the wrong type are errors naming their path, never exceptions.
TEST(Manifest, WrongTypesAreErrorsNotExceptions) {
  auto withKernelField = [](const char *key, json value) {
    auto j = json::parse(Example);
    j["kernels"][0][key] = std::move(value);
    return j;
  };
  auto m = manifestFromJson(withKernelField("qualified_name", json::array()));
  ASSERT_FALSE(m);
  EXPECT_EQ(m.error().where, "kernels[0].qualified_name");
  auto j = json::parse(Example);
  j["kernels"][0]["template_params"][0]["tunable"] = 0;
  m = manifestFromJson(j);
  ASSERT_FALSE(m);
  EXPECT_EQ(m.error().str(),
            "kernels[0].template_params[0].tunable: expected true or false");
  j = json::parse(Example);
  j["kernels"][0]["launch"]["from"] = 51;
  m = manifestFromJson(j);
  ASSERT_FALSE(m);
  EXPECT_EQ(m.error().where, "kernels[0].launch.from");
  j = json::parse(Example);
  j["ktune"] = 1;
  EXPECT_EQ(manifestFromJson(j).error().where, "ktune");
  j = json::parse(Example);
  j["original"] = nullptr;
  EXPECT_EQ(manifestFromJson(j).error().where, "original");
}
