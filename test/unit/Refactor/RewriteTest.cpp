// planRewrite on facts built by hand: edits, manifest entries and errors.
#include "ktune/Refactor/Rewrite.h"

#include "HandBuiltFacts.h"

#include <gtest/gtest.h>

#include <optional>
#include <string>

using namespace ktune;
using namespace ktune::refactor;

namespace {

using ktune::testing::KernelSource;
using ktune::testing::Source;

/// The hand-built facts, with the forwarder's signature collectFacts records.
SourceFacts facts(const char *text = Source) {
  SourceFacts f = ktune::testing::handBuiltFacts(text);
  f.functions["fn@58"].forwarderSignature = "void go(float *x)";
  return f;
}

/// The block-size plan, with a constraint on the parameter.
Plan planFor(const CandidateSet &set, const std::string &name) {
  Plan plan = ktune::testing::blockSizePlan(set, name);
  plan.kernels[0].constraints = {name + " % 32 == 0"};
  return plan;
}

/// What lifting the block size as BS (planFor) makes of `source`: the
/// planned edits and manifest entries, and the rewritten text; either is
/// empty, with the failure reported, where its step failed.
struct LiftedBS {
  std::optional<RewriteResult> result;
  std::optional<std::string> text;
};

LiftedBS liftBS(const SourceFacts &f, const CandidateSet &set,
                const CandidateIndex &index, const char *source) {
  LiftedBS lifted;
  auto r = planRewrite(f, set, index, planFor(set, "BS"), source);
  if (!r) {
    ADD_FAILURE() << llvm::toString(r.takeError());
    return lifted;
  }
  auto text = applyRewrite(source, r->replacements);
  if (!text)
    ADD_FAILURE() << llvm::toString(text.takeError());
  else
    lifted.text = std::move(*text);
  lifted.result = std::move(*r);
  return lifted;
}

} // namespace

TEST(Rewrite, KernelHostAndManifest) {
  SourceFacts f = facts(KernelSource);
  CandidateIndex index;
  CandidateSet set = buildCandidates(f, index);
  ASSERT_EQ(set.candidates.size(), 1u);
  auto [r, text] = liftBS(f, set, index, KernelSource);
  ASSERT_TRUE(r && text);
  // Inserted lines are followed by #line, so __LINE__ keeps its value.
  EXPECT_NE(text->find("template <int BS = 256>\n#line 1\n__global__ void k("),
            std::string::npos)
      << *text;
  EXPECT_NE(
      text->find("static_assert((BS % 32) == 0, \"ktune: BS % 32 == 0\");"),
      std::string::npos)
      << *text;
  EXPECT_NE(text->find("template <int BS = 256>\n#line 2\nvoid go(float *x) { "
                       "k<BS><<<1, BS>>>(x); }"),
            std::string::npos)
      << *text;
  // The original symbol stays, forwarding to the default configuration.
  EXPECT_NE(text->find("return go<256>(x);"), std::string::npos) << *text;
  ASSERT_EQ(r->kernels.size(), 1u);
  const ManifestKernel &mk = r->kernels[0];
  ASSERT_EQ(mk.templateParams.size(), 1u);
  EXPECT_TRUE(mk.templateParams[0].tunable);
  EXPECT_EQ(mk.templateParams[0].defaultValue, 256);
  ASSERT_TRUE(mk.launch.has_value());
  EXPECT_EQ(mk.launch->block, std::vector<std::string>{"BS"});
  EXPECT_EQ(mk.launch->grid, std::vector<std::string>{"1"});
}

TEST(Rewrite, ErrorsNameTheJsonPath) {
  SourceFacts f = facts();
  CandidateIndex index;
  CandidateSet set = buildCandidates(f, index);

  Plan unknownKernel = planFor(set, "BS");
  unknownKernel.kernels[0].kernel = "nope";
  auto r = planRewrite(f, set, index, unknownKernel, Source);
  ASSERT_FALSE(bool(r));
  EXPECT_EQ(llvm::toString(r.takeError()),
            "kernels[0].kernel: no kernel named 'nope' in k.cu");

  Plan badName = planFor(set, "BS");
  badName.kernels[0].params[0].name = "x"; // the kernel's argument
  r = planRewrite(f, set, index, badName, Source);
  ASSERT_FALSE(bool(r));
  EXPECT_NE(llvm::toString(r.takeError())
                .find("kernels[0].params[0].name: 'x' already names something"),
            std::string::npos);

  Plan wrongDefault = planFor(set, "BS");
  wrongDefault.kernels[0].params[0].defaultValue = 128;
  r = planRewrite(f, set, index, wrongDefault, Source);
  ASSERT_FALSE(bool(r));
  EXPECT_NE(llvm::toString(r.takeError()).find("kernels[0].params[0].default"),
            std::string::npos);
}

