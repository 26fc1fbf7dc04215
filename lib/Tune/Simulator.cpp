//===- Simulator.cpp - Replaying recorded tuning runs ---------------------===//

#include "ktune/Tune/Simulator.h"

#include "Strategies/StrategySupport.h"
#include "ktune/Support/FileUtil.h"
#include "ktune/Support/JsonReader.h"
#include "ktune/Support/Try.h"
#include "ktune/Tune/T4.h"

#include <algorithm>
#include <climits>
#include <cmath>
#include <set>
#include <sstream>

namespace ktune {

namespace {

Expected<Configuration> configurationFrom(const JsonReader &object) {
  if (!object.isObject())
    return object.fail("expected an object of parameter values");
  Configuration config;
  for (const auto &[name, value] : object.fields()) {
    auto i = value.integralOrBoolean();
    if (!i)
      return value.fail("value " + value.brief() +
                        " is not an integer (only integer parameters are "
                        "supported)");
    config[name] = *i;
  }
  return config;
}

/// Microseconds per unit of a T4 file's metadata.timeunit.
Expected<double> microsecondsPer(const JsonReader &t4) {
  std::string unit = "milliseconds";
  if (JsonReader u = t4["metadata"]["timeunit"]; u.isString())
    unit = *u.string();
  std::string lower;
  for (char c : unit)
    lower += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  // "miliseconds" is how Kernel Tuner spells it.
  if (lower == "milliseconds" || lower == "miliseconds" || lower == "ms")
    return 1e3;
  if (lower == "microseconds" || lower == "us")
    return 1.0;
  if (lower == "seconds" || lower == "s")
    return 1e6;
  if (lower == "nanoseconds" || lower == "ns")
    return 1e-3;
  return makeError("unknown time unit '" + unit + "'", "metadata.timeunit");
}

std::string stemBeforeT4(const std::string &path) {
  std::string name = path.substr(path.find_last_of('/') + 1);
  if (auto pos = name.find("_T4"); pos != std::string::npos && pos > 0)
    return name.substr(0, pos);
  return name.substr(0, name.find('.'));
}

/// Median and interquartile range of a sample.
std::pair<double, double> medianAndIqr(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  auto quantile = [&](double q) {
    double pos = q * static_cast<double>(v.size() - 1);
    size_t lo = static_cast<size_t>(std::floor(pos));
    size_t hi = std::min(lo + 1, v.size() - 1);
    return v[lo] + (pos - static_cast<double>(lo)) * (v[hi] - v[lo]);
  };
  return {quantile(0.5), quantile(0.75) - quantile(0.25)};
}

/// The Objective of a simulated run: caches outcomes, counts unique
/// evaluations against the budget and records breaches of the contract.
class SimulatedObjective : public Objective {
public:
  SimulatedObjective(const SearchSpace &space, Evaluator &evaluator,
                     const SimulationOptions &options, SimulationResult &out)
      : Space(space), Eval(evaluator), Options(options), Out(out) {}

