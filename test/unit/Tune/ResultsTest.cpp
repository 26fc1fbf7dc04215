#include "ktune/Tune/Results.h"

#include <gtest/gtest.h>

#include <cmath>

using namespace ktune;

namespace {

const Configuration Default{{"B", 256}};
const Configuration A{{"B", 128}};
const Configuration Bc{{"B", 512}};
const Configuration C{{"B", 64}};

/// Fabricated medians (µs) per shape; a missing entry fails.
struct Table {
  std::map<std::pair<int64_t, int64_t>, double> t; // (n, B) -> us
  int calls = 0;
  MeasureFn fn() {
    return [this](const Shape &s,
                  const Configuration &c) -> std::optional<double> {
      ++calls;
      auto it = t.find({s.at("n"), c.at("B")});
      if (it == t.end())
        return std::nullopt;
      return it->second;
    };
  }
};

} // namespace

TEST(GeneralConfiguration, BestGeometricMeanAmongThoseValidEverywhere) {
  std::vector<Shape> shapes = {{{"n", 1}}, {{"n", 2}}, {{"n", 3}}};
  Table table;
  table.t = {{{1, 256}, 10},
             {{2, 256}, 10},
             {{3, 256}, 10},
             // A: 2x, 2x, 0.5x -> geomean 2^(1/3)
             {{1, 128}, 5},
             {{2, 128}, 5},
             {{3, 128}, 20},
             // B: 1.25x everywhere -> geomean 1.25
             {{1, 512}, 8},
             {{2, 512}, 8},
             {{3, 512}, 8},
             // C: 10x on two shapes but fails on the third: out
             {{1, 64}, 1},
             {{2, 64}, 1}};
  auto g = chooseGeneralConfiguration(shapes, Default, {C, A, Bc}, table.fn());
  ASSERT_TRUE(g);
  EXPECT_EQ(g->config, A);
  EXPECT_NEAR(g->geomeanSpeedup, std::cbrt(2.0), 1e-12);
  ASSERT_EQ(g->perShape.size(), 3u);
  EXPECT_DOUBLE_EQ(g->perShape[2].speedup, 0.5);
  EXPECT_DOUBLE_EQ(g->perShape[2].medianUs, 20);
  EXPECT_EQ(g->candidates, 4u); // the default always competes
}

TEST(GeneralConfiguration, DefaultWinsWhenNothingBeatsItEverywhere) {
  std::vector<Shape> shapes = {{{"n", 1}}, {{"n", 2}}};
  Table table;
  table.t = {{{1, 256}, 10}, {{2, 256}, 10}, {{1, 128}, 5}, {{2, 128}, 40}};
  auto g = chooseGeneralConfiguration(shapes, Default, {A}, table.fn());
  ASSERT_TRUE(g);
  EXPECT_EQ(g->config, Default);
  EXPECT_DOUBLE_EQ(g->geomeanSpeedup, 1.0);
}

TEST(GeneralConfiguration, ShapesWhereTheDefaultFailsAreLeftOut) {
  std::vector<Shape> shapes = {{{"n", 1}}, {{"n", 2}}};
  Table table;
  table.t = {{{1, 256}, 10}, {{1, 128}, 5}, {{2, 128}, 7}};
  auto g = chooseGeneralConfiguration(shapes, Default, {A}, table.fn());
  ASSERT_TRUE(g);
  EXPECT_EQ(g->config, A);
  EXPECT_DOUBLE_EQ(g->geomeanSpeedup, 2.0); // from shape n=1 alone
}

TEST(GeneralConfiguration, NoneWhenNothingMeasuresEverywhere) {
  std::vector<Shape> shapes = {{{"n", 1}}, {{"n", 2}}};
  Table table;
  table.t = {{{1, 128}, 5}};
  EXPECT_FALSE(chooseGeneralConfiguration(shapes, Default, {A}, table.fn()));
}

