//===- ktune-bench-strategies - Compare search strategies offline ---------===//
//
//   ktune-bench-strategies --t1 T1_input.json --t4 A100_T4.json.gz ...
//       [--strategies random,bayes,wide=bayes]
//       [--options '{"wide": {"xi": 0.1}}']
//       [--budget 220] [--seeds 10] [--first-seed 1] [--tolerance 0.03]
//       [--threads N] [--permuted] [--synthetic] [--baseline kt.md]
//       [--per-seed] [--output results.md] [--command "how it was run"]
//       [--devices N]
//
// Prints (or writes) markdown tables of the median number of evaluations to
// reach within the tolerance of each space's optimum.
//
//===----------------------------------------------------------------------===//

#include "ktune/Support/FileUtil.h"
#include "ktune/Support/Try.h"
#include "ktune/Tune/Strategy.h"
#include "ktune/Tune/StrategyBenchReport.h"

#include <CLI/CLI.hpp>

#include <cstdlib>
#include <iostream>
#include <sstream>
#include <thread>

using namespace ktune;

namespace {

struct Args : StrategyBenchRequest {
  std::string output; // empty: stdout
};

std::vector<std::string> splitComma(const std::string &s) {
  std::vector<std::string> out;
  std::stringstream in(s);
  std::string item;
  while (std::getline(in, item, ','))
    if (!item.empty())
      out.push_back(item);
  return out;
}

/// The options; errors (exit status 2) as one line.
Expected<Args> parseArgs(int argc, char **argv) {
  Args a;
  a.bench.threads = std::max(1u, std::thread::hardware_concurrency());
  std::string strategies, options;
  CLI::App app{"ktune-bench-strategies: compare ktune's search strategies "
               "offline; prints (or writes) markdown tables of the median "
               "number of evaluations to reach within the tolerance of each "
               "space's optimum"};
  app.add_option("--t1", a.t1, "Kernel Tuner T1 input: the space definition");
  app.add_option("--t4", a.t4,
                 "A T4 recording of the space (plain or .gz); repeatable")
      ->allow_extra_args(false);
  app.add_option("--strategies", strategies,
                 "Comma-separated strategies; label=name runs strategy name "
                 "under another label (default: all but brute_force)");
  app.add_option("--options", options,
                 "Strategy options as a JSON object keyed by label");
  app.add_option("--budget", a.bench.budget, "Evaluations per run")
      ->check(CLI::Range(uint64_t{1}, uint64_t{1} << 30))
      ->capture_default_str();
  app.add_option("--seeds", a.bench.seeds, "Runs per strategy and space")
      ->check(CLI::Range(1u, 100000u))
      ->capture_default_str();
  app.add_option("--first-seed", a.bench.firstSeed, "The first seed")
      ->capture_default_str();
  app.add_option("--threads", a.bench.threads, "Worker threads")
      ->check(CLI::Range(1u, 1024u))
      ->capture_default_str();
  auto *tolerance = app.add_option(
      "--tolerance", a.bench.tolerance,
      "Reached = within this fraction of the optimum, e.g. 0.03");
  tolerance->capture_default_str();
  app.add_flag("--permuted", a.permuted,
               "Also the same spaces with parameter values shuffled");
  app.add_flag("--synthetic", a.synthetic, "Also the synthetic spaces");
  app.add_option("--baseline", a.baseline,
                 "A markdown table of reference figures to print beside ours");
  app.add_flag("--per-seed", a.perSeed, "List every seed's result too");
  app.add_option("--devices", a.bench.devices,
                 "Compare batches for N virtual devices with one device "
                 "(evaluations and wall-clock rounds to reach the target)")
      ->check(CLI::Range(1u, 1024u));
  app.add_option("--output", a.output, "Write here instead of stdout");
  app.add_option("--command", a.command, "How it was run, for the record");
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp &e) {
    std::exit(app.exit(e));
  } catch (const CLI::ParseError &e) {
    return makeError(e.what());
  }
  if (!(a.bench.tolerance >= 0 && a.bench.tolerance < 10))
    return makeError("--tolerance: expected a number such as 0.03");
  if (!options.empty()) {
    KTUNE_TRY_ASSIGN(auto j, parseJson(options, "--options"));
    if (!j.is_object())
      return makeError("--options: expected an object of strategy options");
    a.options = j;
  }
  a.strategies = splitComma(strategies);
  if (!a.t4.empty() && a.t1.empty())
    return makeError("--t4 needs --t1 (the space definition)");
  if (a.t4.empty() && !a.synthetic)
    return makeError(
        "nothing to run: give --t1 and --t4 files, or --synthetic");
  if (a.strategies.empty())
    for (const auto &s : strategyNames())
      if (s != "brute_force")
        a.strategies.push_back(s);
  return a;
}

} // namespace

int main(int argc, char **argv) {
  auto args = parseArgs(argc, argv);
  if (!args) {
    std::cerr << "ktune-bench-strategies: " << args.error().str() << "\n";
    return 2;
  }
  args->sectionDone = [](const std::string &title) {
    std::cerr << "done: " << title << "\n";
  };
  auto doc = strategyBenchDocument(*args);
  if (doc && args->output.empty()) {
    std::cout << *doc;
    return 0;
  }
  Status written = doc ? writeFileAtomically(args->output, *doc)
                       : Status(std::unexpected(doc.error()));
  if (!written) {
    std::cerr << "ktune-bench-strategies: " << written.error().str() << "\n";
    return 1;
  }
  return 0;
}
