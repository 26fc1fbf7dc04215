//===- StrategyBench.cpp - Comparing strategies offline -------------------===//

#include "ktune/Tune/StrategyBench.h"

#include "ktune/Support/Statistics.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <fstream>
#include <mutex>
#include <sys/utsname.h>
#include <thread>

namespace ktune {

Expected<std::vector<BenchCell>>
runStrategyBench(const std::vector<BenchSpace> &spaces,
                 const std::vector<BenchStrategy> &strategies,
                 const BenchOptions &options) {
  // Reject bad strategy names or options before any work.
  for (const auto &s : strategies)
    if (auto made = makeStrategy(s.name, s.options); !made)
      return std::unexpected(withContext(made.error(), s.label));

  std::vector<BenchCell> cells;
  for (const auto &s : strategies)
    for (const auto &space : spaces) {
      BenchCell cell;
      cell.strategy = s.label;
      cell.space = space.name;
      cell.evaluations.assign(options.seeds, 0);
      cell.rounds.assign(options.seeds, 0);
      cells.push_back(std::move(cell));
    }

  struct Job {
    size_t cell, strategy, space;
    unsigned seedIndex;
  };
  std::vector<Job> jobs;
  for (size_t s = 0; s < strategies.size(); ++s)
    for (size_t sp = 0; sp < spaces.size(); ++sp)
      for (unsigned k = 0; k < options.seeds; ++k)
        jobs.push_back({s * spaces.size() + sp, s, sp, k});

  std::atomic<size_t> nextJob{0};
  std::mutex lock;
  auto worker = [&] {
    while (true) {
      size_t j = nextJob.fetch_add(1);
      if (j >= jobs.size())
        return;
      const Job &job = jobs[j];
      const BenchSpace &space = spaces[job.space];
      auto strategy = makeStrategy(strategies[job.strategy].name,
                                   strategies[job.strategy].options);
      SimulationOptions sim;
      sim.budget = options.budget;
      sim.seed = options.firstSeed + job.seedIndex;
      sim.devices = std::max(1u, options.devices);
      SimulationResult result =
          simulateRun(space.space, *space.evaluator, **strategy, sim);
      double target = space.optimumUs * (1.0 + options.tolerance);
      auto reached = result.evaluationsToReach(target);
      auto reachedRound = result.roundsToReach(target);
      std::lock_guard<std::mutex> guard(lock);
      BenchCell &cell = cells[job.cell];
      cell.evaluations[job.seedIndex] = reached ? *reached : options.budget + 1;
      // Never reached: the first round after the budget (budget + 1 for
      // one device).
      uint64_t devices = std::max(1u, options.devices);
      cell.rounds[job.seedIndex] =
          reachedRound ? *reachedRound
                       : (options.budget + devices - 1) / devices + 1;
      cell.breaches += result.repeatedRequests + result.invalidRequests +
                       result.overBudgetRequests;
    }
  };
  unsigned threads = std::max(1u, options.threads);
  std::vector<std::thread> pool;
  for (unsigned t = 1; t < threads; ++t)
    pool.emplace_back(worker);
  worker();
  for (auto &t : pool)
    t.join();

  for (auto &cell : cells) {
    cell.median = median({cell.evaluations.begin(), cell.evaluations.end()});
    cell.medianRounds = median({cell.rounds.begin(), cell.rounds.end()});
  }
  return cells;
}

Expected<SearchSpace>
permuteDomains(const SearchSpace &space,
               const std::vector<std::string> &constraints,
               expr::Dialect dialect, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<SpaceParam> params = space.params();
  for (auto &param : params) {
    std::vector<int64_t> values = param.domain.enumerate();
    std::shuffle(values.begin(), values.end(), rng);
    param.domain = Domain::ofValues(std::move(values));
  }
  return SearchSpace::create(std::move(params), constraints, dialect);
}

namespace {

std::string trim(std::string_view s) {
  size_t b = s.find_first_not_of(" \t\r");
  if (b == std::string_view::npos)
    return "";
  size_t e = s.find_last_not_of(" \t\r");
  return std::string(s.substr(b, e - b + 1));
}

std::vector<std::string> splitRow(std::string_view line) {
  std::string t = trim(line);
  std::vector<std::string> cells;
  if (t.size() < 2 || t.front() != '|')
    return cells;
  size_t start = 1;
  while (start < t.size()) {
    size_t bar = t.find('|', start);
    if (bar == std::string::npos)
      break;
    cells.push_back(trim(std::string_view(t).substr(start, bar - start)));
    start = bar + 1;
  }
  return cells;
}

std::string formatNumber(double v) {
  char buffer[32];
  if (v == std::floor(v))
    std::snprintf(buffer, sizeof buffer, "%.0f", v);
  else
    std::snprintf(buffer, sizeof buffer, "%.1f", v);
  return buffer;
}

} // namespace

Expected<MarkdownTable> parseMarkdownTable(std::string_view text) {
  MarkdownTable table;
  bool inTable = false;
  size_t start = 0;
  while (start <= text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string_view::npos)
      end = text.size();
    auto cells = splitRow(text.substr(start, end - start));
    start = end + 1;
    if (cells.empty()) {
      if (inTable)
        break;
      continue;
    }
    if (!inTable) {
      table.header = cells;
      inTable = true;
      continue;
    }
    if (std::all_of(cells.begin(), cells.end(), [](const std::string &c) {
          return !c.empty() && c.find_first_not_of("-: ") == std::string::npos;
        }))
      continue; // the separator row
    std::string first = cells.front();
    cells.erase(cells.begin());
    table.rows.emplace_back(first, cells);
    if (end == text.size())
      break;
  }
  if (table.header.empty())
    return makeError("no markdown table found");
  return table;
}

