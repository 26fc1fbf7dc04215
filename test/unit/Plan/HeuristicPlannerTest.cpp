#include "ktune/Plan/Plan.h"

#include "PlanTestSupport.h"

#include <gtest/gtest.h>

#include <random>

using namespace ktune;
using ktune::test::Fixture;
using ktune::test::RandomCase;
using ktune::test::randomCase;
using nlohmann::json;

namespace {

const PlanParam *paramFor(const Plan &plan, const std::string &id) {
  for (const auto &k : plan.kernels)
    for (const auto &p : k.params)
      if (std::find(p.candidates.begin(), p.candidates.end(), id) !=
          p.candidates.end())
        return &p;
  return nullptr;
}

bool hasConstraint(const PlanKernel &k, const std::string &text) {
  return std::find(k.constraints.begin(), k.constraints.end(), text) !=
         k.constraints.end();
}

} // namespace

TEST(HeuristicPlanner, LiftsConfidentCandidatesUnderKindNames) {
  Fixture f;
  f.constant("c1", ParamKind::BlockSize, "kThreads", "256", 256);
  f.Set.candidates.back().impliedConstraints = {"{c1} % 32 == 0"};
  f.constant("c2", ParamKind::Unroll, "kUnroll", "4", 4, Confidence::Medium);
  f.constant("c3", ParamKind::ItemsPerThread, "kItems", "8", 8);

  Plan high = f.plan();
  EXPECT_EQ(high.planner, "heuristic");
  ASSERT_EQ(high.kernels.size(), 1u);
  const PlanKernel &k = high.kernels[0];
  EXPECT_EQ(k.kernel, "rmsnorm");
  ASSERT_EQ(k.params.size(), 2u);
  EXPECT_EQ(k.params[0].name, "BLOCK_SIZE");
  EXPECT_EQ(k.params[0].kind, ParamKind::BlockSize);
  EXPECT_EQ(k.params[0].defaultValue, 256);
  EXPECT_EQ(k.params[0].domain.enumerate(),
            (std::vector<int64_t>{32, 64, 128, 256, 512, 1024}));
  EXPECT_EQ(k.params[1].name, "ITEMS_PER_THREAD");
  EXPECT_EQ(k.params[1].domain.enumerate(),
            (std::vector<int64_t>{1, 2, 4, 8, 16}));
  EXPECT_TRUE(hasConstraint(k, "BLOCK_SIZE <= 1024"));
  EXPECT_TRUE(hasConstraint(k, "BLOCK_SIZE % 32 == 0"));
  EXPECT_EQ(paramFor(high, "c2"), nullptr); // medium confidence

  Plan medium = f.plan(Confidence::Medium);
  const PlanParam *unroll = paramFor(medium, "c2");
  ASSERT_NE(unroll, nullptr);
  EXPECT_EQ(unroll->name, "UNROLL");
  EXPECT_EQ(unroll->domain.enumerate(), (std::vector<int64_t>{1, 2, 4, 8, 16}));
}

TEST(HeuristicPlanner, DomainsAlwaysHoldTheDefault) {
  Fixture f;
  f.constant("c1", ParamKind::BlockSize, "kThreads", "96", 96);
  f.constant("c2", ParamKind::TileSize, "kTile", "48", 48);
  f.constant("c3", ParamKind::Unroll, "kUnroll", "3", 3);
  f.constant("c4", ParamKind::WarpsPerBlock, "kWarps", "6", 6);
  Plan p = f.plan();
  EXPECT_EQ(paramFor(p, "c1")->domain.enumerate(),
            (std::vector<int64_t>{32, 64, 96, 128, 256, 512, 1024}));
  EXPECT_EQ(paramFor(p, "c2")->domain.enumerate(),
            (std::vector<int64_t>{8, 16, 32, 48, 64}));
  EXPECT_EQ(paramFor(p, "c3")->domain.enumerate(),
            (std::vector<int64_t>{1, 2, 3, 4, 8, 16}));
  EXPECT_EQ(paramFor(p, "c4")->domain.enumerate(),
            (std::vector<int64_t>{1, 2, 4, 6, 8, 16, 32}));
  EXPECT_EQ(paramFor(p, "c2")->name, "TILE");
  EXPECT_EQ(paramFor(p, "c4")->name, "WARPS_PER_BLOCK");
}

