// The steps of planRewrite, one by one (lib/Refactor/RewriteInternal.h).
#include "HandBuiltFacts.h"
#include "Rewrite/RewriteInternal.h"

#include <gtest/gtest.h>

using namespace ktune;
using namespace ktune::refactor;

TEST(RewriteText, IdentifiersSkipCommentsAndLiterals) {
  auto ids = identifiers("int a = b; // c\n/* d */ x = \"e\" + 'f' + 0x1f;");
  std::vector<std::string> names;
  for (const auto &[offset, name] : ids)
    names.push_back(name);
  EXPECT_EQ(names, (std::vector<std::string>{"int", "a", "b", "x"}));
  EXPECT_EQ(ids[1].first, 4u);
}

TEST(RewriteText, DefinedMacros) {
  EXPECT_EQ(definedMacros("#define BLOCK 256\n  #  define TILE(x) x\n"
                          "int DEFINE;\n"),
            (std::set<std::string>{"BLOCK", "TILE"}));
}

TEST(RewriteText, SubstituteParenthesisesCompoundForms) {
  SourceSite s;
  s.role = SiteRole::LaunchGrid;
  s.replacement = "{P} - 1";
  EXPECT_EQ(substitute(s, "BS"), "(BS - 1)");
  s.role = SiteRole::SharedExtent; // delimited by the brackets
  s.replacement = "{P} + 1";
  EXPECT_EQ(substitute(s, "TILE"), "TILE + 1");
  s.role = SiteRole::LoopStride;
  s.replacement = "static_cast<unsigned>({P})";
  EXPECT_EQ(substitute(s, "BS"), "static_cast<unsigned>(BS)");
  s.replacement = "{P}";
  EXPECT_EQ(substitute(s, "BS"), "BS");
}

TEST(RewriteText, Location) {
  SourceFacts f;
  f.file = "k.cu";
  EXPECT_EQ(location(f, 0, 3), "k.cu:3");
  EXPECT_EQ(location(f, 0, 3, 7), "k.cu:3:7");
  // A header of the files read is named by its path.
  f.files = {{"k.cu", "/p/k.cu", "", "", ""},
             {"inc/h.cuh", "/p/inc/h.cuh", "h.cuh", "/p/inc", ""}};
  EXPECT_EQ(location(f, 1, 12), "inc/h.cuh:12");
}

TEST(RewriteText, LineOfAPositionInItsFile) {
  EXPECT_EQ(lineOf("a\nb\nc", makePosition(0, 0)), 1u);
  EXPECT_EQ(lineOf("a\nb\nc", makePosition(3, 4)), 3u);
}

TEST(RewriteManifest, ConstraintRenamesOnlyParametersNamedDifferently) {
  ParamWork same, bound;
  same.name = same.kernelName = "VEC";
  bound.name = "BLOCK_SIZE";
  bound.kernelName = "kBlock";
  auto renames = constraintRenames({same, bound});
  ASSERT_EQ(renames.size(), 1u);
  EXPECT_EQ(renames.at("BLOCK_SIZE"), "kBlock");
}

namespace {

using ktune::testing::KernelSource;
using ktune::testing::Source;

SourceFacts facts(const char *text = Source) {
  return ktune::testing::handBuiltFacts(text);
}

Plan planFor(const CandidateSet &set, const std::string &name) {
  return ktune::testing::blockSizePlan(set, name);
}

} // namespace

TEST(Rewriter, StepsOneByOne) {
  SourceFacts f = facts(KernelSource);
  CandidateIndex index;
  CandidateSet set = buildCandidates(f, index);
  Plan plan = planFor(set, "BS");
  Rewriter r(f, set, index, plan, KernelSource);
  ASSERT_EQ(r.prepareKernels(), std::nullopt);
  ASSERT_EQ(r.work().size(), 1u);
  EXPECT_EQ(r.work()[0].params[0].sites.size(), 2u);
  EXPECT_FALSE(r.work()[0].params[0].launchParam);
  r.nameHostParameters();
  ASSERT_EQ(r.assignFunctionParams(), std::nullopt);
  ASSERT_EQ(r.templateListEdits(), std::nullopt);
  // The kernel and the host each get a template list; the host keeps a
  // forwarder only when it has a signature to forward.
  EXPECT_EQ(r.edits().size(), 2u);
  r.siteEdits();
  ASSERT_EQ(r.edits().size(), 4u);
  EXPECT_EQ(r.edits().back().text, "BS");
  ASSERT_EQ(r.callEdits(), std::nullopt);
  EXPECT_EQ(r.edits().back().text, "<BS>");
  ASSERT_EQ(r.constraintEdits(), std::nullopt); // the plan has none
  auto replacements = r.mergedReplacements();
  ASSERT_TRUE(bool(replacements)) << llvm::toString(replacements.takeError());
  ASSERT_EQ(replacements->size(), 1u); // one file
  EXPECT_EQ(replacements->at(0).size(), 5u);
}

TEST(Rewriter, LaunchParameterStepsLeaveTheKernel) {
  SourceFacts f = facts();
  CandidateIndex index;
  CandidateSet set = buildCandidates(f, index);
  ASSERT_TRUE(set.candidates.at(0).launchParam);
  Plan plan = planFor(set, "BS");
  Rewriter r(f, set, index, plan, Source);
  ASSERT_EQ(r.prepareKernels(), std::nullopt);
  EXPECT_TRUE(r.work()[0].params[0].launchParam);
  r.nameHostParameters();
  ASSERT_EQ(r.assignFunctionParams(), std::nullopt);
  ASSERT_EQ(r.templateListEdits(), std::nullopt);
  // Only the host gets a template list.
  ASSERT_EQ(r.edits().size(), 1u);
  EXPECT_EQ(r.edits().front().text, "template <int BS = 256>\n");
  r.siteEdits();
  ASSERT_EQ(r.edits().size(), 2u);
  // The launch passes nothing to the kernel.
  ASSERT_EQ(r.callEdits(), std::nullopt);
  EXPECT_EQ(r.edits().size(), 2u);
}

