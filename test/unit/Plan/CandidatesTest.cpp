#include "ktune/Plan/Candidates.h"

#include "PlanTestSupport.h"

#include <gtest/gtest.h>

using namespace ktune;
using nlohmann::json;

static const char *Example = R"json({
  "ktune": "candidates/1", "file": "examples/rmsnorm.cu",
  "candidates": [
    {"id": "c3", "kind": "block_size", "kernel": "rmsnorm", "value": 256,
     "spelling": "kBlockSize", "confidence": "high",
     "why": "constexpr used as launch block dim",
     "sites": [
       {"file": "examples/rmsnorm.cu", "line": 12, "col": 28, "offset": 211,
        "length": 3, "text": "256", "role": "definition"},
       {"file": "examples/rmsnorm.cu", "line": 51, "col": 30, "offset": 1400,
        "length": 10, "text": "kBlockSize", "role": "launch_block",
        "replacement": "{P}"},
       {"file": "examples/rmsnorm.cu", "line": 60, "col": 9, "offset": 1600,
        "length": 3, "text": "255", "role": "index_arith",
        "replacement": "{P} - 1"}],
     "implied_constraints": ["{c3} % 32 == 0", "{c3} <= 1024"]},
    {"id": "c5", "kind": "unroll", "kernel": "rmsnorm", "value": 4,
     "sites": [{"line": 30, "col": 17, "offset": 700, "text": "4",
                "role": "unroll_pragma"}]}]})json";

TEST(Candidates, ReadsEveryField) {
  auto set = candidatesFromJson(json::parse(Example));
  ASSERT_TRUE(set) << set.error().str();
  EXPECT_EQ(set->file, "examples/rmsnorm.cu");
  ASSERT_EQ(set->candidates.size(), 2u);
  const Candidate *c3 = set->find("c3");
  ASSERT_NE(c3, nullptr);
  EXPECT_EQ(c3->kind, ParamKind::BlockSize);
  EXPECT_EQ(c3->kernel, "rmsnorm");
  EXPECT_EQ(c3->value, 256);
  EXPECT_EQ(c3->spelling, "kBlockSize");
  EXPECT_EQ(c3->confidence, Confidence::High);
  EXPECT_EQ(c3->why, "constexpr used as launch block dim");
  ASSERT_EQ(c3->sites.size(), 3u);
  EXPECT_EQ(c3->sites[2].line, 60u);
  EXPECT_EQ(c3->sites[2].col, 9u);
  EXPECT_EQ(c3->sites[2].offset, 1600u);
  EXPECT_EQ(c3->sites[2].length, 3u);
  EXPECT_EQ(c3->sites[2].text, "255");
  EXPECT_EQ(c3->sites[2].role, SiteRole::IndexArith);
  EXPECT_EQ(c3->sites[2].replacement, "{P} - 1");
  EXPECT_EQ(c3->impliedConstraints,
            (std::vector<std::string>{"{c3} % 32 == 0", "{c3} <= 1024"}));
  EXPECT_EQ(set->find("c9"), nullptr);
}

TEST(Candidates, DefaultsForOptionalFields) {
  auto set = candidatesFromJson(json::parse(Example));
  ASSERT_TRUE(set);
  const Candidate *c5 = set->find("c5");
  ASSERT_NE(c5, nullptr);
  EXPECT_EQ(c5->confidence, Confidence::Medium);
  EXPECT_EQ(c5->spelling, "4");
  ASSERT_EQ(c5->sites.size(), 1u);
  EXPECT_EQ(c5->sites[0].file, "examples/rmsnorm.cu"); // the set's file
  EXPECT_EQ(c5->sites[0].length, 1u);                  // from the text
  EXPECT_EQ(c5->sites[0].replacement, "{P}");
  EXPECT_TRUE(c5->impliedConstraints.empty());
}

TEST(Candidates, RoundTrip) {
  auto set = candidatesFromJson(json::parse(Example));
  ASSERT_TRUE(set);
  json out = candidatesToJson(*set);
  EXPECT_EQ(out["ktune"], "candidates/1");
  EXPECT_EQ(out["candidates"][0]["sites"][2]["replacement"], "{P} - 1");
  auto again = candidatesFromJson(out);
  ASSERT_TRUE(again) << again.error().str();
  EXPECT_EQ(candidatesToJson(*again), out);
}

