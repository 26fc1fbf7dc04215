#include "ktune/Plan/Plan.h"

#include "PlanTestSupport.h"

#include <gtest/gtest.h>

using namespace ktune;
using namespace ktune::test;
using nlohmann::json;

namespace {

const std::string File = "examples/rmsnorm.cu";

const std::string Source = R"cu(#include <cuda_runtime.h>
#define WARP 32
constexpr int kBlockSize = 256;

__global__ void rmsnorm(float *out, const float *in, int hidden) {
  __shared__ float partial[kBlockSize / WARP];
  float acc = 0.f;
#pragma unroll 4
  for (int i = threadIdx.x; i < hidden; i += kBlockSize)
    acc += in[i];
  out[0] = acc; // BLOCK_SIZE only in a comment
  const char *s = "UNROLL only in a string";
}

__global__ void scale(float *x) { x[threadIdx.x] *= 8; }

void launch(float *out, const float *in, int hidden, int n) {
  rmsnorm<<<(n + 255) / 256, kBlockSize>>>(out, in, hidden);
}
)cu";

/// Candidates found in Source: c1 the block size with all its sites, c2 the
/// unroll factor, c3 the other kernel's factor, c4 a second reading of the
/// literal 256 that overlaps c1's definition.
CandidateSet makeCandidates() {
  CandidateSet set;
  set.file = File;
  Candidate c1 = candidateOf(
      "c1", ParamKind::BlockSize, "rmsnorm", 256, "kBlockSize",
      {siteOf(File, Source, "256", 0, SiteRole::Definition),
       siteOf(File, Source, "kBlockSize", 1, SiteRole::SharedExtent),
       siteOf(File, Source, "kBlockSize", 2, SiteRole::LoopStride),
       siteOf(File, Source, "255", 0, SiteRole::LaunchGrid, "{P} - 1"),
       siteOf(File, Source, "256", 1, SiteRole::LaunchGrid),
       siteOf(File, Source, "kBlockSize", 3, SiteRole::LaunchBlock)});
  c1.confidence = Confidence::High;
  c1.impliedConstraints = {"{c1} % 32 == 0"};
  Candidate c2 =
      candidateOf("c2", ParamKind::Unroll, "rmsnorm", 4, "4",
                  {siteOf(File, Source, "4", 0, SiteRole::UnrollPragma)});
  Candidate c3 = candidateOf("c3", ParamKind::Other, "scale", 8, "8",
                             {siteOf(File, Source, "8", 0)});
  Candidate c4 =
      candidateOf("c4", ParamKind::BlockSize, "rmsnorm", 256, "256",
                  {siteOf(File, Source, "256", 0, SiteRole::Definition)});
  c4.confidence = Confidence::Low;
  set.candidates = {c1, c2, c3, c4};
  return set;
}

const char *ValidPlan = R"json({
  "ktune": "plan/1",
  "kernels": [
    {"kernel": "rmsnorm",
     "params": [
       {"name": "BLOCK_SIZE", "kind": "block_size", "candidates": ["c1"],
        "default": 256, "values": [64, 128, 256, 512, 1024]},
       {"name": "UNROLL", "kind": "unroll", "candidates": ["c2"],
        "default": 4, "range": {"min": 1, "max": 16, "step": "pow2"}}],
     "constraints": ["BLOCK_SIZE % 32 == 0", "BLOCK_SIZE * UNROLL <= 16384"]},
    {"kernel": "scale",
     "params": [
       {"name": "FACTOR", "kind": "other", "candidates": ["c3"], "default": 8,
        "values": [4, 8, 16]}]}]})json";

class PlanValidation : public ::testing::Test {
protected:
  CandidateSet Candidates = makeCandidates();
  SourceTexts Sources = {{File, Source}};
  json PlanJson = json::parse(ValidPlan);

  std::vector<Error> validate() {
    auto plan = planFromJson(PlanJson);
    EXPECT_TRUE(plan) << plan.error().str();
    if (!plan)
      return {};
    return validatePlan(*plan, Candidates, Sources);
  }

  /// Validates and expects exactly one error, at `where`, whose message
  /// contains `text`.
  void expectOneError(const std::string &where, const std::string &text) {
    auto errors = validate();
    ASSERT_EQ(errors.size(), 1u) << formatPlanErrors(errors);
    EXPECT_EQ(errors[0].where, where) << errors[0].str();
    EXPECT_NE(errors[0].message.find(text), std::string::npos)
        << errors[0].message;
  }

