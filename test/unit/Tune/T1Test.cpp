#include "ktune/Tune/T1.h"
#include "TestData.h"
#include "ktune/Support/FileUtil.h"
#include "ktune/Tune/Simulator.h"

#include <gtest/gtest.h>

#include <set>

using namespace ktune;
using nlohmann::json;

namespace {
const std::string Convolution = convolutionSpaces();
}

TEST(T1, PythonListsOfIntegers) {
  EXPECT_EQ(*parsePythonIntList("[16, 32, 48]"),
            (std::vector<int64_t>{16, 32, 48}));
  EXPECT_EQ(*parsePythonIntList(" [1] "), (std::vector<int64_t>{1}));
  EXPECT_EQ(*parsePythonIntList("(1, 2,)"), (std::vector<int64_t>{1, 2}));
  EXPECT_EQ(*parsePythonIntList("[True, False]"), (std::vector<int64_t>{1, 0}));
  EXPECT_EQ(*parsePythonIntList("[-4, 2.0, 1_000]"),
            (std::vector<int64_t>{-4, 2, 1000}));
  EXPECT_EQ(parsePythonIntList("[]")->size(), 0u);
  auto text = parsePythonIntList("[1, 'a']");
  ASSERT_FALSE(text);
  EXPECT_NE(text.error().message.find("col 5"), std::string::npos);
  EXPECT_FALSE(parsePythonIntList("[1.5]"));
  EXPECT_FALSE(parsePythonIntList("[1, 2"));
  EXPECT_FALSE(parsePythonIntList("[1 2]"));
  EXPECT_FALSE(parsePythonIntList("range(4)"));
  EXPECT_FALSE(parsePythonIntList("[1] x"));
}

TEST(T1, ReadsTheSharedConvolutionSpace) {
  KTUNE_REQUIRE_DATA(Convolution + "T1_input.json");
  auto t1 = readT1File(Convolution + "T1_input.json");
  ASSERT_TRUE(t1) << t1.error().str();
  EXPECT_EQ(t1->benchmarkName, "convolution_milo");
  EXPECT_EQ(t1->kernelName, "convolution_kernel");
  ASSERT_EQ(t1->params.size(), 10u);
  EXPECT_EQ(t1->params[0].name, "block_size_x");
  EXPECT_EQ(t1->params[0].domain.size(), 16u);
  EXPECT_EQ(t1->params[0].defaultValue, 16);
  EXPECT_EQ(t1->conditions.size(), 4u);
  auto space = t1->searchSpace();
  ASSERT_TRUE(space) << space.error().str();
  EXPECT_EQ(space->cartesianSize(), 16u * 5 * 4 * 4 * 2 * 2 * 2);

  // The conditions admit exactly the configurations the T4 files list
  // (failed compilations and runs are listed too, with their invalidity).
  auto replay = ReplayEvaluator::readT4File(Convolution + "A100_T4.json.gz");
  ASSERT_TRUE(replay) << replay.error().str();
  std::set<Configuration> recorded;
  for (const auto &[config, result] : replay->records())
    recorded.insert(config);
  std::set<Configuration> valid;
  space->forEachValid([&](const Point &p) {
    valid.insert(space->toConfig(p));
    return true;
  });
  EXPECT_EQ(valid.size(), recorded.size());
  EXPECT_EQ(valid, recorded);
  EXPECT_EQ(*space->validCount(), replay->size());
}

namespace {

/// Where reading `doc` fails once `value` is put at `pointer`; a test
/// failure when it reads.
std::string readErrorWhere(json doc, const std::string &pointer, json value) {
  doc[json::json_pointer(pointer)] = std::move(value);
  auto t1 = t1FromJson(doc);
  EXPECT_FALSE(t1) << "expected an error for " << doc.dump();
  return t1 ? "" : t1.error().where;
}

} // namespace

TEST(T1, RejectsWhatItCannotRepresent) {
  auto base = json::parse(R"({"ConfigurationSpace": {"TuningParameters": [
      {"Name": "a", "Type": "int", "Values": "[1, 2, 4]", "Default": 2},
      {"Name": "b", "Type": "int", "Values": [8, 16]}],
    "Conditions": [{"Expression": "a * b <= 32", "Parameters": ["a", "b"]}]}})");
  auto ok = t1FromJson(base);
  ASSERT_TRUE(ok) << ok.error().str();
  auto space = ok->searchSpace();
  ASSERT_TRUE(space);
  EXPECT_EQ(space->validCount(), 5u);

  EXPECT_EQ(readErrorWhere(base,
                           "/ConfigurationSpace/TuningParameters/1/Values",
                           "[0.5, 1.5]"),
            "ConfigurationSpace.TuningParameters[1].Values");

  EXPECT_EQ(readErrorWhere(base, "/ConfigurationSpace/TuningParameters/0/Type",
                           "string"),
            "ConfigurationSpace.TuningParameters[0].Type");

  EXPECT_EQ(readErrorWhere(base, "/ConfigurationSpace/Conditions/0/Expression",
                           "a * <= 32"),
            "ConfigurationSpace.Conditions[0].Expression");

  auto unknownName = base;
  unknownName["ConfigurationSpace"]["Conditions"][0]["Expression"] =
      "a * c <= 32";
  auto t1 = t1FromJson(unknownName);
  ASSERT_TRUE(t1);
  auto e4 = t1->searchSpace();
  ASSERT_FALSE(e4);
  EXPECT_EQ(e4.error().where, "ConfigurationSpace.Conditions[0]");

  auto missing = base;
  missing["ConfigurationSpace"].erase("TuningParameters");
  auto e5 = t1FromJson(missing);
  ASSERT_FALSE(e5);
  EXPECT_EQ(e5.error().where, "ConfigurationSpace.TuningParameters");

  auto dup = base;
  dup["ConfigurationSpace"]["TuningParameters"][0]["Values"] = "[1, 1]";
  EXPECT_FALSE(t1FromJson(dup));

  auto missingFile = readT1File("/nonexistent/T1.json");
  EXPECT_FALSE(missingFile);
}