TEST(HeuristicPlanner, NamesAvoidTheSource) {
  Fixture f;
  f.Source = "#define BLOCK_SIZE 128\n";
  f.constant("c1", ParamKind::BlockSize, "kThreads", "256", 256);
  EXPECT_EQ(f.plan().kernels[0].params[0].name, "RMSNORM_BLOCK_SIZE");

  Fixture g;
  g.Source = "#define BLOCK_SIZE 128\nint RMSNORM_BLOCK_SIZE;\n";
  g.constant("c1", ParamKind::BlockSize, "kThreads", "256", 256);
  EXPECT_EQ(g.plan().kernels[0].params[0].name, "BLOCK_SIZE_2");

  // Two of a kind in one kernel are numbered.
  Fixture h;
  h.constant("c1", ParamKind::Unroll, "kOuter", "2", 2);
  h.constant("c2", ParamKind::Unroll, "kInner", "4", 4);
  Plan p = h.plan();
  EXPECT_EQ(paramFor(p, "c1")->name, "UNROLL");
  EXPECT_EQ(paramFor(p, "c2")->name, "UNROLL_2");

  // Without the source text the candidates' own spellings are still avoided.
  Fixture i;
  i.constant("c1", ParamKind::BlockSize, "BLOCK_SIZE", "256", 256);
  Plan blind = heuristicPlan(i.Set);
  EXPECT_EQ(blind.kernels[0].params[0].name, "RMSNORM_BLOCK_SIZE");
}

TEST(HeuristicPlanner, BlockDimensionsShareTheThreadLimit) {
  Fixture f;
  f.constant("c1", ParamKind::BlockSize, "kBlockX", "32", 32);
  f.constant("c2", ParamKind::BlockSize, "kBlockY", "8", 8);
  Plan p = f.plan();
  ASSERT_EQ(p.kernels.size(), 1u);
  EXPECT_EQ(paramFor(p, "c1")->name, "BLOCK_SIZE_X");
  EXPECT_EQ(paramFor(p, "c2")->name, "BLOCK_SIZE_Y");
  EXPECT_EQ(
      paramFor(p, "c2")->domain.enumerate(),
      (std::vector<int64_t>{1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024}));
  EXPECT_TRUE(
      hasConstraint(p.kernels[0], "BLOCK_SIZE_X * BLOCK_SIZE_Y <= 1024"))
      << planToJson(p).dump(2);
  EXPECT_TRUE(
      hasConstraint(p.kernels[0], "BLOCK_SIZE_X * BLOCK_SIZE_Y % 32 == 0"))
      << planToJson(p).dump(2);
}

TEST(HeuristicPlanner, ImpliedConstraintsNameTheParameters) {
  Fixture f;
  f.constant("c1", ParamKind::TileSize, "kTile", "32", 32);
  f.constant("c2", ParamKind::Unroll, "kUnroll", "4", 4, Confidence::Low);
  f.Set.candidates[0].impliedConstraints = {
      "{c1} * ({c1} + 1) * 4 <= 49152", // static shared memory
      "{c1} * {c2} <= 256",             // c2 stays the constant 4
      "{c1} > 32",                      // false for the original: dropped
      "{c9} < 3",                       // unknown candidate: dropped
      "{c1 <= 4",                       // malformed: dropped
      "{c1} <=",                        // does not parse: dropped
      "{c1} <= 64"};
  Plan p = f.plan();
  ASSERT_EQ(p.kernels.size(), 1u);
  EXPECT_EQ(p.kernels[0].constraints,
            (std::vector<std::string>{"TILE * (TILE + 1) * 4 <= 49152",
                                      "TILE * 4 <= 256", "TILE <= 64"}));
}

TEST(HeuristicPlanner, SizeofVectorWidthStopsAtTheOriginal) {
  Fixture f;
  f.constant("c1", ParamKind::VectorWidth, "kVec", "16 / sizeof(float)", 4);
  f.Set.candidates[0].spelling = "16 / sizeof(float)";
  Plan p = f.plan();
  const PlanParam *vec = paramFor(p, "c1");
  ASSERT_NE(vec, nullptr);
  EXPECT_EQ(vec->name, "VEC");
  EXPECT_EQ(vec->domain.enumerate(), (std::vector<int64_t>{1, 2, 4}));
  EXPECT_NE(vec->note.find("sizeof"), std::string::npos);

  Fixture g;
  g.constant("c1", ParamKind::VectorWidth, "kVec", "4", 4);
  EXPECT_EQ(paramFor(g.plan(), "c1")->domain.enumerate(),
            (std::vector<int64_t>{1, 2, 4, 8, 16}));
}

TEST(HeuristicPlanner, OtherKindsAreNamedFromTheirSpelling) {
  Fixture f;
  f.constant("c1", ParamKind::Other, "kNumStages", "3", 3);
  f.constant("c2", ParamKind::Other, "v", "1", 1);
  Plan p = f.plan();
  EXPECT_EQ(paramFor(p, "c1")->name, "NUM_STAGES");
  EXPECT_EQ(paramFor(p, "c1")->domain.enumerate(),
            (std::vector<int64_t>{1, 3, 6}));
  EXPECT_EQ(paramFor(p, "c2")->name, "V");
  EXPECT_EQ(paramFor(p, "c2")->domain.enumerate(),
            (std::vector<int64_t>{1, 2}));
}

