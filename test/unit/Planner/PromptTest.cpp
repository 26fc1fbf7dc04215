// The prompt: placeholders substituted once, sections, fences, and the
// template and schema found at run time.
#include "ktune/Planner/Prompt.h"

#include "PlannerInternal.h"
#include "PlannerTestSupport.h"

#include <gtest/gtest.h>

using namespace ktune;
using namespace ktune::planner;
using namespace ktune::planner::test;

TEST(Substitute, InsertedTextIsNeverScannedAgain) {
  auto out = substitutePlaceholders("a {{x}} b {{y}}",
                                    {{"x", "{{y}} and {{#y}}"}, {"y", "Y"}});
  ASSERT_TRUE(out) << out.error().str();
  EXPECT_EQ(*out, "a {{y}} and {{#y}} b Y");
}

TEST(Substitute, UnknownPlaceholderNamesItAndItsLine) {
  auto out = substitutePlaceholders("line one\nline {{kernel_sorce}}\n",
                                    {{"kernel_source", ""}, {"x", ""}});
  ASSERT_FALSE(out);
  EXPECT_NE(out.error().message.find("{{kernel_sorce}}"), std::string::npos);
  EXPECT_NE(out.error().message.find("kernel_source"), std::string::npos);
  EXPECT_EQ(out.error().where, "prompt template line 2");
}

TEST(Substitute, SectionsAppearOnlyWhenTheirValueIsNotEmpty) {
  std::string t = "start\n{{#extra}}\nextra: {{extra}}\n{{/extra}}\nend\n";
  auto with = substitutePlaceholders(t, {{"extra", "E"}});
  auto without = substitutePlaceholders(t, {{"extra", ""}});
  ASSERT_TRUE(with && without);
  EXPECT_EQ(*with, "start\nextra: E\nend\n");
  EXPECT_EQ(*without, "start\nend\n");
}

TEST(Substitute, UnbalancedSectionsAreErrors) {
  EXPECT_FALSE(substitutePlaceholders("{{#a}} x", {{"a", "1"}}));
  EXPECT_FALSE(substitutePlaceholders("x {{/a}}", {{"a", "1"}}));
  EXPECT_FALSE(substitutePlaceholders("{{#a}}{{#b}}{{/a}}{{/b}}",
                                      {{"a", "1"}, {"b", "1"}}));
}

TEST(Substitute, TextThatIsNotATagStaysLiteral) {
  auto out =
      substitutePlaceholders("{{ x }} {{Upper}} {{x} {x}} {{", {{"x", "X"}});
  ASSERT_TRUE(out) << out.error().str();
  EXPECT_EQ(*out, "{{ x }} {{Upper}} {{x} {x}} {{");
}

TEST(Fence, IsLongerThanAnyBacktickRunInTheText) {
  EXPECT_EQ(fenced("int x;", "cuda"), "```cuda\nint x;\n```");
  std::string body = "// ```` in a comment\n";
  std::string f = fenced(body, "cuda");
  EXPECT_TRUE(f.starts_with("`````cuda\n")) << f;
  EXPECT_TRUE(f.ends_with("\n`````")) << f;
}

TEST(PromptValues, RoundOneHasNoPreviousRoundOrRefusal) {
  PlannerRequest r = fixtureRequest();
  auto v = promptValues(r, "{\"title\": \"schema\"}\n\n");
  EXPECT_EQ(v["kernel_file"], "rms_scale.cu");
  EXPECT_EQ(v["plan_version"], "plan/1");
  EXPECT_NE(v["kernel_source"].find(r.sources.at("rms_scale.cu")),
            std::string::npos);
  EXPECT_NE(v["candidates"].find("\"c_bs_2dd2\""), std::string::npos);
  EXPECT_EQ(v["plan_schema"], "```json\n{\"title\": \"schema\"}\n```");
  EXPECT_NE(v["device_limits"].find("\"sm_90\""), std::string::npos);
  EXPECT_EQ(v["previous_plan"], "");
  EXPECT_EQ(v["tuning_summary"], "");
  EXPECT_EQ(v["rejection_reasons"], "");
  EXPECT_EQ(v["rejected_reply"], "");
}

TEST(PromptValues, HeadersFollowTheMainFile) {
  PlannerRequest r = fixtureRequest();
  r.sources["a_header.cuh"] = "#define A 1\n";
  std::string s = promptValues(r, "{}")["kernel_source"];
  size_t main = s.find("File `rms_scale.cu`"),
         header = s.find("File `a_header.cuh`");
  ASSERT_NE(main, std::string::npos);
  ASSERT_NE(header, std::string::npos);
  EXPECT_LT(main, header);
}

