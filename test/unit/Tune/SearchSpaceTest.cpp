#include "ktune/Tune/SearchSpace.h"

#include <gtest/gtest.h>

#include <set>

using namespace ktune;

namespace {

SpaceParam param(std::string name, std::vector<int64_t> values,
                 std::optional<int64_t> def = std::nullopt) {
  SpaceParam p;
  p.name = std::move(name);
  p.domain = Domain::ofValues(std::move(values));
  p.defaultValue = def;
  return p;
}

SpaceParam rangeParam(std::string name, int64_t lo, int64_t hi) {
  SpaceParam p;
  p.name = std::move(name);
  p.domain = Domain::ofRange(lo, hi);
  return p;
}

// Draws `draws` valid points, each within `maxTries` attempts, checking
// each one; returns the distinct points drawn.
std::set<Point> distinctValidDraws(const SearchSpace &space,
                                   std::mt19937_64 &rng, int draws,
                                   int maxTries = 10000) {
  std::set<Point> seen;
  for (int i = 0; i < draws; ++i) {
    auto p = space.randomValid(rng, maxTries);
    if (!p) {
      ADD_FAILURE() << "no valid point drawn in " << maxTries << " tries";
      break;
    }
    EXPECT_TRUE(space.isValid(*p));
    seen.insert(*p);
  }
  return seen;
}

/// bx in {16..256 step 16}, by in {1,2,4,8,16}, t in {1,2,3,4}.
SearchSpace blockSpace() {
  SpaceParam bx;
  bx.name = "bx";
  bx.domain = Domain::ofRange(16, 256, 16);
  bx.defaultValue = 64;
  auto space = SearchSpace::create(
      {bx, param("by", {1, 2, 4, 8, 16}, 4), param("t", {1, 2, 3, 4}, 1)},
      {"bx * by <= 1024", "t == 1 || bx % 32 == 0"});
  EXPECT_TRUE(space) << space.error().str();
  return *space;
}

bool blockValid(int64_t bx, int64_t by, int64_t t) {
  return bx * by <= 1024 && (t == 1 || bx % 32 == 0);
}

} // namespace

TEST(SearchSpace, EnumeratesExactlyTheValidPointsInOrder) {
  SearchSpace space = blockSpace();
  EXPECT_EQ(space.dims(), 3u);
  EXPECT_EQ(space.cartesianSize(), 16u * 5 * 4);
  // Reference: every cartesian point checked by hand-written C++.
  std::vector<Point> expected;
  for (uint32_t a = 0; a < 16; ++a)
    for (uint32_t b = 0; b < 5; ++b)
      for (uint32_t c = 0; c < 4; ++c)
        if (blockValid(16 * (a + 1), int64_t(1) << b, c + 1))
          expected.push_back({a, b, c});
  std::vector<Point> walked;
  space.forEachValid([&](const Point &p) {
    walked.push_back(p);
    return true;
  });
  EXPECT_EQ(walked, expected); // same points, lexicographic order
  EXPECT_EQ(space.validCount(), expected.size());
  for (const auto &p : walked)
    EXPECT_TRUE(space.isValid(p));
}

TEST(SearchSpace, StopsWalkingWhenAsked) {
  SearchSpace space = blockSpace();
  int visited = 0;
  space.forEachValid([&](const Point &) { return ++visited < 7; });
  EXPECT_EQ(visited, 7);
}

TEST(SearchSpace, ValidityAndTheViolatedConstraint) {
  SearchSpace space = blockSpace();
  auto p = space.fromConfig({{"bx", 48}, {"by", 1}, {"t", 2}});
  ASSERT_TRUE(p);
  EXPECT_FALSE(space.isValid(*p));
  EXPECT_EQ(space.violatedConstraint(*p), "t == 1 || bx % 32 == 0");
  auto q = space.fromConfig({{"bx", 256}, {"by", 8}, {"t", 1}});
  ASSERT_TRUE(q);
  EXPECT_EQ(space.violatedConstraint(*q), "bx * by <= 1024");
  auto ok = space.fromConfig({{"bx", 64}, {"by", 4}, {"t", 3}});
  ASSERT_TRUE(ok);
  EXPECT_TRUE(space.isValid(*ok));
  EXPECT_EQ(space.violatedConstraint(*ok), std::nullopt);
  EXPECT_FALSE(space.isValid(Point{99, 0, 0})); // outside the domain
  EXPECT_FALSE(space.isValid(Point{0, 0}));     // wrong arity
}

