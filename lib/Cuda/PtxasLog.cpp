#include "ktune/Cuda/PtxasLog.h"

#include <initializer_list>
#include <regex>
#include <vector>

namespace ktune {

static int toInt(const std::string &s) {
  try {
    return std::stoi(s);
  } catch (...) {
    return 0;
  }
}

/// The number before `unit` on the line ("304 bytes stack frame"), or -1.
static int numberBefore(const std::string &line, const std::regex &re) {
  std::smatch m;
  if (std::regex_search(line, m, re))
    return toInt(m[1]);
  return -1;
}

/// A number ptxas reports ("304 bytes stack frame") and the field it sets.
struct Reported {
  const std::regex &re;
  int PtxasFunctionInfo::*field;
};

/// Sets the fields whose numbers `line` holds.
static void readNumbers(const std::string &line,
                        std::initializer_list<Reported> numbers,
                        PtxasFunctionInfo &f) {
  for (const Reported &n : numbers)
    if (int v = numberBefore(line, n.re); v >= 0)
      f.*n.field = v;
}

std::map<std::string, PtxasFunctionInfo> parsePtxasLog(std::string_view text) {
  static const std::regex EntryRe(R"(Compiling entry function '([^']+)')");
  static const std::regex PropsRe(R"(Function properties for (\S+))");
  static const std::regex UsedRe(R"(Used (\d+) registers)");
  static const std::regex BarriersRe(R"(used (\d+) barriers)");
  static const std::regex SmemRe(R"((\d+) bytes smem)");
  static const std::regex StackRe(R"((\d+) bytes stack frame)");
  static const std::regex CumulativeRe(R"((\d+) bytes cumulative stack size)");
  static const std::regex SpillStoresRe(R"((\d+) bytes spill stores)");
  static const std::regex SpillLoadsRe(R"((\d+) bytes spill loads)");

  std::map<std::string, PtxasFunctionInfo> out;
  std::string currentEntry, currentFunction;
  std::vector<std::string> other;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t end = text.find('\n', pos);
    if (end == std::string_view::npos)
      end = text.size();
    std::string line(text.substr(pos, end - pos));
    pos = end + 1;
    // The function this line is about, with the line added to its log.
    auto loggedTo = [&](const std::string &function) -> PtxasFunctionInfo & {
      PtxasFunctionInfo &f = out[function];
      f.log += line + "\n";
      return f;
    };
    std::smatch m;
    if (std::regex_search(line, m, EntryRe)) {
      currentEntry = currentFunction = m[1];
      loggedTo(currentEntry).entry = true;
      continue;
    }
    if (std::regex_search(line, m, PropsRe)) {
      currentFunction = m[1];
      loggedTo(currentFunction);
      continue;
    }
    if (line.find("stack frame") != std::string::npos &&
        !currentFunction.empty()) {
      readNumbers(line,
                  {{StackRe, &PtxasFunctionInfo::stackFrame},
                   {SpillStoresRe, &PtxasFunctionInfo::spillStores},
                   {SpillLoadsRe, &PtxasFunctionInfo::spillLoads}},
                  loggedTo(currentFunction));
      continue;
    }
    if (std::regex_search(line, m, UsedRe) && !currentEntry.empty()) {
      PtxasFunctionInfo &f = loggedTo(currentEntry);
      f.registers = toInt(m[1]);
      readNumbers(line,
                  {{BarriersRe, &PtxasFunctionInfo::barriers},
                   {SmemRe, &PtxasFunctionInfo::smemStatic},
                   {CumulativeRe, &PtxasFunctionInfo::cumulativeStack}},
                  f);
      continue;
    }
    if (line.find("Compile time") != std::string::npos &&
        !currentEntry.empty()) {
      loggedTo(currentEntry);
      continue;
    }
    other.push_back(std::move(line));
  }
  // Lines that name a function in quotes (warnings such as "Registers are
  // spilled to local memory in function '<mangled>'") join its log; they may
  // come before the function's own block.
  for (const auto &line : other)
    for (auto &[name, info] : out)
      if (line.find("'" + name + "'") != std::string::npos) {
        info.log += line + "\n";
        break;
      }
  for (auto &[name, info] : out)
    if (info.cumulativeStack < info.stackFrame)
      info.cumulativeStack = info.stackFrame;
  return out;
}

} // namespace ktune