TEST(Results, JsonRoundTripAndTable) {
  TuneResults r;
  r.kernel = "rmsnorm";
  r.templatePath = "rmsnorm.tpl.cu";
  r.templateSha256 = "abc";
  r.device = "NVIDIA H200";
  r.arch = "sm_90";
  r.strategy = "random";
  r.seed = 3;
  r.budget = 50;
  r.params = {"B"};
  ShapeResult s;
  s.shape = {{"n", 16}};
  s.defaultConfig = Default;
  s.defaultTime = Timing{12.5, 0.1, 200};
  s.bestConfig = A;
  s.bestTime = Timing{10.0, 0.05, 200};
  s.speedup = 1.25;
  s.retimed = true;
  s.evaluations = 50;
  s.statusCounts = {{EvalStatus::Ok, 45}, {EvalStatus::Pruned, 5}};
  s.stopReason = "budget";
  s.finalists = {
      {Default, EvalResult{EvalStatus::Ok, "", Timing{12.5, 0.1, 200}}},
      {A, EvalResult{EvalStatus::Ok, "", Timing{10.0, 0.05, 200}}}};
  r.shapes.push_back(s);
  r.general = GeneralResult{A, 1.25, {{1.25, 10.0}}, 2};

  auto j = resultsToJson(r);
  EXPECT_EQ(j["ktune"], "results/1");
  EXPECT_EQ(j["shapes"][0]["best"]["config"]["B"], 128);
  EXPECT_EQ(j["shapes"][0]["default"]["time_us"]["median"], 12.5);
  auto back = resultsFromJson(j);
  ASSERT_TRUE(back) << back.error().str();
  EXPECT_EQ(resultsToJson(*back), j);

  std::string table = formatResultsTable(r);
  EXPECT_NE(table.find("n=16"), std::string::npos) << table;
  EXPECT_NE(table.find("12.50 (0.10)"), std::string::npos) << table;
  EXPECT_NE(table.find("1.250x"), std::string::npos) << table;
  EXPECT_NE(table.find("general configuration: B=128"), std::string::npos)
      << table;

  j["ktune"] = "results/0";
  EXPECT_EQ(resultsFromJson(j).error().where, "ktune");
  j["ktune"] = "results/1";
  j["shapes"][0]["best"]["config"]["B"] = "big";
  EXPECT_EQ(resultsFromJson(j).error().where, "shapes[0].best.config.B");
}

TEST(Results, CompileOnlyTableListsResources) {
  TuneResults r;
  r.kernel = "k";
  r.device = "compile only";
  r.arch = "sm_90";
  r.compileOnly = true;
  ShapeResult s;
  s.shape = {{"n", 16}};
  s.evaluations = 2;
  s.statusCounts = {{EvalStatus::Ok, 1}, {EvalStatus::Pruned, 1}};
  s.stopReason = "compile only";
  EvalResult ok;
  ok.resources.registers = 40;
  ok.resources.spillStores = 4;
  ok.resources.smemStatic = 1024;
  ok.resources.threadsPerBlock = 256;
  ok.resources.blocksPerSM = 8;
  EvalResult pruned;
  pruned.status = EvalStatus::Pruned;
  pruned.reason = "1024 threads per block exceed the kernel's limit\nmore";
  s.finalists = {{A, ok}, {Bc, pruned}};
  r.shapes.push_back(s);
  std::string table = formatResultsTable(r);
  EXPECT_NE(table.find("ok 1, pruned 1"), std::string::npos) << table;
  EXPECT_NE(table.find("B=128"), std::string::npos) << table;
  EXPECT_NE(table.find("40    4       1024    256      8"), std::string::npos)
      << table;
  EXPECT_NE(table.find("pruned"), std::string::npos) << table;
  EXPECT_NE(table.find("exceed the kernel's limit\n"), std::string::npos)
      << table;
  // Resources survive the results file.
  auto back = resultsFromJson(resultsToJson(r));
  ASSERT_TRUE(back) << back.error().str();
  EXPECT_EQ(back->shapes[0].finalists[0].result.resources.registers, 40);
  EXPECT_EQ(back->shapes[0].finalists[0].result.resources.blocksPerSM, 8);
}

// Fields of the wrong type are errors naming their path, never exceptions.
TEST(Results, WrongTypesAreErrorsNotExceptions) {
  TuneResults r;
  r.kernel = "k";
  r.device = "d";
  r.arch = "sm_90";
  ShapeResult s;
  s.defaultConfig = Default;
  s.bestConfig = A;
  s.finalists = {{A, EvalResult{EvalStatus::Ok, "", Timing{10.0, 0.05, 200}}}};
  r.shapes.push_back(s);
  r.general = GeneralResult{A, 1.25, {{1.25, 10.0}}, 2};
  nlohmann::json good = resultsToJson(r);
  ASSERT_TRUE(resultsFromJson(good));
  for (auto [pointer, value, where] :
       {std::tuple<const char *, nlohmann::json, const char *>{"/seed", "7",
                                                               "seed"},
        {"/template", 1, "template"},
        {"/compile_only", "yes", "compile_only"},
        {"/shapes/0/speedup", "fast", "shapes[0].speedup"},
        {"/shapes/0/stop_reason", 3, "shapes[0].stop_reason"},
        {"/shapes/0/finalists/0/status", 2, "shapes[0].finalists[0].status"},
        {"/shapes/0/finalists/0/time_us/reps", "x",
         "shapes[0].finalists[0].time_us.reps"},
        {"/shapes/0/finalists/0/resources/registers", 1.5,
         "shapes[0].finalists[0].resources.registers"},
        {"/general/candidates", -1, "general.candidates"},
        {"/general/per_shape/0", 3, "general.per_shape[0]"}}) {
    nlohmann::json j = good;
    j[nlohmann::json::json_pointer(pointer)] = value;
    auto back = resultsFromJson(j);
    ASSERT_FALSE(back) << pointer;
    EXPECT_EQ(back.error().where, where) << back.error().str();
  }
}
