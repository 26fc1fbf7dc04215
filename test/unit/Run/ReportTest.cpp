#include "ktune/Run/Report.h"

#include "Fabricate.h"

#include "ktune/Support/FileUtil.h"

#include <gtest/gtest.h>

#include <cmath>
#include <regex>

using namespace ktune;
using namespace ktune::run;
using namespace ktune::testing;

namespace {

size_t count(const std::string &text, const std::string &what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos;
       at = text.find(what, at + what.size()))
    ++n;
  return n;
}

RunRecord record() {
  SpaceDefinition d;
  d.params.push_back({"BLOCK", Domain::ofPow2Range(64, 512), 256});
  d.params.push_back({"VEC", Domain::ofValues({1, 2, 4, 8}), 4});
  RunRecord r;
  r.source = "examples/k<1>.cu";
  r.backend = "synthetic";
  r.device = "NVIDIA H200";
  r.arch = "sm_90";
  r.strategy = "bayes";
  r.roundsAsked = 3;
  r.roofline = {4.25, "test"};
  for (int round = 1; round <= 2; ++round) {
    auto f = fabricate(
        d, {{{"n", 64}}, {{"n", 1024}}},
        [round](const Shape &s, const Configuration &c) {
          return static_cast<double>(s.at("n")) *
                 (1.0 + 0.2 * std::abs(std::log2(c.at("BLOCK") / 128.0))) *
                 (round == 1 ? 4.0 : 2.0) / static_cast<double>(c.at("VEC"));
        },
        0.005, "4250000 * n");
    RoundRecord rr;
    rr.round = round;
    rr.dir = "round-" + std::to_string(round);
    rr.templateFile = "k.tpl.cu";
    rr.planSource = round == 1 ? "heuristic" : "rules after round 1";
    PlanKernel pk;
    pk.kernel = "k";
    pk.params.push_back({"BLOCK",
                         ParamKind::BlockSize,
                         {"c1"},
                         {},
                         256,
                         Domain::ofPow2Range(64, 512),
                         ""});
    pk.params.push_back({"VEC",
                         ParamKind::VectorWidth,
                         {"c2"},
                         {},
                         4,
                         Domain::ofValues({1, 2, 4, 8}),
                         ""});
    rr.plan.kernels.push_back(pk);
    KernelRound kr;
    kr.kernel = "k";
    kr.results = f.results;
    kr.journal = f.journal;
    kr.analysis = analyse(f);
    rr.kernels.push_back(kr);
    if (round == 1) {
      ReplanDecision dec;
      dec.replanner = "rules";
      dec.changed = true;
      dec.plan = rr.plan;
      dec.reasons.push_back(
          {"k", "VEC", ReplanAction::Widen, "best value 8 at the <high> edge"});
      rr.replan = dec;
    } else {
      rr.stop = StopDecision{true, "round 2 gained nothing"};
    }
    r.rounds.push_back(rr);
  }
  r.bestRound = 2;
  r.bestRoundReason = "lowest geomean";
  r.stopReason = "round 2 gained nothing";
  return r;
}

std::string frame() {
  auto text =
      readFile(std::string(KTUNE_SOURCE_DIR) + "/templates/report.html.in");
  if (!text)
    throw std::runtime_error(text.error().str());
  return *text;
}

} // namespace

TEST(FillTemplate, ReplacesPlaceholdersAndRefusesUnknownOnes) {
  auto ok = fillTemplate("a {{x}} b {{ y }} {{}} c", {{"x", "1"}}, "t");
  ASSERT_TRUE(ok) << ok.error().str();
  EXPECT_EQ(*ok, "a 1 b {{ y }} {{}} c");
  auto bad = fillTemplate("line\n{{nope}}", {}, "t.html");
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().where, "t.html:2");
  EXPECT_NE(bad.error().message.find("{{nope}}"), std::string::npos);
  // Inserted text is not scanned again.
  auto once = fillTemplate("{{x}}", {{"x", "{{x}}"}}, "t");
  ASSERT_TRUE(once);
  EXPECT_EQ(*once, "{{x}}");
}

TEST(HtmlEscape, EscapesMarkup) {
  EXPECT_EQ(htmlEscape("<a href=\"x\">&'"),
            "&lt;a href=&quot;x&quot;&gt;&amp;&#39;");
}

