//===- T1.cpp - Kernel Tuner / benchmark_hub T1 input ---------------------===//

#include "ktune/Tune/T1.h"

#include "ktune/Support/FileUtil.h"
#include "ktune/Support/JsonReader.h"
#include "ktune/Support/Try.h"

#include <cctype>
#include <charconv>
#include <cmath>

namespace ktune {

namespace {

std::string columnError(size_t pos, const std::string &message) {
  return "col " + std::to_string(pos + 1) + ": " + message;
}

} // namespace

Expected<std::vector<int64_t>> parsePythonIntList(std::string_view text) {
  size_t pos = 0;
  auto skipSpace = [&] {
    while (pos < text.size() &&
           std::isspace(static_cast<unsigned char>(text[pos])))
      ++pos;
  };
  skipSpace();
  if (pos >= text.size() || (text[pos] != '[' && text[pos] != '('))
    return makeError(columnError(pos, "expected a list such as [1, 2, 4]"));
  char close = text[pos] == '[' ? ']' : ')';
  ++pos;
  std::vector<int64_t> values;
  skipSpace();
  if (pos < text.size() && text[pos] == close) {
    ++pos;
  } else {
    while (true) {
      skipSpace();
      size_t start = pos;
      while (pos < text.size() &&
             (std::isalnum(static_cast<unsigned char>(text[pos])) ||
              text[pos] == '-' || text[pos] == '+' || text[pos] == '.' ||
              text[pos] == '_'))
        ++pos;
      std::string token(text.substr(start, pos - start));
      if (token == "True" || token == "False") {
        values.push_back(token == "True" ? 1 : 0);
      } else {
        std::string digits;
        for (char c : token)
          if (c != '_')
            digits += c;
        int64_t value = 0;
        auto [end, ec] = std::from_chars(digits.data(),
                                         digits.data() + digits.size(), value);
        if (digits.empty() || ec != std::errc() ||
            end != digits.data() + digits.size()) {
          // An integral float such as 2.0 is still an integer value.
          double d = 0;
          auto [fend, fec] =
              std::from_chars(digits.data(), digits.data() + digits.size(), d);
          if (digits.empty() || fec != std::errc() ||
              fend != digits.data() + digits.size() || d != std::trunc(d) ||
              std::fabs(d) >= 9.2e18)
            return makeError(columnError(
                start, "'" +
                           (token.empty() ? std::string(text.substr(start, 1))
                                          : token) +
                           "' is not an integer (only integer and boolean "
                           "parameters are supported)"));
          value = static_cast<int64_t>(d);
        }
        values.push_back(value);
      }
      skipSpace();
      if (pos < text.size() && text[pos] == ',') {
        ++pos;
        skipSpace();
        if (pos < text.size() && text[pos] == close) {
          ++pos;
          break;
        }
        continue;
      }
      if (pos < text.size() && text[pos] == close) {
        ++pos;
        break;
      }
      return makeError(columnError(pos, pos < text.size()
                                            ? "expected ',' or '" +
                                                  std::string(1, close) + "'"
                                            : "unterminated list"));
    }
  }
  skipSpace();
  if (pos != text.size())
    return makeError(columnError(pos, "unexpected text after the list"));
  return values;
}

namespace {

/// One of a T1 file's "TuningParameters".
Expected<SpaceParam> readT1Param(const JsonReader &p) {
  if (!p.isObject())
    return p.fail("expected an object");
  JsonReader name = p["Name"];
  if (!name.isString() || name.string()->empty())
    return name.fail("missing string");
  SpaceParam param;
  param.name = *name.string();
  if (!expr::isValidIdentifier(param.name))
    return name.fail("'" + param.name + "' is not a valid parameter name");
  if (p.has("Type")) {
    JsonReader type = p["Type"];
    std::string t = type.isString() ? *type.string() : "";
    if (t != "int" && t != "bool")
      return type.fail("parameter '" + param.name + "' has type '" +
                       (type.isString() ? t : type.brief()) +
                       "'; only int and bool parameters are supported");
  }
  KTUNE_TRY_ASSIGN(JsonReader values, p.required("Values"));
  std::vector<int64_t> list;
  if (values.isString()) {
    auto parsed = parsePythonIntList(*values.string());
    if (!parsed)
      return values.fail(parsed.error().message);
    list = std::move(*parsed);
  } else if (values.isArray()) {
    for (const JsonReader &v : values.elements()) {
      auto i = v.integralOrBoolean();
      if (!i)
        return v.fail("not an integer (only integer and boolean "
                      "parameters are supported)");
      list.push_back(*i);
    }
  } else {
    return values.fail("expected a list (a string such as \"[1, 2]\" or "
                       "an array)");
  }
  if (list.empty())
    return values.fail("parameter '" + param.name + "' has no values");
  for (size_t a = 0; a < list.size(); ++a)
    for (size_t b = 0; b < a; ++b)
      if (list[a] == list[b])
        return values.fail("value " + std::to_string(list[a]) +
                           " appears twice");
  param.domain = Domain::ofValues(std::move(list));
  if (p.hasValue("Default")) {
    auto i = p["Default"].integralOrBoolean();
    if (!i)
      return p.failAt("Default", "not an integer");
    param.defaultValue = *i;
  }
  return param;
}

/// One of a T1 file's "Conditions": a string, or {"Expression": string}.
Expected<std::string> readT1Condition(const JsonReader &cond) {
  JsonReader text = cond;
  if (cond.isObject()) {
    KTUNE_TRY_ASSIGN(text, cond.required("Expression"));
  }
  KTUNE_TRY_ASSIGN(std::string condition, text.string());
  auto parsed = expr::Expr::parse(condition, expr::Dialect::Python);
  if (!parsed)
    return text.fail("'" + condition + "': " + parsed.error().message);
  return condition;
}

} // namespace

Expected<T1Space> t1FromJson(const nlohmann::json &json) {
  JsonReader j(json);
  if (!j.isObject())
    return makeError("a T1 file is a JSON object", "");
  T1Space t1;
  if (JsonReader n = j["General"]["BenchmarkName"]; n.isString())
    t1.benchmarkName = *n.string();
  if (JsonReader n = j["KernelSpecification"]["KernelName"]; n.isString())
    t1.kernelName = *n.string();
  JsonReader space = j["ConfigurationSpace"];
  if (!space.isObject())
    return space.fail("missing object");
  KTUNE_TRY_ASSIGN(t1.params, space["TuningParameters"].readArray(
                                  readT1Param, "missing array"));
  KTUNE_TRY_ASSIGN(t1.conditions,
                   space.optionalArray("Conditions", readT1Condition));
  return t1;
}

Expected<T1Space> readT1File(const std::string &path) {
  KTUNE_TRY_ASSIGN(std::string text, readMaybeGzipFile(path));
  KTUNE_TRY_ASSIGN(nlohmann::json json, parseJson(text, path));
  auto t1 = t1FromJson(json);
  if (!t1)
    return std::unexpected(withContext(t1.error(), path));
  return t1;
}

Expected<SearchSpace> T1Space::searchSpace() const {
  auto space = SearchSpace::create(params, conditions, expr::Dialect::Python);
  if (!space) {
    // Name the T1 location rather than the space's own indexing.
    Error e = space.error();
    for (auto [from, to] :
         {std::pair{"constraints[", "ConfigurationSpace.Conditions["},
          std::pair{"params[", "ConfigurationSpace.TuningParameters["}})
      if (e.where.starts_with(from))
        e.where = to + e.where.substr(std::string_view(from).size());
    return std::unexpected(e);
  }
  return space;
}

} // namespace ktune
