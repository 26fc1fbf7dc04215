#include "ktune/Plan/Domain.h"

#include <algorithm>
#include <set>

namespace ktune {

Domain Domain::ofValues(std::vector<int64_t> values) {
  Domain d;
  d.form = Form::Values;
  d.values = std::move(values);
  return d;
}

Domain Domain::ofRange(int64_t min, int64_t max, int64_t step) {
  Domain d;
  d.form = Form::Range;
  d.min = min;
  d.max = max;
  d.step = step;
  return d;
}

Domain Domain::ofPow2Range(int64_t min, int64_t max) {
  Domain d = ofRange(min, max, 1);
  d.pow2 = true;
  return d;
}

// Ranges come from untrusted files: no step below may overflow int64.
static constexpr int64_t LargestPow2 = int64_t(1) << 62;

static int64_t firstPow2AtLeast(int64_t v) {
  int64_t p = 1;
  while (p < v && p < LargestPow2)
    p *= 2;
  return p;
}

uint64_t Domain::size() const {
  if (form == Form::Values)
    return values.size();
  if (max < min)
    return 0;
  if (pow2) {
    uint64_t n = 0;
    int64_t p = firstPow2AtLeast(std::max<int64_t>(min, 1));
    if (p < std::max<int64_t>(min, 1))
      return 0;
    for (; p <= max; p *= 2) {
      ++n;
      if (p == LargestPow2)
        break;
    }
    return n;
  }
  if (step <= 0)
    return 0;
  uint64_t span = static_cast<uint64_t>(max) - static_cast<uint64_t>(min);
  return span / static_cast<uint64_t>(step) + 1;
}

int64_t Domain::at(uint64_t index) const {
  if (form == Form::Values)
    return values.at(index);
  if (pow2)
    return firstPow2AtLeast(std::max<int64_t>(min, 1)) << index;
  return static_cast<int64_t>(static_cast<uint64_t>(min) +
                              index * static_cast<uint64_t>(step));
}

std::optional<uint64_t> Domain::indexOf(int64_t value) const {
  if (form == Form::Values) {
    auto it = std::find(values.begin(), values.end(), value);
    if (it == values.end())
      return std::nullopt;
    return static_cast<uint64_t>(it - values.begin());
  }
  if (value < min || value > max)
    return std::nullopt;
  if (pow2) {
    if (value <= 0 || (value & (value - 1)) != 0)
      return std::nullopt;
    uint64_t index = 0;
    for (int64_t p = firstPow2AtLeast(std::max<int64_t>(min, 1));
         p < value && p < LargestPow2; p *= 2)
      ++index;
    return index;
  }
  uint64_t span = static_cast<uint64_t>(value) - static_cast<uint64_t>(min);
  if (step <= 0 || span % static_cast<uint64_t>(step) != 0)
    return std::nullopt;
  return span / static_cast<uint64_t>(step);
}

bool Domain::contains(int64_t value) const {
  return indexOf(value).has_value();
}

std::vector<int64_t> Domain::enumerate() const {
  std::vector<int64_t> all;
  uint64_t n = size();
  all.reserve(n);
  for (uint64_t i = 0; i < n; ++i)
    all.push_back(at(i));
  return all;
}

static Expected<int64_t> readInteger(const nlohmann::json &j,
                                     const std::string &where) {
  if (j.is_number_integer())
    return j.get<int64_t>();
  if (j.is_number_float()) {
    double d = j.get<double>();
    if (d == static_cast<double>(static_cast<int64_t>(d)))
      return static_cast<int64_t>(d);
  }
  return makeError("expected an integer, got " + j.dump(), where);
}

Expected<Domain> domainFromJson(const nlohmann::json &holder,
                                const std::string &where) {
  bool hasValues = holder.contains("values");
  bool hasRange = holder.contains("range");
  if (hasValues == hasRange)
    return makeError("give exactly one of \"values\" or \"range\"", where);
  if (hasValues) {
    const auto &list = holder["values"];
    std::string at = where + ".values";
    if (!list.is_array() || list.empty())
      return makeError("expected a non-empty array of integers", at);
    if (list.size() > Domain::MaxSize)
      return makeError("domain has " + std::to_string(list.size()) +
                           " values; at most " +
                           std::to_string(Domain::MaxSize) + " are allowed",
                       at);
    std::vector<int64_t> values;
    std::set<int64_t> seen;
    for (size_t i = 0; i < list.size(); ++i) {
      auto v = readInteger(list[i], at + "[" + std::to_string(i) + "]");
      if (!v)
        return std::unexpected(v.error());
      if (!seen.insert(*v).second)
        return makeError("duplicate value " + std::to_string(*v),
                         at + "[" + std::to_string(i) + "]");
      values.push_back(*v);
    }
    return Domain::ofValues(std::move(values));
  }
  const auto &range = holder["range"];
  std::string at = where + ".range";
  if (!range.is_object() || !range.contains("min") || !range.contains("max"))
    return makeError("expected {\"min\": a, \"max\": b, \"step\": s|\"pow2\"}",
                     at);
  auto lo = readInteger(range["min"], at + ".min");
  if (!lo)
    return std::unexpected(lo.error());
  auto hi = readInteger(range["max"], at + ".max");
  if (!hi)
    return std::unexpected(hi.error());
  if (*hi < *lo)
    return makeError("max (" + std::to_string(*hi) + ") is below min (" +
                         std::to_string(*lo) + ")",
                     at);
  Domain d;
  if (range.contains("step") && range["step"].is_string()) {
    if (range["step"] != "pow2")
      return makeError("step must be a positive integer or \"pow2\"",
                       at + ".step");
    if (*hi < 1)
      return makeError("a pow2 range needs max >= 1", at);
    d = Domain::ofPow2Range(*lo, *hi);
  } else {
    int64_t step = 1;
    if (range.contains("step")) {
      auto s = readInteger(range["step"], at + ".step");
      if (!s)
        return std::unexpected(s.error());
      if (*s <= 0)
        return makeError("step must be positive", at + ".step");
      step = *s;
    }
    d = Domain::ofRange(*lo, *hi, step);
  }
  if (d.size() == 0)
    return makeError("range holds no value", at);
  if (d.size() > Domain::MaxSize)
    return makeError("range holds " + std::to_string(d.size()) +
                         " values; at most " +
                         std::to_string(Domain::MaxSize) + " are allowed",
                     at);
  return d;
}

void domainToJson(const Domain &domain, nlohmann::json &holder) {
  if (domain.form == Domain::Form::Values) {
    holder["values"] = domain.values;
    return;
  }
  nlohmann::json range = {{"min", domain.min}, {"max", domain.max}};
  if (domain.pow2)
    range["step"] = "pow2";
  else
    range["step"] = domain.step;
  holder["range"] = range;
}

} // namespace ktune
