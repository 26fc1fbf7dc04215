//===- ktune/Support/JsonReader.h - Reading untrusted JSON ------*- C++ -*-===//
//
// Every file ktune reads (plans, candidates, manifests, specs, results,
// journals, T1/T4 files, LLM replies) is untrusted: a person, a script or a
// model wrote it, or a crash cut it short. A JsonReader is a JSON value and
// its path ("kernels[0].params[1].name"); the path grows as the reader
// descends, and every error it returns is a ktune::Error whose `where` is
// that path. It never throws: each access checks the type first, a missing
// field or element reads as null, and numbers are range-checked before they
// are converted.
//
//===----------------------------------------------------------------------===//
#ifndef KTUNE_SUPPORT_JSONREADER_H
#define KTUNE_SUPPORT_JSONREADER_H

#include "ktune/Support/EnumNames.h"
#include "ktune/Support/Error.h"
#include "ktune/Support/Try.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

namespace ktune {

/// The path of field `key` of the value at `path` ("a.b"; "b" at the top).
std::string jsonPathKey(const std::string &path, std::string_view key);
/// The path of element `index` of the array at `path` ("a[3]").
std::string jsonPathIndex(const std::string &path, size_t index);

/// What a JSON value holds, as the reader's messages name it.
enum class JsonKind { Null, Bool, Integer, Number, String, Array, Object };

/// "a string", "an integer", ...: the words after "expected".
std::string_view jsonKindName(JsonKind kind);

class JsonReader {
public:
  /// Reads `value` (which must outlive the reader) at `path`; the empty path
  /// is the top of a file.
  explicit JsonReader(const nlohmann::json &value, std::string path = {});

  const nlohmann::json &json() const { return *Value; }
  const std::string &path() const { return Path; }
  std::string pathOf(std::string_view key) const {
    return jsonPathKey(Path, key);
  }
  std::string pathAt(size_t index) const { return jsonPathIndex(Path, index); }

  /// An error at this value's path, or at the path of its field `key`.
  std::unexpected<Error> fail(std::string message) const;
  std::unexpected<Error> failAt(std::string_view key,
                                std::string message) const;

  //===--------------------------------------------------------------------===//
  // What it holds
  //===--------------------------------------------------------------------===//

  bool is(JsonKind kind) const;
  bool isNull() const { return is(JsonKind::Null); }
  bool isBool() const { return is(JsonKind::Bool); }
  /// A JSON integer (any size; integer() checks the range).
  bool isInteger() const { return is(JsonKind::Integer); }
  /// Any JSON number, integer or not.
  bool isNumber() const { return is(JsonKind::Number); }
  bool isString() const { return is(JsonKind::String); }
  bool isArray() const { return is(JsonKind::Array); }
  bool isObject() const { return is(JsonKind::Object); }
  /// "expected <kind>" unless it holds that kind.
  Status expect(JsonKind kind) const;

  /// An object with a field `key` (null or not).
  bool has(std::string_view key) const;
  /// has(key), and the field is not null.
  bool hasValue(std::string_view key) const;
  /// Elements of an array, fields of an object; 0 for anything else.
  size_t size() const;
  /// The value as JSON text, cut short, for messages ("got ...").
  std::string brief(size_t most = 40) const;

  //===--------------------------------------------------------------------===//
  // Descending (the path grows; what is not there reads as null)
  //===--------------------------------------------------------------------===//

  JsonReader operator[](std::string_view key) const;
  JsonReader operator[](size_t index) const;
  /// The elements of an array (none for any other value).
  std::vector<JsonReader> elements() const;
  /// The fields of an object in the order nlohmann::json keeps them (sorted
  /// by name); none for any other value.
  std::vector<std::pair<std::string, JsonReader>> fields() const;

  //===--------------------------------------------------------------------===//
  // This value, typed (errors name this path)
  //===--------------------------------------------------------------------===//