  void expectValid() {
    auto errors = validate();
    EXPECT_TRUE(errors.empty()) << formatPlanErrors(errors);
  }

  /// Makes rmsnorm's second parameter a block size lifting `candidate`, and
  /// drops the kernel's constraints.
  void secondBlockSize(const std::string &candidate) {
    param(0, 1) = {{"name", "BLOCK_2"},
                   {"kind", "block_size"},
                   {"candidates", {candidate}},
                   {"default", 256},
                   {"values", {128, 256}}};
    PlanJson["kernels"][0]["constraints"] = json::array();
  }

  json &param(size_t kernel, size_t index) {
    return PlanJson["kernels"][kernel]["params"][index];
  }
  std::string loc(const std::string &id, size_t site = 0) {
    return " (" + locationOf(Candidates.find(id)->sites.at(site)) + ")";
  }
};

} // namespace

TEST_F(PlanValidation, ValidPlanHasNoErrors) { expectValid(); }

TEST_F(PlanValidation, KernelMustExistAmongTheCandidates) {
  PlanJson["kernels"][1]["kernel"] = "scal";
  auto errors = validate();
  ASSERT_FALSE(errors.empty());
  EXPECT_EQ(errors[0].where, "kernels[1].kernel");
  EXPECT_NE(errors[0].message.find("the candidates name: rmsnorm, scale"),
            std::string::npos)
      << errors[0].message;
}

TEST_F(PlanValidation, KernelPlannedOnce) {
  PlanJson["kernels"][1]["kernel"] = "rmsnorm";
  PlanJson["kernels"][1]["params"] = json::array();
  expectOneError("kernels[1].kernel", "already planned at kernels[0]");
}

TEST_F(PlanValidation, NameMustBeAnIdentifier) {
  param(0, 0)["name"] = "X>0; system(\"rm -rf /\")";
  PlanJson["kernels"][0]["constraints"] = json::array();
  expectOneError("kernels[0].params[0].name", "is not a C++ identifier");
  auto errors = validate();
  // The hostile text is quoted and escaped, never passed on raw.
  EXPECT_NE(errors[0].message.find("'X>0; system(\"rm -rf /\")'"),
            std::string::npos);

  param(0, 0)["name"] = "BLOCK\nSIZE";
  errors = validate();
  ASSERT_FALSE(errors.empty());
  EXPECT_NE(errors[0].message.find("BLOCK\\x0aSIZE"), std::string::npos)
      << errors[0].message;
}

TEST_F(PlanValidation, NameMustNotBeAKeywordOrReserved) {
  PlanJson["kernels"][0]["constraints"] = json::array();
  for (const char *name :
       {"int", "template", "__BLOCK", "_Block", "blockDim", "min"}) {
    param(0, 0)["name"] = name;
    expectOneError("kernels[0].params[0].name", "keyword");
  }
}

TEST_F(PlanValidation, NamesAreUniqueWithinAKernel) {
  param(0, 1)["name"] = "BLOCK_SIZE";
  PlanJson["kernels"][0]["constraints"] = json::array();
  expectOneError("kernels[0].params[1].name",
                 "already used by kernels[0].params[0]");
  // The same name in another kernel is another template: fine.
  PlanJson = json::parse(ValidPlan);
  param(1, 0)["name"] = "BLOCK_SIZE";
  expectValid();
}

TEST_F(PlanValidation, NameMustNotCollideWithTheSource) {
  param(0, 0)["name"] = "hidden";
  PlanJson["kernels"][0]["constraints"] = {"hidden % 32 == 0"};
  expectOneError("kernels[0].params[0].name (" + File + ":5:58)",
                 "already spelled in the source");
  // The constant being lifted keeps its declaration: its name is taken too.
  param(0, 0)["name"] = "kBlockSize";
  PlanJson["kernels"][0]["constraints"] = json::array();
  expectOneError("kernels[0].params[0].name (" + File + ":3:15)",
                 "already spelled in the source");
}

