//===- TuningSummary.cpp - What a re-plan round is told ------------------===//
//
// `ktune run` writes the summary; the planner reads it in the prompt. The
// check keeps the writer honest; fields it does not know are allowed and
// passed on. Format: docs/llm-planners.md#tuning-summary.
//
//===----------------------------------------------------------------------===//
#include "ktune/Planner/PlanWithValidation.h"

namespace ktune::planner {

inline constexpr const char *TuningSummaryVersion = "tuning-summary/1";

namespace {

using nlohmann::json;

class Checker {
public:
  std::vector<Error> Errors;

  void fail(const std::string &where, const std::string &message) {
    Errors.push_back(Error{message, where});
  }

  /// Checks the field's type when present (or requires it).
  bool field(const json &holder, const char *key, const std::string &where,
             json::value_t type, bool required = false) {
    std::string path = where.empty() ? key : where + "." + key;
    if (!holder.contains(key)) {
      if (required)
        fail(path, "missing required field");
      return false;
    }
    const json &v = holder[key];
    bool ok = false;
    const char *expected = "";
    switch (type) {
    case json::value_t::string:
      ok = v.is_string();
      expected = "a string";
      break;
    case json::value_t::number_integer:
      ok = v.is_number_integer();
      expected = "an integer";
      break;
    case json::value_t::number_float:
      ok = v.is_number();
      expected = "a number";
      break;
    case json::value_t::array:
      ok = v.is_array();
      expected = "an array";
      break;
    case json::value_t::object:
      ok = v.is_object();
      expected = "an object";
      break;
    default:
      break;
    }
    if (!ok)
      fail(path, std::string("expected ") + expected);
    return ok;
  }

  void integerMap(const json &j, const std::string &where) {
    for (const auto &[name, value] : j.items())
      if (!value.is_number_integer())
        fail(where + "." + name, "expected an integer");
  }

  void kernel(const json &k, const std::string &where) {
    if (!k.is_object()) {
      fail(where, "expected an object");
      return;
    }
    field(k, "kernel", where, json::value_t::string, true);
    field(k, "evaluated", where, json::value_t::number_integer);
    if (field(k, "statuses", where, json::value_t::object))
      integerMap(k["statuses"], where + ".statuses");
    if (field(k, "shapes", where, json::value_t::array))
      for (size_t i = 0; i < k["shapes"].size(); ++i)
        shape(k["shapes"][i], where + ".shapes[" + std::to_string(i) + "]");
    if (field(k, "edges_hit", where, json::value_t::array))
      for (size_t i = 0; i < k["edges_hit"].size(); ++i) {
        const json &e = k["edges_hit"][i];
        std::string w = where + ".edges_hit[" + std::to_string(i) + "]";
        if (!e.is_object()) {
          fail(w, "expected an object");
          continue;
        }
        field(e, "param", w, json::value_t::string, true);
        if (field(e, "edge", w, json::value_t::string, true) &&
            e["edge"] != "min" && e["edge"] != "max")
          fail(w + ".edge", "expected \"min\" or \"max\"");
        field(e, "value", w, json::value_t::number_integer, true);
        field(e, "shapes", w, json::value_t::number_integer);
      }
    if (field(k, "insensitive_params", where, json::value_t::array))
      for (size_t i = 0; i < k["insensitive_params"].size(); ++i) {
        const json &e = k["insensitive_params"][i];
        std::string w =
            where + ".insensitive_params[" + std::to_string(i) + "]";
        if (!e.is_object()) {
          fail(w, "expected an object");
          continue;
        }
        field(e, "param", w, json::value_t::string, true);
        field(e, "spread_pct", w, json::value_t::number_float);
      }
  }

  void shape(const json &s, const std::string &where) {
    if (!s.is_object()) {
      fail(where, "expected an object");
      return;
    }
    if (field(s, "shape", where, json::value_t::object, true))
      integerMap(s["shape"], where + ".shape");
    field(s, "default_us", where, json::value_t::number_float);
    field(s, "speedup", where, json::value_t::number_float);
    if (field(s, "best", where, json::value_t::object)) {
      const json &b = s["best"];
      std::string w = where + ".best";
      if (field(b, "config", w, json::value_t::object, true))
        integerMap(b["config"], w + ".config");
      field(b, "time_us", w, json::value_t::number_float, true);
      field(b, "roofline_pct", w, json::value_t::number_float);
    }
  }
};

} // namespace

std::vector<Error> checkTuningSummary(const json &summary) {
  Checker c;
  if (!summary.is_object()) {
    c.fail("", "a tuning summary is a JSON object");
    return c.Errors;
  }
  if (c.field(summary, "ktune", "", json::value_t::string, true) &&
      summary["ktune"] != TuningSummaryVersion)
    c.fail("ktune", "expected \"" + std::string(TuningSummaryVersion) +
                        "\", got \"" + summary["ktune"].get<std::string>() +
                        "\"");
  if (c.field(summary, "round", "", json::value_t::number_integer) &&
      summary["round"].get<int64_t>() < 1)
    c.fail("round", "expected a round number >= 1");
  c.field(summary, "device", "", json::value_t::string);
  c.field(summary, "arch", "", json::value_t::string);
  if (c.field(summary, "kernels", "", json::value_t::array, true))
    for (size_t i = 0; i < summary["kernels"].size(); ++i)
      c.kernel(summary["kernels"][i], "kernels[" + std::to_string(i) + "]");
  if (c.field(summary, "notes", "", json::value_t::array))
    for (size_t i = 0; i < summary["notes"].size(); ++i)
      if (!summary["notes"][i].is_string())
        c.fail("notes[" + std::to_string(i) + "]", "expected a string");
  return c.Errors;
}

} // namespace ktune::planner
