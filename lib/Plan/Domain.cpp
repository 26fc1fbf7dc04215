#include "ktune/Plan/Domain.h"

#include "ktune/Support/Try.h"

#include <algorithm>

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

std::string Domain::describe() const {
  if (form == Form::Range) {
    std::string span = std::to_string(min) + ".." + std::to_string(max);
    if (pow2)
      return "powers of two " + span;
    return step != 1 ? span + " step " + std::to_string(step) : span;
  }
  std::string s = "{";
  for (size_t i = 0; i < values.size(); ++i)
    s += (i ? ", " : "") + std::to_string(values[i]);
  return s + "}";
}

std::vector<int64_t> Domain::enumerate() const {
  std::vector<int64_t> all;
  uint64_t n = size();
  all.reserve(n);
  for (uint64_t i = 0; i < n; ++i)
    all.push_back(at(i));
  return all;
}

Expected<Domain> domainFromJson(const nlohmann::json &holder,
                                const std::string &where) {
  return domainFromJson(JsonReader(holder, where));
}

Expected<Domain> domainFromJson(const JsonReader &holder) {
  bool hasValues = holder.has("values");
  bool hasRange = holder.has("range");
  if (hasValues == hasRange)
    return holder.fail("give exactly one of \"values\" or \"range\"");
  if (hasValues) {
    JsonReader list = holder["values"];
    if (!list.isArray() || list.size() == 0)
      return list.fail("expected a non-empty array of integers");
    if (list.size() > Domain::MaxSize)
      return list.fail("domain has " + std::to_string(list.size()) +
                       " values; at most " + std::to_string(Domain::MaxSize) +
                       " are allowed");
    KTUNE_TRY_ASSIGN(auto values, list.distinctIntegrals());
    return Domain::ofValues(std::move(values));
  }
  JsonReader range = holder["range"];
  if (!range.isObject() || !range.has("min") || !range.has("max"))
    return range.fail(
        "expected {\"min\": a, \"max\": b, \"step\": s|\"pow2\"}");
  KTUNE_TRY_ASSIGN(int64_t lo, range["min"].integral());
  KTUNE_TRY_ASSIGN(int64_t hi, range["max"].integral());
  if (hi < lo)
    return range.fail("max (" + std::to_string(hi) + ") is below min (" +
                      std::to_string(lo) + ")");
  Domain d;
  JsonReader step = range["step"];
  if (step.isString()) {
    if (*step.string() != "pow2")
      return step.fail("step must be a positive integer or \"pow2\"");
    if (hi < 1)
      return range.fail("a pow2 range needs max >= 1");
    d = Domain::ofPow2Range(lo, hi);
  } else {
    int64_t by = 1;
    if (range.has("step")) {
      KTUNE_TRY_ASSIGN(by, step.integral());
      if (by <= 0)
        return step.fail("step must be positive");
    }
    d = Domain::ofRange(lo, hi, by);
  }
  if (d.size() == 0)
    return range.fail("range holds no value");
  if (d.size() > Domain::MaxSize)
    return range.fail("range holds " + std::to_string(d.size()) +
                      " values; at most " + std::to_string(Domain::MaxSize) +
                      " are allowed");
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
