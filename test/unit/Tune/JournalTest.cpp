#include "ktune/Tune/Journal.h"

#include "TempDir.h"

#include <gtest/gtest.h>

#include <unistd.h>

using namespace ktune;
using ktune::testing::slurp;
using ktune::testing::spit;
using ktune::testing::TempDir;

namespace {

JournalEntry entry(int64_t block, double us,
                   EvalStatus status = EvalStatus::Ok) {
  JournalEntry e;
  e.key = {"abc123",
           "rmsnorm",
           "NVIDIA H200",
           "sm_90",
           {{"num_tokens", 16}, {"hidden", 4096}},
           {{"BLOCK_SIZE", block}, {"VEC", 8}}};
  e.result.status = status;
  if (status == EvalStatus::Ok)
    e.result.time = Timing{us, us / 100, 200, false, true};
  else
    e.result.reason = "too many registers";
  e.result.resources.registers = 32;
  e.result.resources.smemStatic = 2048;
  e.result.compileMs = 91.5;
  e.evalMs = 300;
  e.searchMs = 0.25;
  e.at = utcTimestamp();
  return e;
}

} // namespace

TEST(Journal, TimestampIsUtcIso) {
  std::string t = utcTimestamp();
  ASSERT_EQ(t.size(), 24u) << t;
  EXPECT_EQ(t[4], '-');
  EXPECT_EQ(t[10], 'T');
  EXPECT_EQ(t.back(), 'Z');
}

TEST(Journal, EntryJsonRoundTrip) {
  JournalEntry e = entry(256, 69.1);
  auto j = journalEntryToJson(e);
  EXPECT_EQ(j["key"]["config"]["BLOCK_SIZE"], 256);
  EXPECT_EQ(j["status"], "ok");
  EXPECT_EQ(j["time_us"]["median"], 69.1);
  EXPECT_EQ(j["resources"]["registers"], 32);
  auto back = journalEntryFromJson(j, "x:1");
  ASSERT_TRUE(back) << back.error().str();
  EXPECT_EQ(back->key, e.key);
  EXPECT_EQ(back->result.status, EvalStatus::Ok);
  EXPECT_DOUBLE_EQ(back->result.time->medianUs, 69.1);
  EXPECT_EQ(back->result.time->reps, 200);
  EXPECT_EQ(back->result.resources.smemStatic, 2048);
  EXPECT_EQ(back->at, e.at);

  JournalEntry failed = entry(1024, 0, EvalStatus::Pruned);
  auto jf = journalEntryToJson(failed);
  EXPECT_FALSE(jf.contains("time_us"));
  auto fb = journalEntryFromJson(jf, "x:2");
  ASSERT_TRUE(fb);
  EXPECT_EQ(fb->result.status, EvalStatus::Pruned);
  EXPECT_EQ(fb->result.reason, "too many registers");
  EXPECT_FALSE(fb->result.time);
}

TEST(Journal, BadEntriesAreErrors) {
  EXPECT_FALSE(journalEntryFromJson(nlohmann::json::parse("{}"), "x:1"));
  auto j = journalEntryToJson(entry(256, 1));
  j["status"] = "exploded";
  auto e = journalEntryFromJson(j, "x:3");
  ASSERT_FALSE(e);
  EXPECT_EQ(e.error().where, "x:3");
}

TEST(Journal, AppendAndReopen) {
  TempDir dir;
  std::string path = dir.file("run.jsonl");
  {
    auto j = Journal::open(path);
    ASSERT_TRUE(j) << j.error().str();
    EXPECT_TRUE((*j)->entries().empty());
    ASSERT_TRUE((*j)->append(entry(128, 80)));
    ASSERT_TRUE((*j)->append(entry(256, 70)));
    // Flushed as written: another reader sees both lines now.
    std::string text = slurp(path);
    EXPECT_EQ(std::count(text.begin(), text.end(), '\n'), 2);
  }
  auto j = Journal::open(path);
  ASSERT_TRUE(j) << j.error().str();
  ASSERT_EQ((*j)->entries().size(), 2u);
  EXPECT_FALSE((*j)->droppedTruncatedLine());
  const JournalEntry *found = (*j)->find(entry(256, 0).key);
  ASSERT_NE(found, nullptr);
  EXPECT_DOUBLE_EQ(found->result.time->medianUs, 70);
  EXPECT_EQ((*j)->find(entry(512, 0).key), nullptr);
}

TEST(Journal, TruncatedLastLineIsDroppedAndCut) {
  TempDir dir;
  std::string path = dir.file("run.jsonl");
  {
    auto j = Journal::open(path);
    ASSERT_TRUE(j);
    ASSERT_TRUE((*j)->append(entry(128, 80)));
    ASSERT_TRUE((*j)->append(entry(256, 70)));
  }
  // A kill in the middle of the third write.
  std::string full = journalEntryToJson(entry(512, 60)).dump();
  spit(path, slurp(path) + full.substr(0, full.size() / 2));
  {
    auto j = Journal::open(path);
    ASSERT_TRUE(j) << j.error().str();
    EXPECT_TRUE((*j)->droppedTruncatedLine());
    EXPECT_EQ((*j)->entries().size(), 2u);
    ASSERT_TRUE((*j)->append(entry(512, 60)));
  }
  auto j = Journal::open(path);
  ASSERT_TRUE(j) << j.error().str();
  EXPECT_FALSE((*j)->droppedTruncatedLine());
  ASSERT_EQ((*j)->entries().size(), 3u);
  EXPECT_EQ((*j)->entries()[2].key.config.at("BLOCK_SIZE"), 512);
}

