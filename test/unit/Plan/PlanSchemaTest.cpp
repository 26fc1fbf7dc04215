// The JSON Schema in docs/schemas/plan.schema.json goes into the LLM
// planner's prompt, so it must agree with the C++ reader and accept every
// plan the heuristic planner writes.
#include "ktune/Plan/Plan.h"
#include "ktune/Support/FileUtil.h"

#include "PlanTestSupport.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <sys/wait.h>
#include <unistd.h>

using namespace ktune;
namespace fs = std::filesystem;

static const fs::path PlansDir =
    fs::path(KTUNE_SOURCE_DIR) / "test/lit/Inputs/plans";
static const fs::path Schema =
    fs::path(KTUNE_SOURCE_DIR) / "docs/schemas/plan.schema.json";

static std::vector<fs::path> jsonFiles(const fs::path &dir) {
  std::vector<fs::path> out;
  for (const auto &entry : fs::directory_iterator(dir))
    if (entry.path().extension() == ".json")
      out.push_back(entry.path());
  std::sort(out.begin(), out.end());
  return out;
}

TEST(PlanSchema, ReaderAgreesWithTheExampleFiles) {
  auto valid = jsonFiles(PlansDir / "valid");
  auto invalid = jsonFiles(PlansDir / "invalid");
  ASSERT_GE(valid.size(), 3u);
  ASSERT_GE(invalid.size(), 10u);
  for (const auto &path : valid) {
    auto j = readJsonFile(path.string());
    ASSERT_TRUE(j) << j.error().str();
    auto plan = planFromJson(*j);
    EXPECT_TRUE(plan) << path << ": " << plan.error().str();
  }
  for (const auto &path : invalid) {
    auto j = readJsonFile(path.string());
    ASSERT_TRUE(j) << j.error().str();
    EXPECT_FALSE(planFromJson(*j)) << path << " was accepted";
  }
}

/// Runs the schema checker over `dir`; nullopt when it cannot run here.
static std::optional<int> checkWithSchema(const fs::path &dir) {
  std::string command = std::string("\"") + KTUNE_PYTHON + "\" \"" +
                        KTUNE_SOURCE_DIR +
                        "/test/scripts/check_json_schema.py\" \"" +
                        Schema.string() + "\" --valid \"" + dir.string() +
                        "\" > \"" + (dir / "check.log").string() + "\" 2>&1";
  int status = std::system(command.c_str());
  if (status == -1 || !WIFEXITED(status))
    return std::nullopt;
  int code = WEXITSTATUS(status);
  if (code == 77 || code == 127)
    return std::nullopt;
  return code;
}

TEST(PlanSchema, HeuristicPlansMatchTheSchema) {
  fs::path dir = fs::path(::testing::TempDir()) /
                 ("ktune-heuristic-plans-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  size_t written = 0;
  for (unsigned seed = 0; seed < 150; ++seed) {
    test::RandomCase random = test::randomCase(seed);
    SourceTexts texts = random.Kernel.sources();
    HeuristicOptions options;
    options.minConfidence = random.MinConfidence;
    options.sources = &texts;
    Plan plan = heuristicPlan(random.Kernel.Set, options);
    if (plan.kernels.empty())
      continue;
    auto status = writeFileAtomically(
        (dir / ("seed" + std::to_string(seed) + ".json")).string(),
        planToJson(plan).dump(2));
    ASSERT_TRUE(status) << status.error().str();
    ++written;
  }
  ASSERT_GT(written, 50u);
  auto code = checkWithSchema(dir);
  // scripts/setup.sh installs python3-jsonschema: its absence is a failure.
  ASSERT_TRUE(code.has_value()) << "python3 with jsonschema is not available";
  auto log = readFile((dir / "check.log").string());
  EXPECT_EQ(*code, 0) << (log ? *log : std::string());
  if (*code == 0)
    fs::remove_all(dir);
}
