//===- ktune/Support/FileUtil.h - Reading and atomic writing ----*- C++ -*-===//
#ifndef KTUNE_SUPPORT_FILEUTIL_H
#define KTUNE_SUPPORT_FILEUTIL_H

#include "ktune/Support/Error.h"
#include "ktune/Support/Limits.h"
#include "ktune/Support/Try.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <utility>

namespace ktune {

/// The whole file; more than `maxBytes` is an error ("... at most N bytes
/// are read") and is never read into memory.
Expected<std::string> readFile(const std::string &path,
                               size_t maxBytes = SIZE_MAX);

/// Writes to a temporary file beside `path` and renames it over `path`, so a
/// reader never sees a half-written file and a failure leaves no output.
Status writeFileAtomically(const std::string &path, const std::string &content);

/// Parses a JSON file (at most limits::MaxJsonFileBytes, gzip allowed); a
/// syntax error names the file, line and column.
Expected<nlohmann::json> readJsonFile(const std::string &path);

/// Reads a JSON file and converts it with `parse` (a function of the JSON
/// that returns an Expected), the conversion's errors located in `path`:
///   KTUNE_TRY_ASSIGN(auto plan, readJsonFileAs(path, planFromJson));
template <class F>
auto readJsonFileAs(const std::string &path, F &&parse)
    -> decltype(parse(std::declval<const nlohmann::json &>())) {
  KTUNE_TRY_ASSIGN(nlohmann::json json, readJsonFile(path));
  return withContext(parse(json), path);
}

/// Parses JSON text; `origin` names it in errors. Never throws: a syntax
/// error, a number out of range (1e999), invalid UTF-8, nesting deeper than
/// limits::MaxJsonDepth or text over limits::MaxJsonFileBytes is an error at
/// "origin:line:col".
Expected<nlohmann::json> parseJson(const std::string &text,
                                   const std::string &origin);
/// parseJson of one line of a JSON-lines file: errors are at
/// "origin:lineNo:col", or "origin:lineNo" when there is no column.
Expected<nlohmann::json> parseJsonLine(const std::string &line,
                                       const std::string &origin,
                                       size_t lineNo);
/// parseJson keeping the fields in the order of the text.
Expected<nlohmann::ordered_json> parseOrderedJson(const std::string &text,
                                                  const std::string &origin);

/// Reads a file that may be gzip-compressed (by its magic bytes); its
/// content, decompressed, is at most `maxBytes`.
Expected<std::string>
readMaybeGzipFile(const std::string &path,
                  size_t maxBytes = limits::MaxJsonFileBytes);

} // namespace ktune

#endif
