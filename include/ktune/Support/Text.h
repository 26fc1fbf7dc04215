//===- ktune/Support/Text.h - Small text helpers ----------------*- C++ -*-===//
//
// The text both stages write in messages, tables and reports: joined lists,
// "name=value" lists (shapes, configurations), numbers in printf formats,
// padded cells, unqualified names.
//
//===----------------------------------------------------------------------===//
#ifndef KTUNE_SUPPORT_TEXT_H
#define KTUNE_SUPPORT_TEXT_H

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace ktune {

/// The items with `separator` between them.
std::string join(const std::vector<std::string> &items,
                 std::string_view separator = ", ");

/// "a=1 b=2" (separator " "), "a=1, b=2" (", "): a shape or configuration.
std::string namedValues(const std::map<std::string, int64_t> &values,
                        std::string_view separator = " ");

/// `v` printed with `format`, a printf format for one double ("%.3f").
std::string formatDouble(const char *format, double v);

/// `text` followed by spaces up to `width` characters.
std::string padRight(std::string text, size_t width);

/// The name after the last "::" ("ns::kernel" -> "kernel").
std::string unqualifiedName(std::string_view name);

} // namespace ktune

#endif