  std::optional<double> evaluate(const Point &p) override {
    size_t before = Out.evaluations.size();
    auto t = evaluateOne(p, Rounds + 1);
    if (Out.evaluations.size() > before)
      ++Rounds;
    return t;
  }
  size_t parallelism() const override { return std::max(1u, Options.devices); }
  size_t batchSize() const override {
    uint64_t left = Options.budget -
                    std::min<uint64_t>(Options.budget, Out.evaluations.size());
    return static_cast<size_t>(std::min<uint64_t>(left, parallelism()));
  }
  std::vector<std::optional<double>>
  evaluateBatch(const std::vector<Point> &points) override {
    std::vector<std::optional<double>> out;
    size_t before = Out.evaluations.size();
    // New evaluations share rounds, parallelism() at a time.
    for (const auto &p : points)
      out.push_back(evaluateOne(
          p, Rounds + 1 + (Out.evaluations.size() - before) / parallelism()));
    if (Out.evaluations.size() > before)
      Rounds = Out.evaluations.back().round;
    return out;
  }

private:
  std::optional<double> evaluateOne(const Point &p, uint64_t round) {
    if (!Space.isValid(p)) {
      ++Out.invalidRequests;
      return std::nullopt;
    }
    if (auto it = Cache.find(p); it != Cache.end()) {
      ++Out.repeatedRequests;
      return it->second;
    }
    if (exhausted()) {
      ++Out.overBudgetRequests;
      return std::nullopt;
    }
    SimulatedEvaluation e;
    e.point = p;
    e.config = Space.toConfig(p);
    e.round = round;
    EvalResult r = Eval.evaluate(Options.shape, e.config);
    e.status = r.status;
    if (r.status == EvalStatus::Ok && r.time)
      e.timeUs = r.time->medianUs;
    else if (r.status == EvalStatus::Ok)
      e.status = EvalStatus::RuntimeError; // ok without a time is unusable
    Cache.emplace(p, e.timeUs);
    Out.evaluations.push_back(e);
    if (Options.onEvaluation)
      Options.onEvaluation(Out.evaluations.back());
    return e.timeUs;
  }

public:
  bool seen(const Point &p) const override { return Cache.count(p) != 0; }
  std::optional<double> cached(const Point &p) const override {
    auto it = Cache.find(p);
    return it == Cache.end() ? std::nullopt : it->second;
  }
  bool exhausted() const override {
    return Out.evaluations.size() >= Options.budget;
  }

private:
  const SearchSpace &Space;
  Evaluator &Eval;
  const SimulationOptions &Options;
  SimulationResult &Out;
  PointMap<std::optional<double>> Cache;
  uint64_t Rounds = 0;
};

} // namespace

Expected<ReplayEvaluator> ReplayEvaluator::fromT4(const nlohmann::json &json,
                                                  std::string device) {
  JsonReader t4(json);
  if (!t4.isObject())
    return makeError("a T4 file is a JSON object");
  KTUNE_TRY_ASSIGN(double unit, microsecondsPer(t4));
  JsonReader results = t4["results"];
  if (!results.isArray())
    return results.fail("missing array");
  ReplayEvaluator replay;
  replay.Device = device.empty() ? "simulated" : "simulated " + device;
  replay.Arch = "recorded";
  auto &table = replay.Tables[Shape{}];
  for (const JsonReader &r : results.elements()) {
    if (!r.isObject())
      return r.fail("expected an object");
    if (!r.has("configuration"))
      return r.failAt("configuration", "missing");
    KTUNE_TRY_ASSIGN(Configuration config,
                     configurationFrom(r["configuration"]));
    std::string invalidity = "correct";
    if (JsonReader inv = r["invalidity"]; inv.isString())
      invalidity = *inv.string();
    EvalResult result;
    if (invalidity != "correct") {
      result.status = statusOfInvalidity(invalidity);
      result.reason = "recorded as '" + invalidity + "'";
      table[config] = result;
      continue;
    }
    std::optional<double> time;
    for (const JsonReader &m : r["measurements"].elements())
      if (JsonReader name = m["name"];
          name.isString() && *name.string() == "time" && m["value"].isNumber())
        time = *m["value"].number();
    if (!time || !std::isfinite(*time) || *time < 0)
      return r.failAt("measurements",
                      "a correct configuration without a numeric time");
    Timing timing;
    timing.medianUs = *time * unit;
    std::vector<double> runs;
    for (const JsonReader &x : r["times"]["runtimes"].elements())
      if (x.isNumber())
        runs.push_back(*x.number() * unit);
    if (!runs.empty()) {
      timing.iqrUs = medianAndIqr(runs).second;
      timing.reps = static_cast<int>(runs.size());
    }
    result.time = timing;
    table[config] = result;
  }
  return replay;
}

Expected<ReplayEvaluator> ReplayEvaluator::readT4File(const std::string &path,
                                                      std::string device) {
  KTUNE_TRY_ASSIGN(std::string text, readMaybeGzipFile(path));
  KTUNE_TRY_ASSIGN(nlohmann::json json, parseJson(text, path));
  auto replay = fromT4(json, device.empty() ? stemBeforeT4(path) : device);
  if (!replay)
    return std::unexpected(withContext(replay.error(), path));
  return replay;
}

namespace {

/// One record of a ktune journal, as far as a replay needs it.
struct ReplayRecord {
  std::string kernel, device, arch;
  Shape shape;
  Configuration config;
  EvalResult result;
};

Expected<ReplayRecord> readReplayRecord(const JsonReader &j) {
  ReplayRecord rec;
  JsonReader key = j["key"];
  KTUNE_TRY_ASSIGN(rec.kernel, key.optionalString("kernel"));
  KTUNE_TRY_ASSIGN(rec.device, key.optionalString("device"));
  KTUNE_TRY_ASSIGN(rec.arch, key.optionalString("arch"));
  if (!key.has("config"))
    return makeError("missing 'key.config'");
  KTUNE_TRY_ASSIGN(rec.config, configurationFrom(key["config"]));
  if (key.hasValue("shape")) {
    KTUNE_TRY_ASSIGN(rec.shape, configurationFrom(key["shape"]));
  }
  if (!j["status"].isString())
    return makeError("missing string 'status'");
  std::string statusText = *j["status"].string();
  auto status = parseStatus(statusText);
  if (!status)
    return makeError("unknown status '" + statusText + "'");
  rec.result.status = *status;
  KTUNE_TRY_ASSIGN(rec.result.reason, j.optionalString("reason"));
  if (*status == EvalStatus::Ok) {
    JsonReader t = j["time_us"];
    if (!t["median"].isNumber())
      return makeError("status 'ok' without 'time_us.median'");
    Timing timing;
    timing.medianUs = *t["median"].number();
    if (t["iqr"].isNumber())
      timing.iqrUs = *t["iqr"].number();
    if (auto reps = t["reps"].integer(0, INT_MAX))
      timing.reps = static_cast<int>(*reps);
    rec.result.time = timing;
  }
  return rec;
}

} // namespace

Expected<ReplayEvaluator>
ReplayEvaluator::fromJournal(std::string_view text, const std::string &origin,
                             const std::string &kernel) {
  ReplayEvaluator replay;
  std::set<std::string> kernels;
  std::string device, arch;
  size_t lineNo = 0, start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string_view::npos)
      end = text.size();
    std::string_view line = text.substr(start, end - start);
    start = end + 1;
    ++lineNo;
    std::string where = origin + ":" + std::to_string(lineNo);
    if (line.find_first_not_of(" \t\r") == std::string_view::npos)
      continue;
    auto j = parseJsonLine(std::string(line), origin, lineNo);
    if (!j)
      return std::unexpected(j.error());
    if (!j->is_object())
      return makeError("not a JSON object", where);
    JsonReader entry(*j);
    if (!entry["key"].isObject())
      return makeError("missing object 'key'", where);
    // The line is the location; the field goes into the message.
    auto name = entry["key"].optionalString("kernel");
    if (!name)
      return makeError(name.error().str(), where);
    if (!kernel.empty() && *name != kernel)
      continue;
    auto rec = readReplayRecord(entry);
    if (!rec)
      return makeError(rec.error().str(), where);
    kernels.insert(rec->kernel);
    if (device.empty()) {
      device = rec->device;
      arch = rec->arch;
    }
    replay.Tables[rec->shape][rec->config] =
        std::move(rec->result); // last line wins
  }
  if (kernels.size() > 1) {
    std::string list;
    for (const auto &k : kernels)
      list += (list.empty() ? "" : ", ") + k;
    return makeError(
        "the journal holds several kernels (" + list + "); choose one", origin);
  }
  if (replay.Tables.empty())
    return makeError(kernel.empty() ? "the journal has no records"
                                    : "the journal has no records of kernel '" +
                                          kernel + "'",
                     origin);
  replay.Device = device.empty() ? "simulated" : "simulated " + device;
  replay.Arch = arch.empty() ? "recorded" : arch;
  return replay;
}