MarkdownTable benchTable(const std::vector<BenchCell> &cells,
                         const std::vector<std::string> &spaces,
                         const std::string &prefix) {
  MarkdownTable table;
  table.header.push_back("strategy");
  for (const auto &s : spaces)
    table.header.push_back(s);
  table.header.push_back("sum");
  std::vector<std::string> order;
  for (const auto &c : cells)
    if (std::find(order.begin(), order.end(), c.strategy) == order.end())
      order.push_back(c.strategy);
  for (const auto &strategy : order) {
    std::vector<std::string> row;
    double sum = 0;
    for (const auto &space : spaces) {
      auto it =
          std::find_if(cells.begin(), cells.end(), [&](const BenchCell &c) {
            return c.strategy == strategy && c.space == space;
          });
      if (it == cells.end()) {
        row.push_back("");
        continue;
      }
      row.push_back(formatNumber(it->median));
      sum += it->median;
    }
    row.push_back(formatNumber(sum));
    table.rows.emplace_back(prefix + strategy, row);
  }
  return table;
}

std::string renderMarkdownTable(const MarkdownTable &table) {
  std::string out = "|";
  for (const auto &h : table.header)
    out += " " + h + " |";
  out += "\n|";
  for (size_t k = 0; k < table.header.size(); ++k)
    out += "---|";
  out += "\n";
  for (const auto &[first, cells] : table.rows) {
    out += "| " + first + " |";
    for (const auto &c : cells)
      out += " " + c + " |";
    out += "\n";
  }
  return out;
}

std::string benchMachine() {
  std::string cpu;
  std::ifstream info("/proc/cpuinfo");
  for (std::string line; std::getline(info, line);)
    if (line.rfind("model name", 0) == 0) {
      cpu = line.substr(line.find(':') + 2);
      break;
    }
  utsname u{};
  uname(&u);
  return (cpu.empty() ? std::string("unknown CPU") : cpu) + ", " +
         std::to_string(std::thread::hardware_concurrency()) + " threads, " +
         u.sysname + " " + u.release;
}

std::string benchDate() {
  std::time_t now = std::time(nullptr);
  char buffer[32];
  std::strftime(buffer, sizeof buffer, "%Y-%m-%d", std::gmtime(&now));
  return buffer;
}

} // namespace ktune
