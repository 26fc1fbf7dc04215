//===- JsonReader.cpp - Typed reading of untrusted JSON -------------------===//
#include "ktune/Support/JsonReader.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <set>

namespace ktune {

std::string jsonPathKey(const std::string &path, std::string_view key) {
  return path.empty() ? std::string(key) : path + "." + std::string(key);
}

std::string jsonPathIndex(const std::string &path, size_t index) {
  return path + "[" + std::to_string(index) + "]";
}

namespace {
constexpr EnumName<JsonKind> KindNames[] = {
    {JsonKind::Null, "null"},          {JsonKind::Bool, "true or false"},
    {JsonKind::Integer, "an integer"}, {JsonKind::Number, "a number"},
    {JsonKind::String, "a string"},    {JsonKind::Array, "an array"},
    {JsonKind::Object, "an object"},
};
} // namespace

std::string_view jsonKindName(JsonKind kind) {
  return nameOf(KindNames, kind, "a value");
}

namespace {

/// What a missing field or element reads as.
const nlohmann::json &missing() {
  static const nlohmann::json Null;
  return Null;
}

size_t editDistance(std::string_view a, std::string_view b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j)
    row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diagonal = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1,
                         diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[b.size()];
}

std::string listed(const std::vector<std::string_view> &names) {
  std::string out;
  for (std::string_view n : names)
    out += (out.empty() ? "" : ", ") + std::string(n);
  return out;
}

} // namespace

JsonReader::JsonReader(const nlohmann::json &value, std::string path)
    : Value(&value), Path(std::move(path)) {}

std::unexpected<Error> JsonReader::fail(std::string message) const {
  return makeError(std::move(message), Path);
}

std::unexpected<Error> JsonReader::failAt(std::string_view key,
                                          std::string message) const {
  return makeError(std::move(message), pathOf(key));
}

//===----------------------------------------------------------------------===//
// What it holds
//===----------------------------------------------------------------------===//

bool JsonReader::is(JsonKind kind) const {
  switch (kind) {
  case JsonKind::Null:
    return Value->is_null();
  case JsonKind::Bool:
    return Value->is_boolean();
  case JsonKind::Integer:
    return Value->is_number_integer();
  case JsonKind::Number:
    return Value->is_number();
  case JsonKind::String:
    return Value->is_string();
  case JsonKind::Array:
    return Value->is_array();
  case JsonKind::Object:
    return Value->is_object();
  }
  return false;
}

Status JsonReader::expect(JsonKind kind) const {
  if (is(kind))
    return {};
  return fail("expected " + std::string(jsonKindName(kind)));
}

bool JsonReader::has(std::string_view key) const {
  return Value->is_object() && Value->find(std::string(key)) != Value->end();
}

bool JsonReader::hasValue(std::string_view key) const {
  if (!Value->is_object())
    return false;
  auto it = Value->find(std::string(key));
  return it != Value->end() && !it->is_null();
}

size_t JsonReader::size() const {
  return Value->is_array() || Value->is_object() ? Value->size() : 0;
}

std::string JsonReader::brief(size_t most) const {
  // `replace`: a string with broken UTF-8 must not make dump() throw.
  std::string text =
      Value->dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  if (text.size() > most)
    text = text.substr(0, most) + "...";
  return text;
}

//===----------------------------------------------------------------------===//
// Descending
//===----------------------------------------------------------------------===//

JsonReader JsonReader::operator[](std::string_view key) const {
  if (Value->is_object()) {
    auto it = Value->find(std::string(key));
    if (it != Value->end())
      return JsonReader(*it, pathOf(key));
  }
  return JsonReader(missing(), pathOf(key));
}

JsonReader JsonReader::operator[](size_t index) const {
  if (Value->is_array() && index < Value->size())
    return JsonReader((*Value)[index], pathAt(index));
  return JsonReader(missing(), pathAt(index));
}

std::vector<JsonReader> JsonReader::elements() const {
  std::vector<JsonReader> out;
  if (!Value->is_array())
    return out;
  out.reserve(Value->size());
  for (size_t i = 0; i < Value->size(); ++i)
    out.emplace_back((*Value)[i], pathAt(i));
  return out;
}

