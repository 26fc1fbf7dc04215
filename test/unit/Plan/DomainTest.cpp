#include "ktune/Plan/Domain.h"

#include <gtest/gtest.h>

using namespace ktune;
using nlohmann::json;

TEST(Domain, ValuesAndRanges) {
  auto pow2 = domainFromJson(json::parse(R"({"range": {"min": 1, "max": 16, "step": "pow2"}})"), "p");
  ASSERT_TRUE(pow2) << pow2.error().str();
  EXPECT_EQ(pow2->enumerate(), (std::vector<int64_t>{1, 2, 4, 8, 16}));
  EXPECT_EQ(pow2->indexOf(8), 3u);
  EXPECT_FALSE(pow2->contains(6));

  auto step = domainFromJson(json::parse(R"({"range": {"min": 32, "max": 1024, "step": 32}})"), "p");
  ASSERT_TRUE(step);
  EXPECT_EQ(step->size(), 32u);
  EXPECT_EQ(step->at(31), 1024);
  EXPECT_FALSE(step->contains(48));

  auto list = domainFromJson(json::parse(R"({"values": [64, 128, 256]})"), "p");
  ASSERT_TRUE(list);
  EXPECT_EQ(list->size(), 3u);
  EXPECT_EQ(list->at(1), 128);
}

TEST(Domain, RejectsBadInput) {
  auto both = domainFromJson(json::parse(R"({"values": [1], "range": {"min": 1, "max": 2}})"), "kernels[0].params[1]");
  ASSERT_FALSE(both);
  EXPECT_EQ(both.error().where, "kernels[0].params[1]");
  auto huge = domainFromJson(json::parse(R"({"range": {"min": 0, "max": 100000000000}})"), "p");
  ASSERT_FALSE(huge);
  EXPECT_NE(huge.error().message.find("at most"), std::string::npos);
  auto dup = domainFromJson(json::parse(R"({"values": [1, 2, 1]})"), "p");
  ASSERT_FALSE(dup);
  EXPECT_EQ(dup.error().where, "p.values[2]");
  auto text = domainFromJson(json::parse(R"({"values": ["256"]})"), "p");
  ASSERT_FALSE(text);
  auto backwards = domainFromJson(json::parse(R"({"range": {"min": 8, "max": 1}})"), "p");
  ASSERT_FALSE(backwards);
}

TEST(Domain, HugeRangesNeitherOverflowNorHang) {
  auto pow2 = domainFromJson(
      json::parse(R"({"range": {"min": 1, "max": 9223372036854775807, "step": "pow2"}})"),
      "p");
  ASSERT_TRUE(pow2) << pow2.error().str();
  EXPECT_EQ(pow2->size(), 63u);
  EXPECT_EQ(pow2->at(62), int64_t(1) << 62);
  EXPECT_TRUE(pow2->contains(int64_t(1) << 62));

  auto wide = domainFromJson(
      json::parse(R"({"range": {"min": -9223372036854775807, "max": 9223372036854775807, "step": 4611686018427387904}})"),
      "p");
  ASSERT_TRUE(wide) << wide.error().str();
  EXPECT_EQ(wide->size(), 4u);
  EXPECT_EQ(wide->at(3), int64_t(4611686018427387905));
  EXPECT_TRUE(wide->contains(1));

  auto tooMany = domainFromJson(
      json::parse(R"({"range": {"min": -9223372036854775807, "max": 9223372036854775807}})"),
      "p");
  EXPECT_FALSE(tooMany);
}

TEST(Domain, DescribeForPeople) {
  EXPECT_EQ(Domain::ofValues({1, 2, 4, 8, 16}).describe(), "{1, 2, 4, 8, 16}");
  EXPECT_EQ(Domain::ofValues({7}).describe(), "{7}");
  EXPECT_EQ(Domain::ofRange(1, 16).describe(), "1..16");
  EXPECT_EQ(Domain::ofRange(32, 1024, 32).describe(), "32..1024 step 32");
  EXPECT_EQ(Domain::ofRange(-8, 8, 4).describe(), "-8..8 step 4");
  EXPECT_EQ(Domain::ofPow2Range(32, 1024).describe(), "powers of two 32..1024");
  auto read = domainFromJson(
      json::parse(R"({"range": {"min": 1, "max": 64, "step": "pow2"}})"), "p");
  ASSERT_TRUE(read);
  EXPECT_EQ(read->describe(), "powers of two 1..64");
}

TEST(Domain, ReadsThroughAJsonReader) {
  json j = json::parse(R"({"params": [{"values": [1, 2.0, 1]}]})");
  auto dup = domainFromJson(JsonReader(j)["params"][0]);
  ASSERT_FALSE(dup);
  EXPECT_EQ(dup.error().where, "params[0].values[2]");
  EXPECT_EQ(dup.error().message, "duplicate value 1");
  // Numbers too large for int64 are refused before any conversion.
  auto huge = domainFromJson(json::parse(R"({"values": [1e30]})"), "p");
  ASSERT_FALSE(huge);
  EXPECT_EQ(huge.error().where, "p.values[0]");
  auto wrongStep = domainFromJson(
      json::parse(R"({"range": {"min": 1, "max": 8, "step": "pow3"}})"), "p");
  ASSERT_FALSE(wrongStep);
  EXPECT_EQ(wrongStep.error().where, "p.range.step");
}
