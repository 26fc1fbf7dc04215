//===- StrategySupport.cpp - Pieces shared by the strategies -------------===//

#include "StrategySupport.h"

#include "ktune/Support/JsonReader.h"
#include "ktune/Support/Try.h"

#include <algorithm>
#include <cmath>

namespace ktune {

std::optional<std::vector<Point>> listValidPoints(const SearchSpace &space) {
  if (space.cartesianSize() > MaxListedCartesian)
    return std::nullopt;
  std::vector<Point> points;
  bool complete = true;
  space.forEachValid([&](const Point &p) {
    if (points.size() >= MaxListedValid) {
      complete = false;
      return false;
    }
    points.push_back(p);
    return true;
  });
  if (!complete)
    return std::nullopt;
  return points;
}

UnseenSampler::UnseenSampler(const SearchSpace &space)
    : Space(space), Pool(listValidPoints(space)) {}

std::optional<Point> UnseenSampler::next(const Objective &objective,
                                         std::mt19937_64 &rng,
                                         const PointSet *exclude) {
  auto excluded = [&](const Point &p) {
    return objective.seen(p) || (exclude && exclude->count(p));
  };
  if (Pool) {
    // Seen points are dropped lazily (swap with the last, pop); points
    // excluded only for this call stay.
    for (int attempt = 0; attempt < 64 && !Pool->empty();) {
      size_t k =
          std::uniform_int_distribution<size_t>(0, Pool->size() - 1)(rng);
      if (objective.seen((*Pool)[k])) {
        std::swap((*Pool)[k], Pool->back());
        Pool->pop_back();
        continue;
      }
      if (!excluded((*Pool)[k]))
        return (*Pool)[k];
      ++attempt;
    }
    std::erase_if(*Pool, [&](const Point &p) { return objective.seen(p); });
    if (Pool->empty()) {
      Exhausted = true;
      return std::nullopt;
    }
    std::vector<size_t> candidates;
    for (size_t i = 0; i < Pool->size(); ++i)
      if (!excluded((*Pool)[i]))
        candidates.push_back(i);
    if (candidates.empty())
      return std::nullopt;
    return (*Pool)[candidates[std::uniform_int_distribution<size_t>(
        0, candidates.size() - 1)(rng)]];
  }
  for (int tries = 0; tries < 100000; ++tries) {
    auto p = Space.randomValid(rng);
    if (!p)
      break;
    if (!excluded(*p))
      return p;
  }
  Exhausted = true;
  return std::nullopt;
}

std::optional<double> evaluateOnce(Objective &objective, const Point &p) {
  if (objective.seen(p))
    return objective.cached(p);
  return objective.evaluate(p);
}

/// Field `key` of `options`, read by `read`, into `value` when it is given
/// and within [min, max].
template <class T, class Read>
static Status readInRange(const JsonReader &options, const std::string &key,
                          T &value, T min, T max, Read read) {
  if (!options.has(key))
    return {};
  KTUNE_TRY_ASSIGN(T v, read(options[key]));
  if (!(v >= min && v <= max))
    return options.failAt(key, "must be between " + std::to_string(min) +
                                   " and " + std::to_string(max));
  value = v;
  return {};
}

Status OptionReader::number(const std::string &key, double &value, double min,
                            double max) {
  Known.push_back(key);
  return readInRange(JsonReader(Options, Strategy), key, value, min, max,
                     [](const JsonReader &field) { return field.number(); });
}

Status OptionReader::integer(const std::string &key, int64_t &value,
                             int64_t min, int64_t max) {
  Known.push_back(key);
  return readInRange(JsonReader(Options, Strategy), key, value, min, max,
                     [](const JsonReader &field) { return field.integer(); });
}

Status OptionReader::boolean(const std::string &key, bool &value) {
  Known.push_back(key);
  KTUNE_TRY_ASSIGN(value,
                   JsonReader(Options, Strategy).optionalBool(key, value));
  return {};
}

Status OptionReader::choice(const std::string &key, std::string &value,
                            const std::vector<std::string> &allowed) {
  Known.push_back(key);
  JsonReader options(Options, Strategy);
  if (!options.has(key))
    return {};
  JsonReader v = options[key];
  if (v.isString() &&
      std::find(allowed.begin(), allowed.end(), *v.string()) != allowed.end()) {
    value = *v.string();
    return {};
  }
  std::string list;
  for (const auto &a : allowed)
    list += (list.empty() ? "" : ", ") + a;
  return v.fail("expected one of: " + list);
}

Status OptionReader::finish() const {
  if (Options.is_null())
    return {};
  if (!Options.is_object())
    return makeError("strategy options must be a JSON object", Strategy);
  for (const auto &[key, value] : Options.items())
    if (std::find(Known.begin(), Known.end(), key) == Known.end()) {
      std::string list;
      for (const auto &k : Known)
        list += (list.empty() ? "" : ", ") + k;
      return makeError("unknown option '" + key + "' (known: " +
                           (list.empty() ? std::string("none") : list) + ")",
                       Strategy + "." + key);
    }
  return {};
}

std::vector<Point> hammingNeighbours(const SearchSpace &space, const Point &p) {
  std::vector<Point> out = space.neighbours(p, /*anyValue=*/true);
  if (!out.empty())
    return out;
  const auto &params = space.params();
  Point q = p;
  for (size_t a = 0; a < params.size(); ++a)
    for (size_t b = a + 1; b < params.size(); ++b)
      for (uint32_t va = 0; va < params[a].domain.size(); ++va)
        for (uint32_t vb = 0; vb < params[b].domain.size(); ++vb) {
          if (va == p[a] || vb == p[b])
            continue;
          q[a] = va;
          q[b] = vb;
          if (space.isValid(q))
            out.push_back(q);
          q[a] = p[a];
          q[b] = p[b];
        }
  return out;
}

namespace {

/// One row of Strategies.def: its name, factory, summary and options.
struct StrategyRow {
  StrategyInfo info;
  StrategyMaker make;
};

const std::vector<StrategyRow> &strategyRows() {
  static const std::vector<StrategyRow> rows = {
#define KTUNE_STRATEGY(NAME, FACTORY, SUMMARY, ...)                            \
  {{NAME, SUMMARY, {__VA_ARGS__}}, FACTORY},
#include "Strategies.def"
  };
  return rows;
}

} // namespace

std::vector<StrategyInfo> strategyTable() {
  std::vector<StrategyInfo> table;
  for (const auto &row : strategyRows())
    table.push_back(row.info);
  return table;
}

std::vector<std::string> strategyNames() {
  std::vector<std::string> names;
  for (const auto &row : strategyRows())
    names.push_back(row.info.name);
  return names;
}

Expected<std::unique_ptr<Strategy>>
makeStrategy(const std::string &name, const nlohmann::json &options) {
  for (const auto &row : strategyRows())
    if (row.info.name == name)
      return row.make(options);
  std::string list;
  for (const auto &n : strategyNames())
    list += (list.empty() ? "" : ", ") + n;
  return makeError("unknown strategy '" + name + "' (known: " + list + ")");
}

} // namespace ktune
