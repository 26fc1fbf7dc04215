#include "ktune/Support/JsonReader.h"
#include "ktune/Support/Try.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <random>

using namespace ktune;
using nlohmann::json;

namespace {

/// The error of an Expected, as "where: message".
template <class T> std::string errorOf(const Expected<T> &e) {
  EXPECT_FALSE(e.has_value());
  return e ? "" : e.error().str();
}

enum class Color { Red, Green };

TEST(JsonPath, GrowsAsTheReaderDescends) {
  EXPECT_EQ(jsonPathKey("", "kernels"), "kernels");
  EXPECT_EQ(jsonPathKey("kernels[0]", "params"), "kernels[0].params");
  EXPECT_EQ(jsonPathIndex("kernels", 3), "kernels[3]");

  json j =
      json::parse(R"({"kernels": [{"params": [{"name": "A"}, {"name": 7}]}]})");
  JsonReader top(j);
  JsonReader name = top["kernels"][0]["params"][1]["name"];
  EXPECT_EQ(name.path(), "kernels[0].params[1].name");
  EXPECT_EQ(errorOf(name.string()),
            "kernels[0].params[1].name: expected a string");
  EXPECT_EQ(*top["kernels"][0]["params"][0].requiredString("name"), "A");

  // A reader may start below the top of a file.
  JsonReader inner(j["kernels"][0], "kernels[0]");
  EXPECT_EQ(inner["params"].pathAt(2), "kernels[0].params[2]");
  EXPECT_EQ(inner.pathOf("params"), "kernels[0].params");
}

TEST(JsonReader, WhatIsNotThereReadsAsNull) {
  json j = json::parse(R"({"a": [1, 2], "n": null})");
  JsonReader r(j);
  EXPECT_TRUE(r["missing"].isNull());
  EXPECT_TRUE(r["a"][5].isNull());
  EXPECT_TRUE(r["a"]["key"].isNull()); // a key of an array
  EXPECT_TRUE(r["a"][0][0].isNull());  // an index of a number
  EXPECT_EQ(r["a"][5].path(), "a[5]");
  EXPECT_TRUE(r.has("n"));
  EXPECT_FALSE(r.hasValue("n"));
  EXPECT_TRUE(r.hasValue("a"));
  EXPECT_FALSE(r["a"].has("0"));
  EXPECT_EQ(r["a"].size(), 2u);
  EXPECT_EQ(r.size(), 2u);
  EXPECT_EQ(r["a"][0].size(), 0u);
  EXPECT_TRUE(r["a"][0].elements().empty());
  EXPECT_TRUE(r["a"].fields().empty());
}

TEST(JsonReader, KindsAndExpect) {
  json j = json::parse(
      R"({"s": "x", "i": -3, "u": 3, "f": 2.5, "b": true, "a": [], "o": {}})");
  JsonReader r(j);
  EXPECT_TRUE(r["s"].isString());
  EXPECT_TRUE(r["i"].isInteger());
  EXPECT_TRUE(r["u"].isInteger());
  EXPECT_TRUE(r["f"].isNumber());
  EXPECT_FALSE(r["f"].isInteger());
  EXPECT_TRUE(r["i"].isNumber());
  EXPECT_TRUE(r["b"].isBool());
  EXPECT_TRUE(r["a"].isArray());
  EXPECT_TRUE(r["o"].isObject());
  EXPECT_TRUE(r["o"].expect(JsonKind::Object));
  EXPECT_EQ(r["s"].expect(JsonKind::Array).error().str(),
            "s: expected an array");
  EXPECT_EQ(r["s"].expect(JsonKind::Integer).error().message,
            "expected an integer");
  EXPECT_EQ(r["s"].expect(JsonKind::Number).error().message,
            "expected a number");
  EXPECT_EQ(r["s"].expect(JsonKind::Object).error().message,
            "expected an object");
  EXPECT_EQ(r["i"].expect(JsonKind::String).error().message,
            "expected a string");
  EXPECT_EQ(r["i"].expect(JsonKind::Bool).error().message,
            "expected true or false");
}

TEST(JsonReader, Strings) {
  json j = json::parse(R"({"s": "hello", "n": 1, "e": ""})");
  JsonReader r(j);
  EXPECT_EQ(*r["s"].string(), "hello");
  EXPECT_EQ(errorOf(r["n"].string()), "n: expected a string");
  EXPECT_EQ(*r.requiredString("s"), "hello");
  EXPECT_EQ(*r.requiredString("e"), "");
  EXPECT_EQ(errorOf(r.requiredString("x")), "x: missing required field");
  EXPECT_EQ(errorOf(r.requiredString("n")), "n: expected a string");
  EXPECT_EQ(*r.optionalString("x", "fallback"), "fallback");
  EXPECT_EQ(*r.optionalString("x"), "");
  EXPECT_EQ(*r.optionalString("s", "fallback"), "hello");
  EXPECT_EQ(errorOf(r.optionalString("n")), "n: expected a string");
}

TEST(JsonReader, Integers) {
  json j = json::parse(R"({"i": -42, "big": 18446744073709551615,
    "max": 9223372036854775807, "min": -9223372036854775808,
    "f": 2.0, "half": 2.5, "huge": 1e300, "t": true, "s": "7"})");
  JsonReader r(j);
  EXPECT_EQ(*r["i"].integer(), -42);
  EXPECT_EQ(*r["max"].integer(), std::numeric_limits<int64_t>::max());
  EXPECT_EQ(*r["min"].integer(), std::numeric_limits<int64_t>::min());
  EXPECT_EQ(errorOf(r["big"].integer()),
            "big: integer 18446744073709551615 is too large");
  EXPECT_EQ(errorOf(r["f"].integer()), "f: expected an integer");
  EXPECT_EQ(errorOf(r["t"].integer()), "t: expected an integer");
  EXPECT_EQ(errorOf(r["s"].integer()), "s: expected an integer");

