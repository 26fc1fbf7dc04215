//===- SourceScan.h - Identifiers and positions in source text -*- C++ -*-===//
//
// What the plan checks need from a source file without a compiler: the
// identifiers it spells (outside comments and literals), the macros it
// defines, and the line:col of a byte offset.
//
//===----------------------------------------------------------------------===//
#ifndef KTUNE_LIB_PLAN_SOURCESCAN_H
#define KTUNE_LIB_PLAN_SOURCESCAN_H

#include <map>
#include <string>
#include <string_view>

namespace ktune::source_scan {

struct Position {
  unsigned line = 0, col = 0; // 1-based; col counts bytes
};

struct IdentifierUse {
  Position first; // where it is first spelled
  bool macro = false;
  Position definedAt; // of the #define, when macro
};

/// Every identifier token of `text`, each with its first position; names
/// defined by `#define` are marked as macros. Comments, string and
/// character literals and number suffixes are skipped.
std::map<std::string, IdentifierUse> scanIdentifiers(std::string_view text);

/// The 1-based line and byte column of `offset` (which may equal the size).
Position positionOf(std::string_view text, size_t offset);

} // namespace ktune::source_scan

#endif
