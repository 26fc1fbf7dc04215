//===- GaussianProcess.h - GP regression for Bayesian search ---*- C++ -*-===//
//
// Zero-mean GP on standardised targets with an ARD Matern-5/2 kernel. The
// length scales, signal and noise variances maximise the log marginal
// likelihood (Adam on log-parameters, warm-started from the previous fit).
// Between fits, new observations extend the Cholesky factor by one row, and
// predictions at a fixed candidate set are kept up to date in O(n m) per
// observation instead of O(n^2 m) from scratch.
//
//===----------------------------------------------------------------------===//
#ifndef KTUNE_LIB_TUNE_STRATEGIES_GAUSSIANPROCESS_H
#define KTUNE_LIB_TUNE_STRATEGIES_GAUSSIANPROCESS_H

#include <Eigen/Dense>

#include <optional>
#include <vector>

namespace ktune {

class GaussianProcess {
public:
  struct Hyper {
    Eigen::VectorXd logLength; // per input dimension
    double logSignal = 0.0;    // log signal variance of the ARD part
    double logAdditive = -30;  // log signal variance of the additive part
    double logNoise = -6.0;    // log noise variance
  };

  /// With `additive`, the kernel adds to the ARD Matern a first-order
  /// additive one (a sum of one-dimensional Materns with the same length
  /// scales), so main effects learnt anywhere in the space apply everywhere.
  GaussianProcess(int dims, bool additive);

  /// Fixed candidate inputs (rows) whose predictions are maintained.
  void setCandidates(Eigen::MatrixXd candidates);

  /// Sets the inputs X (n x dims) and raw targets y (standardised inside)
  /// and optimises the hyper-parameters: `steps` iterations from the
  /// current ones, plus one restart from the defaults when `restart`.
  void fit(const Eigen::MatrixXd &X, const Eigen::VectorXd &y, int steps,
           bool restart);
  /// Same hyper-parameters; X extends the previous inputs by new rows (the
  /// factor grows by those rows); all targets may change (they are
  /// re-standardised).
  void update(const Eigen::MatrixXd &X, const Eigen::VectorXd &y);

  /// Posterior mean and standard deviation of the standardised target at
  /// the candidates: of the latent function, or (`observed`) of a new
  /// observation, noise included.
  void predictCandidates(Eigen::VectorXd &mean, Eigen::VectorXd &stddev,
                         bool observed) const;
  /// The same at arbitrary rows.
  void predict(const Eigen::MatrixXd &Xs, Eigen::VectorXd &mean,
               Eigen::VectorXd &stddev, bool observed) const;

  /// Standardised value of a raw target.
  double standardise(double y) const { return (y - Mean) / Scale; }
  /// The raw target of a standardised value.
  double unstandardise(double z) const { return z * Scale + Mean; }
  const Hyper &hyper() const { return H; }
  Eigen::Index size() const { return X.rows(); }

private:
  std::optional<double> logLikelihood(const Hyper &h, Hyper *gradient) const;
  Eigen::MatrixXd kernel(const Eigen::MatrixXd &A, const Eigen::MatrixXd &B,
                         const Hyper &h) const;
  void kernelParts(const Eigen::MatrixXd &A, const Eigen::MatrixXd &B,
                   const Hyper &h, Eigen::MatrixXd &full,
                   Eigen::MatrixXd *additive) const;
  double priorVariance() const;
  Hyper defaults() const;
  double logPrior(const Hyper &h, Hyper *gradient) const;
  void setTargets(const Eigen::VectorXd &y);
  /// Factorises K(X, X) from scratch and recomputes the candidate cache.
  void factorise();
  /// Appends rows [from, n) of X to the factor and the cache.
  bool extend(Eigen::Index from);
  void refreshWeights();
  /// Grows the factor and cache buffers to hold `rows` observations.
  void reserve(Eigen::Index rows);

  int Dims;
  bool Additive;
  Hyper H;
  Eigen::MatrixXd X;
  Eigen::VectorXd Y; // standardised targets
  double Mean = 0.0, Scale = 1.0;
  // Buffers with spare rows, so adding an observation copies nothing.
  Eigen::Index Rows = 0; // observations factorised
  Eigen::MatrixXd
      Lbuf; // top-left Rows x Rows: lower Cholesky factor of K + noise I
  Eigen::VectorXd Z;     // L^-1 Y
  Eigen::MatrixXd C;     // candidates
  Eigen::MatrixXd Vbuf;  // top Rows rows: L^-1 K(X, C)
  Eigen::VectorXd VNorm; // squared column norms of V
};

} // namespace ktune

#endif