  EXPECT_EQ(*r["i"].integer(-100, 0), -42);
  EXPECT_EQ(errorOf(r["i"].integer(0, 10)),
            "i: expected an integer from 0 to 10, got -42");

  EXPECT_EQ(*r.requiredInteger("i"), -42);
  EXPECT_EQ(errorOf(r.requiredInteger("x")), "x: missing required field");
  EXPECT_EQ(*r.optionalInteger("x", 5), 5);
  EXPECT_EQ(*r.optionalInteger("i", 5), -42);
  EXPECT_EQ(errorOf(r.optionalInteger("s", 5)), "s: expected an integer");
  EXPECT_EQ(*r.optionalInteger("x", 5, 0, 10), 5);
  EXPECT_EQ(errorOf(r.optionalInteger("i", 5, 0, 10)),
            "i: expected an integer from 0 to 10, got -42");
}

TEST(JsonReader, UnsignedIntegers) {
  json j = json::parse(R"({"u": 18446744073709551615, "n": -1, "f": 1.0})");
  JsonReader r(j);
  EXPECT_EQ(*r["u"].unsignedInteger(), std::numeric_limits<uint64_t>::max());
  EXPECT_EQ(errorOf(r["n"].unsignedInteger()),
            "n: expected a non-negative integer, got -1");
  EXPECT_EQ(errorOf(r["f"].unsignedInteger()),
            "f: expected a non-negative integer");
  EXPECT_EQ(*r.optionalUnsigned("x", 9), 9u);
  EXPECT_EQ(*r.optionalUnsigned("u", 9), std::numeric_limits<uint64_t>::max());
}

TEST(JsonReader, IntegralAcceptsWholeFloatsInRange) {
  json j = json::parse(R"({"i": 3, "f": 256.0, "neg": -4.0, "half": 2.5,
    "huge": 1e19, "tiny": -1e19, "big": 18446744073709551615,
    "t": true, "s": "256"})");
  JsonReader r(j);
  EXPECT_EQ(*r["i"].integral(), 3);
  EXPECT_EQ(*r["f"].integral(), 256);
  EXPECT_EQ(*r["neg"].integral(), -4);
  EXPECT_EQ(errorOf(r["half"].integral()),
            "half: expected an integer, got 2.5");
  // Out of int64's range: an error before any conversion.
  EXPECT_FALSE(r["huge"].integral());
  EXPECT_FALSE(r["tiny"].integral());
  EXPECT_FALSE(r["big"].integral());
  EXPECT_EQ(errorOf(r["t"].integral()), "t: expected an integer, got true");
  EXPECT_EQ(errorOf(r["s"].integral()), "s: expected an integer, got \"256\"");

  EXPECT_EQ(*r["t"].integralOrBoolean(), 1);
  EXPECT_EQ(*r["f"].integralOrBoolean(), 256);
  EXPECT_FALSE(r["s"].integralOrBoolean());
}

TEST(JsonReader, NumbersAndBooleans) {
  json j = json::parse(R"({"f": 2.5, "i": 3, "s": "1", "b": false})");
  JsonReader r(j);
  EXPECT_EQ(*r["f"].number(), 2.5);
  EXPECT_EQ(*r["i"].number(), 3.0);
  EXPECT_EQ(errorOf(r["s"].number()), "s: expected a number");
  EXPECT_EQ(*r.requiredNumber("f"), 2.5);
  EXPECT_EQ(errorOf(r.requiredNumber("x")), "x: missing required field");
  EXPECT_EQ(*r.optionalNumber("x", 1.5), 1.5);
  EXPECT_EQ(errorOf(r.optionalNumber("b", 1.5)), "b: expected a number");

  EXPECT_EQ(*r["b"].boolean(), false);
  EXPECT_EQ(errorOf(r["i"].boolean()), "i: expected true or false");
  EXPECT_EQ(*r.optionalBool("x", true), true);
  EXPECT_EQ(*r.optionalBool("b", true), false);
  EXPECT_EQ(errorOf(r.optionalBool("s", true)), "s: expected true or false");
}

