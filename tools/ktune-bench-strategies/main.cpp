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
#include "ktune/Tune/BatchStrategyBench.h"
#include "ktune/Tune/StrategyBench.h"
#include "ktune/Tune/T1.h"

#include <CLI/CLI.hpp>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <sstream>
#include <thread>

using namespace ktune;

namespace {

struct Args {
  std::string t1;
  std::vector<std::string> t4;
  std::vector<std::string> strategies;
  nlohmann::json options = nlohmann::json::object();
  BenchOptions bench;
  bool permuted = false, synthetic = false, perSeed = false;
  std::string baseline, output, command;
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

Status run(const Args &a) {
  std::vector<BenchStrategy> strategies;
  for (const auto &s : a.strategies) {
    // "label=name" runs strategy `name` under another label (variants with
    // different options side by side).
    BenchStrategy b;
    auto eq = s.find('=');
    b.label = s.substr(0, eq);
    b.name = eq == std::string::npos ? s : s.substr(eq + 1);
    if (a.options.contains(b.label))
      b.options = a.options[b.label];
    strategies.push_back(b);
  }
  for (const auto &[name, value] : a.options.items())
    if (std::none_of(strategies.begin(), strategies.end(),
                     [&](const BenchStrategy &b) { return b.label == name; }))
      return makeError("options given for '" + name +
                       "', which is not among the strategies run");

  std::vector<BenchSpace> recorded, permuted;
  if (!a.t1.empty()) {
    KTUNE_TRY_ASSIGN(auto t1, readT1File(a.t1));
    auto space = t1.searchSpace();
    if (!space)
      return std::unexpected(withContext(space.error(), a.t1));
    for (const auto &path : a.t4) {
      KTUNE_TRY_ASSIGN(auto replay, ReplayEvaluator::readT4File(path));
      auto best = replay.bestTimeUs();
      if (!best)
        return makeError("no correct configuration in the file", path);
      BenchSpace b;
      b.name = replay.device().substr(replay.device().find(' ') + 1);
      b.space = *space;
      b.evaluator = std::make_shared<ReplayEvaluator>(std::move(replay));
      b.optimumUs = *best;
      recorded.push_back(b);
      if (a.permuted) {
        auto shuffled =
            permuteDomains(*space, t1.conditions, expr::Dialect::Python,
                           /*seed=*/recorded.size());
        if (!shuffled)
          return std::unexpected(shuffled.error());
        b.space = std::move(*shuffled);
        b.name += "-perm";
        permuted.push_back(b);
      }
    }
  }
  std::vector<BenchSpace> synthetic;
  if (a.synthetic)
    synthetic = syntheticBenchSpaces();

  std::ostringstream doc;
  if (a.bench.devices > 1) {
    // Batches for N devices against one device, on the recorded spaces.
    if (recorded.empty())
      return makeError("--devices compares on recorded spaces: give --t1 "
                       "and --t4");
    auto report = runBatchBench(recorded, strategies, a.bench);
    if (!report)
      return std::unexpected(report.error());
    doc << batchBenchDocument(*report, recorded, a.bench,
                              {benchDate(), benchMachine(), a.command});
    if (a.output.empty()) {
      std::cout << doc.str();
      return {};
    }
    return writeFileAtomically(a.output, doc.str());
  }
  doc << "# Search strategies in simulation\n\n"
      << "Median number of unique evaluations (failed ones included) until the "
         "best time found is within "
      << a.bench.tolerance * 100 << " % of the space's optimum; budget "
      << a.bench.budget << "; " << a.bench.seeds << " seeds ("
      << a.bench.firstSeed << ".." << a.bench.firstSeed + a.bench.seeds - 1
      << "); " << a.bench.budget + 1
      << " = not reached in at least half the runs.\n\n"
      << "- date: " << benchDate() << "\n- machine: " << benchMachine() << "\n";
  if (!a.command.empty())
    doc << "- command: `" << a.command << "`\n";
  doc << "\n";

  auto section = [&](const std::string &title,
                     const std::vector<BenchSpace> &spaces,
                     const MarkdownTable *baseline) -> Status {
    if (spaces.empty())
      return {};
    KTUNE_TRY_ASSIGN(auto cells, runStrategyBench(spaces, strategies, a.bench));
    std::vector<std::string> names;
    for (const auto &s : spaces)
      names.push_back(s.name);
    MarkdownTable table = benchTable(cells, names, baseline ? "ktune " : "");
    if (baseline)
      for (const auto &row : baseline->rows)
        table.rows.emplace_back("KT 1.4 " + row.first, row.second);
    doc << "## " << title << "\n\n" << renderMarkdownTable(table) << "\n";
    uint64_t breaches = 0;
    for (const auto &c : cells)
      breaches += c.breaches;
    doc << "Contract breaches (repeated, invalid or over-budget evaluations): "
        << breaches << ".\n\n";
    if (a.perSeed) {
      doc << "<details><summary>per seed</summary>\n\n";
      for (const auto &c : cells) {
        doc << "- " << c.strategy << " / " << c.space << ":";
        for (auto e : c.evaluations)
          doc << " " << e;
        doc << "\n";
      }
      doc << "\n</details>\n\n";
    }
    std::cerr << "done: " << title << "\n";
    return {};
  };

  std::optional<MarkdownTable> baseline;
  if (!a.baseline.empty()) {
    KTUNE_TRY_ASSIGN(auto text, readFile(a.baseline));
    auto table = parseMarkdownTable(text);
    if (!table)
      return std::unexpected(withContext(table.error(), a.baseline));
    baseline = std::move(*table);
  }
  if (auto s =
          section("Recorded spaces", recorded, baseline ? &*baseline : nullptr);
      !s)
    return s;
  if (auto s = section("The same spaces, parameter values in shuffled order",
                       permuted, nullptr);
      !s)
    return s;
  if (auto s = section("Synthetic spaces", synthetic, nullptr); !s)
    return s;

  if (a.output.empty()) {
    std::cout << doc.str();
    return {};
  }
  return writeFileAtomically(a.output, doc.str());
}

} // namespace

int main(int argc, char **argv) {
  auto args = parseArgs(argc, argv);
  if (!args) {
    std::cerr << "ktune-bench-strategies: " << args.error().str() << "\n";
    return 2;
  }
  if (auto s = run(*args); !s) {
    std::cerr << "ktune-bench-strategies: " << s.error().str() << "\n";
    return 1;
  }
  return 0;
}
