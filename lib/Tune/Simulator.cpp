//===- Simulator.cpp - Replaying recorded tuning runs ---------------------===//

#include "ktune/Tune/Simulator.h"

#include "Strategies/StrategySupport.h"
#include "ktune/Support/FileUtil.h"
#include "JsonInteger.h"

#include <algorithm>
#include <cmath>
#include <set>
#include <sstream>

namespace ktune {

namespace {

Expected<Configuration> configurationFrom(const nlohmann::json &object,
                                          const std::string &where) {
  if (!object.is_object())
    return makeError("expected an object of parameter values", where);
  Configuration config;
  for (const auto &[name, value] : object.items()) {
    auto i = jsonInteger(value);
    if (!i)
      return makeError("value " + value.dump() +
                           " is not an integer (only integer parameters are "
                           "supported)",
                       where + "." + name);
    config[name] = *i;
  }
  return config;
}

/// Microseconds per unit of a T4 file's metadata.timeunit.
Expected<double> microsecondsPer(const nlohmann::json &t4) {
  std::string unit = "milliseconds";
  if (auto m = t4.find("metadata"); m != t4.end() && m->is_object())
    if (auto u = m->find("timeunit"); u != m->end() && u->is_string())
      unit = u->get<std::string>();
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

EvalStatus statusOfInvalidity(const std::string &invalidity) {
  if (invalidity == "compile")
    return EvalStatus::CompileError;
  if (invalidity == "correctness")
    return EvalStatus::WrongResult;
  if (invalidity == "constraints")
    return EvalStatus::Pruned;
  if (invalidity == "timeout")
    return EvalStatus::Timeout;
  return EvalStatus::RuntimeError; // "runtime" and anything unknown
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
};

} // namespace

Expected<ReplayEvaluator> ReplayEvaluator::fromT4(const nlohmann::json &t4,
                                                  std::string device) {
  if (!t4.is_object())
    return makeError("a T4 file is a JSON object");
  auto unit = microsecondsPer(t4);
  if (!unit)
    return std::unexpected(unit.error());
  auto results = t4.find("results");
  if (results == t4.end() || !results->is_array())
    return makeError("missing array", "results");
  ReplayEvaluator replay;
  replay.Device = device.empty() ? "simulated" : "simulated " + device;
  replay.Arch = "recorded";
  auto &table = replay.Tables[Shape{}];
  for (size_t k = 0; k < results->size(); ++k) {
    const auto &r = (*results)[k];
    std::string where = "results[" + std::to_string(k) + "]";
    if (!r.is_object())
      return makeError("expected an object", where);
    auto cfg = r.find("configuration");
    if (cfg == r.end())
      return makeError("missing", where + ".configuration");
    auto config = configurationFrom(*cfg, where + ".configuration");
    if (!config)
      return std::unexpected(config.error());
    std::string invalidity = "correct";
    if (auto inv = r.find("invalidity"); inv != r.end() && inv->is_string())
      invalidity = inv->get<std::string>();
    EvalResult result;
    if (invalidity != "correct") {
      result.status = statusOfInvalidity(invalidity);
      result.reason = "recorded as '" + invalidity + "'";
      table[*config] = result;
      continue;
    }
    std::optional<double> time;
    if (auto ms = r.find("measurements"); ms != r.end() && ms->is_array())
      for (const auto &m : *ms)
        if (m.is_object() && m.value("name", "") == "time" &&
            m.contains("value") && m["value"].is_number())
          time = m["value"].get<double>();
    if (!time || !std::isfinite(*time) || *time < 0)
      return makeError("a correct configuration without a numeric time",
                       where + ".measurements");
    Timing timing;
    timing.medianUs = *time * *unit;
    if (auto times = r.find("times"); times != r.end() && times->is_object())
      if (auto runs = times->find("runtimes");
          runs != times->end() && runs->is_array() && !runs->empty()) {
        std::vector<double> v;
        for (const auto &x : *runs)
          if (x.is_number())
            v.push_back(x.get<double>() * *unit);
        if (!v.empty()) {
          timing.iqrUs = medianAndIqr(v).second;
          timing.reps = static_cast<int>(v.size());
        }
      }
    result.time = timing;
    table[*config] = result;
  }
  return replay;
}

Expected<ReplayEvaluator> ReplayEvaluator::readT4File(const std::string &path,
                                                      std::string device) {
  auto text = readMaybeGzipFile(path);
  if (!text)
    return std::unexpected(text.error());
  auto json = parseJson(*text, path);
  if (!json)
    return std::unexpected(json.error());
  auto replay = fromT4(*json, device.empty() ? stemBeforeT4(path) : device);
  if (!replay)
    return std::unexpected(withContext(replay.error(), path));
  return replay;
}

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
    nlohmann::json j = nlohmann::json::parse(line, nullptr, false);
    if (j.is_discarded() || !j.is_object())
      return makeError("not a JSON object", where);
    auto key = j.find("key");
    if (key == j.end() || !key->is_object())
      return makeError("missing object 'key'", where);
    std::string k = key->value("kernel", "");
    if (!kernel.empty() && k != kernel)
      continue;
    kernels.insert(k);
    if (device.empty()) {
      device = key->value("device", "");
      arch = key->value("arch", "");
    }
    auto cfg = key->find("config");
    if (cfg == key->end())
      return makeError("missing 'key.config'", where);
    auto config = configurationFrom(*cfg, "key.config");
    if (!config)
      return makeError(config.error().str(), where);
    Shape shape;
    if (auto s = key->find("shape"); s != key->end() && !s->is_null()) {
      auto parsed = configurationFrom(*s, "key.shape");
      if (!parsed)
        return makeError(parsed.error().str(), where);
      shape = std::move(*parsed);
    }
    auto statusText = j.find("status");
    if (statusText == j.end() || !statusText->is_string())
      return makeError("missing string 'status'", where);
    auto status = parseStatus(statusText->get<std::string>());
    if (!status)
      return makeError(
          "unknown status '" + statusText->get<std::string>() + "'", where);
    EvalResult result;
    result.status = *status;
    result.reason = j.value("reason", "");
    if (*status == EvalStatus::Ok) {
      auto t = j.find("time_us");
      if (t == j.end() || !t->is_object() || !t->contains("median") ||
          !(*t)["median"].is_number())
        return makeError("status 'ok' without 'time_us.median'", where);
      Timing timing;
      timing.medianUs = (*t)["median"].get<double>();
      if (t->contains("iqr") && (*t)["iqr"].is_number())
        timing.iqrUs = (*t)["iqr"].get<double>();
      if (t->contains("reps") && (*t)["reps"].is_number_integer())
        timing.reps = (*t)["reps"].get<int>();
      result.time = timing;
    }
    replay.Tables[shape][*config] = std::move(result); // last line wins
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
  auto text = readMaybeGzipFile(path);
  if (!text)
    return std::unexpected(text.error());
  return fromJournal(*text, path, kernel);
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