TEST(SearchSpace, ConfigurationsRoundTrip) {
  SearchSpace space = blockSpace();
  Configuration c{{"bx", 96}, {"by", 2}, {"t", 4}};
  auto p = space.fromConfig(c);
  ASSERT_TRUE(p);
  EXPECT_EQ(*p, (Point{5, 1, 3}));
  EXPECT_EQ(space.toConfig(*p), c);
  EXPECT_FALSE(space.fromConfig({{"bx", 100}, {"by", 2}, {"t", 4}}));
  EXPECT_FALSE(space.fromConfig({{"bx", 96}, {"by", 2}}));
  auto d = space.defaultPoint();
  ASSERT_TRUE(d);
  EXPECT_EQ(space.toConfig(*d),
            (Configuration{{"bx", 64}, {"by", 4}, {"t", 1}}));
}

TEST(SearchSpace, FixedNamesAndErrors) {
  auto space = SearchSpace::create(
      {param("b", {32, 64, 128, 256})}, {"b <= max_threads / 2"},
      expr::Dialect::Ktune, {{"max_threads", 256}});
  ASSERT_TRUE(space) << space.error().str();
  EXPECT_EQ(space->validCount(), 3u);

  auto unknown =
      SearchSpace::create({param("b", {1, 2})}, {"b < 2", "b < limit"});
  ASSERT_FALSE(unknown);
  EXPECT_EQ(unknown.error().where, "constraints[1]");
  EXPECT_NE(unknown.error().message.find("limit"), std::string::npos);

  auto syntax = SearchSpace::create({param("b", {1, 2})}, {"b <"});
  ASSERT_FALSE(syntax);
  EXPECT_EQ(syntax.error().where, "constraints[0]");

  auto dup = SearchSpace::create({param("b", {1}), param("b", {2})}, {});
  ASSERT_FALSE(dup);
  EXPECT_EQ(dup.error().where, "params[1]");

  auto empty = SearchSpace::create({param("b", {})}, {});
  ASSERT_FALSE(empty);
  auto repeated = SearchSpace::create({param("b", {1, 1})}, {});
  ASSERT_FALSE(repeated);
}

TEST(SearchSpace, NeighboursAreValidAndDifferInOneParameter) {
  SearchSpace space = blockSpace();
  auto p = *space.fromConfig({{"bx", 64}, {"by", 4}, {"t", 2}});
  auto adjacent = space.neighbours(p);
  auto any = space.neighbours(p, true);
  auto diff = [](const Point &a, const Point &b) {
    int n = 0;
    for (size_t k = 0; k < a.size(); ++k)
      n += a[k] != b[k];
    return n;
  };
  std::set<Point> anySet(any.begin(), any.end());
  EXPECT_EQ(anySet.size(), any.size());
  for (const auto &q : adjacent) {
    EXPECT_TRUE(space.isValid(q));
    EXPECT_EQ(diff(p, q), 1);
    for (size_t k = 0; k < p.size(); ++k)
      EXPECT_LE(std::abs(int(p[k]) - int(q[k])), 1);
    EXPECT_TRUE(anySet.count(q));
  }
  // bx 48 and 80 break "t == 1 || bx % 32 == 0"; by 2 and 8 are fine; t 1, 3.
  EXPECT_EQ(adjacent.size(), 4u);
  // Reference count for "any value": every single change that stays valid.
  size_t expected = 0;
  for (int64_t bx = 16; bx <= 256; bx += 16)
    expected += bx != 64 && blockValid(bx, 4, 2);
  for (int64_t by : {1, 2, 8, 16})
    expected += blockValid(64, by, 2);
  for (int64_t t : {1, 3, 4})
    expected += blockValid(64, 4, t);
  EXPECT_EQ(any.size(), expected);
  for (const auto &q : any) {
    EXPECT_TRUE(space.isValid(q));
    EXPECT_EQ(diff(p, q), 1);
  }
}