TEST(JsonReader, ArraysObjectsAndRequired) {
  json j = json::parse(
      R"({"list": ["a", "b"], "mixed": ["a", 2], "o": {"x": 1, "y": -2},
          "bad": {"x": 1, "y": "2"}})");
  JsonReader r(j);
  EXPECT_EQ(*r["list"].strings(), (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(errorOf(r["mixed"].strings()), "mixed[1]: expected a string");
  EXPECT_EQ(errorOf(r["o"].strings()), "o: expected an array of strings");

  auto fields = r["o"].integerFields();
  ASSERT_TRUE(fields);
  ASSERT_EQ(fields->size(), 2u);
  EXPECT_EQ((*fields)[1], (std::pair<std::string, int64_t>{"y", -2}));
  EXPECT_EQ(errorOf(r["bad"].integerFields()), "bad.y: expected an integer");
  EXPECT_EQ(errorOf(r["list"].integerFields()),
            "list: expected an object of integers");

  std::vector<std::string> paths;
  for (const JsonReader &e : r["list"].elements())
    paths.push_back(e.path());
  for (const auto &[name, value] : r["o"].fields())
    paths.push_back(name + "@" + value.path());
  EXPECT_EQ(paths,
            (std::vector<std::string>{"list[0]", "list[1]", "x@o.x", "y@o.y"}));

  auto o = r.required("o");
  ASSERT_TRUE(o);
  EXPECT_EQ(o->path(), "o");
  EXPECT_EQ(errorOf(r.required("nope")), "nope: missing required field");
  // The field of something that is not an object is missing too.
  EXPECT_EQ(errorOf(r["list"].required("x")), "list.x: missing required field");
}

TEST(JsonReader, ChoicesAndEnums) {
  json j = json::parse(R"({"c": "green", "bad": "blue", "n": 3})");
  JsonReader r(j);
  EXPECT_EQ(*r["c"].choice({"red", "green"}), 1u);
  EXPECT_EQ(errorOf(r["bad"].choice({"red", "green"})),
            "bad: expected one of: red, green");
  EXPECT_EQ(errorOf(r["n"].choice({"red", "green"})),
            "n: expected one of: red, green");
  auto color =
      r["c"].enumeration<Color>({{"red", Color::Red}, {"green", Color::Green}});
  ASSERT_TRUE(color);
  EXPECT_EQ(*color, Color::Green);
  EXPECT_EQ(errorOf(r["bad"].enumeration<Color>(
                {{"red", Color::Red}, {"green", Color::Green}})),
            "bad: expected one of: red, green");
}

TEST(JsonReader, OnlyFieldsSuggestsCloseSpellings) {
  json j = json::parse(R"({"name": "x", "defualt": 3})");
  JsonReader r(j, "kernels[0].params[1]");
  auto ok = r.onlyFields({"name", "default", "kind"});
  ASSERT_FALSE(ok);
  EXPECT_EQ(ok.error().where, "kernels[0].params[1].defualt");
  EXPECT_EQ(ok.error().message, "unknown field (expected one of: name, "
                                "default, kind); did you mean \"default\"?");
  json far = json::parse(R"({"zzzzzz": 1})");
  auto noHint = JsonReader(far).onlyFields({"name"});
  ASSERT_FALSE(noHint);
  EXPECT_EQ(noHint.error().str(),
            "zzzzzz: unknown field (expected one of: name)");
  EXPECT_TRUE(r.onlyFields({"name", "defualt"}));
  EXPECT_TRUE(JsonReader(json(3)).onlyFields({"a"})); // not an object
}

TEST(JsonReader, FailAndBrief) {
  json j = json::parse(R"({"v": [1, 2, 3], "long": ")" + std::string(100, 'x') +
                       "\"}");
  JsonReader r(j, "top");
  EXPECT_EQ(r["v"].fail("custom").error().str(), "top.v: custom");
  EXPECT_EQ(r.failAt("w", "custom").error().str(), "top.w: custom");
  EXPECT_EQ(r["v"].brief(), "[1,2,3]");
  std::string brief = r["long"].brief();
  EXPECT_EQ(brief.size(), 43u);
  EXPECT_TRUE(brief.ends_with("..."));
  // Broken UTF-8 in a value built in memory must not throw.
  json bad = std::string("\xff\xfe");
  EXPECT_NO_THROW(JsonReader(bad).brief());
}

