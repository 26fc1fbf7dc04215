#include "ktune/Plan/Plan.h"

#include "PlanTestSupport.h"

#include <gtest/gtest.h>

#include <random>

using namespace ktune;
using ktune::test::siteOf;
using nlohmann::json;

namespace {

const std::string File = "k.cu";

/// A kernel source and candidates read off it, built line by line.
struct Fixture {
  std::string Source;
  CandidateSet Set;

  Fixture() { Set.file = File; }

  /// Adds `constexpr int <name> = <literal>;` and a candidate for it whose
  /// sites are the literal and `uses` later spellings of the name.
  Candidate &constant(const std::string &id, ParamKind kind,
                      const std::string &name, const std::string &literal,
                      int64_t value, Confidence confidence = Confidence::High,
                      const std::string &kernel = "rmsnorm", int uses = 1) {
    std::string decl = "constexpr int " + name + " = " + literal + ";";
    Source += decl + "\n";
    Candidate c;
    c.id = id;
    c.kind = kind;
    c.kernel = kernel;
    c.value = value;
    c.spelling = name;
    c.confidence = confidence;
    c.sites.push_back(site(decl, literal, "definition"));
    for (int i = 0; i < uses; ++i) {
      std::string line = "use(" + name + ");";
      Source += line + "\n";
      c.sites.push_back(site(line, name, "other"));
    }
    Set.candidates.push_back(c);
    return Set.candidates.back();
  }

  /// The site of `needle` inside the line just appended.
  SourceSite site(const std::string &line, const std::string &needle,
                  const std::string &role) {
    size_t lineStart = Source.size() - line.size() - 1;
    size_t before = 0;
    for (size_t at = Source.find(needle); at < lineStart;
         at = Source.find(needle, at + 1))
      ++before;
    return siteOf(File, Source, needle, static_cast<unsigned>(before), role);
  }

  SourceTexts sources() const { return {{File, Source}}; }

  Plan plan(Confidence least = Confidence::High) {
    SourceTexts texts = sources();
    HeuristicOptions options;
    options.minConfidence = least;
    options.sources = &texts;
    Plan p = heuristicPlan(Set, options);
    auto errors = validatePlan(p, Set, texts);
    EXPECT_TRUE(errors.empty()) << formatPlanErrors(errors) << "\n"
                                << planToJson(p).dump(2);
    return p;
  }
};

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

// Property: whatever the candidates, the heuristic plan passes validatePlan,
// survives a JSON round trip, and lifts every clean confident candidate.
TEST(HeuristicPlanner, PlansAlwaysValidate) {
  const std::vector<ParamKind> kinds = {
      ParamKind::BlockSize,      ParamKind::TileSize,
      ParamKind::Unroll,         ParamKind::VectorWidth,
      ParamKind::ItemsPerThread, ParamKind::WarpsPerBlock,
      ParamKind::Other};
  const std::vector<int64_t> values = {-3,
                                       0,
                                       1,
                                       2,
                                       3,
                                       4,
                                       6,
                                       8,
                                       16,
                                       32,
                                       48,
                                       96,
                                       100,
                                       128,
                                       256,
                                       512,
                                       1024,
                                       2048,
                                       int64_t(1) << 40};
  const std::vector<std::string> spellings = {
      "kBlockSize", "kBlockX", "kBlockY",    "TILE_X", "tile_y", "kUnroll",
      "BLOCK_SIZE", "kPad",    "num_stages", "VEC",    "_",      "x"};
  const std::vector<std::string> macros = {"BLOCK_SIZE",
                                           "TILE",
                                           "UNROLL",
                                           "VEC",
                                           "RMSNORM_BLOCK_SIZE",
                                           "K0_BLOCK_SIZE",
                                           "BLOCK_SIZE_2",
                                           "PAD",
                                           "PARAM",
                                           "NUM_STAGES",
                                           "ITEMS_PER_THREAD",
                                           "WARPS_PER_BLOCK",
                                           "TILE_X"};
  const std::vector<std::string> implied = {"{self} % 32 == 0",
                                            "{self} <= 1024",
                                            "{other} * {self} <= 4096",
                                            "{c999} > 1",
                                            "{self} <",
                                            "{self} > 100000",
                                            "{self",
                                            "{self} / 0 == 1",
                                            "{self} * {other} % 2 == 0"};
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
    std::mt19937 rng(seed);
    auto pick = [&](const auto &list) -> const auto & {
      return list[std::uniform_int_distribution<size_t>(0,
                                                        list.size() - 1)(rng)];
    };
    auto chance = [&](double p) {
      return std::uniform_real_distribution<double>(0, 1)(rng) < p;
    };
    Fixture f;
    for (int m = 0; m < 3; ++m)
      if (chance(0.3))
        f.Source += "#define " + pick(macros) + " 1\n";
    int count = std::uniform_int_distribution<int>(0, 7)(rng);
    for (int i = 0; i < count; ++i) {
      std::string id = "c" + std::to_string(i);
      int64_t value = pick(values);
      std::string name = pick(spellings) + "_" + std::to_string(i);
      if (chance(0.2))
        name = pick(spellings); // may repeat or hit a macro: fine
      Candidate &c =
          f.constant(id, pick(kinds), name, std::to_string(value), value,
                     static_cast<Confidence>(
                         std::uniform_int_distribution<int>(0, 2)(rng)),
                     chance(0.7) ? "k0" : "k1",
                     std::uniform_int_distribution<int>(0, 3)(rng));
      if (chance(0.15) && i > 0) // claim a site of an earlier candidate
        c.sites.push_back(pick(f.Set.candidates[i - 1].sites));
      if (chance(0.1))
        c.sites.back().text += "x"; // stale
      if (chance(0.1))
        c.sites.back().replacement = "{P} - 1";
      if (chance(0.05))
        c.sites.back().replacement = "oops";
      if (chance(0.1))
        c.spelling = "16 / sizeof(T)";
      int constraints = std::uniform_int_distribution<int>(0, 3)(rng);
      for (int k = 0; k < constraints; ++k) {
        std::string text = pick(implied);
        std::string other =
            "c" + std::to_string(
                      std::uniform_int_distribution<int>(0, count - 1)(rng));
        for (size_t at; (at = text.find("self")) != std::string::npos;)
          text.replace(at, 4, id);
        for (size_t at; (at = text.find("other")) != std::string::npos;)
          text.replace(at, 5, other);
        c.impliedConstraints.push_back(text);
      }
    }
    if (chance(0.1) && count > 1) // a repeated id
      f.Set.candidates[1].id = f.Set.candidates[0].id;

    SourceTexts texts = f.sources();
    HeuristicOptions options;
    options.minConfidence =
        static_cast<Confidence>(std::uniform_int_distribution<int>(0, 2)(rng));
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
                texts[File].compare(s.offset, s.length, s.text) == 0;
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
