//===- Text.cpp - Small text helpers --------------------------------------===//
#include "ktune/Support/Text.h"

#include <cstdio>

namespace ktune {

std::string join(const std::vector<std::string> &items,
                 std::string_view separator) {
  std::string out;
  for (size_t i = 0; i < items.size(); ++i) {
    if (i)
      out += separator;
    out += items[i];
  }
  return out;
}

std::string namedValues(const std::map<std::string, int64_t> &values,
                        std::string_view separator) {
  std::string out;
  for (const auto &[name, value] : values) {
    if (!out.empty())
      out += separator;
    out += name + "=" + std::to_string(value);
  }
  return out;
}

std::string formatDouble(const char *format, double v) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, format, v);
  return buffer;
}

std::string padRight(std::string text, size_t width) {
  if (text.size() < width)
    text.append(width - text.size(), ' ');
  return text;
}

std::string unqualifiedName(std::string_view name) {
  size_t colons = name.rfind("::");
  return std::string(
      colons == std::string_view::npos ? name : name.substr(colons + 2));
}

} // namespace ktune
