//===- ktune/Support/EnumNames.h - An enum's names --------------*- C++ -*-===//
//
// The one way of naming the values of an enum (in JSON files, messages and
// reports) and of reading those names back: a constexpr table beside the
// enum, and nameOf / parseName over it.
//
//   constexpr EnumName<Phase> PhaseNames[] = {{Phase::Search, "search"}, ...};
//   nameOf(PhaseNames, phase, "search");   // "search"
//   parseName(PhaseNames, "retime");       // std::optional<Phase>
//
//===----------------------------------------------------------------------===//
#ifndef KTUNE_SUPPORT_ENUMNAMES_H
#define KTUNE_SUPPORT_ENUMNAMES_H

#include <cstddef>
#include <optional>
#include <string_view>
#include <utility>

namespace ktune {

/// One row of a name table: a value and how it is spelled.
template <class E> using EnumName = std::pair<E, std::string_view>;

/// The name of `value` in `table`, else `fallback` (a value the table does
/// not list, such as a cast from an out-of-range integer).
template <class E, size_t N>
constexpr std::string_view nameOf(const EnumName<E> (&table)[N], E value,
                                  std::string_view fallback = {}) {
  for (const auto &[v, name] : table)
    if (v == value)
      return name;
  return fallback;
}

/// The value `table` spells `name`, else nothing.
template <class E, size_t N>
constexpr std::optional<E> parseName(const EnumName<E> (&table)[N],
                                     std::string_view name) {
  for (const auto &[v, n] : table)
    if (n == name)
      return v;
  return std::nullopt;
}

} // namespace ktune

#endif
