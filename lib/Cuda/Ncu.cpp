//===- Ncu.cpp - Hardware counters from Nsight Compute --------------------===//
#include "ktune/Cuda/Ncu.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <optional>
#include <sstream>
#include <unistd.h>

namespace ktune {

namespace fs = std::filesystem;

namespace {

// The raw metrics read, as ncu names them.
constexpr const char *DramRead = "dram__bytes_read.sum";
constexpr const char *DramWrite = "dram__bytes_write.sum";
constexpr const char *DramThroughput =
    "dram__throughput.avg.pct_of_peak_sustained_elapsed";
constexpr const char *WarpsActive =
    "sm__warps_active.avg.pct_of_peak_sustained_active";
constexpr const char *MaxWarps = "sm__maximum_warps_per_active_cycle_pct";
constexpr const char *Duration = "gpu__time_duration.sum";
constexpr const char *Registers = "launch__registers_per_thread";

bool executable(const fs::path &p) { return ::access(p.c_str(), X_OK) == 0; }

/// One line of CSV: quoted fields ("" is a quote inside one) or bare ones.
std::vector<std::string> csvFields(const std::string &line) {
  std::vector<std::string> out;
  std::string field;
  bool quoted = false;
  for (size_t i = 0; i < line.size(); ++i) {
    char c = line[i];
    if (quoted) {
      if (c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
        field += '"';
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        field += c;
      }
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      out.push_back(field);
      field.clear();
    } else if (c != '\r') {
      field += c;
    }
  }
  out.push_back(field);
  return out;
}

/// ncu writes "1,234,567.5"; an empty or "n/a" cell is unknown.
std::optional<double> number(std::string text) {
  std::erase(text, ',');
  if (text.empty())
    return std::nullopt;
  char *end = nullptr;
  double v = std::strtod(text.c_str(), &end);
  if (end == text.c_str() || *end != '\0')
    return std::nullopt;
  return v;
}

/// Duration-weighted mean of a percentage over a configuration's launches.
struct Weighted {
  double sum = 0, weight = 0;
  void add(double v, double w) {
    sum += v * w;
    weight += w;
  }
  double value() const { return weight > 0 ? sum / weight : -1; }
};

} // namespace

Expected<std::string> findNsightCompute() {
  if (const char *env = std::getenv("KTUNE_NCU"); env && *env) {
    if (executable(env))
      return std::string(env);
    return makeError("KTUNE_NCU names '" + std::string(env) +
                     "', which is not an executable file");
  }
  std::vector<fs::path> tried;
  if (const char *path = std::getenv("PATH")) {
    std::stringstream dirs(path);
    for (std::string dir; std::getline(dirs, dir, ':');)
      if (!dir.empty())
        tried.push_back(fs::path(dir) / "ncu");
  }
  for (const char *var : {"CUDA_HOME", "CUDA_PATH"})
    if (const char *root = std::getenv(var); root && *root)
      tried.push_back(fs::path(root) / "bin" / "ncu");
#ifdef KTUNE_NVCC
  tried.push_back(fs::path(KTUNE_NVCC).parent_path() / "ncu");
#endif
  for (const auto &p : tried)
    if (executable(p))
      return p.string();
  return makeError("--profile needs Nsight Compute's command-line profiler, "
                   "ncu: not on PATH, nor beside the CUDA toolkit's nvcc "
                   "(set KTUNE_NCU to its path)");
}

std::vector<std::string> ncuCommand(const std::string &ncu,
                                    const std::string &logPath) {
  std::string metrics;
  for (const char *m : {DramRead, DramWrite, DramThroughput, WarpsActive,
                        MaxWarps, Duration, Registers})
    metrics += (metrics.empty() ? "" : ",") + std::string(m);
  return {ncu,
          "--csv",
          "--page",
          "raw",
          "--profile-from-start",
          "off",
          "--clock-control",
          "none",
          "--log-file",
          logPath,
          "--metrics",
          metrics};
}

Expected<std::vector<HardwareCounters>>
countersFromNcuLog(const std::string &log) {
  std::vector<std::vector<std::string>> rows;
  std::string firstError;
  std::istringstream lines(log);
  for (std::string line; std::getline(lines, line);) {
    if (line.starts_with("\""))
      rows.push_back(csvFields(line));
    else if (firstError.empty() && line.starts_with("==ERROR=="))
      firstError = line;
  }
  if (rows.empty())
    return makeError("Nsight Compute measured nothing" +
                     (firstError.empty() ? std::string(" (its log has no CSV)")
                                         : ": " + firstError));
  std::map<std::string, size_t> column;
  for (size_t i = 0; i < rows[0].size(); ++i)
    column.emplace(rows[0][i], i);
  for (const char *name : {"Kernel Name", DramRead, DramWrite, DramThroughput,
                           WarpsActive, MaxWarps, Duration, Registers})
    if (!column.count(name))
      return makeError("Nsight Compute's log has no column '" +
                       std::string(name) + "'");
  auto cell = [&](const std::vector<std::string> &row,
                  const char *name) -> std::optional<double> {
    size_t i = column.at(name);
    return i < row.size() ? number(row[i]) : std::nullopt;
  };

  std::vector<HardwareCounters> out;
  struct Percentages {
    Weighted throughput, achieved, theoretical;
  };
  std::vector<Percentages> percentages; // per configuration
  // The second row holds the units when the first data row is not a launch.
  for (size_t r = 1; r < rows.size(); ++r) {
    const auto &row = rows[r];
    size_t nameAt = column.at("Kernel Name");
    if (nameAt >= row.size() || row[nameAt].empty())
      continue;
    if (row[nameAt].starts_with(ProfileMarkerKernel)) {
      out.emplace_back();
      percentages.emplace_back();
      continue;
    }
    if (out.empty())
      return makeError("Nsight Compute's log has a launch of '" + row[nameAt] +
                       "' before the first marker");
    HardwareCounters &c = out.back();
    double us = cell(row, Duration).value_or(0) / 1000.0; // ns
    auto add = [](double &slot, std::optional<double> v) {
      if (v)
        slot = (slot < 0 ? 0 : slot) + *v;
    };
    ++c.launches;
    add(c.dramReadBytes, cell(row, DramRead));
    add(c.dramWriteBytes, cell(row, DramWrite));
    add(c.durationUs, us > 0 ? std::optional<double>(us) : std::nullopt);
    Percentages &p = percentages.back();
    double weight = std::max(us, 1e-9);
    if (auto v = cell(row, DramThroughput))
      p.throughput.add(*v, weight);
    if (auto v = cell(row, WarpsActive))
      p.achieved.add(*v, weight);
    if (auto v = cell(row, MaxWarps))
      p.theoretical.add(*v, weight);
    if (auto v = cell(row, Registers))
      c.registers = std::max(c.registers, static_cast<int>(*v));
  }
  for (size_t i = 0; i < out.size(); ++i) {
    out[i].dramThroughputPct = percentages[i].throughput.value();
    out[i].achievedOccupancyPct = percentages[i].achieved.value();
    out[i].theoreticalOccupancyPct = percentages[i].theoretical.value();
  }
  return out;
}

} // namespace ktune
