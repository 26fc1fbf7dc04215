//===- ktune-bench-strategies - Compare search strategies offline ---------===//
//
//   ktune-bench-strategies --t1 T1_input.json --t4 A100_T4.json.gz ...
//       [--strategies random,bayes,wide=bayes]
//       [--options '{"wide": {"xi": 0.1}}']
//       [--budget 220] [--seeds 10] [--tolerance 0.03] [--threads N]
//       [--permuted] [--synthetic] [--baseline kt.md] [--per-seed]
//       [--output results.md] [--command "how it was run"]
//
// Prints (or writes) markdown tables of the median number of evaluations to
// reach within the tolerance of each space's optimum.
//
//===----------------------------------------------------------------------===//

#include "ktune/Support/FileUtil.h"
#include "ktune/Tune/StrategyBench.h"
#include "ktune/Tune/T1.h"

#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <iostream>
#include <sstream>
#include <sys/utsname.h>
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

Expected<Args> parseArgs(int argc, char **argv) {
  Args a;
  a.bench.threads = std::max(1u, std::thread::hardware_concurrency());
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    auto value = [&]() -> Expected<std::string> {
      if (i + 1 >= argc)
        return makeError(arg + " needs a value");
      return std::string(argv[++i]);
    };
    auto number = [&](uint64_t min, uint64_t max) -> Expected<uint64_t> {
      auto v = value();
      if (!v)
        return std::unexpected(v.error());
      char *end = nullptr;
      unsigned long long n = std::strtoull(v->c_str(), &end, 10);
      if (v->empty() || *end || n < min || n > max)
        return makeError(arg + ": expected an integer in [" +
                         std::to_string(min) + ", " + std::to_string(max) +
                         "]");
      return n;
    };
    if (arg == "--t1") {
      auto v = value();
      if (!v)
        return std::unexpected(v.error());
      a.t1 = *v;
    } else if (arg == "--t4") {
      auto v = value();
      if (!v)
        return std::unexpected(v.error());
      a.t4.push_back(*v);
    } else if (arg == "--strategies") {
      auto v = value();
      if (!v)
        return std::unexpected(v.error());
      a.strategies = splitComma(*v);
    } else if (arg == "--options") {
      auto v = value();
      if (!v)
        return std::unexpected(v.error());
      auto j = parseJson(*v, "--options");
      if (!j)
        return std::unexpected(j.error());
      if (!j->is_object())
        return makeError("--options: expected an object of strategy options");
      a.options = *j;
    } else if (arg == "--budget") {
      auto n = number(1, 1u << 30);
      if (!n)
        return std::unexpected(n.error());
      a.bench.budget = *n;
    } else if (arg == "--seeds") {
      auto n = number(1, 100000);
      if (!n)
        return std::unexpected(n.error());
      a.bench.seeds = static_cast<unsigned>(*n);
    } else if (arg == "--first-seed") {
      auto n = number(0, UINT64_MAX);
      if (!n)
        return std::unexpected(n.error());
      a.bench.firstSeed = *n;
    } else if (arg == "--threads") {
      auto n = number(1, 1024);
      if (!n)
        return std::unexpected(n.error());
      a.bench.threads = static_cast<unsigned>(*n);
    } else if (arg == "--tolerance") {
      auto v = value();
      if (!v)
        return std::unexpected(v.error());
      char *end = nullptr;
      double t = std::strtod(v->c_str(), &end);
      if (v->empty() || *end || !(t >= 0 && t < 10))
        return makeError("--tolerance: expected a number such as 0.03");
      a.bench.tolerance = t;
    } else if (arg == "--permuted") {
      a.permuted = true;
    } else if (arg == "--synthetic") {
      a.synthetic = true;
    } else if (arg == "--per-seed") {
      a.perSeed = true;
    } else if (arg == "--baseline") {
      auto v = value();
      if (!v)
        return std::unexpected(v.error());
      a.baseline = *v;
    } else if (arg == "--output") {
      auto v = value();
      if (!v)
        return std::unexpected(v.error());
      a.output = *v;
    } else if (arg == "--command") {
      auto v = value();
      if (!v)
        return std::unexpected(v.error());
      a.command = *v;
    } else if (arg == "--help" || arg == "-h") {
      return makeError("usage: ktune-bench-strategies --t1 FILE --t4 FILE... "
                       "[--strategies a,b] [--options JSON] [--budget N] "
                       "[--seeds N] [--tolerance X] [--threads N] [--permuted] "
                       "[--synthetic] [--baseline FILE] [--per-seed] "
                       "[--output FILE] [--command TEXT]");
    } else {
      return makeError("unknown option '" + arg + "' (see --help)");
    }
  }
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

std::string machine() {
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

std::string today() {
  std::time_t now = std::time(nullptr);
  char buffer[32];
  std::strftime(buffer, sizeof buffer, "%Y-%m-%d", std::gmtime(&now));
  return buffer;
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
    auto t1 = readT1File(a.t1);
    if (!t1)
      return std::unexpected(t1.error());
    auto space = t1->searchSpace();
    if (!space)
      return std::unexpected(withContext(space.error(), a.t1));
    for (const auto &path : a.t4) {
      auto replay = ReplayEvaluator::readT4File(path);
      if (!replay)
        return std::unexpected(replay.error());
      auto best = replay->bestTimeUs();
      if (!best)
        return makeError("no correct configuration in the file", path);
      BenchSpace b;
      b.name = replay->device().substr(replay->device().find(' ') + 1);
      b.space = *space;
      b.evaluator = std::make_shared<ReplayEvaluator>(std::move(*replay));
      b.optimumUs = *best;
      recorded.push_back(b);
      if (a.permuted) {
        auto shuffled =
            permuteDomains(*space, t1->conditions, expr::Dialect::Python,
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
  doc << "# Search strategies in simulation\n\n"
      << "Median number of unique evaluations (failed ones included) until the "
         "best time found is within "
      << a.bench.tolerance * 100 << " % of the space's optimum; budget "
      << a.bench.budget << "; " << a.bench.seeds << " seeds ("
      << a.bench.firstSeed << ".." << a.bench.firstSeed + a.bench.seeds - 1
      << "); " << a.bench.budget + 1
      << " = not reached in at least half the runs.\n\n"
      << "- date: " << today() << "\n- machine: " << machine() << "\n";
  if (!a.command.empty())
    doc << "- command: `" << a.command << "`\n";
  doc << "\n";

  auto section = [&](const std::string &title,
                     const std::vector<BenchSpace> &spaces,
                     const MarkdownTable *baseline) -> Status {
    if (spaces.empty())
      return {};
    auto cells = runStrategyBench(spaces, strategies, a.bench);
    if (!cells)
      return std::unexpected(cells.error());
    std::vector<std::string> names;
    for (const auto &s : spaces)
      names.push_back(s.name);
    MarkdownTable table = benchTable(*cells, names, baseline ? "ktune " : "");
    if (baseline)
      for (const auto &row : baseline->rows)
        table.rows.emplace_back("KT 1.4 " + row.first, row.second);
    doc << "## " << title << "\n\n" << renderMarkdownTable(table) << "\n";
    uint64_t breaches = 0;
    for (const auto &c : *cells)
      breaches += c.breaches;
    doc << "Contract breaches (repeated, invalid or over-budget evaluations): "
        << breaches << ".\n\n";
    if (a.perSeed) {
      doc << "<details><summary>per seed</summary>\n\n";
      for (const auto &c : *cells) {
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
    auto text = readFile(a.baseline);
    if (!text)
      return std::unexpected(text.error());
    auto table = parseMarkdownTable(*text);
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
