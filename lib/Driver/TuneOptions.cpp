//===- TuneOptions.cpp - Tuning options of the tools ---------------------===//

#include "ktune/Driver/TuneOptions.h"

#include "ktune/Support/FileUtil.h"
#include "ktune/Tune/Strategy.h"

#include <CLI/CLI.hpp>

namespace ktune::driver {

std::string strategyOptionHelp() {
  std::string help = "Search strategy:";
  for (const auto &name : strategyNames())
    help += " " + name;
  return help;
}

void addTuningOptions(CLI::App &app, TuningTargets t, TuningScope scope) {
  bool rounds = scope == TuningScope::Rounds;
  app.add_option("--strategy", t.strategy, strategyOptionHelp())
      ->capture_default_str();
  app.add_option_function<uint64_t>(
      "--budget", [&budget = t.budget](const uint64_t &v) { budget = v; },
      rounds ? "Evaluations per shape and round, the default and failures "
               "included (default 100)"
             : "Evaluations per shape, the default and failures included "
               "(default 100; compile-only: the whole space)");
  app.add_option("--time-limit", t.timeLimitSeconds,
                 rounds ? "Seconds for the whole run (0 = none); a round "
                          "that may be followed by another gets half of the "
                          "time left, the last round all of it"
                        : "Seconds for the whole run, compilation included "
                          "(0 = none)");
  app.add_option("--seed", t.seed, "Random seed")->capture_default_str();
  app.add_flag("--compile-only", t.compileOnly,
               rounds ? "Only compile every configuration of round 1 (what "
                        "happens anyway without a GPU)"
                      : "Compile and prune every configuration, report "
                        "resources; no GPU needed");
  app.add_option("--cache-dir", t.cacheDir,
                 "Compile cache (default: $KTUNE_CACHE_DIR or "
                 "~/.cache/ktune)");
  app.add_option("--jobs", t.jobs, "Compile threads (0 = all cores)");
  app.add_option("--gpus", t.gpus,
                 std::string("Tune on several GPUs at once, one worker each: "
                             "\"all\" or ordinals such as 0,2,3") +
                     (rounds ? "" : " (identical models share one search)"));
  app.add_option("--arch", t.arch,
                 "Target architecture, e.g. sm_90 (default: the device's)");
  app.add_option_function<std::string>(
         "--compiler",
         [&compiler = t.compiler](const std::string &name) {
           compiler = parseName(CompilerChoiceNames, name);
         },
         rounds ? "Who compiles the configurations: nvrtc, nvcc, or auto "
                  "(NVRTC when it compiles the default configuration, else "
                  "nvcc with the project's flags)"
                : "Who compiles the configurations: nvrtc, nvcc, or auto "
                  "(NVRTC when it compiles the default configuration, else "
                  "nvcc; default: the spec's \"compiler\", else auto)")
      ->check(CLI::IsMember({"auto", "nvrtc", "nvcc"}));
}

Expected<nlohmann::json> parseStrategyOptions(const std::string &text) {
  auto j = parseJson(text, "--strategy-options");
  if (!j || !j->is_object())
    return makeError("--strategy-options: expected a JSON object");
  return *j;
}

} // namespace ktune::driver