TEST(HeuristicPlanner, LeavesOutWhatCannotBeLiftedSafely) {
  Fixture f;
  f.constant("c1", ParamKind::BlockSize, "kHuge", "2048", 2048);
  f.constant("c2", ParamKind::VectorWidth, "kVec3", "3", 3);
  f.constant("c3", ParamKind::Unroll, "kUnroll", "4", 4);
  f.constant("c4", ParamKind::Unroll, "kStale", "8", 8);
  f.Set.candidates[3].sites[0].text = "9"; // the source says 8
  Plan p = f.plan();
  EXPECT_EQ(paramFor(p, "c1"), nullptr);
  EXPECT_EQ(paramFor(p, "c2"), nullptr);
  EXPECT_NE(paramFor(p, "c3"), nullptr);
  EXPECT_EQ(paramFor(p, "c4"), nullptr);
}

TEST(HeuristicPlanner, MoreConfidentCandidateWinsAnOverlap) {
  Fixture f;
  f.constant("c1", ParamKind::Other, "kGuess", "128", 128, Confidence::High);
  f.constant("c2", ParamKind::BlockSize, "kThreads", "256", 256);
  // c1 is rewritten to also claim c2's definition, at lower confidence.
  f.Set.candidates[0].confidence = Confidence::Medium;
  f.Set.candidates[0].sites.push_back(f.Set.candidates[1].sites[0]);
  Plan p = f.plan(Confidence::Low);
  EXPECT_EQ(paramFor(p, "c1"), nullptr);
  EXPECT_NE(paramFor(p, "c2"), nullptr);
}

TEST(HeuristicPlanner, OneTemplatePerKernel) {
  Fixture f;
  f.constant("c1", ParamKind::BlockSize, "kA", "256", 256, Confidence::High,
             "ops::first");
  f.constant("c2", ParamKind::BlockSize, "kB", "128", 128, Confidence::High,
             "ops::second");
  f.constant("c3", ParamKind::Unroll, "kC", "2", 2, Confidence::Low,
             "ops::third");
  Plan p = f.plan();
  ASSERT_EQ(p.kernels.size(), 2u); // third has nothing confident
  EXPECT_EQ(p.kernels[0].kernel, "ops::first");
  EXPECT_EQ(p.kernels[1].kernel, "ops::second");
  EXPECT_EQ(p.kernels[1].params[0].name, "BLOCK_SIZE");

  EXPECT_TRUE(heuristicPlan(CandidateSet{}).kernels.empty());
}

// A launch macro's body shared by two kernels' launchers: one edit, so the
// candidates are lifted together and under one name, even where one kernel
// already has a parameter of that kind.
TEST(HeuristicPlanner, CandidatesSharingAnEditAreLiftedTogether) {
  Fixture f;
  Candidate &a = f.constant("c1", ParamKind::BlockSize, "kThreads", "1024",
                            1024, Confidence::High, "scale", 0);
  a.sites[0].shared = true;
  Candidate b = a;
  b.id = "c2";
  b.kernel = "shift";
  f.Set.candidates.push_back(b);
  // shift's own block size comes first in its list.
  f.constant("c0", ParamKind::BlockSize, "kOther", "256", 256, Confidence::High,
             "shift");
  std::rotate(f.Set.candidates.begin() + 1, f.Set.candidates.begin() + 2,
              f.Set.candidates.end());
  Plan p = f.plan();
  ASSERT_NE(paramFor(p, "c1"), nullptr);
  ASSERT_NE(paramFor(p, "c2"), nullptr);
  EXPECT_EQ(paramFor(p, "c1")->name, "BLOCK_SIZE");
  EXPECT_EQ(paramFor(p, "c2")->name, "BLOCK_SIZE");
  EXPECT_EQ(paramFor(p, "c0")->name, "BLOCK_SIZE_2");
  EXPECT_TRUE(validatePlan(p, f.Set, f.sources()).empty());

  // The validator holds any plan to it: one of them alone, or two names.
  Plan alone = p;
  std::erase_if(alone.kernels,
                [](const PlanKernel &k) { return k.kernel == "shift"; });
  auto errors = validatePlan(alone, f.Set, f.sources());
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_NE(errors[0].message.find("lift candidate 'c2' of kernel 'shift' "
                                   "too, under the name 'BLOCK_SIZE'"),
            std::string::npos)
      << errors[0].message;
  Plan renamed = p;
  for (auto &k : renamed.kernels)
    for (auto &q : k.params)
      if (q.candidates == std::vector<std::string>{"c2"})
        q.name = "THREADS";
  errors = validatePlan(renamed, f.Set, f.sources());
  EXPECT_TRUE(std::any_of(errors.begin(), errors.end(), [](const Error &e) {
    return e.message.find("one edit serves both, so give the parameters one "
                          "name") != std::string::npos;
  })) << formatPlanErrors(errors);
}