std::vector<std::pair<std::string, JsonReader>> JsonReader::fields() const {
  std::vector<std::pair<std::string, JsonReader>> out;
  if (!Value->is_object())
    return out;
  for (auto it = Value->begin(); it != Value->end(); ++it)
    out.emplace_back(it.key(), JsonReader(it.value(), pathOf(it.key())));
  return out;
}

//===----------------------------------------------------------------------===//
// This value, typed
//===----------------------------------------------------------------------===//

Expected<std::string> JsonReader::string() const {
  if (!Value->is_string())
    return fail("expected a string");
  return Value->get_ref<const std::string &>();
}

Expected<int64_t> JsonReader::integer() const {
  if (Value->is_number_unsigned()) {
    uint64_t u = Value->get<uint64_t>();
    if (u > static_cast<uint64_t>(std::numeric_limits<int64_t>::max()))
      return fail("integer " + std::to_string(u) + " is too large");
    return static_cast<int64_t>(u);
  }
  if (Value->is_number_integer())
    return Value->get<int64_t>();
  return fail("expected an integer");
}

Expected<int64_t> JsonReader::integer(int64_t min, int64_t max) const {
  auto v = integer();
  if (!v)
    return v;
  if (*v < min || *v > max)
    return fail("expected an integer from " + std::to_string(min) + " to " +
                std::to_string(max) + ", got " + std::to_string(*v));
  return v;
}

Expected<uint64_t> JsonReader::unsignedInteger() const {
  if (Value->is_number_unsigned())
    return Value->get<uint64_t>();
  if (Value->is_number_integer())
    return fail("expected a non-negative integer, got " +
                std::to_string(Value->get<int64_t>()));
  return fail("expected a non-negative integer");
}

Expected<int64_t> JsonReader::integral() const {
  if (Value->is_number_integer()) {
    if (auto v = integer())
      return v;
  } else if (Value->is_number_float()) {
    double d = Value->get<double>();
    // Checked before the conversion: a double outside int64 has no value
    // there (converting it would be undefined behaviour).
    if (std::isfinite(d) && d == std::trunc(d) && d >= -9.2e18 && d <= 9.2e18)
      return static_cast<int64_t>(d);
  }
  return fail("expected an integer, got " + brief());
}

Expected<int64_t> JsonReader::integralOrBoolean() const {
  if (Value->is_boolean())
    return Value->get<bool>() ? 1 : 0;
  return integral();
}

Expected<double> JsonReader::number() const {
  if (!Value->is_number())
    return fail("expected a number");
  return Value->get<double>();
}

Expected<bool> JsonReader::boolean() const {
  if (!Value->is_boolean())
    return fail("expected true or false");
  return Value->get<bool>();
}

Expected<std::vector<std::string>> JsonReader::strings() const {
  if (!Value->is_array())
    return fail("expected an array of strings");
  std::vector<std::string> out;
  for (const JsonReader &e : elements()) {
    KTUNE_TRY_ASSIGN(auto s, e.string());
    out.push_back(std::move(s));
  }
  return out;
}

Expected<std::vector<int64_t>> JsonReader::distinctIntegrals() const {
  std::set<int64_t> seen;
  return readArray(
      [&](const JsonReader &e) -> Expected<int64_t> {
        KTUNE_TRY_ASSIGN(int64_t v, e.integral());
        if (!seen.insert(v).second)
          return e.fail("duplicate value " + std::to_string(v));
        return v;
      },
      "expected an array of integers");
}

Expected<std::vector<std::pair<std::string, int64_t>>>
JsonReader::integerFields() const {
  if (!Value->is_object())
    return fail("expected an object of integers");
  std::vector<std::pair<std::string, int64_t>> out;
  for (const auto &[name, field] : fields()) {
    KTUNE_TRY_ASSIGN(auto v, field.integer());
    out.emplace_back(name, v);
  }
  return out;
}

Expected<size_t>
JsonReader::choice(std::initializer_list<std::string_view> names) const {
  return choiceOf(std::vector<std::string_view>(names));
}

