//===- ktune/Plan/SourceScan.h - Identifiers in source text -----*- C++ -*-===//
//
// What the planners, the plan checks, the rewrite and the clang-tidy checks
// need from a source file without a compiler: the identifiers it spells
// (outside comments and literals, so a new name never collides with one),
// the macros it defines, and the line:col of a byte offset. One scanner,
// identifierTokens, serves them all.
//
//===----------------------------------------------------------------------===//
#ifndef KTUNE_PLAN_SOURCESCAN_H
#define KTUNE_PLAN_SOURCESCAN_H

#include <cstddef>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace ktune::source_scan {

/// One identifier spelled in a text.
struct IdentifierToken {
  size_t offset = 0;     // of its first byte
  std::string_view name; // into the text scanned
  /// The name a `#define` defines: the offset of its directive's '#'.
  std::optional<size_t> definedAt;
};

/// Every identifier token of `text`, in order. Identifiers may contain '$'.
/// Comments (a `//` comment continues over a backslash-newline), string and
/// character literals (raw and prefixed ones too; an unterminated one ends
/// at its line's end), number suffixes, #include's header names and
/// directive names are skipped.
std::vector<IdentifierToken> identifierTokens(std::string_view text);

/// The names `#define` directives of `text` define.
std::set<std::string> definedMacros(std::string_view text);

struct Position {
  unsigned line = 0, col = 0; // 1-based; col counts bytes
};

struct IdentifierUse {
  Position first; // where it is first spelled
  bool macro = false;
  Position definedAt; // of the #define, when macro
};

/// Every identifier of `text` (identifierTokens), each with its first
/// position; names defined by `#define` are marked as macros.
std::map<std::string, IdentifierUse> scanIdentifiers(std::string_view text);

/// The 1-based line and byte column of `offset` (which may equal the size).
Position positionOf(std::string_view text, size_t offset);

} // namespace ktune::source_scan

#endif