TEST_F(PlanValidation, NameMustNotBeAMacro) {
  param(0, 0)["name"] = "WARP";
  PlanJson["kernels"][0]["constraints"] = json::array();
  expectOneError("kernels[0].params[0].name (" + File + ":2:1)", "macro");
}

TEST_F(PlanValidation, CommentsAndStringsAreNotCollisions) {
  param(0, 1)["name"] = "UNROLL"; // only inside a string literal
  // BLOCK_SIZE appears only in a comment; ValidPlan uses it.
  expectValid();
}

TEST_F(PlanValidation, CandidateMustExist) {
  param(0, 1)["candidates"] = {"c9"};
  expectOneError("kernels[0].params[1].candidates[0]",
                 "unknown candidate 'c9'; this kernel's candidates are: c1, "
                 "c2, c4");
}

TEST_F(PlanValidation, CandidateMustBelongToTheKernel) {
  param(1, 0)["candidates"] = {"c2"};
  param(1, 0)["default"] = 4;
  param(1, 0)["values"] = {4, 8};
  PlanJson["kernels"][0]["params"].erase(1);
  PlanJson["kernels"][0]["constraints"] = json::array();
  expectOneError("kernels[1].params[0].candidates[0]" + loc("c2"),
                 "belongs to kernel 'rmsnorm', not 'scale'");
}

TEST_F(PlanValidation, CandidateUsedByOneParamOnly) {
  param(0, 1)["candidates"] = {"c2", "c2"};
  expectOneError("kernels[0].params[1].candidates[1]", "listed twice");

  PlanJson = json::parse(ValidPlan);
  secondBlockSize("c1");
  expectOneError("kernels[0].params[1].candidates[0]" + loc("c1"),
                 "already lifted by kernels[0].params[0]");
}

TEST_F(PlanValidation, KindMustMatchTheCandidate) {
  param(0, 1)["kind"] = "tile_size";
  expectOneError("kernels[0].params[1].kind" + loc("c2"),
                 "kind tile_size does not match candidate 'c2'");
  // "other" on either side is accepted.
  param(0, 1)["kind"] = "other";
  expectValid();
}

TEST_F(PlanValidation, DefaultMustBeTheOriginalValue) {
  param(0, 0)["default"] = 128;
  expectOneError("kernels[0].params[0].default" + loc("c1"),
                 "differs from the original value 256");
}

TEST_F(PlanValidation, DefaultMustBeInTheDomain) {
  param(0, 0)["values"] = {64, 128, 512};
  expectOneError("kernels[0].params[0].default", "not in the domain");
}

TEST_F(PlanValidation, DomainValuesFitTheKind) {
  param(0, 0)["values"] = {0, 256, 2048};
  expectOneError("kernels[0].params[0].values",
                 "values 0, 2048 not allowed for a block_size parameter");

  PlanJson = json::parse(ValidPlan);
  param(0, 1).erase("range");
  param(0, 1)["values"] = {0, 4};
  expectOneError("kernels[0].params[1].values",
                 "value 0 not allowed for a unroll parameter");

  PlanJson = json::parse(ValidPlan);
  param(0, 1)["range"] = {{"min", -4}, {"max", 4}, {"step", 4}};
  expectOneError("kernels[0].params[1].range", "holds values not allowed");

  // Other parameters may be zero or negative, but must fit in an int.
  PlanJson = json::parse(ValidPlan);
  param(1, 0)["values"] = {-1, 0, 8};
  expectValid();
  param(1, 0)["values"] = {8, int64_t(1) << 40};
  expectOneError("kernels[1].params[0].values", "not allowed");
}

TEST_F(PlanValidation, VectorWidthIsAPowerOfTwoUpTo16) {
  Candidates.candidates[1].kind = ParamKind::VectorWidth;
  param(0, 1)["kind"] = "vector_width";
  param(0, 1)["range"] = {{"min", 1}, {"max", 16}, {"step", "pow2"}};
  expectValid();
  param(0, 1)["range"] = {{"min", 1}, {"max", 8}, {"step", 1}};
  expectOneError("kernels[0].params[1].range", "power of two");
  param(0, 1).erase("range");
  param(0, 1)["values"] = {4, 32};
  expectOneError("kernels[0].params[1].values", "value 32 not allowed");
}