Expected<size_t>
JsonReader::choiceOf(const std::vector<std::string_view> &names) const {
  if (Value->is_string()) {
    const std::string &s = Value->get_ref<const std::string &>();
    for (size_t i = 0; i < names.size(); ++i)
      if (s == names[i])
        return i;
  }
  return fail("expected one of: " + listed(names));
}

//===----------------------------------------------------------------------===//
// Fields
//===----------------------------------------------------------------------===//

Status JsonReader::expectVersion(std::string_view document,
                                 std::string_view version) const {
  if (!isObject())
    return makeError(std::string(document) + " is a JSON object", "$");
  JsonReader field = (*this)["ktune"];
  if (!field.isString())
    return field.fail("missing version field (expected \"" +
                      std::string(version) + "\")");
  const std::string &found = field.json().get_ref<const std::string &>();
  if (found != version)
    return field.fail("unsupported " +
                      std::string(version.substr(0, version.find('/'))) +
                      " version \"" + found + "\" (this ktune reads \"" +
                      std::string(version) + "\")");
  return {};
}

Expected<JsonReader> JsonReader::required(std::string_view key) const {
  if (!has(key))
    return failAt(key, "missing required field");
  return (*this)[key];
}

Expected<std::string> JsonReader::requiredString(std::string_view key) const {
  KTUNE_TRY_ASSIGN(auto field, required(key));
  return field.string();
}

Expected<int64_t> JsonReader::requiredInteger(std::string_view key) const {
  KTUNE_TRY_ASSIGN(auto field, required(key));
  return field.integer();
}

Expected<double> JsonReader::requiredNumber(std::string_view key) const {
  KTUNE_TRY_ASSIGN(auto field, required(key));
  return field.number();
}

/// Field `key` of `object` read by `read`, or `fallback` when it is absent:
/// what every optional* accessor does.
template <class T, class Read>
static Expected<T> fieldOr(const JsonReader &object, std::string_view key,
                           T fallback, Read read) {
  if (!object.has(key))
    return fallback;
  return std::invoke(read, object[key]);
}

Expected<std::string> JsonReader::optionalString(std::string_view key,
                                                 std::string fallback) const {
  return fieldOr(*this, key, std::move(fallback), &JsonReader::string);
}

Expected<int64_t> JsonReader::optionalInteger(std::string_view key,
                                              int64_t fallback) const {
  return fieldOr(*this, key, fallback,
                 [](const JsonReader &field) { return field.integer(); });
}

Expected<int64_t> JsonReader::optionalInteger(std::string_view key,
                                              int64_t fallback, int64_t min,
                                              int64_t max) const {
  return fieldOr(*this, key, fallback, [&](const JsonReader &field) {
    return field.integer(min, max);
  });
}

Expected<uint64_t> JsonReader::optionalUnsigned(std::string_view key,
                                                uint64_t fallback) const {
  return fieldOr(*this, key, fallback, &JsonReader::unsignedInteger);
}

Expected<double> JsonReader::optionalNumber(std::string_view key,
                                            double fallback) const {
  return fieldOr(*this, key, fallback, &JsonReader::number);
}

Expected<bool> JsonReader::optionalBool(std::string_view key,
                                        bool fallback) const {
  return fieldOr(*this, key, fallback, &JsonReader::boolean);
}

Status
JsonReader::onlyFields(std::initializer_list<std::string_view> allowed) const {
  if (!Value->is_object())
    return {};
  for (auto it = Value->begin(); it != Value->end(); ++it) {
    const std::string &key = it.key();
    if (std::find(allowed.begin(), allowed.end(), key) != allowed.end())
      continue;
    std::string nearest;
    // Suggest only close spellings (and not every one-letter field for a
    // one-letter key).
    size_t best = std::min<size_t>(3, key.size());
    for (std::string_view a : allowed) {
      size_t d = editDistance(key, a);
      if (d < best) {
        best = d;
        nearest = a;
      }
    }
    std::string message = "unknown field (expected one of: " +
                          listed(std::vector<std::string_view>(allowed)) + ")";
    if (!nearest.empty())
      message += "; did you mean \"" + nearest + "\"?";
    return failAt(key, message);
  }
  return {};
}

} // namespace ktune
