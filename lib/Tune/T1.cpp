//===- T1.cpp - Kernel Tuner / benchmark_hub T1 input ---------------------===//

#include "ktune/Tune/T1.h"

#include "ktune/Support/FileUtil.h"
#include "JsonInteger.h"

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

Expected<T1Space> t1FromJson(const nlohmann::json &json) {
  if (!json.is_object())
    return makeError("a T1 file is a JSON object", "");
  T1Space t1;
  if (auto g = json.find("General"); g != json.end() && g->is_object()) {
    if (auto n = g->find("BenchmarkName"); n != g->end() && n->is_string())
      t1.benchmarkName = n->get<std::string>();
  }
  if (auto k = json.find("KernelSpecification");
      k != json.end() && k->is_object()) {
    if (auto n = k->find("KernelName"); n != k->end() && n->is_string())
      t1.kernelName = n->get<std::string>();
  }
  auto space = json.find("ConfigurationSpace");
  if (space == json.end() || !space->is_object())
    return makeError("missing object", "ConfigurationSpace");
  auto params = space->find("TuningParameters");
  if (params == space->end() || !params->is_array())
    return makeError("missing array", "ConfigurationSpace.TuningParameters");
  for (size_t k = 0; k < params->size(); ++k) {
    const auto &p = (*params)[k];
    std::string where =
        "ConfigurationSpace.TuningParameters[" + std::to_string(k) + "]";
    if (!p.is_object())
      return makeError("expected an object", where);
    auto name = p.find("Name");
    if (name == p.end() || !name->is_string() ||
        name->get<std::string>().empty())
      return makeError("missing string", where + ".Name");
    SpaceParam param;
    param.name = name->get<std::string>();
    if (!expr::isValidIdentifier(param.name))
      return makeError("'" + param.name + "' is not a valid parameter name",
                       where + ".Name");
    if (auto type = p.find("Type"); type != p.end()) {
      std::string t = type->is_string() ? type->get<std::string>() : "";
      if (t != "int" && t != "bool")
        return makeError("parameter '" + param.name + "' has type '" +
                             (type->is_string() ? t : type->dump()) +
                             "'; only int and bool parameters are supported",
                         where + ".Type");
    }
    auto values = p.find("Values");
    if (values == p.end())
      return makeError("missing", where + ".Values");
    std::vector<int64_t> list;
    if (values->is_string()) {
      auto parsed = parsePythonIntList(values->get<std::string>());
      if (!parsed)
        return makeError(parsed.error().message, where + ".Values");
      list = std::move(*parsed);
    } else if (values->is_array()) {
      for (size_t v = 0; v < values->size(); ++v) {
        auto i = jsonInteger((*values)[v]);
        if (!i)
          return makeError("not an integer (only integer and boolean "
                           "parameters are supported)",
                           where + ".Values[" + std::to_string(v) + "]");
        list.push_back(*i);
      }
    } else {
      return makeError("expected a list (a string such as \"[1, 2]\" or an "
                       "array)",
                       where + ".Values");
    }
    if (list.empty())
      return makeError("parameter '" + param.name + "' has no values",
                       where + ".Values");
    for (size_t a = 0; a < list.size(); ++a)
      for (size_t b = 0; b < a; ++b)
        if (list[a] == list[b])
          return makeError("value " + std::to_string(list[a]) +
                               " appears twice",
                           where + ".Values");
    param.domain = Domain::ofValues(std::move(list));
    if (auto d = p.find("Default"); d != p.end() && !d->is_null()) {
      auto i = jsonInteger(*d);
      if (!i)
        return makeError("not an integer", where + ".Default");
      param.defaultValue = *i;
    }
    t1.params.push_back(std::move(param));
  }
  if (auto conditions = space->find("Conditions"); conditions != space->end()) {
    if (!conditions->is_array())
      return makeError("expected an array", "ConfigurationSpace.Conditions");
    for (size_t c = 0; c < conditions->size(); ++c) {
      const auto &cond = (*conditions)[c];
      std::string where =
          "ConfigurationSpace.Conditions[" + std::to_string(c) + "]";
      const nlohmann::json *text = &cond;
      if (cond.is_object()) {
        auto e = cond.find("Expression");
        if (e == cond.end())
          return makeError("missing", where + ".Expression");
        text = &*e;
        where += ".Expression";
      }
      if (!text->is_string())
        return makeError("expected a string", where);
      auto parsed =
          expr::Expr::parse(text->get<std::string>(), expr::Dialect::Python);
      if (!parsed)
        return makeError("'" + text->get<std::string>() +
                             "': " + parsed.error().message,
                         where);
      t1.conditions.push_back(text->get<std::string>());
    }
  }
  return t1;
}

Expected<T1Space> readT1File(const std::string &path) {
  auto text = readMaybeGzipFile(path);
  if (!text)
    return std::unexpected(text.error());
  auto json = parseJson(*text, path);
  if (!json)
    return std::unexpected(json.error());
  auto t1 = t1FromJson(*json);
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