TEST_F(PlanValidation, DomainMustBeBoundedAndNonEmpty) {
  auto plan = planFromJson(PlanJson);
  ASSERT_TRUE(plan);
  plan->kernels[0].params[1].domain = Domain::ofValues({});
  auto errors = validatePlan(*plan, Candidates, Sources);
  ASSERT_EQ(errors.size(), 1u) << formatPlanErrors(errors);
  EXPECT_EQ(errors[0].where, "kernels[0].params[1].values");
  EXPECT_NE(errors[0].message.find("no value"), std::string::npos);

  plan->kernels[0].params[1].domain = Domain::ofRange(1, 1 << 30);
  errors = validatePlan(*plan, Candidates, Sources);
  ASSERT_EQ(errors.size(), 1u) << formatPlanErrors(errors);
  EXPECT_NE(errors[0].message.find("at most"), std::string::npos);

  plan->kernels[0].params[1].domain =
      Domain::ofRange(1, std::numeric_limits<int64_t>::max());
  errors = validatePlan(*plan, Candidates, Sources);
  ASSERT_EQ(errors.size(), 1u) << formatPlanErrors(errors);
  EXPECT_NE(errors[0].message.find("fit in an int"), std::string::npos);
}

TEST_F(PlanValidation, SitesSubsetMustBeSitesOfTheCandidates) {
  const auto &c1 = *Candidates.find("c1");
  param(0, 0)["sites"] = {locationOf(c1.sites[0]), locationOf(c1.sites[5])};
  expectValid();

  param(0, 0)["sites"] = {locationOf(c1.sites[0]), File + ":1:1"};
  expectOneError("kernels[0].params[0].sites[1]",
                 "is not a site of this parameter's candidates; their sites "
                 "are: " +
                     locationOf(c1.sites[0]));

  param(0, 0)["sites"] = {locationOf(Candidates.find("c2")->sites[0])};
  expectOneError("kernels[0].params[0].sites[0]", "is not a site");

  param(0, 0)["sites"] = {"rmsnorm.cu line 3"};
  expectOneError("kernels[0].params[0].sites[0]", "file:line:col");

  param(0, 0)["sites"] = {locationOf(c1.sites[1]), locationOf(c1.sites[1])};
  expectOneError("kernels[0].params[0].sites[1]", "listed twice");
}

TEST_F(PlanValidation, StaleSourceIsDetected) {
  // Someone edited the kernel after the candidates were found.
  std::string edited = Source;
  edited.replace(edited.find("= 256"), 5, "= 128");
  Sources[File] = edited;
  expectOneError("kernels[0].params[0].candidates[0]" + loc("c1"),
                 "the source reads \"128\" where the candidate expects "
                 "\"256\": the source changed");

  // A line inserted above shifts every position.
  Sources[File] = "// new first line\n" + Source;
  auto errors = validate();
  EXPECT_EQ(errors.size(), 8u) << formatPlanErrors(errors); // every site
  EXPECT_NE(errors[0].message.find("source changed"), std::string::npos);

  // Cut short.
  Sources[File] = Source.substr(0, 100);
  errors = validate();
  ASSERT_FALSE(errors.empty());
  EXPECT_NE(errors.back().message.find("has 100 bytes"), std::string::npos)
      << formatPlanErrors(errors);
}

TEST_F(PlanValidation, LineAndColumnMustMatchTheOffset) {
  Candidates.candidates[1].sites[0].col += 1;
  auto errors = validate();
  ASSERT_EQ(errors.size(), 1u) << formatPlanErrors(errors);
  EXPECT_EQ(errors[0].where, "kernels[0].params[1].candidates[0] (" +
                                 locationOf(Candidates.candidates[1].sites[0]) +
                                 ")");
  EXPECT_NE(errors[0].message.find("not at the site's"), std::string::npos);
}

TEST_F(PlanValidation, MissingSourceIsReportedOnce) {
  Sources.clear();
  auto errors = validate();
  ASSERT_EQ(errors.size(), 1u) << formatPlanErrors(errors);
  EXPECT_NE(errors[0].message.find("source text of " + File + " was not given"),
            std::string::npos);
}