Expected<ReplayEvaluator>
ReplayEvaluator::readJournalFile(const std::string &path,
                                 const std::string &kernel) {
  KTUNE_TRY_ASSIGN(std::string text,
                   readMaybeGzipFile(path, limits::MaxJournalBytes));
  return fromJournal(text, path, kernel);
}

std::string ReplayEvaluator::device() const { return Device; }
std::string ReplayEvaluator::arch() const { return Arch; }

const std::map<Configuration, EvalResult> *
ReplayEvaluator::table(const Shape &shape) const {
  if (Tables.size() == 1)
    return &Tables.begin()->second;
  auto it = Tables.find(shape);
  return it == Tables.end() ? nullptr : &it->second;
}

EvalResult ReplayEvaluator::evaluate(const Shape &shape,
                                     const Configuration &config) {
  const auto *t = table(shape);
  if (t)
    if (auto it = t->find(config); it != t->end())
      return it->second;
  EvalResult missing;
  missing.status = EvalStatus::Pruned;
  missing.reason = t ? "not in the recording" : "shape not in the recording";
  return missing;
}

size_t ReplayEvaluator::size() const {
  size_t n = 0;
  for (const auto &[shape, t] : Tables)
    n += t.size();
  return n;
}

std::vector<Shape> ReplayEvaluator::shapes() const {
  std::vector<Shape> out;
  for (const auto &[shape, t] : Tables)
    out.push_back(shape);
  return out;
}

