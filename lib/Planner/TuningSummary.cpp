//===- TuningSummary.cpp - What a re-plan round is told ------------------===//
//
// `ktune run` writes the summary; the planner reads it in the prompt. The
// check keeps the writer honest; fields it does not know are allowed and
// passed on. Format: docs/llm-planners.md#tuning-summary.
//
//===----------------------------------------------------------------------===//
#include "ktune/Planner/PlanWithValidation.h"

#include "ktune/Support/JsonReader.h"

namespace ktune::planner {

inline constexpr const char *TuningSummaryVersion = "tuning-summary/1";

namespace {

/// Collects every error rather than stopping at the first: the writer is
/// checked, and its report should show all it got wrong at once.
class Checker {
public:
  std::vector<Error> Errors;

  void fail(const std::string &where, const std::string &message) {
    Errors.push_back(Error{message, where});
  }

  /// Checks the field's type when present (or requires it).
  bool field(const JsonReader &holder, const char *key, JsonKind kind,
             bool required = false) {
    if (!holder.has(key)) {
      if (required)
        fail(holder.pathOf(key), "missing required field");
      return false;
    }
    if (auto ok = holder[key].expect(kind); !ok) {
      Errors.push_back(ok.error());
      return false;
    }
    return true;
  }

  /// An object, else an error (and false).
  bool object(const JsonReader &j) {
    if (j.isObject())
      return true;
    fail(j.path(), "expected an object");
    return false;
  }

  /// Checks each element of the array field `key` (when present) with
  /// `check`; an element that is not an object is an error.
  template <class F>
  void eachObject(const JsonReader &holder, const char *key, F check) {
    if (field(holder, key, JsonKind::Array))
      for (const JsonReader &e : holder[key].elements())
        if (object(e))
          check(e);
  }

  void integerMap(const JsonReader &j) {
    for (const auto &[name, value] : j.fields())
      if (!value.isInteger())
        fail(value.path(), "expected an integer");
  }

  void kernel(const JsonReader &k) {
    field(k, "kernel", JsonKind::String, true);
    field(k, "evaluated", JsonKind::Integer);
    if (field(k, "statuses", JsonKind::Object))
      integerMap(k["statuses"]);
    eachObject(k, "shapes", [&](const JsonReader &s) { shape(s); });
    eachObject(k, "edges_hit", [&](const JsonReader &e) {
      field(e, "param", JsonKind::String, true);
      if (field(e, "edge", JsonKind::String, true) &&
          *e["edge"].string() != "min" && *e["edge"].string() != "max")
        fail(e.pathOf("edge"), "expected \"min\" or \"max\"");
      field(e, "value", JsonKind::Integer, true);
      field(e, "shapes", JsonKind::Integer);
    });
    eachObject(k, "insensitive_params", [&](const JsonReader &e) {
      field(e, "param", JsonKind::String, true);
      field(e, "spread_pct", JsonKind::Number);
    });
    eachObject(k, "diagnoses", [&](const JsonReader &d) {
      if (field(d, "kind", JsonKind::String, true) &&
          *d["kind"].string() != "small_grid" &&
          *d["kind"].string() != "register_limited")
        fail(d.pathOf("kind"),
             "expected \"small_grid\" or \"register_limited\"");
      field(d, "message", JsonKind::String, true);
      if (field(d, "shapes", JsonKind::Array))
        for (const JsonReader &s : d["shapes"].elements())
          if (object(s))
            integerMap(s);
      for (const char *key : {"sms_busy", "sm_count", "threads_per_block",
                              "registers", "blocks_per_sm", "min_blocks",
                              "cap_registers"})
        field(d, key, JsonKind::Integer);
    });
  }

  /// One configuration's occupancy and grid fill.
  void launchFacts(const JsonReader &f) {
    for (const char *key : {"threads_per_block", "registers", "smem_bytes",
                            "blocks_per_sm", "grid_blocks", "sm_count",
                            "sms_busy"})
      field(f, key, JsonKind::Integer);
    field(f, "limiter", JsonKind::String);
    for (const char *key : {"warp_occupancy", "waves", "tail_fill"})
      field(f, key, JsonKind::Number);
  }

  void shape(const JsonReader &s) {
    if (field(s, "shape", JsonKind::Object, true))
      integerMap(s["shape"]);
    field(s, "default_us", JsonKind::Number);
    field(s, "speedup", JsonKind::Number);
    if (field(s, "best", JsonKind::Object)) {
      JsonReader b = s["best"];
      if (field(b, "config", JsonKind::Object, true))
        integerMap(b["config"]);
      field(b, "time_us", JsonKind::Number, true);
      field(b, "roofline_pct", JsonKind::Number);
    }
    if (field(s, "launch", JsonKind::Object)) {
      JsonReader l = s["launch"];
      for (const char *key : {"default", "best"})
        if (field(l, key, JsonKind::Object))
          launchFacts(l[key]);
      field(l, "latency_trivial", JsonKind::Bool);
    }
  }
};

} // namespace

std::vector<Error> checkTuningSummary(const nlohmann::json &json) {
  Checker c;
  JsonReader summary(json);
  if (!summary.isObject()) {
    c.fail("", "a tuning summary is a JSON object");
    return c.Errors;
  }
  if (c.field(summary, "ktune", JsonKind::String, true) &&
      *summary["ktune"].string() != TuningSummaryVersion)
    c.fail("ktune", "expected \"" + std::string(TuningSummaryVersion) +
                        "\", got \"" + *summary["ktune"].string() + "\"");
  if (c.field(summary, "round", JsonKind::Integer)) {
    auto round = summary["round"].integer();
    if (!round || *round < 1)
      c.fail("round", "expected a round number >= 1");
  }
  c.field(summary, "device", JsonKind::String);
  c.field(summary, "arch", JsonKind::String);
  if (c.field(summary, "kernels", JsonKind::Array, true))
    for (const JsonReader &k : summary["kernels"].elements())
      if (c.object(k))
        c.kernel(k);
  if (c.field(summary, "notes", JsonKind::Array))
    for (const JsonReader &note : summary["notes"].elements())
      if (!note.isString())
        c.fail(note.path(), "expected a string");
  return c.Errors;
}

} // namespace ktune::planner
