//===- ktune/Support/FileUtil.h - Reading and atomic writing ----*- C++ -*-===//
#ifndef KTUNE_SUPPORT_FILEUTIL_H
#define KTUNE_SUPPORT_FILEUTIL_H

#include "ktune/Support/Error.h"

#include <nlohmann/json.hpp>

#include <string>

namespace ktune {

Expected<std::string> readFile(const std::string &path);

/// Writes to a temporary file beside `path` and renames it over `path`, so a
/// reader never sees a half-written file and a failure leaves no output.
Status writeFileAtomically(const std::string &path, const std::string &content);

/// Parses a JSON file; a syntax error names the file, line and column.
Expected<nlohmann::json> readJsonFile(const std::string &path);

/// Parses JSON text; `origin` names it in errors.
Expected<nlohmann::json> parseJson(const std::string &text,
                                   const std::string &origin);

/// Reads a file that may be gzip-compressed (by its magic bytes).
Expected<std::string> readMaybeGzipFile(const std::string &path);

} // namespace ktune

#endif