TEST(RenderPrompt, TheShippedTemplateHoldsEverythingThePlannerNeeds) {
  PlannerRequest r = fixtureRequest();
  auto prompt = renderPrompt(r, {});
  ASSERT_TRUE(prompt) << prompt.error().str();
  EXPECT_NE(prompt->find(r.sources.at("rms_scale.cu")), std::string::npos);
  for (const auto &c : r.candidates.candidates)
    EXPECT_NE(prompt->find("\"" + c.id + "\""), std::string::npos) << c.id;
  EXPECT_NE(prompt->find("ktune rewrite plan (plan/1)"), std::string::npos)
      << "the plan schema is missing";
  EXPECT_NE(prompt->find("\"max_threads_per_block\": 1024"), std::string::npos);
  EXPECT_EQ(prompt->find("{{"), std::string::npos)
      << "unsubstituted placeholder";
  EXPECT_EQ(prompt->find("previous round"), std::string::npos);
  EXPECT_EQ(prompt->find("was refused"), std::string::npos);

  r.rejections = {
      Error{"unknown candidate 'c_x'", "kernels[0].params[0].candidates[0]"}};
  r.rejectedReply = "{\"ktune\": \"plan/1\", \"kernels\": [BROKEN";
  r.previousPlan = fixtureHeuristicPlan(r);
  r.tuningSummary = {{"ktune", "tuning-summary/1"},
                     {"kernels", {{{"kernel", "rms_scale"}}}}};
  auto second = renderPrompt(r, {});
  ASSERT_TRUE(second) << second.error().str();
  EXPECT_NE(
      second->find(
          "- kernels[0].params[0].candidates[0]: unknown candidate 'c_x'"),
      std::string::npos);
  EXPECT_NE(second->find(r.rejectedReply), std::string::npos);
  EXPECT_NE(second->find("previous round"), std::string::npos);
  EXPECT_NE(second->find("\"tuning-summary/1\""), std::string::npos);
}

TEST(RenderPrompt, TemplateOverridesWinInOrder) {
  TempDir dir;
  ASSERT_TRUE(writeFileAtomically(dir / "mine.md", "MINE {{kernel_file}}"));
  ASSERT_TRUE(writeFileAtomically(dir / "env.md", "ENV {{kernel_file}}"));
  PlannerRequest r = fixtureRequest();
  {
    ScopedEnv env("KTUNE_PROMPT_TEMPLATE", dir / "env.md");
    PromptOptions o;
    EXPECT_EQ(renderPrompt(r, o).value_or("?"), "ENV rms_scale.cu");
    o.templatePath = dir / "mine.md";
    EXPECT_EQ(renderPrompt(r, o).value_or("?"), "MINE rms_scale.cu");
    o.templatePath = dir / "missing.md";
    auto missing = renderPrompt(r, o);
    ASSERT_FALSE(missing);
    EXPECT_EQ(missing.error().where, dir / "missing.md");
  }
  {
    ScopedEnv env("KTUNE_PROMPT_TEMPLATE", dir / "nope.md");
    auto missing = renderPrompt(r, {});
    ASSERT_FALSE(missing);
    EXPECT_NE(missing.error().message.find("KTUNE_PROMPT_TEMPLATE"),
              std::string::npos);
  }
}

TEST(RenderPrompt, DataDirectoryHoldsTheInstalledLayout) {
  TempDir dir;
  fs::create_directories(dir.path() / "templates");
  fs::create_directories(dir.path() / "schemas");
  ASSERT_TRUE(writeFileAtomically(dir / "templates/planner_prompt.md",
                                  "DATA {{plan_schema}}"));
  ASSERT_TRUE(
      writeFileAtomically(dir / "schemas/plan.schema.json", "{\"s\": 1}"));
  ScopedEnv env("KTUNE_DATA_DIR", dir.path().string());
  ScopedEnv noTemplate("KTUNE_PROMPT_TEMPLATE", std::nullopt);
  ScopedEnv noSchema("KTUNE_PLAN_SCHEMA", std::nullopt);
  auto p = renderPrompt(fixtureRequest(), {});
  ASSERT_TRUE(p) << p.error().str();
  EXPECT_EQ(*p, "DATA ```json\n{\"s\": 1}\n```");
}

TEST(RenderPrompt, MalformedTemplateIsAnErrorNamingTheFile) {
  TempDir dir;
  ASSERT_TRUE(writeFileAtomically(dir / "bad.md", "ok\n{{kernel_cource}}\n"));
  PromptOptions o;
  o.templatePath = dir / "bad.md";
  auto p = renderPrompt(fixtureRequest(), o);
  ASSERT_FALSE(p);
  EXPECT_NE(p.error().str().find("bad.md"), std::string::npos)
      << p.error().str();
  EXPECT_NE(p.error().str().find("line 2"), std::string::npos)
      << p.error().str();
}

TEST(FindDataFile, ErrorListsEveryPlaceTried) {
  ScopedEnv env("KTUNE_TEST_NO_SUCH_VARIABLE", std::nullopt);
  auto f = findDataFile("", "KTUNE_TEST_NO_SUCH_VARIABLE", "templates/none.md",
                        "templates/none.md");
  ASSERT_FALSE(f);
  EXPECT_NE(f.error().message.find("KTUNE_TEST_NO_SUCH_VARIABLE"),
            std::string::npos);
  EXPECT_NE(f.error().message.find("share/ktune/templates/none.md"),
            std::string::npos)
      << f.error().message;
}
