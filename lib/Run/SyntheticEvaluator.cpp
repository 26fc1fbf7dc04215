//===- SyntheticEvaluator.cpp - Times from a formula (testing aid) --------===//
#include "ktune/Run/SyntheticEvaluator.h"

#include "ktune/Support/JsonReader.h"
#include "ktune/Support/Try.h"

#include <cmath>

namespace ktune::run {

using nlohmann::json;

namespace {

Expected<expr::Expr> expressionField(const JsonReader &v) {
  if (v.isNumber())
    return expr::Expr::parse(v.json().dump());
  if (!v.isString())
    return v.fail("expected an expression (a string or a number)");
  auto e = expr::Expr::parse(*v.string());
  if (!e)
    return v.fail(e.error().message);
  return e;
}

} // namespace

Expected<SyntheticModel> syntheticModelFromJson(const json &json) {
  JsonReader j(json);
  if (!j.isObject())
    return makeError("expected an object");
  if (!j["ktune"].isString() || *j["ktune"].string() != "synthetic/1")
    return j.failAt("ktune", "expected \"synthetic/1\"");
  KTUNE_TRY(
      j.onlyFields({"ktune", "device", "arch", "roofline_tbps", "time_us",
                    "iqr_pct", "fail", "registers", "smem", "threads_per_block",
                    "blocks_per_sm", "defaults", "comment"}));
  SyntheticModel m;
  KTUNE_TRY_ASSIGN(m.device, j.optionalString("device", m.device));
  KTUNE_TRY_ASSIGN(m.arch, j.optionalString("arch", m.arch));
  if (j.has("roofline_tbps")) {
    JsonReader roofline = j["roofline_tbps"];
    if (!roofline.isNumber() || *roofline.number() <= 0)
      return roofline.fail("expected a positive number");
    m.rooflineTBps = *roofline.number();
  }
  KTUNE_TRY_ASSIGN(JsonReader time, j.required("time_us"));
  KTUNE_TRY_ASSIGN(m.timeUs, expressionField(time));
  if (j.has("iqr_pct")) {
    JsonReader iqr = j["iqr_pct"];
    if (!iqr.isNumber() || *iqr.number() < 0)
      return iqr.fail("expected a number >= 0");
    m.iqrPct = *iqr.number();
  }
  for (auto [key, slot] :
       {std::pair<const char *, std::optional<expr::Expr> *>{"fail", &m.fail},
        {"registers", &m.registers},
        {"smem", &m.smem},
        {"threads_per_block", &m.threadsPerBlock},
        {"blocks_per_sm", &m.blocksPerSM}})
    if (j.has(key)) {
      KTUNE_TRY_ASSIGN(*slot, expressionField(j[key]));
    }
  if (j.has("defaults")) {
    JsonReader defaults = j["defaults"];
    if (!defaults.isObject())
      return defaults.fail("expected an object");
    KTUNE_TRY_ASSIGN(auto values, defaults.integerFields());
    m.defaults.insert(values.begin(), values.end());
  }
  return m;
}

EvalResult SyntheticEvaluator::evaluate(const Shape &shape,
                                        const Configuration &config) {
  std::map<std::string, expr::Value> env;
  for (const auto &[n, v] : Model.defaults)
    env[n] = expr::Value::ofInt(v);
  for (const auto &[n, v] : config)
    env[n] = expr::Value::ofInt(v);
  for (const auto &[n, v] : shape)
    env[n] = expr::Value::ofInt(v);

  EvalResult r;
  auto fail = [&](EvalStatus status, std::string reason) {
    r.status = status;
    r.reason = std::move(reason);
    return r;
  };
  if (Model.fail) {
    auto f = Model.fail->evaluate(env);
    if (!f)
      return fail(EvalStatus::CompileError,
                  "synthetic fail: " + f.error().message);
    if (f->truthy())
      return fail(EvalStatus::RuntimeError,
                  "synthetic failure: " + Model.fail->text());
  }
  auto t = Model.timeUs.evaluate(env);
  if (!t)
    return fail(EvalStatus::CompileError,
                "synthetic time_us: " + t.error().message);
  double us = t->asDouble();
  if (!std::isfinite(us) || us <= 0)
    return fail(EvalStatus::RuntimeError,
                "synthetic time_us is not a positive number");
  auto resource = [&](const std::optional<expr::Expr> &e, int fallback) {
    if (!e)
      return fallback;
    // Range-checked: a model may evaluate to anything (1e30, NaN).
    auto v = e->evaluate(env);
    double d = v ? v->asDouble() : NAN;
    if (!(d > INT32_MIN - 1.0 && d < INT32_MAX + 1.0))
      return fallback;
    return static_cast<int>(d);
  };
  r.resources.registers = resource(Model.registers, 32);
  r.resources.smemStatic = resource(Model.smem, 0);
  r.resources.threadsPerBlock = resource(Model.threadsPerBlock, 0);
  r.resources.blocksPerSM = resource(Model.blocksPerSM, -1);
  Timing timing;
  timing.medianUs = us;
  timing.iqrUs = us * Model.iqrPct / 100.0;
  timing.reps = 100;
  r.time = timing;
  return r;
}

} // namespace ktune::run