TEST(SearchSpace, RandomValidIsValidSeededAndCoversTheSpace) {
  SearchSpace space = blockSpace();
  std::mt19937_64 a(7), b(7);
  std::map<Point, int> counts;
  for (int i = 0; i < 20000; ++i) {
    auto p = space.randomValid(a);
    auto q = space.randomValid(b);
    ASSERT_TRUE(p);
    ASSERT_EQ(p, q);
    EXPECT_TRUE(space.isValid(*p));
    ++counts[*p];
  }
  uint64_t valid = *space.validCount();
  EXPECT_EQ(counts.size(), valid); // every valid point drawn
  double mean = 20000.0 / valid;
  for (const auto &[p, n] : counts) {
    EXPECT_GT(n, mean * 0.4);
    EXPECT_LT(n, mean * 1.8);
  }
}

TEST(SearchSpace, TightConstraintsFallBackToEnumeration) {
  // 10^6 cartesian points, 100 valid: rejection with 50 tries fails.
  auto space = SearchSpace::create(
      {rangeParam("a", 0, 99), rangeParam("b", 0, 99), rangeParam("c", 0, 99)},
      {"a == b", "b == c"});
  ASSERT_TRUE(space);
  std::mt19937_64 rng(1);
  // Uniform over the 100 valid points.
  EXPECT_GT(distinctValidDraws(*space, rng, 2000, 50).size(), 90u);

  auto none = SearchSpace::create({rangeParam("a", 0, 9)}, {"a > 100"});
  ASSERT_TRUE(none);
  EXPECT_FALSE(none->randomValid(rng, 20));
  EXPECT_EQ(none->validCount(), 0u);
}

TEST(SearchSpace, BillionPointSpaceIsWalkedAndSampledLazily) {
  std::vector<SpaceParam> params;
  std::string sum;
  for (int k = 0; k < 9; ++k) {
    params.push_back(rangeParam("p" + std::to_string(k), 0, 9));
    sum += (k ? " + p" : "p") + std::to_string(k);
  }
  auto space = SearchSpace::create(params, {sum + " <= 30", "p0 != p8"});
  ASSERT_TRUE(space);
  EXPECT_EQ(space->cartesianSize(), 1000000000u);
  EXPECT_FALSE(space->validCount()); // too large to count by default

  // Walking the first thousand valid points touches a sliver of the space.
  std::vector<Point> first;
  space->forEachValid([&](const Point &p) {
    first.push_back(p);
    return first.size() < 1000;
  });
  ASSERT_EQ(first.size(), 1000u);
  EXPECT_EQ(first.front(), (Point{0, 0, 0, 0, 0, 0, 0, 0, 1}));
  for (size_t i = 1; i < first.size(); ++i)
    EXPECT_LT(first[i - 1], first[i]);

  std::mt19937_64 rng(3);
  EXPECT_GT(distinctValidDraws(*space, rng, 5000).size(), 4900u);
  auto p = *space->randomValid(rng);
  for (const auto &q : space->neighbours(p, true))
    EXPECT_TRUE(space->isValid(q));
}

TEST(SearchSpace, BillionPointSpaceWithFewValidPointsStillSamples) {
  // Nine parameters that must all be equal: 10 valid points in 10^9, too
  // many to enumerate and too few for rejection.
  std::vector<SpaceParam> params;
  std::vector<std::string> constraints;
  for (int k = 0; k < 9; ++k) {
    params.push_back(rangeParam("p" + std::to_string(k), 0, 9));
    if (k)
      constraints.push_back("p" + std::to_string(k) + " == p0");
  }
  auto space = SearchSpace::create(params, constraints);
  ASSERT_TRUE(space);
  std::mt19937_64 rng(5);
  EXPECT_GE(distinctValidDraws(*space, rng, 200, 100).size(), 5u);
}
