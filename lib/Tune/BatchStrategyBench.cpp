//===- BatchStrategyBench.cpp - Batches against one device ----------------===//

#include "ktune/Tune/BatchStrategyBench.h"

#include "ktune/Support/Try.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>

namespace ktune {

namespace {

std::string fixed(double v, int digits) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.*f", digits, v);
  return buffer;
}

std::string count(double v) {
  return v == std::floor(v) ? fixed(v, 0) : fixed(v, 1);
}

const BenchCell *findCell(const std::vector<BenchCell> &cells,
                          const std::string &strategy,
                          const std::string &space) {
  auto it = std::find_if(cells.begin(), cells.end(), [&](const BenchCell &c) {
    return c.strategy == strategy && c.space == space;
  });
  return it == cells.end() ? nullptr : &*it;
}

} // namespace

Expected<BatchBenchReport>
runBatchBench(const std::vector<BenchSpace> &spaces,
              const std::vector<BenchStrategy> &strategies,
              const BenchOptions &options) {
  BatchBenchReport report;
  report.devices = std::max(1u, options.devices);
  BenchOptions one = options;
  one.devices = 1;
  KTUNE_TRY_ASSIGN(report.sequential,
                   runStrategyBench(spaces, strategies, one));
  KTUNE_TRY_ASSIGN(report.batched,
                   runStrategyBench(spaces, strategies, options));
  double never = static_cast<double>(options.budget + 1);
  for (const auto &s : strategies) {
    BatchBenchRow row;
    row.strategy = s.label;
    for (const auto &space : spaces) {
      const BenchCell *a = findCell(report.sequential, s.label, space.name);
      const BenchCell *b = findCell(report.batched, s.label, space.name);
      if (!a || !b)
        continue;
      row.sequentialEvaluations += a->median;
      row.batchEvaluations += b->median;
      row.batchRounds += b->medianRounds;
      row.sequentialUnreached += a->median >= never;
      row.batchUnreached += b->median >= never;
    }
    report.rows.push_back(row);
  }
  return report;
}

MarkdownTable batchBenchTable(const BatchBenchReport &report,
                              const BatchBenchBar &bar) {
  std::string n = std::to_string(report.devices);
  MarkdownTable table;
  table.header = {"strategy",
                  "1 device: evaluations (= rounds)",
                  n + " devices: evaluations",
                  n + " devices: rounds",
                  "rounds ratio (≤ " + fixed(bar.maxRoundRatio, 3) + ")",
                  "evaluations ratio (≤ " + fixed(bar.maxEvaluationRatio, 2) +
                      ")",
                  "unreached spaces (1 / " + n + ")",
                  "bar"};
  for (const auto &r : report.rows)
    table.rows.emplace_back(
        r.strategy, std::vector<std::string>{
                        count(r.sequentialEvaluations),
                        count(r.batchEvaluations), count(r.batchRounds),
                        fixed(r.roundRatio(), 3), fixed(r.evaluationRatio(), 3),
                        std::to_string(r.sequentialUnreached) + " / " +
                            std::to_string(r.batchUnreached),
                        r.meets(bar) ? "met" : "missed"});
  return table;
}

MarkdownTable batchBenchDetail(const BatchBenchReport &report,
                               const std::vector<std::string> &spaces) {
  MarkdownTable table;
  table.header.push_back("strategy");
  for (const auto &s : spaces)
    table.header.push_back(s);
  for (const auto &r : report.rows) {
    std::vector<std::string> cells;
    for (const auto &space : spaces) {
      const BenchCell *a = findCell(report.sequential, r.strategy, space);
      const BenchCell *b = findCell(report.batched, r.strategy, space);
      cells.push_back(a && b ? count(a->median) + " / " + count(b->median) +
                                   " / " + count(b->medianRounds)
                             : "");
    }
    table.rows.emplace_back(r.strategy, cells);
  }
  return table;
}

std::string batchBenchDocument(const BatchBenchReport &report,
                               const std::vector<BenchSpace> &spaces,
                               const BenchOptions &options,
                               const BenchRecord &record) {
  BatchBenchBar bar;
  std::vector<std::string> names;
  for (const auto &s : spaces)
    names.push_back(s.name);
  std::string n = std::to_string(options.devices);
  std::ostringstream doc;
  doc << "# Batch strategies in simulation: " << n
      << " virtual devices against one\n\n"
      << "Evaluations and wall-clock rounds (one point per device per "
         "round) until the best time found is within "
      << options.tolerance * 100 << " % of the space's optimum: medians over "
      << options.seeds << " seeds (" << options.firstSeed << ".."
      << options.firstSeed + options.seeds - 1
      << ") summed over the spaces; budget " << options.budget
      << " evaluations; a run that never reached the target counts "
      << options.budget + 1
      << " evaluations and the round after the budget. With one device "
         "rounds equal evaluations.\n\n"
      << "- date: " << record.date << "\n- machine: " << record.machine << "\n";
  if (!record.command.empty())
    doc << "- command: `" << record.command << "`\n";
  doc << "\n"
      << renderMarkdownTable(batchBenchTable(report, bar)) << "\n"
      << "Per space (1 device evaluations / " << n << " devices evaluations / "
      << n << " devices rounds):\n\n"
      << renderMarkdownTable(batchBenchDetail(report, names)) << "\n";
  uint64_t breaches = 0;
  for (const auto *cells : {&report.sequential, &report.batched})
    for (const auto &c : *cells)
      breaches += c.breaches;
  doc << "Contract breaches (repeated, invalid or over-budget "
         "evaluations): "
      << breaches << ".\n";
  return doc.str();
}

} // namespace ktune