  Expected<std::string> string() const;
  /// A JSON integer that fits int64.
  Expected<int64_t> integer() const;
  /// A JSON integer in [min, max].
  Expected<int64_t> integer(int64_t min, int64_t max) const;
  /// A JSON integer in [0, UINT64_MAX].
  Expected<uint64_t> unsignedInteger() const;
  /// An integer, or a number with an integral value that fits int64 (2.0):
  /// some writers (Python, hand-edited files) write integers that way.
  Expected<int64_t> integral() const;
  /// integral(), or a boolean as 1 or 0: Kernel Tuner's T1 and T4 files
  /// write configuration values either way.
  Expected<int64_t> integralOrBoolean() const;
  /// Any number, as a double.
  Expected<double> number() const;
  Expected<bool> boolean() const;
  /// An array of strings.
  Expected<std::vector<std::string>> strings() const;
  /// An array of integral() values, none twice ("duplicate value 4" at the
  /// second).
  Expected<std::vector<int64_t>> distinctIntegrals() const;
  /// An object whose values are all integers (a shape, a configuration).
  Expected<std::vector<std::pair<std::string, int64_t>>> integerFields() const;
  /// One of `names` (a string): its index, else "expected one of: a, b, c".
  Expected<size_t> choice(std::initializer_list<std::string_view> names) const;
  /// A string naming one of the values of an enum:
  ///   r.enumeration<Role>({{"in", Role::In}, {"out", Role::Out}})
  template <class E>
  Expected<E> enumeration(
      std::initializer_list<std::pair<std::string_view, E>> names) const {
    std::vector<std::string_view> keys;
    for (const auto &n : names)
      keys.push_back(n.first);
    KTUNE_TRY_ASSIGN(size_t i, choiceOf(keys));
    return (names.begin() + i)->second;
  }
  /// A string naming a value of `table` (ktune/Support/EnumNames.h).
  template <class E, size_t N>
  Expected<E> enumeration(const EnumName<E> (&table)[N]) const {
    std::vector<std::string_view> keys;
    for (const auto &row : table)
      keys.push_back(row.second);
    KTUNE_TRY_ASSIGN(size_t i, choiceOf(keys));
    return table[i].first;
  }

  /// The elements of this array, each read by `read` (a function of a
  /// JsonReader that returns an Expected); `message` when this is not an
  /// array. The first element that fails is the error.
  template <class F>
  auto readArray(F &&read, std::string message = "expected an array") const
      -> Expected<std::vector<
          typename std::invoke_result_t<F &, const JsonReader &>::value_type>> {
    if (!isArray())
      return fail(std::move(message));
    std::vector<
        typename std::invoke_result_t<F &, const JsonReader &>::value_type>
        out;
    for (const JsonReader &e : elements()) {
      KTUNE_TRY_ASSIGN(auto v, read(e));
      out.push_back(std::move(v));
    }
    return out;
  }

  //===--------------------------------------------------------------------===//
  // Fields of this object. required*: "missing required field" at the
  // field's path when it is not there (also when this is not an object).
  // optional*: the fallback when it is not there; a field that is there
  // (null included) must have the type.
  //===--------------------------------------------------------------------===//

  Expected<JsonReader> required(std::string_view key) const;
  Expected<std::string> requiredString(std::string_view key) const;
  Expected<int64_t> requiredInteger(std::string_view key) const;
  Expected<double> requiredNumber(std::string_view key) const;

  Expected<std::string> optionalString(std::string_view key,
                                       std::string fallback = {}) const;
  Expected<int64_t> optionalInteger(std::string_view key,
                                    int64_t fallback) const;
  Expected<int64_t> optionalInteger(std::string_view key, int64_t fallback,
                                    int64_t min, int64_t max) const;
  Expected<uint64_t> optionalUnsigned(std::string_view key,
                                      uint64_t fallback) const;
  Expected<double> optionalNumber(std::string_view key, double fallback) const;
  Expected<bool> optionalBool(std::string_view key, bool fallback) const;

  /// Every field is one of `allowed`: a misspelt field is an error, never
  /// silently ignored. The error is at the field's path: "unknown field
  /// (expected one of: a, b, c)", with "; did you mean \"b\"?" for a close
  /// spelling.
  Status onlyFields(std::initializer_list<std::string_view> allowed) const;

  /// readArray of field `key`; no elements when there is no such field.
  template <class F>
  auto optionalArray(std::string_view key, F &&read,
                     std::string message = "expected an array") const
      -> Expected<std::vector<
          typename std::invoke_result_t<F &, const JsonReader &>::value_type>> {
    if (!has(key))
      return {};
    return (*this)[key].readArray(read, std::move(message));
  }

  /// The top of a ktune file: an object (else "<document> is a JSON object")
  /// whose "ktune" field is `version`, e.g. expectVersion("a plan",
  /// "plan/1"); the messages name the kind of file by `version`'s prefix.
  Status expectVersion(std::string_view document,
                       std::string_view version) const;

private:
  Expected<size_t> choiceOf(const std::vector<std::string_view> &names) const;

  const nlohmann::json *Value;
  std::string Path;
};

} // namespace ktune

#endif
