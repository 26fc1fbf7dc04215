//===- FuzzSupport.h - Shared by the fuzz harnesses -------------*- C++ -*-===//
#ifndef KTUNE_TEST_FUZZ_FUZZSUPPORT_H
#define KTUNE_TEST_FUZZ_FUZZSUPPORT_H

#include "ktune/Support/Error.h"
#include "ktune/Support/FileUtil.h"

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <optional>
#include <string>
#include <type_traits>

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

/// The input read by `fromJson` (planFromJson, manifestFromJson, ...), or
/// nothing when it is not JSON or does not read.
template <class Read>
auto read(const uint8_t *data, size_t size, Read fromJson) -> std::optional<
    std::remove_cvref_t<decltype(*fromJson(nlohmann::json()))>> {
  auto j = json(data, size);
  if (!j)
    return std::nullopt;
  auto value = fromJson(*j);
  if (!value)
    return std::nullopt;
  return std::move(*value);
}

/// An input built into the harness (FuzzEmbedded.inc), read by `fromJson`;
/// aborts when it does not read, since the harness would then test nothing.
template <class Read>
auto readEmbedded(const char *text, const char *name, Read fromJson) {
  auto j = parseJson(text, name);
  if (!j)
    std::abort();
  auto value = fromJson(*j);
  if (!value)
    std::abort();
  return std::move(*value);
}

/// Keeps the optimiser from dropping a result.
template <class T> void use(const T &value) {
  asm volatile("" : : "r"(&value) : "memory");
}

} // namespace ktune::fuzz

#endif