TEST_F(PlanValidation, OverlappingEditsAreRejected) {
  secondBlockSize("c4");
  auto errors = validate();
  ASSERT_EQ(errors.size(), 1u) << formatPlanErrors(errors);
  EXPECT_NE(errors[0].message.find("overlaps the edit of"), std::string::npos);
  EXPECT_NE(errors[0].where.find(loc("c4")), std::string::npos)
      << errors[0].where;

  // Lifting the other sites of c1 only, and c4's definition, does not overlap.
  const auto &c1 = *Candidates.find("c1");
  param(0, 0)["sites"] = {locationOf(c1.sites[1]), locationOf(c1.sites[5])};
  expectValid();
}

TEST_F(PlanValidation, ReplacementMustMentionTheParameter) {
  Candidates.candidates[1].sites[0].replacement = "system(\"x\")";
  expectOneError("kernels[0].params[1].candidates[0]" + loc("c2"),
                 "does not contain {P}");
}

TEST_F(PlanValidation, ConstraintsMustParse) {
  PlanJson["kernels"][0]["constraints"] = {"BLOCK_SIZE %% 32"};
  expectOneError("kernels[0].constraints[0]", "does not parse");
  PlanJson["kernels"][0]["constraints"] = {"X>0; system(\"rm -rf /\")"};
  expectOneError("kernels[0].constraints[0]", "does not parse");
  PlanJson["kernels"][0]["constraints"] = {"system(BLOCK_SIZE)"};
  expectOneError("kernels[0].constraints[0]", "unknown function");
  PlanJson["kernels"][0]["constraints"] = {std::string(3000, '1')};
  expectOneError("kernels[0].constraints[0]", "at most 2000");
}

TEST_F(PlanValidation, ConstraintsNameOnlyTheKernelsParams) {
  PlanJson["kernels"][0]["constraints"] = {"BLOCK_SIZE * hidden <= 65536"};
  expectOneError("kernels[0].constraints[0]",
                 "names hidden, not a parameter of kernel 'rmsnorm' (its "
                 "parameters: BLOCK_SIZE, UNROLL)");
  PlanJson["kernels"][0]["constraints"] = {"FACTOR <= 8"}; // another kernel's
  expectOneError("kernels[0].constraints[0]", "names FACTOR");
  PlanJson["kernels"][0]["constraints"] = {"min(BLOCK_SIZE, 512) >= 32"};
  expectValid();
}

TEST_F(PlanValidation, ConstraintsHoldAtTheDefaults) {
  PlanJson["kernels"][0]["constraints"] = {"BLOCK_SIZE <= 128"};
  expectOneError("kernels[0].constraints[0]",
                 "is false at the defaults (BLOCK_SIZE=256)");
  PlanJson["kernels"][0]["constraints"] = {"BLOCK_SIZE / (UNROLL - 4) > 0"};
  expectOneError("kernels[0].constraints[0]", "cannot be evaluated");
}

TEST_F(PlanValidation, ReportsEveryError) {
  param(0, 0)["name"] = "1BLOCK";                    // bad identifier
  param(0, 1)["default"] = 8;                        // not the original
  param(1, 0)["candidates"] = {"c3", "c7"};          // unknown candidate
  PlanJson["kernels"][1]["constraints"] = {"F > 0"}; // unknown name
  auto errors = validate();
  std::vector<std::string> where;
  for (const auto &e : errors)
    where.push_back(e.where);
  EXPECT_EQ(
      where,
      (std::vector<std::string>{
          "kernels[0].params[0].name",
          "kernels[0].params[1].default" + loc("c2"),
          "kernels[0].constraints[0]", // names BLOCK_SIZE, now unknown
          "kernels[0].constraints[1]", "kernels[1].params[0].candidates[1]",
          "kernels[1].constraints[0]"}))
      << formatPlanErrors(errors);
}

TEST(PlanErrors, FormatsABulletList) {
  std::vector<Error> errors = {{"bad name", "kernels[0].params[0].name"},
                               {"no where", ""}};
  EXPECT_EQ(formatPlanErrors(errors),
            "- kernels[0].params[0].name: bad name\n- no where\n");
  EXPECT_EQ(formatPlanErrors({}), "");
  std::vector<Error> many(60, Error{"e", "w"});
  std::string text = formatPlanErrors(many);
  EXPECT_EQ(std::count(text.begin(), text.end(), '\n'), 51);
  EXPECT_NE(text.find("and 10 more errors"), std::string::npos);
}
