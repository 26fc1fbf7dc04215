// Finding the plan's JSON in what a planner said.
#include "ktune/Planner/Prompt.h"

#include "PlannerTestSupport.h"

#include <gtest/gtest.h>

using namespace ktune;
using namespace ktune::planner;
using namespace ktune::planner::test;

static nlohmann::json extracted(std::string_view reply) {
  auto j = extractPlanJson(reply);
  EXPECT_TRUE(j) << j.error().str();
  return j ? *j : nlohmann::json();
}

static std::string refusal(std::string_view reply) {
  auto j = extractPlanJson(reply);
  EXPECT_FALSE(j) << "accepted: " << j->dump();
  return j ? std::string() : j.error().message;
}

TEST(ExtractPlanJson, WholeReply) {
  EXPECT_EQ(extracted("  {\"a\": 1}\n"), nlohmann::json({{"a", 1}}));
}

TEST(ExtractPlanJson, JsonFenceAmongProse) {
  EXPECT_EQ(extracted("Sure {not json}.\n```json\n{\"a\": 2}\n```\nDone {}."),
            nlohmann::json({{"a", 2}}));
}

TEST(ExtractPlanJson, JsonTaggedFenceWinsOverAnEarlierUntaggedOne) {
  EXPECT_EQ(extracted("```\n{\"a\": 1}\n```\n```JSON\n{\"a\": 2}\n```\n"),
            nlohmann::json({{"a", 2}}));
}

TEST(ExtractPlanJson, UntaggedOrOtherFenceHoldingAnObject) {
  EXPECT_EQ(extracted("plan:\n```\n{\"a\": 3}\n```"),
            nlohmann::json({{"a", 3}}));
  EXPECT_EQ(extracted("```text\nnot it\n```\n~~~javascript\n{\"a\": 4}\n~~~"),
            nlohmann::json({{"a", 4}}));
}

TEST(ExtractPlanJson, OutermostBracesInProse) {
  EXPECT_EQ(extracted("The plan is {\"a\": {\"b\": 5}} as requested"),
            nlohmann::json({{"a", {{"b", 5}}}}));
}

TEST(ExtractPlanJson, ReasoningBlockIsSkipped) {
  EXPECT_EQ(extracted("<think>maybe {x} or {y}?</think>\n{\"a\": 6}"),
            nlohmann::json({{"a", 6}}));
  EXPECT_NE(refusal("<think>{\"a\": 6} never finished").find("empty"),
            std::string::npos);
}

TEST(ExtractPlanJson, RecordedReplies) {
  EXPECT_EQ(extracted(replyText("good.txt"))["kernels"][0]["kernel"],
            "rms_scale");
  EXPECT_EQ(extracted(replyText("fenced.txt"))["kernels"][0]["params"].size(),
            2u);
  EXPECT_EQ(extracted(replyText("think.txt"))["kernels"][0]["params"].size(),
            1u);
}

TEST(ExtractPlanJson, RefusalsSayWhy) {
  EXPECT_NE(refusal(replyText("malformed.txt")).find("does not parse"),
            std::string::npos);
  EXPECT_NE(refusal("```json\n{\"a\": 1,}\n```").find("does not parse"),
            std::string::npos);
  EXPECT_NE(refusal(replyText("prose-only.txt")).find("holds no JSON object"),
            std::string::npos);
  EXPECT_NE(refusal("   \n").find("empty"), std::string::npos);
  EXPECT_NE(refusal("[1, 2]").find("no JSON object"), std::string::npos);
  std::string huge(MaxReplyBytes + 1, ' ');
  EXPECT_NE(refusal(huge).find("at most"), std::string::npos);
}