// A constant computed from others is lifted with its lifted base, whatever
// its confidence, and takes the values its relation gives.
TEST(HeuristicPlanner, DerivedConstantsFollowTheirBases) {
  Fixture f;
  f.constant("c1", ParamKind::WarpsPerBlock, "kWarps", "6", 6);
  f.constant("c2", ParamKind::Other, "kMemory", "1536", 1536,
             Confidence::Medium);
  f.Set.candidates.back().impliedConstraints = {"{c2} == {c1} * {c3}"};
  f.constant("c3", ParamKind::Other, "kBins", "256", 256, Confidence::Medium);
  Plan p = f.plan();
  const PlanParam *memory = paramFor(p, "c2");
  ASSERT_NE(memory, nullptr);
  EXPECT_EQ(paramFor(p, "c3"), nullptr); // stays 256
  EXPECT_EQ(memory->domain.enumerate(),
            (std::vector<int64_t>{256, 512, 1024, 1536, 2048, 4096, 8192}));
  EXPECT_TRUE(
      hasConstraint(p.kernels[0], memory->name + " == WARPS_PER_BLOCK * 256"));
  EXPECT_TRUE(validatePlan(p, f.Set, f.sources()).empty());

  // Its base not lifted: it stays too.
  Fixture g;
  g.constant("c1", ParamKind::WarpsPerBlock, "kWarps", "6", 6, Confidence::Low);
  g.constant("c2", ParamKind::Other, "kMemory", "1536", 1536,
             Confidence::Medium);
  g.Set.candidates.back().impliedConstraints = {"{c2} == {c1} * 256"};
  EXPECT_TRUE(g.plan().kernels.empty());
}

// Property: whatever the candidates, the heuristic plan passes validatePlan,
// survives a JSON round trip, and lifts every clean confident candidate.
TEST(HeuristicPlanner, PlansAlwaysValidate) {
  auto allowed = [](ParamKind kind, int64_t v) {
    switch (kind) {
    case ParamKind::BlockSize:
      return v >= 1 && v <= 1024;
    case ParamKind::WarpsPerBlock:
      return v >= 1 && v <= 32;
    case ParamKind::VectorWidth:
      return v == 1 || v == 2 || v == 4 || v == 8 || v == 16;
    case ParamKind::Other:
      return v >= INT32_MIN && v <= INT32_MAX;
    default:
      return v >= 1 && v <= INT32_MAX;
    }
  };

  size_t lifted = 0, plans = 0;
  for (unsigned seed = 0; seed < 400; ++seed) {
    RandomCase random = randomCase(seed);
    Fixture &f = random.Kernel;
    SourceTexts texts = f.sources();
    HeuristicOptions options;
    options.minConfidence = random.MinConfidence;
    options.sources = &texts;
    Plan plan = heuristicPlan(f.Set, options);

    auto errors = validatePlan(plan, f.Set, texts);
    ASSERT_TRUE(errors.empty())
        << "seed " << seed << "\n"
        << formatPlanErrors(errors) << planToJson(plan).dump(2) << "\n"
        << candidatesToJson(f.Set).dump(2) << "\n"
        << f.Source;
    auto reread = planFromJson(planToJson(plan));
    ASSERT_TRUE(reread) << reread.error().str();
    EXPECT_TRUE(validatePlan(*reread, f.Set, texts).empty());
    plans += plan.kernels.empty() ? 0 : 1;

    // Every clean candidate of enough confidence is lifted.
    for (size_t i = 0; i < f.Set.candidates.size(); ++i) {
      const Candidate &c = f.Set.candidates[i];
      bool clean = static_cast<int>(c.confidence) <=
                       static_cast<int>(options.minConfidence) &&
                   allowed(c.kind, c.value) && f.Set.find(c.id) == &c;
      for (const auto &s : c.sites)
        clean = clean && s.replacement.find("{P}") != std::string::npos &&
                texts[ktune::test::FixtureFile].compare(s.offset, s.length,
                                                        s.text) == 0;
      for (size_t j = 0; j < f.Set.candidates.size() && clean; ++j)
        for (const auto &s : c.sites)
          for (const auto &t : f.Set.candidates[j].sites)
            if (i != j && s.offset < t.offset + std::max(1u, t.length) &&
                t.offset < s.offset + std::max(1u, s.length))
              clean = false;
      if (clean) {
        EXPECT_NE(paramFor(plan, c.id), nullptr)
            << "seed " << seed << ": clean candidate " << c.id << " left out";
        ++lifted;
      }
    }
  }
  // The generator must exercise the interesting part, not only rejections.
  EXPECT_GT(lifted, 300u);
  EXPECT_GT(plans, 200u);
}
