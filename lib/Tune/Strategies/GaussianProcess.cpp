//===- GaussianProcess.cpp - GP regression for Bayesian search ------------===//

#include "GaussianProcess.h"

#include <algorithm>
#include <cmath>

namespace ktune {

namespace {

const double Sqrt5 = std::sqrt(5.0);

// Bounds on the log-parameters. Inputs live in [0, 1] per dimension, so a
// length scale below ~0.02 cannot be told apart from a white-noise kernel
// and one above ~30 from a constant; targets are standardised, so signal
// variance is order 1 and noise at most that.
constexpr double MinLogLength = -4.0, MaxLogLength = 3.5;
constexpr double MinLogSignal = -3.0, MaxLogSignal = 3.0;
constexpr double MinLogNoise = -13.0, MaxLogNoise = 0.0;
// A weak log-normal prior on length scales keeps the fit sensible while few
// points are known (centred at half the unit interval).
constexpr double PriorLogLength = -0.7, PriorLogLengthSd = 1.5;

double boundPenalty(double v, double lo, double hi, double *grad) {
  const double weight = 50.0;
  if (v < lo) {
    *grad += 2 * weight * (lo - v);
    return -weight * (lo - v) * (lo - v);
  }
  if (v > hi) {
    *grad -= 2 * weight * (v - hi);
    return -weight * (v - hi) * (v - hi);
  }
  return 0.0;
}

} // namespace

GaussianProcess::GaussianProcess(int dims, bool additive)
    : Dims(dims), Additive(additive), H(defaults()) {}

GaussianProcess::Hyper GaussianProcess::defaults() const {
  Hyper h;
  h.logLength = Eigen::VectorXd::Constant(Dims, PriorLogLength);
  // Unit prior variance, split evenly when there is an additive part.
  h.logSignal = Additive ? std::log(0.5) : 0.0;
  h.logAdditive = Additive ? std::log(0.5) : -30.0;
  h.logNoise = std::log(1e-3);
  return h;
}

namespace {
/// Matern-5/2 correlation at scaled distance r.
inline double matern52(double r) {
  return (1.0 + Sqrt5 * r + 5.0 / 3.0 * r * r) * std::exp(-Sqrt5 * r);
}
} // namespace

Eigen::MatrixXd GaussianProcess::kernel(const Eigen::MatrixXd &A,
                                        const Eigen::MatrixXd &B,
                                        const Hyper &h) const {
  Eigen::MatrixXd full, additive;
  kernelParts(A, B, h, full, Additive ? &additive : nullptr);
  if (Additive)
    full += additive;
  return full;
}

void GaussianProcess::kernelParts(const Eigen::MatrixXd &A,
                                  const Eigen::MatrixXd &B, const Hyper &h,
                                  Eigen::MatrixXd &full,
                                  Eigen::MatrixXd *additive) const {
  // Inputs scaled by the inverse length scales, one point per column.
  Eigen::VectorXd inv = (-h.logLength).array().exp();
  Eigen::MatrixXd As = (A.transpose().array().colwise() * inv.array()).matrix();
  Eigen::MatrixXd Bs = (B.transpose().array().colwise() * inv.array()).matrix();
  double signal = std::exp(h.logSignal);
  full.resize(A.rows(), B.rows());
  for (Eigen::Index j = 0; j < B.rows(); ++j) {
    const double *b = Bs.col(j).data();
    for (Eigen::Index i = 0; i < A.rows(); ++i) {
      const double *a = As.col(i).data();
      double r2 = 0.0;
      for (int k = 0; k < Dims; ++k) {
        double d = a[k] - b[k];
        r2 += d * d;
      }
      full(i, j) = signal * matern52(std::sqrt(r2));
    }
  }
  if (!additive)
    return;

  // The additive part, by table: each input takes few distinct values per
  // dimension (points of a discrete space), so the one-dimensional
  // correlations are computed once per pair of values, not per pair of
  // points.
  double perDim = std::exp(h.logAdditive) / std::max(Dims, 1);
  additive->setZero(A.rows(), B.rows());
  std::vector<double> values;
  std::vector<int> ia(static_cast<size_t>(A.rows())),
      ib(static_cast<size_t>(B.rows()));
  for (int k = 0; k < Dims; ++k) {
    values.assign(A.col(k).data(), A.col(k).data() + A.rows());
    values.insert(values.end(), B.col(k).data(), B.col(k).data() + B.rows());
    std::sort(values.begin(), values.end());
    values.erase(std::unique(values.begin(), values.end()), values.end());
    auto indexOf = [&](double v) {
      return static_cast<int>(
          std::lower_bound(values.begin(), values.end(), v) - values.begin());
    };
    if (values.size() > 256) {
      for (Eigen::Index j = 0; j < B.rows(); ++j)
        for (Eigen::Index i = 0; i < A.rows(); ++i)
          (*additive)(i, j) +=
              perDim * matern52(std::fabs(As(k, i) - Bs(k, j)));
      continue;
    }
    size_t u = values.size();
    std::vector<double> table(u * u);
    for (size_t x = 0; x < u; ++x)
      for (size_t y = 0; y < u; ++y)
        table[x * u + y] =
            perDim * matern52(std::fabs(values[x] - values[y]) * inv(k));
    for (Eigen::Index i = 0; i < A.rows(); ++i)
      ia[static_cast<size_t>(i)] = indexOf(A(i, k));
    for (Eigen::Index j = 0; j < B.rows(); ++j)
      ib[static_cast<size_t>(j)] = indexOf(B(j, k));
    for (Eigen::Index j = 0; j < B.rows(); ++j) {
      const double *row =
          &table[static_cast<size_t>(ib[static_cast<size_t>(j)])];
      double *out = additive->col(j).data();
      for (Eigen::Index i = 0; i < A.rows(); ++i)
        out[i] += row[static_cast<size_t>(ia[static_cast<size_t>(i)]) * u];
    }
  }
}

double GaussianProcess::logPrior(const Hyper &h, Hyper *g) const {
  double lp = 0.0;
  double dummy = 0.0;
  for (int k = 0; k < Dims; ++k) {
    double &gk = g ? g->logLength(k) : dummy;
    double z = (h.logLength(k) - PriorLogLength) / PriorLogLengthSd;
    lp -= 0.5 * z * z;
    gk -= z / PriorLogLengthSd;
    lp += boundPenalty(h.logLength(k), MinLogLength, MaxLogLength, &gk);
  }
  lp += boundPenalty(h.logSignal, MinLogSignal, MaxLogSignal,
                     g ? &g->logSignal : &dummy);
  if (Additive)
    lp += boundPenalty(h.logAdditive, MinLogSignal, MaxLogSignal,
                       g ? &g->logAdditive : &dummy);
  lp += boundPenalty(h.logNoise, MinLogNoise, MaxLogNoise,
                     g ? &g->logNoise : &dummy);
  return lp;
}

std::optional<double> GaussianProcess::logLikelihood(const Hyper &h,
                                                     Hyper *g) const {
  const Eigen::Index n = X.rows();
  Eigen::MatrixXd Kf, Ka;
  kernelParts(X, X, h, Kf, Additive ? &Ka : nullptr);
  Eigen::MatrixXd K = Additive ? Eigen::MatrixXd(Kf + Ka) : Kf;
  double noise = std::exp(h.logNoise);
  K.diagonal().array() += noise;
  Eigen::LLT<Eigen::MatrixXd> llt(K);
  if (llt.info() != Eigen::Success)
    return std::nullopt;
  Eigen::VectorXd alpha = llt.solve(Y);
  double logDet = 2.0 * llt.matrixLLT().diagonal().array().log().sum();
  double ll = -0.5 * Y.dot(alpha) - 0.5 * logDet -
              0.5 * static_cast<double>(n) * std::log(2 * M_PI);
  if (!g)
    return ll + logPrior(h, nullptr);

  // d ll / d theta = 1/2 tr(W dK/dtheta), W = alpha alpha^T - K^-1.
  Eigen::MatrixXd W =
      alpha * alpha.transpose() - llt.solve(Eigen::MatrixXd::Identity(n, n));
  g->logLength = Eigen::VectorXd::Zero(Dims);
  g->logSignal = 0.5 * W.cwiseProduct(Kf).sum();
  g->logAdditive = Additive ? 0.5 * W.cwiseProduct(Ka).sum() : 0.0;
  g->logNoise = 0.5 * noise * W.trace();
  double signal = std::exp(h.logSignal);
  double perDim = std::exp(h.logAdditive) / std::max(Dims, 1);
  Eigen::VectorXd inv = (-h.logLength).array().exp();
  Eigen::MatrixXd Xs = (X.transpose().array().colwise() * inv.array()).matrix();
  for (Eigen::Index j = 0; j < n; ++j)
    for (Eigen::Index i = j + 1; i < n; ++i) {
      double r2 = 0.0;
      for (int k = 0; k < Dims; ++k) {
        double d = Xs(k, i) - Xs(k, j);
        r2 += d * d;
      }
      double r = std::sqrt(r2);
      // d k / d log l_k = signal * 5/3 (1 + sqrt5 r) e^{-sqrt5 r} r_k^2, the
      // pair counted once for (i, j) and (j, i) against the 1/2.
      double common = W(i, j) * signal * 5.0 / 3.0 * (1.0 + Sqrt5 * r) *
                      std::exp(-Sqrt5 * r);
      for (int k = 0; k < Dims; ++k) {
        double d = Xs(k, i) - Xs(k, j);
        g->logLength(k) += common * d * d;
      }
    }
  if (Additive) {
    // The same for the one-dimensional terms, by table over the distinct
    // values of each dimension.
    std::vector<double> values;
    std::vector<int> index(static_cast<size_t>(n));
    for (int k = 0; k < Dims; ++k) {
      values.assign(X.col(k).data(), X.col(k).data() + n);
      std::sort(values.begin(), values.end());
      values.erase(std::unique(values.begin(), values.end()), values.end());
      size_t u = values.size();
      for (Eigen::Index i = 0; i < n; ++i)
        index[static_cast<size_t>(i)] = static_cast<int>(
            std::lower_bound(values.begin(), values.end(), X(i, k)) -
            values.begin());
      std::vector<double> table(u * u);
      for (size_t a = 0; a < u; ++a)
        for (size_t b = 0; b < u; ++b) {
          double rk = std::fabs(values[a] - values[b]) * inv(k);
          table[a * u + b] = perDim * 5.0 / 3.0 * (1.0 + Sqrt5 * rk) *
                             std::exp(-Sqrt5 * rk) * rk * rk;
        }
      double sum = 0.0;
      for (Eigen::Index j = 0; j < n; ++j) {
        const double *row =
            &table[static_cast<size_t>(index[static_cast<size_t>(j)]) * u];
        for (Eigen::Index i = j + 1; i < n; ++i)
          sum += W(i, j) * row[index[static_cast<size_t>(i)]];
      }
      g->logLength(k) += sum;
    }
  }
  return ll + logPrior(h, g);
}

double GaussianProcess::priorVariance() const {
  return std::exp(H.logSignal) + (Additive ? std::exp(H.logAdditive) : 0.0);
}

void GaussianProcess::setTargets(const Eigen::VectorXd &y) {
  Mean = y.mean();
  double var = (y.array() - Mean).square().mean();
  Scale = var > 1e-24 ? std::sqrt(var) : 1.0;
  Y = (y.array() - Mean) / Scale;
}

void GaussianProcess::setCandidates(Eigen::MatrixXd candidates) {
  C = std::move(candidates);
  if (X.rows() > 0)
    factorise();
}

void GaussianProcess::fit(const Eigen::MatrixXd &Xin, const Eigen::VectorXd &y,
                          int steps, bool restart) {
  X = Xin;
  setTargets(y);

  auto optimise = [&](Hyper h) -> std::pair<Hyper, double> {
    // Adam on the log-parameters (ascent), keeping the best point seen.
    const double rate = 0.08, b1 = 0.9, b2 = 0.999, eps = 1e-8;
    const int P = Dims + 3;
    Eigen::VectorXd m = Eigen::VectorXd::Zero(P), v = Eigen::VectorXd::Zero(P);
    Hyper best = h;
    double bestLL = -std::numeric_limits<double>::infinity();
    for (int t = 1; t <= steps; ++t) {
      Hyper g;
      auto ll = logLikelihood(h, &g);
      if (!ll) {
        h.logNoise += 1.0; // numerically singular: more jitter
        continue;
      }
      if (*ll > bestLL) {
        bestLL = *ll;
        best = h;
      }
      Eigen::VectorXd grad(P);
      grad << g.logLength, g.logSignal, g.logNoise, g.logAdditive;
      m = b1 * m + (1 - b1) * grad;
      v = b2 * v + (1 - b2) * grad.cwiseProduct(grad);
      Eigen::VectorXd mh = m / (1 - std::pow(b1, t));
      Eigen::VectorXd vh = v / (1 - std::pow(b2, t));
      Eigen::VectorXd step = rate * mh.array() / (vh.array().sqrt() + eps);
      h.logLength += step.head(Dims);
      h.logSignal += step(Dims);
      h.logNoise += step(Dims + 1);
      if (Additive)
        h.logAdditive += step(Dims + 2);
    }
    if (auto ll = logLikelihood(h, nullptr); ll && *ll > bestLL) {
      bestLL = *ll;
      best = h;
    }
    return {best, bestLL};
  };

  auto [h1, ll1] = optimise(H);
  H = h1;
  if (restart) {
    auto [h2, ll2] = optimise(defaults());
    if (ll2 > ll1)
      H = h2;
  }
  factorise();
}

void GaussianProcess::update(const Eigen::MatrixXd &Xin,
                             const Eigen::VectorXd &y) {
  Eigen::Index old = X.rows();
  X = Xin;
  setTargets(y);
  if (old == 0 || old > X.rows() || !extend(old))
    factorise();
  else
    refreshWeights();
}

void GaussianProcess::reserve(Eigen::Index rows) {
  if (rows <= Lbuf.rows())
    return;
  Eigen::Index capacity = std::max<Eigen::Index>({rows, 2 * Lbuf.rows(), 64});
  Eigen::Index n = std::min<Eigen::Index>(Lbuf.rows(), rows);
  Eigen::MatrixXd L2 = Eigen::MatrixXd::Zero(capacity, capacity);
  L2.topLeftCorner(n, n) = Lbuf.topLeftCorner(n, n);
  Lbuf.swap(L2);
  if (C.rows() > 0) {
    Eigen::MatrixXd V2(capacity, C.rows());
    V2.topRows(std::min<Eigen::Index>(Vbuf.rows(), n)) =
        Vbuf.topRows(std::min<Eigen::Index>(Vbuf.rows(), n));
    Vbuf.swap(V2);
  }
}

void GaussianProcess::factorise() {
  Eigen::Index n = X.rows();
  for (int attempt = 0; attempt < 8; ++attempt) {
    Eigen::MatrixXd K = kernel(X, X, H);
    K.diagonal().array() += std::exp(H.logNoise);
    Eigen::LLT<Eigen::MatrixXd> llt(K);
    if (llt.info() == Eigen::Success) {
      reserve(n);
      if (Vbuf.rows() != Lbuf.rows() || Vbuf.cols() != C.rows())
        Vbuf.resize(Lbuf.rows(), C.rows());
      Lbuf.topLeftCorner(n, n) = llt.matrixL();
      if (C.rows() > 0) {
        auto V = Vbuf.topRows(n);
        V = kernel(X, C, H);
        Lbuf.topLeftCorner(n, n).triangularView<Eigen::Lower>().solveInPlace(V);
        VNorm = V.colwise().squaredNorm().transpose();
      }
      Rows = n;
      refreshWeights();
      return;
    }
    H.logNoise += 2.0;
  }
}

bool GaussianProcess::extend(Eigen::Index from) {
  Eigen::Index n = X.rows();
  double self = priorVariance() + std::exp(H.logNoise);
  reserve(n);
  for (Eigen::Index i = from; i < n; ++i) {
    auto L = Lbuf.topLeftCorner(i, i);
    Eigen::VectorXd k = kernel(X.topRows(i), X.row(i), H).col(0);
    Eigen::VectorXd l = L.triangularView<Eigen::Lower>().solve(k);
    double d2 = self - l.squaredNorm();
    if (!(d2 > 1e-10))
      return false;
    double d = std::sqrt(d2);
    Lbuf.row(i).head(i) = l.transpose();
    Lbuf.col(i).head(i).setZero();
    Lbuf(i, i) = d;
    if (C.rows() > 0) {
      Eigen::RowVectorXd row = kernel(X.row(i), C, H).row(0);
      row.noalias() -= l.transpose() * Vbuf.topRows(i);
      row /= d;
      Vbuf.row(i) = row;
      VNorm += row.transpose().cwiseProduct(row.transpose());
    }
    Rows = i + 1;
  }
  return true;
}

void GaussianProcess::refreshWeights() {
  Z = Lbuf.topLeftCorner(Rows, Rows).triangularView<Eigen::Lower>().solve(Y);
}

void GaussianProcess::predictCandidates(Eigen::VectorXd &mean,
                                        Eigen::VectorXd &stddev,
                                        bool observed) const {
  mean.noalias() = Vbuf.topRows(Rows).transpose() * Z;
  double signal = priorVariance() + (observed ? std::exp(H.logNoise) : 0.0);
  stddev = (signal - VNorm.array()).max(1e-12).sqrt();
}

void GaussianProcess::predict(const Eigen::MatrixXd &Xs, Eigen::VectorXd &mean,
                              Eigen::VectorXd &stddev, bool observed) const {
  Eigen::MatrixXd W = kernel(X, Xs, H); // n x m
  Lbuf.topLeftCorner(Rows, Rows).triangularView<Eigen::Lower>().solveInPlace(W);
  mean = W.transpose() * Z;
  double signal = priorVariance() + (observed ? std::exp(H.logNoise) : 0.0);
  stddev = (signal - W.colwise().squaredNorm().transpose().array())
               .max(1e-12)
               .sqrt();
}

} // namespace ktune
