//===- FuzzSupport.h - Shared by the fuzz harnesses -------------*- C++ -*-===//
#ifndef KTUNE_TEST_FUZZ_FUZZSUPPORT_H
#define KTUNE_TEST_FUZZ_FUZZSUPPORT_H

#include "ktune/Support/Error.h"
#include "ktune/Support/FileUtil.h"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

namespace ktune::fuzz {

inline std::string text(const uint8_t *data, size_t size) {
  return std::string(reinterpret_cast<const char *>(data), size);
}

/// The input as JSON, or nothing when it does not parse (which must be an
/// error value, never an exception or a crash).
inline std::optional<nlohmann::json> json(const uint8_t *data, size_t size) {
  auto j = parseJson(text(data, size), "fuzz");
  if (!j)
    return std::nullopt;
  return std::move(*j);
}

/// Keeps the optimiser from dropping a result.
template <class T> void use(const T &value) {
  asm volatile("" : : "r"(&value) : "memory");
}

} // namespace ktune::fuzz

#endif
