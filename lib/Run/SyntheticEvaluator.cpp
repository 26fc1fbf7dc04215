//===- SyntheticEvaluator.cpp - Times from a formula (testing aid) --------===//
#include "ktune/Run/SyntheticEvaluator.h"

#include <cmath>

namespace ktune::run {

using nlohmann::json;

namespace {

Expected<expr::Expr> expressionField(const json &j, const char *key) {
  const json &v = j[key];
  if (v.is_number())
    return expr::Expr::parse(v.dump());
  if (!v.is_string())
    return makeError("expected an expression (a string or a number)", key);
  auto e = expr::Expr::parse(v.get<std::string>());
  if (!e)
    return makeError(e.error().message, key);
  return e;
}

} // namespace

Expected<SyntheticModel> syntheticModelFromJson(const json &j) {
  if (!j.is_object())
    return makeError("expected an object");
  if (!j.contains("ktune") || j["ktune"] != "synthetic/1")
    return makeError("expected \"synthetic/1\"", "ktune");
  static const char *known[] = {"ktune",         "device",
                                "arch",          "roofline_tbps",
                                "time_us",       "iqr_pct",
                                "fail",          "registers",
                                "smem",          "threads_per_block",
                                "blocks_per_sm", "defaults",
                                "comment"};
  for (const auto &[key, value] : j.items())
    if (std::find(std::begin(known), std::end(known), key) == std::end(known))
      return makeError("unknown field", key);
  SyntheticModel m;
  if (j.contains("device")) {
    if (!j["device"].is_string())
      return makeError("expected a string", "device");
    m.device = j["device"];
  }
  if (j.contains("arch")) {
    if (!j["arch"].is_string())
      return makeError("expected a string", "arch");
    m.arch = j["arch"];
  }
  if (j.contains("roofline_tbps")) {
    if (!j["roofline_tbps"].is_number() || j["roofline_tbps"] <= 0)
      return makeError("expected a positive number", "roofline_tbps");
    m.rooflineTBps = j["roofline_tbps"].get<double>();
  }
  if (!j.contains("time_us"))
    return makeError("missing required field", "time_us");
  auto time = expressionField(j, "time_us");
  if (!time)
    return std::unexpected(time.error());
  m.timeUs = *time;
  if (j.contains("iqr_pct")) {
    if (!j["iqr_pct"].is_number() || j["iqr_pct"] < 0)
      return makeError("expected a number >= 0", "iqr_pct");
    m.iqrPct = j["iqr_pct"];
  }
  for (auto [key, slot] :
       {std::pair<const char *, std::optional<expr::Expr> *>{"fail", &m.fail},
        {"registers", &m.registers},
        {"smem", &m.smem},
        {"threads_per_block", &m.threadsPerBlock},
        {"blocks_per_sm", &m.blocksPerSM}})
    if (j.contains(key)) {
      auto e = expressionField(j, key);
      if (!e)
        return std::unexpected(e.error());
      *slot = *e;
    }
  if (j.contains("defaults")) {
    if (!j["defaults"].is_object())
      return makeError("expected an object", "defaults");
    for (const auto &[name, value] : j["defaults"].items()) {
      if (!value.is_number_integer())
        return makeError("expected an integer", "defaults." + name);
      m.defaults[name] = value;
    }
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
    auto v = e->evaluate(env);
    return v ? static_cast<int>(v->asDouble()) : fallback;
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