TEST(Rewrite, HostThatCannotBeATemplateKeepsTheDefaults) {
  SourceFacts f = facts(KernelSource);
  f.functions["fn@58"].cannotTemplate = "it is main";
  CandidateIndex index;
  CandidateSet set = buildCandidates(f, index);
  auto [r, text] = liftBS(f, set, index, KernelSource);
  ASSERT_TRUE(r && text);
  EXPECT_NE(text->find("void go(float *x) { k<<<1, 256>>>(x); }"),
            std::string::npos)
      << *text;
  ASSERT_EQ(r->notes.size(), 1u);
  EXPECT_NE(r->notes[0].find("keeps the default configuration"),
            std::string::npos);
}

TEST(Rewrite, LaunchParameterMakesTheLauncherATemplate) {
  SourceFacts f = facts();
  CandidateIndex index;
  CandidateSet set = buildCandidates(f, index);
  ASSERT_EQ(set.candidates.size(), 1u);
  EXPECT_TRUE(set.candidates[0].launchParam);
  auto [r, text] = liftBS(f, set, index, Source);
  ASSERT_TRUE(r && text);
  // The kernel is unchanged; the launcher checks the constraint.
  EXPECT_EQ(text->find("__global__ void k(float *x) { x[threadIdx.x] = 1; }"),
            0u)
      << *text;
  EXPECT_NE(text->find("template <int BS = 256>\n#line 2\nvoid go(float *x) {"
                       "\n  static_assert((BS % 32) == 0, \"ktune: BS % 32 == "
                       "0\");\n#line 2\n  k<<<1, BS>>>(x); }"),
            std::string::npos)
      << *text;
  ASSERT_EQ(r->kernels.size(), 1u);
  const ManifestKernel &mk = r->kernels[0];
  EXPECT_TRUE(mk.templateParams.empty());
  ASSERT_EQ(mk.launchParams.size(), 1u);
  EXPECT_EQ(mk.launchParams[0].name, "BS");
  EXPECT_EQ(mk.launchParams[0].launcher, "go");
  EXPECT_EQ(mk.constraints, std::vector<std::string>{"BS % 32 == 0"});
  ASSERT_TRUE(mk.launch.has_value());
  EXPECT_EQ(mk.launch->block, std::vector<std::string>{"BS"});
  ASSERT_EQ(r->launchers.size(), 1u);
  EXPECT_EQ(r->launchers[0].name, "go");
  EXPECT_EQ(r->launchers[0].kernels, std::vector<std::string>{"k"});
  EXPECT_TRUE(r->launchers[0].forwarder);
  ASSERT_EQ(r->launchers[0].templateParams.size(), 1u);
  EXPECT_TRUE(r->launchers[0].templateParams[0].tunable);
}

TEST(Rewrite, LaunchParameterInAHostThatCannotBeATemplate) {
  SourceFacts f = facts();
  f.functions["fn@58"].cannotTemplate = "it is main";
  CandidateIndex index;
  CandidateSet set = buildCandidates(f, index);
  auto r = planRewrite(f, set, index, planFor(set, "BS"), Source);
  ASSERT_TRUE(bool(r)) << llvm::toString(r.takeError());
  EXPECT_TRUE(r->replacements.empty());
  ASSERT_EQ(r->notes.size(), 1u);
  EXPECT_NE(r->notes[0].find("keeps the default configuration"),
            std::string::npos)
      << r->notes[0];
  ASSERT_EQ(r->kernels.size(), 1u);
  EXPECT_TRUE(r->kernels[0].launchParams.empty());
  EXPECT_TRUE(r->launchers.empty());
}

TEST(Rewrite, TypedParameterKeepsTheConstantsType) {
  SourceFacts f = facts();
  f.occurrences[0].castType = f.occurrences[0].valueType = "unsigned int";
  CandidateIndex index;
  CandidateSet set = buildCandidates(f, index);
  EXPECT_EQ(set.candidates.at(0).type, "unsigned int");
  EXPECT_EQ(set.candidates.at(0).sites.at(0).replacement, "{P}");
  auto [r, text] = liftBS(f, set, index, Source);
  ASSERT_TRUE(r && text);
  EXPECT_NE(text->find("template <unsigned int BS = 256>"), std::string::npos)
      << *text;
  EXPECT_EQ(r->kernels.at(0).launchParams.at(0).type, "unsigned int");
}
