#include "ktune/Tune/T4.h"

#include <gtest/gtest.h>

using namespace ktune;

namespace {
JournalEntry make(int64_t b, EvalStatus status, JournalPhase phase,
                  Shape shape = {}) {
  JournalEntry e;
  e.key = {"sha", "k", "dev", "sm_90", shape, {{"B", b}}};
  e.result.status = status;
  if (status == EvalStatus::Ok)
    e.result.time = Timing{250.0, 1.0, 10};
  e.result.compileMs = 80;
  e.evalMs = 100;
  e.searchMs = 2;
  e.phase = phase;
  e.at = "2026-11-22T10:00:00.000Z";
  return e;
}
} // namespace

TEST(T4, EveryEvaluationInOrderWithInvalidity) {
  std::vector<JournalEntry> entries = {
      make(256, EvalStatus::Ok, JournalPhase::Default),
      make(64, EvalStatus::CompileError, JournalPhase::Search),
      make(128, EvalStatus::Ok, JournalPhase::Search),
      make(128, EvalStatus::Ok, JournalPhase::Retime),
      make(512, EvalStatus::Pruned, JournalPhase::Search),
      make(1024, EvalStatus::WrongResult, JournalPhase::Search),
      make(32, EvalStatus::Timeout, JournalPhase::General),
      make(16, EvalStatus::RuntimeError, JournalPhase::Search)};
  auto t4 = journalToT4(entries);
  EXPECT_EQ(t4["schema_version"], "1.0.0");
  const auto &results = t4["results"];
  ASSERT_EQ(results.size(), 7u); // the re-timing is left out
  std::vector<std::string> invalidity;
  for (const auto &r : results)
    invalidity.push_back(r["invalidity"]);
  EXPECT_EQ(invalidity, (std::vector<std::string>{
                            "correct", "compile", "correct", "constraints",
                            "correctness", "timeout", "runtime"}));
  EXPECT_EQ(results[0]["configuration"]["B"], 256);
  EXPECT_EQ(results[0]["correctness"], 1);
  EXPECT_EQ(results[0]["measurements"][0]["value"], 0.25); // ms
  EXPECT_EQ(results[0]["measurements"][0]["unit"], "ms");
  EXPECT_EQ(results[0]["times"]["runtimes"][0], 0.25);
  EXPECT_EQ(results[0]["times"]["compilation"], 80.0);
  EXPECT_EQ(results[0]["times"]["search_algorithm"], 2.0);
  EXPECT_EQ(results[0]["objectives"][0], "time");
  EXPECT_EQ(results[1]["correctness"], 0);
  EXPECT_EQ(results[1]["measurements"][0]["value"], "CompilationFailedConfig");
  EXPECT_FALSE(results[1]["times"].contains("runtimes"));
}

TEST(T4, ShapeDimensionsJoinTheConfiguration) {
  auto t4 = journalToT4(
      {make(256, EvalStatus::Ok, JournalPhase::Search, {{"num_tokens", 16}})});
  EXPECT_EQ(t4["results"][0]["configuration"]["num_tokens"], 16);
  EXPECT_EQ(t4["results"][0]["configuration"]["B"], 256);
}

TEST(T4, CompileOnlyResultsWithoutTimeAreLeftOut) {
  JournalEntry e = make(256, EvalStatus::Ok, JournalPhase::Search);
  e.result.time.reset();
  EXPECT_TRUE(journalToT4({e})["results"].empty());
}
