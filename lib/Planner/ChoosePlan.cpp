//===- ChoosePlan.cpp - A plan file, a planner's plan or the heuristic one ===//
#include "ktune/Planner/ChoosePlan.h"
#include "ktune/Support/Try.h"

#include "ktune/Support/FileUtil.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <set>

namespace ktune::planner {

namespace fs = std::filesystem;

namespace {

using PlanErrors = std::vector<Error>;

std::string lastComponent(const std::string &name) {
  auto pos = name.rfind("::");
  return pos == std::string::npos ? name : name.substr(pos + 2);
}

std::unexpected<PlanErrors> failure(Error error) {
  return std::unexpected(PlanErrors{std::move(error)});
}

std::expected<ChosenPlan, PlanErrors> fromFile(const PlannerRequest &request,
                                               const std::string &path) {
  auto plan = readJsonFileAs(path, planFromJson);
  if (!plan)
    return failure(plan.error());
  auto errors = validatePlan(*plan, request.candidates, request.sources);
  if (!errors.empty()) {
    for (Error &e : errors)
      e = withContext(std::move(e), path);
    return std::unexpected(std::move(errors));
  }
  return ChosenPlan{std::move(*plan), "file " + path, std::nullopt};
}

bool liftsIn(const Plan &plan, const std::string &kernel) {
  return std::any_of(plan.kernels.begin(), plan.kernels.end(),
                     [&](const PlanKernel &k) {
                       return sameKernel(k.kernel, kernel) && !k.params.empty();
                     });
}

ChosenPlan heuristic(const PlannerRequest &request, const PlanChoice &choice) {
  ChosenPlan chosen{defaultPlan(request.candidates, request.sources),
                    "heuristic", std::nullopt};
  if (choice.kernels.empty())
    return chosen;
  chosen.plan = restrictPlan(std::move(chosen.plan), choice.kernels);
  // A kernel with no confident candidate: take the less confident ones
  // rather than tune nothing.
  for (const auto &k : choice.kernels) {
    for (Confidence c : {Confidence::Medium, Confidence::Low}) {
      if (liftsIn(chosen.plan, k))
        break;
      Plan wider = restrictPlan(
          defaultPlan(request.candidates, request.sources, c), {k});
      if (!liftsIn(wider, k))
        continue;
      std::erase_if(chosen.plan.kernels, [&](const PlanKernel &pk) {
        return sameKernel(pk.kernel, k);
      });
      chosen.plan.kernels.push_back(wider.kernels.front());
      std::string level(confidenceName(c));
      chosen.origin =
          "heuristic (" + level + "-confidence candidates for " + k + ")";
      if (choice.log)
        choice.log("plan: no high-confidence candidate in " + k + ": lifting " +
                   level + "-confidence ones");
    }
  }
  return chosen;
}

} // namespace

namespace {

Expected<double> parsePositive(const std::string &text,
                               const std::string &flag) {
  char *end = nullptr;
  double v = std::strtod(text.c_str(), &end);
  if (text.empty() || *end != '\0' || !(v > 0))
    return makeError("expected a positive number, got '" + text + "'", flag);
  return v;
}

} // namespace

Status readPlannerLimits(const std::optional<std::string> &timeout,
                         const std::optional<std::string> &attempts,
                         PlannerFlags &flags) {
  if (timeout) {
    KTUNE_TRY_ASSIGN(flags.timeoutSeconds,
                     parsePositive(*timeout, "--planner-timeout"));
  }
  if (attempts) {
    auto n = parsePositive(*attempts, "--planner-attempts");
    if (!n || *n != static_cast<int>(*n) || *n > 20)
      return makeError("--planner-attempts: expected an integer from 1 to 20");
    flags.attempts = static_cast<int>(*n);
  }
  return {};
}

Expected<ConfiguredPlanner> configurePlanner(const PlannerFlags &flags) {
  KTUNE_TRY_ASSIGN(auto options, plannerOptionsFromEnvironment());
  if (!flags.model.empty())
    options.model = flags.model;
  if (flags.timeoutSeconds) {
    if (!(*flags.timeoutSeconds > 0))
      return makeError("--planner-timeout must be a positive number of "
                       "seconds");
    options.timeoutSeconds = *flags.timeoutSeconds;
  }
  if (flags.attempts)
    options.attempts = *flags.attempts;
  if (flags.jsonMode)
    options.jsonMode = true;
  if (!flags.promptTemplate.empty())
    options.prompt.templatePath = flags.promptTemplate;
  if (!flags.planSchema.empty())
    options.prompt.schemaPath = flags.planSchema;
  auto planner = parsePlannerSpec(flags.spec, options);
  if (!planner)
    return makeError(planner.error().message, "--planner");
  return ConfiguredPlanner{std::move(options), std::move(*planner)};
}

std::expected<ChosenPlan, std::vector<Error>>
choosePlan(const PlannerRequest &request, const PlanChoice &choice) {
  if (!choice.planPath.empty()) {
    auto chosen = fromFile(request, choice.planPath);
    if (chosen && !choice.kernels.empty())
      chosen->plan = restrictPlan(std::move(chosen->plan), choice.kernels);
    return chosen;
  }
  if (!choice.planner || !choice.planner->isTextPlanner()) {
    ChosenPlan chosen = heuristic(request, choice);
    if (auto errors =
            validatePlan(chosen.plan, request.candidates, request.sources);
        !errors.empty())
      return std::unexpected(std::move(errors));
    return chosen;
  }
  auto result = planWithValidation(*choice.planner, request, choice.planning);
  if (!result)
    return failure(result.error());
  ChosenPlan chosen;
  chosen.origin = choice.planner->describe() + " (" +
                  std::string(outcomeName(result->outcome)) + ")";
  chosen.plan = restrictPlan(std::move(result->plan), choice.kernels);
  chosen.planning = std::move(*result);
  return chosen;
}

Expected<SourceTexts>
readCandidateSources(const CandidateSet &set, const std::string &candidatesPath,
                     const std::optional<std::string> &root) {
  std::set<std::string> files;
  if (!set.file.empty())
    files.insert(set.file);
  for (const auto &c : set.candidates)
    for (const auto &s : c.sites)
      files.insert(s.file);
  std::vector<fs::path> bases;
  if (root)
    bases.push_back(*root);
  else {
    bases.push_back(fs::path(candidatesPath).parent_path());
    bases.push_back(fs::current_path());
  }
  SourceTexts texts;
  for (const auto &file : files) {
    std::vector<fs::path> tried;
    if (fs::path(file).is_absolute())
      tried.push_back(file);
    else
      for (const auto &b : bases)
        tried.push_back(b / file);
    bool found = false;
    for (const auto &p : tried) {
      std::error_code ec;
      if (!fs::is_regular_file(p, ec))
        continue;
      KTUNE_TRY_ASSIGN(auto text, readFile(p.string()));
      texts[file] = std::move(text);
      found = true;
      break;
    }
    if (!found) {
      std::string list;
      for (const auto &p : tried)
        list += (list.empty() ? "" : ", ") + p.lexically_normal().string();
      return makeError("cannot find the source file the candidates name "
                       "(looked in " +
                           list + "; see --source-root)",
                       file);
    }
  }
  return texts;
}

Plan restrictPlan(Plan plan, const std::vector<std::string> &kernels) {
  if (kernels.empty())
    return plan;
  std::vector<PlanKernel> kept;
  for (auto &k : plan.kernels)
    if (std::any_of(kernels.begin(), kernels.end(), [&](const auto &name) {
          return sameKernel(k.kernel, name);
        }))
      kept.push_back(std::move(k));
  plan.kernels = std::move(kept);
  return plan;
}

bool sameKernel(const std::string &planKernel, const std::string &name) {
  return planKernel == name || lastComponent(planKernel) == name ||
         planKernel == lastComponent(name) ||
         lastComponent(planKernel) == lastComponent(name);
}

} // namespace ktune::planner
