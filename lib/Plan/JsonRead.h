//===- JsonRead.h - Typed field access with JSON-path errors ----*- C++ -*-===//
#ifndef KTUNE_LIB_PLAN_JSONREAD_H
#define KTUNE_LIB_PLAN_JSONREAD_H

#include "ktune/Support/Error.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>

/// Assigns the value of an Expected to `lhs`, or returns its error.
#define KTUNE_TRY_ASSIGN(lhs, expr)                                            \
  do {                                                                         \
    auto ktuneTryValue = (expr);                                               \
    if (!ktuneTryValue)                                                        \
      return std::unexpected(ktuneTryValue.error());                           \
    lhs = std::move(*ktuneTryValue);                                           \
  } while (false)

namespace ktune::json_read {

inline std::string join(const std::string &where, const std::string &key) {
  return where.empty() ? key : where + "." + key;
}

inline Expected<std::string> string(const nlohmann::json &j,
                                    const std::string &key,
                                    const std::string &where) {
  if (!j.is_object() || !j.contains(key))
    return makeError("missing required field", join(where, key));
  if (!j[key].is_string())
    return makeError("expected a string", join(where, key));
  return j[key].get<std::string>();
}

inline Expected<int64_t> integer(const nlohmann::json &j,
                                 const std::string &key,
                                 const std::string &where) {
  if (!j.is_object() || !j.contains(key))
    return makeError("missing required field", join(where, key));
  if (!j[key].is_number_integer())
    return makeError("expected an integer", join(where, key));
  return j[key].get<int64_t>();
}

} // namespace ktune::json_read

#endif
