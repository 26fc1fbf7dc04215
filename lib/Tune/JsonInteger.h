#ifndef KTUNE_LIB_TUNE_JSONINTEGER_H
#define KTUNE_LIB_TUNE_JSONINTEGER_H

#include <nlohmann/json.hpp>

#include <cmath>
#include <cstdint>
#include <optional>

namespace ktune {

/// An integer from a JSON value: integers, booleans and integral floats
/// (T1 and T4 files write configuration values either way).
inline std::optional<int64_t> jsonInteger(const nlohmann::json &v) {
  if (v.is_boolean())
    return v.get<bool>() ? 1 : 0;
  if (v.is_number_integer())
    return v.get<int64_t>();
  if (v.is_number_float()) {
    double d = v.get<double>();
    if (std::isfinite(d) && d == std::trunc(d) && std::fabs(d) < 9.2e18)
      return static_cast<int64_t>(d);
  }
  return std::nullopt;
}

} // namespace ktune

#endif
