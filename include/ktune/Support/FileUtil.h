//===- ktune/Support/FileUtil.h - Reading and atomic writing ----*- C++ -*-===//
#ifndef KTUNE_SUPPORT_FILEUTIL_H
#define KTUNE_SUPPORT_FILEUTIL_H

#include "ktune/Support/Error.h"
#include "ktune/Support/Try.h"

#include <nlohmann/json.hpp>

#include <string>
#include <utility>

namespace ktune {

Expected<std::string> readFile(const std::string &path);

/// Writes to a temporary file beside `path` and renames it over `path`, so a
/// reader never sees a half-written file and a failure leaves no output.
Status writeFileAtomically(const std::string &path, const std::string &content);

/// Parses a JSON file; a syntax error names the file, line and column.
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

/// Parses JSON text; `origin` names it in errors.
Expected<nlohmann::json> parseJson(const std::string &text,
                                   const std::string &origin);

/// Reads a file that may be gzip-compressed (by its magic bytes).
Expected<std::string> readMaybeGzipFile(const std::string &path);

} // namespace ktune

#endif
