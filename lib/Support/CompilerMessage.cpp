//===- CompilerMessage.cpp - Reading compiler logs
//-------------------------===//
#include "ktune/Support/CompilerMessage.h"

#include <regex>
#include <vector>

namespace ktune {

std::optional<CompilerMessage> parseCompilerMessage(const std::string &line) {
  // The file is the word before "(12): " or ":12:3: " (a prefix such as
  // "compile error: " is not part of it).
  static const std::regex Paren(R"((\S+?)\((\d+)\): (.*)$)");
  static const std::regex Colon(R"(([^\s:]+):(\d+)(?::\d+)?: (.*)$)");
  std::smatch m;
  if (std::regex_search(line, m, Paren) || std::regex_search(line, m, Colon))
    return CompilerMessage{m[1].str() + ":" + m[2].str(), m[3].str()};
  return std::nullopt;
}

/// The log's lines; " | " separates messages joined on one line.
static std::vector<std::string> messageLines(const std::string &log) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start <= log.size()) {
    size_t nl = log.find('\n', start), bar = log.find(" | ", start);
    size_t end = std::min(nl, bar);
    if (end == std::string::npos)
      end = log.size();
    out.push_back(log.substr(start, end - start));
    start = end + (end == bar ? 3 : 1);
  }
  return out;
}

std::optional<CompilerMessage> firstCompilerError(const std::string &log) {
  for (const auto &line : messageLines(log))
    if (auto m = parseCompilerMessage(line);
        m && m->message.find("error") != std::string::npos)
      return m;
  return std::nullopt;
}

std::string firstCompilerErrors(const std::string &log, size_t maxLines) {
  std::vector<std::string> lines, errors;
  for (const auto &line : messageLines(log)) {
    if (line.empty())
      continue;
    lines.push_back(line);
    if (line.find("error") != std::string::npos && errors.size() < maxLines)
      errors.push_back(line);
  }
  if (errors.empty())
    for (size_t i = lines.size() > maxLines ? lines.size() - maxLines : 0;
         i < lines.size(); ++i)
      errors.push_back(lines[i]);
  std::string out;
  for (const auto &e : errors)
    out += (out.empty() ? "" : "\n") + e;
  return out.empty() ? "the compiler failed with no output" : out;
}

} // namespace ktune
