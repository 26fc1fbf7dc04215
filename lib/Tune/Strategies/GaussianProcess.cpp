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

GaussianProcess::GaussianProcess(int dims) : Dims(dims), H(defaults()) {}

GaussianProcess::Hyper GaussianProcess::defaults() const {
  Hyper h;
  h.logLength = Eigen::VectorXd::Constant(Dims, PriorLogLength);
  h.logSignal = 0.0;
  h.logNoise = std::log(1e-3);
  return h;
}

Eigen::MatrixXd GaussianProcess::kernel(const Eigen::MatrixXd &A,
                                        const Eigen::MatrixXd &B,
                                        const Hyper &h) const {
  // Inputs scaled by the inverse length scales, one point per column.
  Eigen::VectorXd inv = (-h.logLength).array().exp();
  Eigen::MatrixXd As = (A.transpose().array().colwise() * inv.array()).matrix();
  Eigen::MatrixXd Bs = (B.transpose().array().colwise() * inv.array()).matrix();
  double signal = std::exp(h.logSignal);
  Eigen::MatrixXd K(A.rows(), B.rows());
  for (Eigen::Index j = 0; j < B.rows(); ++j) {
    const double *b = Bs.col(j).data();
    for (Eigen::Index i = 0; i < A.rows(); ++i) {
      const double *a = As.col(i).data();
      double r2 = 0.0;
      for (int k = 0; k < Dims; ++k) {
        double d = a[k] - b[k];
        r2 += d * d;
      }
      double r = std::sqrt(r2);
      K(i, j) = signal * (1.0 + Sqrt5 * r + 5.0 / 3.0 * r2) * std::exp(-Sqrt5 * r);
    }
  }
  return K;
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
  lp += boundPenalty(h.logNoise, MinLogNoise, MaxLogNoise,
                     g ? &g->logNoise : &dummy);
  return lp;
}

std::optional<double> GaussianProcess::logLikelihood(const Hyper &h,
                                                     Hyper *g) const {
  const Eigen::Index n = X.rows();
  Eigen::MatrixXd K = kernel(X, X, h);
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
  Eigen::MatrixXd W = alpha * alpha.transpose() -
                      llt.solve(Eigen::MatrixXd::Identity(n, n));
  g->logLength = Eigen::VectorXd::Zero(Dims);
  g->logSignal = 0.5 * (W.cwiseProduct(K).sum() - noise * W.trace());
  g->logNoise = 0.5 * noise * W.trace();
  double signal = std::exp(h.logSignal);
  Eigen::VectorXd invLen2 = (-2.0 * h.logLength).array().exp();
  for (Eigen::Index j = 0; j < n; ++j)
    for (Eigen::Index i = j + 1; i < n; ++i) {
      double r2 = 0.0;
      for (int k = 0; k < Dims; ++k) {
        double d = X(i, k) - X(j, k);
        r2 += d * d * invLen2(k);
      }
      double r = std::sqrt(r2);
      // d k / d log l_k = signal * 5/3 (1 + sqrt5 r) e^{-sqrt5 r} d_k^2 / l_k^2
      double common =
          W(i, j) * signal * 5.0 / 3.0 * (1.0 + Sqrt5 * r) * std::exp(-Sqrt5 * r);
      for (int k = 0; k < Dims; ++k) {
        double d = X(i, k) - X(j, k);
        g->logLength(k) += common * d * d * invLen2(k); // both (i,j) and (j,i): x2 * 1/2
      }
    }
  return ll + logPrior(h, g);
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
    const int P = Dims + 2;
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
      grad << g.logLength, g.logSignal, g.logNoise;
      m = b1 * m + (1 - b1) * grad;
      v = b2 * v + (1 - b2) * grad.cwiseProduct(grad);
      Eigen::VectorXd mh = m / (1 - std::pow(b1, t));
      Eigen::VectorXd vh = v / (1 - std::pow(b2, t));
      Eigen::VectorXd step = rate * mh.array() / (vh.array().sqrt() + eps);
      h.logLength += step.head(Dims);
      h.logSignal += step(Dims);
      h.logNoise += step(Dims + 1);
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

void GaussianProcess::factorise() {
  for (int attempt = 0; attempt < 8; ++attempt) {
    Eigen::MatrixXd K = kernel(X, X, H);
    K.diagonal().array() += std::exp(H.logNoise);
    Eigen::LLT<Eigen::MatrixXd> llt(K);
    if (llt.info() == Eigen::Success) {
      L = llt.matrixL();
      if (C.rows() > 0) {
        V = kernel(X, C, H);
        L.triangularView<Eigen::Lower>().solveInPlace(V);
        VNorm = V.colwise().squaredNorm().transpose();
      }
      refreshWeights();
      return;
    }
    H.logNoise += 2.0;
  }
}

bool GaussianProcess::extend(Eigen::Index from) {
  Eigen::Index n = X.rows();
  double self = std::exp(H.logSignal) + std::exp(H.logNoise);
  for (Eigen::Index i = from; i < n; ++i) {
    Eigen::VectorXd k = kernel(X.topRows(i), X.row(i), H).col(0);
    Eigen::VectorXd l = L.triangularView<Eigen::Lower>().solve(k);
    double d2 = self - l.squaredNorm();
    if (!(d2 > 1e-10))
      return false;
    double d = std::sqrt(d2);
    L.conservativeResize(i + 1, i + 1);
    L.row(i).head(i) = l.transpose();
    L.col(i).head(i).setZero();
    L(i, i) = d;
    if (C.rows() > 0) {
      Eigen::RowVectorXd kc = kernel(X.row(i), C, H).row(0);
      Eigen::RowVectorXd row = (kc - l.transpose() * V) / d;
      V.conservativeResize(i + 1, Eigen::NoChange);
      V.row(i) = row;
      VNorm += row.transpose().cwiseProduct(row.transpose());
    }
  }
  return true;
}

void GaussianProcess::refreshWeights() {
  Z = L.triangularView<Eigen::Lower>().solve(Y);
}

void GaussianProcess::predictCandidates(Eigen::VectorXd &mean,
                                        Eigen::VectorXd &stddev,
                                        bool observed) const {
  mean = V.transpose() * Z;
  double signal = std::exp(H.logSignal) + (observed ? std::exp(H.logNoise) : 0.0);
  stddev = (signal - VNorm.array()).max(1e-12).sqrt();
}

void GaussianProcess::predict(const Eigen::MatrixXd &Xs, Eigen::VectorXd &mean,
                              Eigen::VectorXd &stddev, bool observed) const {
  Eigen::MatrixXd W = kernel(X, Xs, H); // n x m
  L.triangularView<Eigen::Lower>().solveInPlace(W);
  mean = W.transpose() * Z;
  double signal = std::exp(H.logSignal) + (observed ? std::exp(H.logNoise) : 0.0);
  stddev = (signal - W.colwise().squaredNorm().transpose().array())
               .max(1e-12)
               .sqrt();
}

} // namespace ktune