TEST(Rewriter, PlannedTwiceIsAnError) {
  SourceFacts f = facts();
  CandidateIndex index;
  CandidateSet set = buildCandidates(f, index);
  Plan plan = planFor(set, "BS");
  plan.kernels.push_back(plan.kernels[0]);
  plan.kernels[1].params[0].name = "BS2";
  Rewriter r(f, set, index, plan, Source);
  auto e = r.prepareKernels();
  ASSERT_TRUE(e.has_value());
  EXPECT_EQ(e->str(), "kernels[1].kernel: kernel k is planned twice");
}

TEST(Rewriter, ListedSitesMustExist) {
  SourceFacts f = facts();
  CandidateIndex index;
  CandidateSet set = buildCandidates(f, index);
  Plan plan = planFor(set, "BS");
  plan.kernels[0].params[0].sites = {"9:9"};
  Rewriter r(f, set, index, plan, Source);
  auto e = r.prepareKernels();
  ASSERT_TRUE(e.has_value());
  EXPECT_EQ(e->where, "kernels[0].params[0].sites[0]");
}

TEST(Rewriter, HostCodeGuardsAreEditsThatKeepTheLines) {
  SourceFacts f = facts(KernelSource);
  std::string src = KernelSource;
  unsigned goStart = static_cast<unsigned>(src.find("void go"));
  f.hostOnlyRanges = {{goStart, static_cast<unsigned>(src.size()) - 1}};
  CandidateIndex index;
  CandidateSet set = buildCandidates(f, index);
  Plan plan = planFor(set, "BS");
  RewriteOptions guard;
  guard.guardHostCode = true;
  auto r = planRewrite(f, set, index, plan, KernelSource, guard);
  ASSERT_TRUE(bool(r)) << llvm::toString(r.takeError());
  auto text = applyRewrite(KernelSource, r->replacements);
  ASSERT_TRUE(bool(text)) << llvm::toString(text.takeError());
  // The guard opens before the host's template list and closes after its
  // forwarder; #line gives the host its line back.
  EXPECT_NE(text->find("#ifndef __CUDACC_RTC__ // host code: NVRTC (the "
                       "tuner) skips it\ntemplate <int BS = 256>\n#line 2\n"
                       "void go(float *x) { k<BS><<<1, BS>>>(x); }"),
            std::string::npos)
      << *text;
  EXPECT_TRUE(llvm::StringRef(*text).ends_with("#endif // __CUDACC_RTC__\n"))
      << *text;
  // Without the option, no guard.
  auto plain = planRewrite(f, set, index, plan, KernelSource);
  ASSERT_TRUE(bool(plain));
  auto plainText = applyRewrite(KernelSource, plain->replacements);
  ASSERT_TRUE(bool(plainText));
  EXPECT_EQ(plainText->find("__CUDACC_RTC__"), std::string::npos);
}

TEST(RewriteManifest, LaunchExpressionsKeepSizeofAndCheckNames) {
  auto none = [](unsigned) -> std::optional<std::string> {
    return std::nullopt;
  };
  std::set<std::string> known = {"d", "T", "CAP"};
  EXPECT_EQ(launchExpression("min((d / (16 / sizeof(T))), CAP)", none, known),
            "min(d / (16 / sizeof(T)), CAP)");
  // A name nobody gives a value to, and sizeof of one: no expression.
  EXPECT_EQ(launchExpression("d / rows", none, known), std::nullopt);
  EXPECT_EQ(launchExpression("d / sizeof(U)", none, known), std::nullopt);
  // Markers resolve to the parameter's name.
  auto cap = [](unsigned offset) -> std::optional<std::string> {
    return offset == 7 ? std::optional<std::string>("CAP") : std::nullopt;
  };
  EXPECT_EQ(launchExpression("ceil_div(@7@, 32)", cap, known),
            "ceil_div(CAP, 32)");
}

TEST(RewriteManifest, LauncherEntry) {
  SourceFacts f = facts();
  const FunctionFacts &go = f.functions.at("fn@58");
  ParamWork p;
  PlanParam plan;
  plan.kind = ParamKind::BlockSize;
  plan.domain = Domain::ofValues({128, 256});
  p.plan = &plan;
  p.defaultValue = 256;
  p.type = "unsigned int";
  FnParam fp{"CAP", 256, "unsigned int", {&p}};
  ManifestLauncher l = launcherFor(f, go, {fp});
  EXPECT_EQ(l.name, "go");
  EXPECT_EQ(l.kernels, std::vector<std::string>{"k"});
  EXPECT_FALSE(l.forwarder); // no signature recorded in these facts
  ASSERT_EQ(l.templateParams.size(), 1u);
  EXPECT_EQ(l.templateParams[0].name, "CAP");
  EXPECT_EQ(l.templateParams[0].type, "unsigned int");
  EXPECT_TRUE(l.templateParams[0].tunable);
  EXPECT_EQ(l.templateParams[0].defaultValue, 256);
  EXPECT_EQ(l.returns, "void");
}
