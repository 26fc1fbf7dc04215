//===- StrategyBenchReport.cpp - A strategy comparison as markdown -------===//

#include "ktune/Tune/StrategyBenchReport.h"

#include "ktune/Support/FileUtil.h"
#include "ktune/Support/Try.h"
#include "ktune/Tune/BatchStrategyBench.h"
#include "ktune/Tune/Simulator.h"
#include "ktune/Tune/T1.h"

#include <algorithm>
#include <sstream>

namespace ktune {

Expected<std::string> strategyBenchDocument(const StrategyBenchRequest &a) {
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

  if (a.bench.devices > 1) {
    // Batches for N devices against one device, on the recorded spaces.
    if (recorded.empty())
      return makeError("--devices compares on recorded spaces: give --t1 "
                       "and --t4");
    auto report = runBatchBench(recorded, strategies, a.bench);
    if (!report)
      return std::unexpected(report.error());
    return batchBenchDocument(*report, recorded, a.bench,
                              {benchDate(), benchMachine(), a.command});
  }
  std::ostringstream doc;
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
    if (a.sectionDone)
      a.sectionDone(title);
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
  KTUNE_TRY(
      section("Recorded spaces", recorded, baseline ? &*baseline : nullptr));
  KTUNE_TRY(section("The same spaces, parameter values in shuffled order",
                    permuted, nullptr));
  KTUNE_TRY(section("Synthetic spaces", synthetic, nullptr));
  return doc.str();
}

} // namespace ktune
