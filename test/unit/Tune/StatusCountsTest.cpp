// Status counts: typed keys, iterated and written in the order of the names.
#include "ktune/Tune/Evaluator.h"

#include <gtest/gtest.h>

using namespace ktune;

TEST(StatusCounts, IterateInTheOrderOfTheNames) {
  StatusCounts counts;
  for (EvalStatus s :
       {EvalStatus::Ok, EvalStatus::Pruned, EvalStatus::CompileError,
        EvalStatus::RuntimeError, EvalStatus::Timeout, EvalStatus::WrongResult})
    ++counts[s];
  std::vector<std::string> names;
  for (const auto &[status, n] : counts)
    names.emplace_back(statusName(status));
  EXPECT_EQ(names, (std::vector<std::string>{"compile_error", "ok", "pruned",
                                             "runtime_error", "timeout",
                                             "wrong_result"}));
}

TEST(StatusCounts, JsonIsAnObjectKeyedByName) {
  StatusCounts counts{{EvalStatus::Ok, 45}, {EvalStatus::CompileError, 3}};
  nlohmann::json j = counts;
  EXPECT_EQ(j, nlohmann::json::parse(R"({"compile_error": 3, "ok": 45})"));
  EXPECT_EQ(j.dump(), R"({"compile_error":3,"ok":45})");
  nlohmann::json inObject = {{"statuses", counts}};
  EXPECT_EQ(inObject["statuses"]["ok"], 45);
  EXPECT_EQ(nlohmann::json(StatusCounts{}).dump(), "{}");
}