TEST(Report, ShowsEveryPart) {
  auto html = renderReport(record(), frame(), "report.html.in");
  ASSERT_TRUE(html) << html.error().str();
  const std::string &h = *html;
  // Self-contained: no scripts, nothing fetched.
  EXPECT_EQ(h.find("<script"), std::string::npos);
  EXPECT_FALSE(std::regex_search(h, std::regex("(src|href)=\"https?:")));
  // The source name is escaped.
  EXPECT_NE(h.find("k&lt;1&gt;.cu"), std::string::npos);
  EXPECT_EQ(h.find("k<1>.cu"), std::string::npos);
  // Summary rows per shape with the speedup and the roofline share.
  EXPECT_NE(h.find("n=64"), std::string::npos);
  EXPECT_NE(h.find("n=1024"), std::string::npos);
  EXPECT_NE(h.find("x</td>"), std::string::npos);
  EXPECT_NE(h.find("class=\"bar\""), std::string::npos);
  // A convergence plot with one line per round, and heat maps per shape.
  EXPECT_EQ(count(h, "class=\"plot\""), 1u);
  EXPECT_EQ(count(h, "<polyline"), 2u);
  EXPECT_NE(h.find("round 1 (2 params)"), std::string::npos);
  EXPECT_EQ(count(h, "class=\"heatmap\""), 2u);
  EXPECT_NE(h.find("class=\"best-cell\""), std::string::npos);
  EXPECT_NE(h.find("class=\"default-cell\""), std::string::npos);
  // Resources of the winners, plans and reasons of every round.
  EXPECT_NE(h.find("registers"), std::string::npos);
  EXPECT_NE(h.find("Round 1"), std::string::npos);
  EXPECT_NE(h.find("Round 2"), std::string::npos);
  EXPECT_NE(h.find("badge widen"), std::string::npos);
  EXPECT_NE(h.find("the &lt;high&gt; edge"), std::string::npos);
  EXPECT_NE(h.find("round 2 gained nothing"), std::string::npos);
  // Every placeholder was filled.
  EXPECT_EQ(h.find("{{"), std::string::npos);
}

TEST(Report, CompileOnlyListsConfigurationsInsteadOfTimes) {
  RunRecord r = record();
  r.rounds.resize(1);
  r.bestRound = 1;
  r.backend = "compile-only";
  auto &k = r.rounds[0].kernels[0];
  k.results.compileOnly = true;
  k.analysis.compileOnly = true;
  for (auto &s : k.results.shapes) {
    s.finalists.clear();
    s.finalists.push_back({s.defaultConfig, EvalResult{}});
    EvalResult pruned;
    pruned.status = EvalStatus::Pruned;
    pruned.reason = "over 1024 threads";
    s.finalists.push_back({{{"BLOCK", 2048}, {"VEC", 1}}, pruned});
  }
  auto html = renderReport(r, frame(), "report.html.in");
  ASSERT_TRUE(html) << html.error().str();
  EXPECT_EQ(html->find("class=\"plot\""), std::string::npos);
  EXPECT_EQ(html->find("class=\"heatmap\""), std::string::npos);
  EXPECT_NE(html->find("pruned: over 1024 threads"), std::string::npos);
  EXPECT_NE(html->find("BLOCK=256 VEC=4 (default)"), std::string::npos);
  EXPECT_NE(html->find("compile-only"), std::string::npos);
}

TEST(Report, LongPlannerCommandsAreShortenedWithTheWholeTextAsTooltip) {
  RunRecord r = record();
  const std::string command =
      "command:/opt/python/bin/python3 /srv/agents/replay_command.py "
      "--scenario /srv/agents/scenario.json --state state";
  r.rounds[1].planSource = command + " after round 1 (applied)";
  r.rounds[0].replan->replanner = command;
  r.rounds[0].replan->outcome = "applied";
  auto html = renderReport(r, frame(), "report.html.in");
  ASSERT_TRUE(html) << html.error().str();
  EXPECT_NE(html->find("plan from <span title=\"" + command +
                       " after round 1 (applied)\">command:python3 "
                       "replay_command.py &hellip; after round 1 (applied)"),
            std::string::npos);
  EXPECT_NE(html->find(">command:python3 replay_command.py &hellip;</span>, "
                       "applied)"),
            std::string::npos);
  // The whole command appears only in tooltips.
  EXPECT_EQ(count(*html, "--scenario /srv/agents/scenario.json"),
            count(*html, "title=\"command:"));
  // Short ones stay as they are.
  EXPECT_NE(html->find("plan from heuristic"), std::string::npos);
}
