//===- ktune/Plan/Domain.h - The values a parameter may take ----*- C++ -*-===//
#ifndef KTUNE_PLAN_DOMAIN_H
#define KTUNE_PLAN_DOMAIN_H

#include "ktune/Support/Error.h"
#include "ktune/Support/JsonReader.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace ktune {

/// A bounded integer domain: an explicit value list, or a range with an
/// integer step or a power-of-two step. Never materialised unless asked.
struct Domain {
  enum class Form { Values, Range };
  Form form = Form::Values;
  std::vector<int64_t> values; // Form::Values: distinct, in the given order
  int64_t min = 0, max = 0;    // Form::Range: inclusive bounds
  int64_t step = 1;            // Form::Range: additive step (> 0)
  bool pow2 = false;           // Form::Range: powers of two in [min, max]

  static Domain ofValues(std::vector<int64_t> values);
  static Domain ofRange(int64_t min, int64_t max, int64_t step = 1);
  static Domain ofPow2Range(int64_t min, int64_t max);

  uint64_t size() const;
  /// The index-th value in ascending (range) or given (list) order.
  int64_t at(uint64_t index) const;
  bool contains(int64_t value) const;
  std::optional<uint64_t> indexOf(int64_t value) const;
  std::vector<int64_t> enumerate() const;
  /// For people: "{1, 2, 4}", "32..1024", "32..1024 step 32",
  /// "powers of two 32..1024".
  std::string describe() const;

  /// Most values a domain may hold; larger domains are rejected as input.
  static constexpr uint64_t MaxSize = 1u << 20;
};

/// JSON forms: {"values": [..]} or {"range": {"min": a, "max": b, "step": s |
/// "pow2"}}, read from the object that holds them (a plan or manifest
/// parameter). `where` is the JSON path for errors.
Expected<Domain> domainFromJson(const nlohmann::json &holder,
                                const std::string &where);
Expected<Domain> domainFromJson(const JsonReader &holder);
/// Writes "values" or "range" into `holder`.
void domainToJson(const Domain &domain, nlohmann::json &holder);

} // namespace ktune

#endif