std::vector<std::pair<Configuration, EvalResult>>
ReplayEvaluator::records(const Shape &shape) const {
  std::vector<std::pair<Configuration, EvalResult>> out;
  if (const auto *t = table(shape))
    out.assign(t->begin(), t->end());
  return out;
}

std::optional<double> ReplayEvaluator::bestTimeUs(const Shape &shape) const {
  std::optional<double> best;
  if (const auto *t = table(shape))
    for (const auto &[config, r] : *t)
      if (r.status == EvalStatus::Ok && r.time &&
          (!best || r.time->medianUs < *best))
        best = r.time->medianUs;
  return best;
}

EvalResult FunctionEvaluator::evaluate(const Shape &,
                                       const Configuration &config) {
  EvalResult r;
  auto t = F(config);
  if (!t) {
    r.status = EvalStatus::RuntimeError;
    r.reason = "the synthetic function fails here";
    return r;
  }
  Timing timing;
  timing.medianUs = *t;
  r.time = timing;
  return r;
}

std::optional<double> SimulationResult::bestTimeUs() const {
  std::optional<double> best;
  for (const auto &e : evaluations)
    if (e.timeUs && (!best || *e.timeUs < *best))
      best = e.timeUs;
  return best;
}

std::optional<size_t>
SimulationResult::evaluationsToReach(double targetUs) const {
  for (size_t k = 0; k < evaluations.size(); ++k)
    if (evaluations[k].timeUs && *evaluations[k].timeUs <= targetUs)
      return k + 1;
  return std::nullopt;
}

std::optional<uint64_t> SimulationResult::roundsToReach(double targetUs) const {
  if (auto k = evaluationsToReach(targetUs))
    return evaluations[*k - 1].round;
  return std::nullopt;
}

SimulationResult simulateRun(const SearchSpace &space, Evaluator &evaluator,
                             Strategy &strategy,
                             const SimulationOptions &options) {
  SimulationResult result;
  SimulatedObjective objective(space, evaluator, options, result);
  std::mt19937_64 rng(options.seed);
  strategy.run(space, objective, rng);
  return result;
}

Expected<SearchSpace> spaceFromRecords(const ReplayEvaluator &replay,
                                       const Shape &shape) {
  std::map<std::string, std::set<int64_t>> values;
  auto records = replay.records(shape);
  if (records.empty())
    return makeError("the recording has no configurations at this shape");
  for (const auto &[config, r] : records)
    for (const auto &[name, v] : config)
      values[name].insert(v);
  std::vector<SpaceParam> params;
  for (const auto &[name, set] : values) {
    SpaceParam p;
    p.name = name;
    p.domain = Domain::ofValues({set.begin(), set.end()});
    params.push_back(std::move(p));
  }
  return SearchSpace::create(std::move(params), {});
}

} // namespace ktune