TEST(Candidates, KindAndConfidenceNames) {
  for (auto kind :
       {ParamKind::BlockSize, ParamKind::TileSize, ParamKind::Unroll,
        ParamKind::VectorWidth, ParamKind::ItemsPerThread,
        ParamKind::WarpsPerBlock, ParamKind::Other})
    EXPECT_EQ(parseKind(kindName(kind)), kind);
  EXPECT_EQ(kindName(ParamKind::ItemsPerThread), "items_per_thread");
  EXPECT_FALSE(parseKind("blocksize"));
  for (auto c : {Confidence::High, Confidence::Medium, Confidence::Low})
    EXPECT_EQ(parseConfidence(confidenceName(c)), c);
  EXPECT_FALSE(parseConfidence("certain"));
}

static Error readError(const std::function<void(json &)> &edit) {
  return ktune::test::errorAfterEdit(Example, candidatesFromJson, edit);
}

TEST(Candidates, ErrorsNameTheJsonPath) {
  using namespace ktune::test;
  const std::vector<BrokenField> cases = {
      {setAt("/ktune", "candidates/2"), "ktune"},
      {eraseAt("/ktune"), "ktune"},
      {setAt("/candidates", 3), "candidates"},
      {setAt("/candidates/1/kind", "warp"), "candidates[1].kind"},
      {setAt("/candidates/0/value", "256"), "candidates[0].value"},
      {setAt("/candidates/0/confidence", "sure"), "candidates[0].confidence"},
      {eraseAt("/candidates/0/id"), "candidates[0].id"},
      {setAt("/candidates/0/sites", json::array()), "candidates[0].sites"},
      {setAt("/candidates/0/sites/1/line", 0), "candidates[0].sites[1].line"},
      {setAt("/candidates/0/sites/1/offset", -4),
       "candidates[0].sites[1].offset"},
      {setAt("/candidates/0/sites/0/length", 5),
       "candidates[0].sites[0].length"},
      {setAt("/candidates/0/sites/0/text", 256), "candidates[0].sites[0].text"},
      {setAt("/candidates/0/implied_constraints/1", 1024),
       "candidates[0].implied_constraints[1]"},
  };
  for (const auto &[edit, where] : cases)
    EXPECT_EQ(readError(edit).where, where);
  Error dup = readError([](json &j) { j["candidates"][1]["id"] = "c3"; });
  EXPECT_EQ(dup.where, "candidates[1].id");
  EXPECT_NE(dup.message.find("duplicate"), std::string::npos);
}

// Text a site inserts is what ktune writes into the source: only the two
// forms detection produces are read, and they round-trip.
TEST(Candidates, InsertedTextIsOneOfTwoForms) {
  auto withSite = [](json site) {
    json j = json::parse(Example);
    j["candidates"][0]["sites"] = json::array({site});
    return candidatesFromJson(j);
  };
  json argument = {{"line", 3},     {"col", 20},  {"offset", 90},
                   {"length", 0},   {"text", ""}, {"role", "launch_grid"},
                   {"before", ", "}};
  json shadow = {{"line", 2},
                 {"col", 40},
                 {"offset", 40},
                 {"length", 0},
                 {"text", ""},
                 {"role", "launch_block"},
                 {"before", " constexpr int BLOCK_SIZE = "},
                 {"after", ";"}};
  for (const json &site : {argument, shadow}) {
    auto set = withSite(site);
    ASSERT_TRUE(set) << set.error().str();
    const SourceSite &s = set->candidates[0].sites[0];
    EXPECT_EQ(s.before, site["before"].get<std::string>());
    EXPECT_EQ(s.after, site.value("after", std::string()));
    auto again = candidatesFromJson(candidatesToJson(*set));
    ASSERT_TRUE(again);
    EXPECT_EQ(again->candidates[0].sites[0].before, s.before);
    EXPECT_EQ(again->candidates[0].sites[0].after, s.after);
  }
  json code = shadow;
  code["before"] = " system(\"rm -rf /\"); int x = ";
  EXPECT_FALSE(withSite(code));
  json noSemicolon = shadow;
  noSemicolon["after"] = "; int y;";
  EXPECT_FALSE(withSite(noSemicolon));
  json afterAlone = argument;
  afterAlone["after"] = ";";
  EXPECT_FALSE(withSite(afterAlone));
  json replacing = argument;
  replacing["length"] = 3;
  replacing["text"] = "256";
  EXPECT_FALSE(withSite(replacing));
}
