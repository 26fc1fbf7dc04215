//===- Bayes.cpp - Bayesian optimisation with a Gaussian process ----------===//
//
// The surrogate is a Gaussian process over index coordinates of the
// parameters (plus, for positive values, the log of the value's odd part:
// 0 for powers of two), fit to the Gaussian ranks of the log times (only
// the order of times matters, so a few very slow points cannot flatten the
// differences among the fast ones). Failed points rank with the slowest.
// The next point minimises the lower confidence bound mean - kappa * sd of
// a new observation (or maximises expected improvement), over all unseen
// valid points when the space is small enough to score them all, else over
// a random sample plus the neighbourhoods of the best points. Every
// local_every-th step only looks at the unseen neighbours of the best point,
// so the search also refines locally where the model is least precise.
// Choices and measurements: docs/strategies.md.
//
//===----------------------------------------------------------------------===//

#include "GaussianProcess.h"
#include "NormalStats.h"

#include "StrategySupport.h"
#include "ktune/Support/Try.h"

#include <algorithm>
#include <cmath>

namespace ktune {

namespace {

struct BayesOptions {
  int64_t initialSamples = 10;
  double xi = 0.01;
  int64_t candidates = 1024;
  int64_t exhaustiveLimit = 8192;
  int64_t fitSteps = 30;
  int64_t restartEvery = 3; // every third fit also starts from the defaults
  bool startFromDefault = true;
  std::string encoding = "index+odd";
  bool observationNoise = true;
  std::string output = "rank";
  std::string acquisition = "lcb";
  double kappa = 2.0;
  std::string kernel = "matern";
  int64_t localEvery = 3;
  int64_t localRadius = 1;
  /// The value assumed for a batch's picks until they are measured:
  /// "believer" (the model's mean: kriging believer), "max" of the data (a
  /// pessimistic constant liar: the picks spread out) or "min". On the
  /// convolution spaces with 4 devices the believer needed the fewest
  /// evaluations (seeds 1-10: 491 against 582.5 for "max"; seeds 11-20:
  /// 520.5 against 548).
  std::string batchLie = "believer";
};

class Bayes : public SamplingStrategy<BayesOptions> {
public:
  using SamplingStrategy::SamplingStrategy;
  void search(const SearchSpace &space, Objective &objective,
              std::mt19937_64 &rng, UnseenSampler &sampler) override;
};

/// Coordinates in [0, 1] of the parameters that vary: the position of the
/// value in its domain ("index"), or its log ("log", for positive values),
/// and optionally ("+odd") the log of the value's odd part, which is 0 for
/// powers of two: GPU kernels often run fastest at sizes aligned to powers
/// of two (warps, banks, vector loads), and this lets the model see that
/// 32, 64 and 128 are alike while 48 and 80 are not.
class Encoder {
public:
  Encoder(const SearchSpace &space, const std::string &encoding) {
    bool useLog = encoding.starts_with("log");
    bool odd = encoding.ends_with("+odd");
    for (size_t k = 0; k < space.dims(); ++k) {
      const Domain &domain = space.params()[k].domain;
      uint64_t size = domain.size();
      if (size <= 1)
        continue;
      std::vector<int64_t> values = domain.enumerate();
      bool positive = std::all_of(values.begin(), values.end(),
                                  [](int64_t v) { return v > 0; });
      std::vector<double> coord(size);
      if (useLog && positive) {
        double lo = std::log2(static_cast<double>(
            *std::min_element(values.begin(), values.end())));
        double hi = std::log2(static_cast<double>(
            *std::max_element(values.begin(), values.end())));
        for (uint64_t i = 0; i < size; ++i)
          coord[i] =
              (std::log2(static_cast<double>(values[i])) - lo) / (hi - lo);
      } else {
        for (uint64_t i = 0; i < size; ++i)
          coord[i] = static_cast<double>(i) / static_cast<double>(size - 1);
      }
      Features.push_back({k, std::move(coord)});
      if (odd && positive) {
        std::vector<double> oddPart(size);
        for (uint64_t i = 0; i < size; ++i) {
          int64_t v = values[i];
          while (v % 2 == 0)
            v /= 2;
          oddPart[i] = std::log2(static_cast<double>(v));
        }
        double hi = *std::max_element(oddPart.begin(), oddPart.end());
        if (hi > 0) {
          for (auto &o : oddPart)
            o /= hi;
          Features.push_back({k, std::move(oddPart)});
        }
      }
    }
  }
  int dims() const { return static_cast<int>(Features.size()); }
  template <class Row> void encode(const Point &p, Row &&row) const {
    for (size_t f = 0; f < Features.size(); ++f)
      row(static_cast<Eigen::Index>(f)) =
          Features[f].second[p[Features[f].first]];
  }
  Eigen::MatrixXd encodeAll(const std::vector<Point> &points) const {
    Eigen::MatrixXd M(static_cast<Eigen::Index>(points.size()), dims());
    for (size_t i = 0; i < points.size(); ++i)
      encode(points[i], M.row(static_cast<Eigen::Index>(i)));
    return M;
  }

private:
  std::vector<std::pair<size_t, std::vector<double>>> Features;
};

void Bayes::search(const SearchSpace &space, Objective &objective,
                   std::mt19937_64 &rng, UnseenSampler &sampler) {
  Encoder encoder(space, O.encoding);
  std::vector<Point> observed;
  std::vector<std::optional<double>> outcomes;

  auto evaluate = [&](const Point &p) {
    observed.push_back(p);
    outcomes.push_back(objective.evaluate(p));
  };
  // Several devices: points are chosen a batch at a time (pending until
  // the batch is full) and measured together.
  bool batched = objective.parallelism() > 1;
  std::vector<Point> pending;
  auto flush = [&] {
    if (pending.empty())
      return;
    auto times = objective.evaluateBatch(pending);
    for (size_t k = 0; k < pending.size(); ++k) {
      observed.push_back(pending[k]);
      outcomes.push_back(times[k]);
    }
    pending.clear();
  };
  auto submit = [&](const Point &p) {
    if (!batched)
      return evaluate(p);
    pending.push_back(p);
    if (pending.size() >= objective.batchSize())
      flush();
  };

  // Every valid point, when few enough to score them all each step.
  std::optional<std::vector<Point>> all;
  if (auto listed = listValidPoints(space);
      listed && static_cast<int64_t>(listed->size()) <= O.exhaustiveLimit)
    all = std::move(listed);
  Eigen::MatrixXd allEncoded;
  if (all)
    allEncoded = encoder.encodeAll(*all);

  // Initial design: the default point (the configuration the user runs
  // today), then a maximin design: each point the farthest, in index
  // coordinates, from those chosen, among a few random candidates.
  if (O.startFromDefault)
    if (auto d = space.defaultPoint();
        d && space.isValid(*d) && !objective.seen(*d) && !objective.exhausted())
      submit(*d);
  Eigen::RowVectorXd a(encoder.dims()), b(encoder.dims());
  // Batched, the last round of the design is filled up with design points.
  while ((static_cast<int64_t>(observed.size() + pending.size()) <
              O.initialSamples ||
          !pending.empty()) &&
         !objective.exhausted()) {
    std::optional<Point> best;
    double bestDistance = -1;
    PointSet drawn(pending.begin(), pending.end());
    for (int c = 0; c < 20; ++c) {
      auto p = sampler.next(objective, rng, &drawn);
      if (!p)
        break;
      drawn.insert(*p);
      encoder.encode(*p, a);
      double nearest = std::numeric_limits<double>::infinity();
      for (const auto *set : {&observed, &pending})
        for (const auto &q : *set) {
          encoder.encode(q, b);
          nearest = std::min(nearest, (a - b).squaredNorm());
        }
      if (nearest > bestDistance) {
        bestDistance = nearest;
        best = *p;
      }
    }
    if (!best) {
      flush();
      return; // space exhausted
    }
    submit(*best);
  }
  flush();

  GaussianProcess gp(encoder.dims(), O.kernel == "additive+matern");
  if (all)
    gp.setCandidates(allEncoded);
  Eigen::Index fittedAt = 0;
  int64_t step = 0;
  int fits = 0;
  while (!objective.exhausted()) {
    // Training data: log times; failures at the worst log time seen.
    std::optional<double> worst, bestTime;
    for (const auto &t : outcomes)
      if (t) {
        double y = std::log(std::max(*t, 1e-30));
        worst = worst ? std::max(*worst, y) : y;
        bestTime = bestTime ? std::min(*bestTime, y) : y;
      }
    if (!worst || encoder.dims() == 0) {
      // Nothing to model yet: keep sampling.
      if (batched) {
        PointSet drawn;
        fillUnseen(pending, objective.batchSize(), drawn, sampler, objective,
                   rng);
        if (pending.empty())
          return;
        flush();
        continue;
      }
      auto p = sampler.next(objective, rng);
      if (!p)
        return;
      evaluate(*p);
      continue;
    }
    Eigen::MatrixXd X = encoder.encodeAll(observed);
    Eigen::VectorXd y(static_cast<Eigen::Index>(observed.size()));
    for (size_t i = 0; i < outcomes.size(); ++i)
      y(static_cast<Eigen::Index>(i)) =
          outcomes[i] ? std::log(std::max(*outcomes[i], 1e-30)) : *worst;
    double bestY = *bestTime;
    if (O.output == "rank") {
      y = gaussianRanks(y);
      bestY = y.minCoeff();
    }
    // Hyper-parameters are refit as the data grows by a tenth; between
    // fits the factor is only extended (cheap).
    if (X.rows() < 10 ||
        X.rows() >= fittedAt + std::max<Eigen::Index>(1, fittedAt / 10)) {
      gp.fit(X, y, static_cast<int>(O.fitSteps),
             O.restartEvery > 0 && fits % O.restartEvery == 0);
      fittedAt = X.rows();
      ++fits;
    } else {
      gp.update(X, y);
    }

    // The next point: the best by the acquisition among unseen valid points
    // not `picked` for this round; its predicted (standardised) mean too.
    auto choose =
        [&](const PointSet &picked) -> std::optional<std::pair<Point, double>> {
      auto fresh = [&](const Point &p) {
        return !objective.seen(p) && !picked.count(p);
      };
      // Candidates: unseen valid points.
      std::vector<Point> candidates;
      Eigen::MatrixXd encoded;
      std::vector<Eigen::Index> rows;
      Eigen::VectorXd mean, sd;
      if (all) {
        for (size_t i = 0; i < all->size(); ++i)
          if (fresh((*all)[i]))
            rows.push_back(static_cast<Eigen::Index>(i));
        if (rows.empty())
          return std::nullopt; // every valid point was evaluated
        Eigen::VectorXd allMean, allSd;
        gp.predictCandidates(allMean, allSd, O.observationNoise);
        mean.resize(static_cast<Eigen::Index>(rows.size()));
        sd.resize(mean.size());
        for (size_t r = 0; r < rows.size(); ++r) {
          mean(static_cast<Eigen::Index>(r)) = allMean(rows[r]);
          sd(static_cast<Eigen::Index>(r)) = allSd(rows[r]);
        }
      } else {
        PointSet chosen = picked;
        // Neighbourhoods of the best few points found so far.
        std::vector<size_t> order(observed.size());
        for (size_t i = 0; i < order.size(); ++i)
          order[i] = i;
        std::sort(order.begin(), order.end(), [&](size_t l, size_t r) {
          return y(static_cast<Eigen::Index>(l)) <
                 y(static_cast<Eigen::Index>(r));
        });
        for (size_t k = 0; k < std::min<size_t>(5, order.size()); ++k)
          for (auto &q : hammingNeighbours(space, observed[order[k]]))
            if (fresh(q) && chosen.insert(q).second)
              candidates.push_back(std::move(q));
        fillUnseen(candidates,
                   candidates.size() + static_cast<size_t>(O.candidates),
                   chosen, sampler, objective, rng);
        if (candidates.empty())
          return std::nullopt; // every valid point was evaluated
        encoded = encoder.encodeAll(candidates);
        gp.predict(encoded, mean, sd, O.observationNoise);
      }
      double incumbent = gp.standardise(bestY);
      auto pointAt = [&](Eigen::Index i) -> const Point & {
        return all ? (*all)[static_cast<size_t>(rows[static_cast<size_t>(i)])]
                   : candidates[static_cast<size_t>(i)];
      };
      // Every `local_every`-th step looks only at the unseen neighbours of
      // the best point (one parameter changed): the model's view of the
      // whole space can be wrong near the optimum, where the differences
      // that matter are smallest, and this makes the best point a local
      // optimum before long.
      std::optional<Point> centre;
      if (O.localEvery > 0 && ++step % O.localEvery == 0) {
        size_t best = 0;
        for (size_t i = 1; i < outcomes.size(); ++i)
          if (outcomes[i] &&
              (!outcomes[best] || *outcomes[i] < *outcomes[best]))
            best = i;
        centre = observed[best];
      }
      auto near = [&](const Point &p) {
        int64_t differ = 0;
        for (size_t k = 0; k < p.size(); ++k)
          differ += p[k] != (*centre)[k];
        return differ <= O.localRadius;
      };
      if (centre) {
        bool any = false;
        for (Eigen::Index i = 0; i < mean.size() && !any; ++i)
          any = near(pointAt(i));
        if (!any)
          centre.reset(); // the neighbourhood is exhausted: a global step
      }
      Eigen::Index pick = 0;
      double bestScore = -std::numeric_limits<double>::infinity();
      for (Eigen::Index i = 0; i < mean.size(); ++i) {
        if (centre && !near(pointAt(i)))
          continue;
        double score =
            O.acquisition == "lcb"
                ? -(mean(i) - O.kappa * sd(i))
                : logExpectedImprovement(incumbent - O.xi, mean(i), sd(i));
        if (score > bestScore) {
          bestScore = score;
          pick = i;
        }
      }
      return std::make_pair(pointAt(pick), mean(pick));
    };

    if (!batched) {
      auto next = choose({});
      if (!next)
        return;
      evaluate(next->first);
      continue;
    }
    // A batch: each pick after the first sees the earlier ones as if
    // measured, at a constant lie (the worst value by default) or at the
    // value the model believes, so the picks spread instead of piling up
    // in one spot.
    size_t q = objective.batchSize();
    PointSet picked;
    Eigen::MatrixXd Xl = X;
    Eigen::VectorXd yl = y;
    for (size_t j = 0; j < q; ++j) {
      auto next = choose(picked);
      if (!next)
        break;
      pending.push_back(next->first);
      picked.insert(next->first);
      if (j + 1 == q)
        break;
      double lie = O.batchLie == "min"   ? y.minCoeff()
                   : O.batchLie == "max" ? y.maxCoeff()
                                         : gp.unstandardise(next->second);
      Xl.conservativeResize(Xl.rows() + 1, Eigen::NoChange);
      encoder.encode(next->first, Xl.row(Xl.rows() - 1));
      yl.conservativeResize(yl.size() + 1);
      yl(yl.size() - 1) = lie;
      gp.update(Xl, yl);
    }
    if (pending.empty())
      return;
    flush();
  }
}

} // namespace

Expected<std::unique_ptr<Strategy>> makeBayes(const nlohmann::json &o) {
  OptionReader r(o, "bayes");
  BayesOptions opts;
  // These seven's errors are reported after those of the options below.
  Status first[] = {
      r.integer("initial_samples", opts.initialSamples, 1, 100000),
      r.number("xi", opts.xi, 0.0, 10.0),
      r.integer("candidates", opts.candidates, 16, 1 << 20),
      r.integer("exhaustive_limit", opts.exhaustiveLimit, 0, 1 << 20),
      r.integer("fit_steps", opts.fitSteps, 1, 10000),
      r.integer("restart_every", opts.restartEvery, 0, 100000),
      r.boolean("start_from_default", opts.startFromDefault)};
  KTUNE_TRY(r.choice("encoding", opts.encoding,
                     {"index", "index+odd", "log", "log+odd"}));
  KTUNE_TRY(r.boolean("observation_noise", opts.observationNoise));
  KTUNE_TRY(r.choice("output", opts.output, {"rank", "log"}));
  KTUNE_TRY(r.choice("acquisition", opts.acquisition, {"ei", "lcb"}));
  KTUNE_TRY(r.number("kappa", opts.kappa, 0.0, 100.0));
  KTUNE_TRY(r.choice("kernel", opts.kernel, {"matern", "additive+matern"}));
  KTUNE_TRY(r.integer("local_every", opts.localEvery, 0, 1000000));
  KTUNE_TRY(r.choice("batch_lie", opts.batchLie, {"believer", "min", "max"}));
  KTUNE_TRY(r.integer("local_radius", opts.localRadius, 1, 1000));
  for (const Status &s : first)
    KTUNE_TRY(s);
  KTUNE_TRY(r.finish());
  return std::make_unique<Bayes>("bayes", opts);
}

} // namespace ktune
