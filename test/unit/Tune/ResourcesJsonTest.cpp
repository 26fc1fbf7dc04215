#include "ktune/Tune/Evaluator.h"

#include <gtest/gtest.h>

using namespace ktune;
using nlohmann::json;

namespace {

Resources measured() {
  Resources r;
  r.registers = 40;
  r.spillStores = 0;
  r.spillLoads = 0;
  r.stackFrame = 0;
  r.smemStatic = 0;
  r.smemDynamic = 0;
  r.threadsPerBlock = 256;
  r.blocksPerSM = -1; // unknown
  return r;
}

// Each file ktune writes keeps its spelling: the journal leaves out zeros,
// results keep the spill counts, the analysis also keeps smem_dynamic.
TEST(ResourcesJson, EachFileKeepsItsSpelling) {
  ResourcesJsonOptions journal{.zeroSpills = false, .stackFrame = true};
  ResourcesJsonOptions analysis{.zeroSmemDynamic = true};
  EXPECT_EQ(resourcesToJson(measured(), journal),
            json::parse(R"({"registers": 40, "smem_static": 0,
                            "threads_per_block": 256})"));
  EXPECT_EQ(resourcesToJson(measured()),
            json::parse(R"({"registers": 40, "spill_stores": 0,
                            "spill_loads": 0, "smem_static": 0,
                            "threads_per_block": 256})"));
  EXPECT_EQ(resourcesToJson(measured(), analysis),
            json::parse(R"({"registers": 40, "spill_stores": 0,
                            "spill_loads": 0, "smem_static": 0,
                            "smem_dynamic": 0, "threads_per_block": 256})"));

  // Nothing known: the journal writes nothing at all.
  EXPECT_EQ(resourcesToJson(Resources{}, journal), json::object());
  EXPECT_EQ(resourcesToJson(Resources{}),
            json::parse(R"({"spill_stores": 0, "spill_loads": 0})"));

  Resources spilled = measured();
  spilled.spillStores = 8;
  spilled.stackFrame = 16;
  spilled.smemDynamic = 1024;
  spilled.blocksPerSM = 4;
  EXPECT_EQ(resourcesToJson(spilled, journal),
            json::parse(R"({"registers": 40, "spill_stores": 8,
                            "spill_loads": 0, "stack_frame": 16,
                            "smem_static": 0, "smem_dynamic": 1024,
                            "threads_per_block": 256, "blocks_per_sm": 4})"));
  // Only the journal records the stack frame.
  EXPECT_FALSE(resourcesToJson(spilled).contains("stack_frame"));
}

TEST(ResourcesJson, ReadsBackWhatEveryOptionWrote) {
  Resources r = measured();
  r.spillLoads = 3;
  r.stackFrame = 24;
  r.smemDynamic = 512;
  r.blocksPerSM = 2;
  for (ResourcesJsonOptions options :
       {ResourcesJsonOptions{}, ResourcesJsonOptions{.zeroSmemDynamic = true},
        ResourcesJsonOptions{.zeroSpills = false, .stackFrame = true}}) {
    json j = resourcesToJson(r, options);
    auto back = resourcesFromJson(JsonReader(j));
    ASSERT_TRUE(back) << back.error().str();
    EXPECT_EQ(back->registers, 40);
    EXPECT_EQ(back->spillLoads, 3);
    EXPECT_EQ(back->stackFrame, options.stackFrame ? 24 : 0);
    EXPECT_EQ(back->smemDynamic, 512);
    EXPECT_EQ(back->threadsPerBlock, 256);
    EXPECT_EQ(back->blocksPerSM, 2);
  }
  // What is not there is unknown (-1) or 0.
  json empty = json::object();
  auto none = resourcesFromJson(JsonReader(empty));
  ASSERT_TRUE(none);
  EXPECT_EQ(none->registers, -1);
  EXPECT_EQ(none->smemStatic, -1);
  EXPECT_EQ(none->blocksPerSM, -1);
  EXPECT_EQ(none->spillStores, 0);
}

TEST(ResourcesJson, WrongTypesAreErrorsWithTheirPath) {
  json j = json::parse(R"({"resources": {"registers": "40"}})");
  auto bad = resourcesFromJson(JsonReader(j)["resources"]);
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().str(), "resources.registers: expected an integer");
  json big = json::parse(R"({"registers": 4294967296})");
  EXPECT_FALSE(resourcesFromJson(JsonReader(big)));
  json notObject = json::array();
  EXPECT_FALSE(resourcesFromJson(JsonReader(notObject)));
}

} // namespace