Expected<int64_t> sumOfTwo(const JsonReader &r) {
  KTUNE_TRY(r.onlyFields({"a", "b"}));
  KTUNE_TRY_ASSIGN(int64_t a, r.requiredInteger("a"));
  int64_t b = 0;
  KTUNE_TRY_ASSIGN(b, r.optionalInteger("b", 0));
  return a + b;
}

TEST(Try, PropagatesErrorsAndAssignsValues) {
  EXPECT_EQ(*sumOfTwo(JsonReader(json::parse(R"({"a": 2, "b": 3})"))), 5);
  EXPECT_EQ(*sumOfTwo(JsonReader(json::parse(R"({"a": 2})"))), 2);
  EXPECT_EQ(errorOf(sumOfTwo(JsonReader(json::parse(R"({"b": 3})")))),
            "a: missing required field");
  EXPECT_EQ(errorOf(sumOfTwo(JsonReader(json::parse(R"({"a": 1, "c": 3})")))),
            "c: unknown field (expected one of: a, b)");
  EXPECT_EQ(errorOf(sumOfTwo(JsonReader(json::parse(R"({"a": 1, "b": "x"})")))),
            "b: expected an integer");
}

/// Every accessor on every kind of value, nested: errors, never exceptions.
void readEverything(const JsonReader &r, int depth) {
  (void)r.string();
  (void)r.integer();
  (void)r.integer(-5, 5);
  (void)r.unsignedInteger();
  (void)r.integral();
  (void)r.integralOrBoolean();
  (void)r.number();
  (void)r.boolean();
  (void)r.strings();
  (void)r.integerFields();
  (void)r.choice({"a", "b"});
  (void)r.enumeration<Color>({{"red", Color::Red}});
  (void)r.brief();
  (void)r.size();
  for (const char *key : {"a", "b", "x"}) {
    (void)r.has(key);
    (void)r.hasValue(key);
    (void)r.required(key);
    (void)r.requiredString(key);
    (void)r.requiredInteger(key);
    (void)r.requiredNumber(key);
    (void)r.optionalString(key, "f");
    (void)r.optionalInteger(key, 1);
    (void)r.optionalInteger(key, 1, 0, 2);
    (void)r.optionalUnsigned(key, 1);
    (void)r.optionalNumber(key, 1.0);
    (void)r.optionalBool(key, true);
  }
  (void)r.onlyFields({"a"});
  for (auto kind :
       {JsonKind::Null, JsonKind::Bool, JsonKind::Integer, JsonKind::Number,
        JsonKind::String, JsonKind::Array, JsonKind::Object})
    (void)r.expect(kind);
  if (depth > 3)
    return;
  readEverything(r["a"], depth + 1);
  readEverything(r[size_t{0}], depth + 1);
  readEverything(r[size_t{100}], depth + 1);
  for (const JsonReader &e : r.elements())
    readEverything(e, depth + 1);
  for (const auto &[name, value] : r.fields())
    readEverything(value, depth + 1);
}

json randomValue(std::mt19937 &rng, int depth) {
  std::uniform_int_distribution<int> kind(0, depth > 3 ? 7 : 9);
  switch (kind(rng)) {
  case 0:
    return nullptr;
  case 1:
    return rng() % 2 == 0;
  case 2:
    return static_cast<int64_t>(rng()) - (int64_t(1) << 31);
  case 3:
    return std::numeric_limits<uint64_t>::max() - rng() % 3;
  case 4:
    return std::numeric_limits<int64_t>::min();
  case 5: {
    const double values[] = {0.5, -2.0, 1e300, -1e19, 9.3e18, 1e-300};
    return values[rng() % 6];
  }
  case 6:
    return std::string(rng() % 2 ? "a" : "b");
  case 7:
    return std::string("\xc3\x28"); // invalid UTF-8
  case 8: {
    json a = json::array();
    for (unsigned n = rng() % 4; n > 0; --n)
      a.push_back(randomValue(rng, depth + 1));
    return a;
  }
  default: {
    json o = json::object();
    for (unsigned n = rng() % 4; n > 0; --n)
      o[std::string(1, "abx"[rng() % 3])] = randomValue(rng, depth + 1);
    return o;
  }
  }
}

TEST(JsonReader, NeverThrows) {
  std::mt19937 rng(7);
  for (int i = 0; i < 500; ++i) {
    json value = randomValue(rng, 0);
    EXPECT_NO_THROW(readEverything(JsonReader(value, "v"), 0)) << i;
  }
  for (const char *text :
       {"null", "true", "0", "-1", "1.5", "\"s\"", "[]", "{}",
        "[null, [1, [2.5, {\"a\": []}]]]",
        "{\"a\": {\"a\": {\"a\": 18446744073709551615}}, \"b\": -0.0}"}) {
    json value = json::parse(text);
    EXPECT_NO_THROW(readEverything(JsonReader(value), 0)) << text;
  }
}

} // namespace