TEST(Journal, WholeLastEntryWithoutNewlineIsKept) {
  TempDir dir;
  std::string path = dir.file("run.jsonl");
  spit(path, journalEntryToJson(entry(128, 80)).dump());
  {
    auto j = Journal::open(path);
    ASSERT_TRUE(j) << j.error().str();
    EXPECT_EQ((*j)->entries().size(), 1u);
    ASSERT_TRUE((*j)->append(entry(256, 70)));
  }
  auto j = Journal::open(path);
  ASSERT_TRUE(j) << j.error().str();
  EXPECT_EQ((*j)->entries().size(), 2u);
}

TEST(Journal, CorruptLineInTheMiddleIsAnErrorWithItsLine) {
  TempDir dir;
  std::string path = dir.file("run.jsonl");
  spit(path, journalEntryToJson(entry(128, 80)).dump() + "\n{garbage\n" +
                 journalEntryToJson(entry(256, 70)).dump() + "\n");
  auto j = Journal::open(path);
  ASSERT_FALSE(j);
  EXPECT_EQ(j.error().where, path + ":2");
}

TEST(Journal, OneWriterAtATime) {
  TempDir dir;
  std::string path = dir.file("run.jsonl");
  auto first = Journal::open(path);
  ASSERT_TRUE(first);
  auto second = Journal::open(path);
  ASSERT_FALSE(second);
  EXPECT_NE(second.error().message.find("in use"), std::string::npos);
}

TEST(Journal, RetimesAreNotFoundAsEvaluations) {
  TempDir dir;
  auto j = Journal::open(dir.file("run.jsonl"));
  ASSERT_TRUE(j);
  JournalEntry e = entry(128, 80);
  e.phase = JournalPhase::Retime;
  e.retimeBatch = "b1";
  ASSERT_TRUE((*j)->append(e));
  EXPECT_EQ((*j)->find(e.key), nullptr);
  EXPECT_EQ((*j)->entries().size(), 1u);
}

// Fields of the wrong type are errors at the line, never exceptions.
TEST(Journal, WrongTypesAreErrorsNotExceptions) {
  auto withField = [](const std::string &path, nlohmann::json value) {
    auto j = journalEntryToJson(entry(256, 1));
    j[nlohmann::json::json_pointer(path)] = std::move(value);
    return journalEntryFromJson(j, "x:4");
  };
  auto phase = withField("/phase", 1);
  ASSERT_FALSE(phase);
  EXPECT_EQ(phase.error().str(), "x:4: phase: expected a string");
  auto cold = withField("/time_us/cold_l2", 0);
  ASSERT_FALSE(cold);
  EXPECT_EQ(cold.error().str(), "x:4: time_us.cold_l2: expected true or false");
  auto regs = withField("/resources/registers", "32");
  ASSERT_FALSE(regs);
  EXPECT_EQ(regs.error().str(),
            "x:4: resources.registers: expected an integer");
  auto shape = withField("/key/shape", nlohmann::json::array());
  ASSERT_FALSE(shape);
  EXPECT_EQ(shape.error().str(),
            "x:4: key.shape: expected an object of integers");
  auto kernel = withField("/key/kernel", 3);
  ASSERT_FALSE(kernel);
  EXPECT_EQ(kernel.error().str(), "x:4: key.kernel: expected a string");
}

TEST(Journal, TheCompilerIsPartOfTheKey) {
  JournalEntry e = entry(256, 10);
  // NVRTC's keys carry no compiler (journals written before there was a
  // choice read the same).
  EXPECT_FALSE(journalEntryToJson(e)["key"].contains("compiler"));
  EXPECT_EQ(journalCompiler(CompilerReport{"nvrtc"}), "");
  EXPECT_EQ(journalCompiler(CompilerReport{"nvcc"}), "nvcc");
  JournalEntry nvcc = e;
  nvcc.key.compiler = "nvcc";
  EXPECT_NE(nvcc.key.canonical(), e.key.canonical());
  EXPECT_FALSE(nvcc.key.sameRun(e.key));
  auto back = journalEntryFromJson(journalEntryToJson(nvcc), "j:1");
  ASSERT_TRUE(back) << back.error().str();
  EXPECT_EQ(back->key, nvcc.key);
  TempDir dir;
  auto j = Journal::open(dir.file("j.jsonl"));
  ASSERT_TRUE(j);
  ASSERT_TRUE((*j)->append(e));
  EXPECT_EQ((*j)->find(nvcc.key), nullptr);
  EXPECT_NE((*j)->find(e.key), nullptr);
}
