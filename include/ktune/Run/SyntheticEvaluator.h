//===- ktune/Run/SyntheticEvaluator.h - Times from a formula ----*- C++ -*-===//
//
// A testing aid: an Evaluator whose times come from expressions over the
// configuration and the shape, so `ktune run`'s loop (tune, analyse,
// re-plan, tune again) runs deterministically on a machine without a GPU.
// `ktune run --synthetic-times FILE` uses it; nothing is compiled or
// launched. Format ("synthetic/1", docs/run.md#testing-without-a-gpu):
//
//   {"ktune": "synthetic/1",
//    "device": "synthetic H200", "arch": "sm_90", "roofline_tbps": 4.25,
//    "time_us": "2 + 6 * num_tokens * d / 4.25e6 + abs(VEC - 16) / 4",
//    "iqr_pct": 0.5,                    // the IQR reported, % of the time
//    "fail": "BLOCK_SIZE * VEC > 8192", // optional: runtime_error when true
//    "registers": "24 + 2 * VEC",       // optional resources: registers,
//    "threads_per_block": "BLOCK_SIZE", // smem, threads_per_block,
//                                       // blocks_per_sm
//    "defaults": {"UNROLL": 1}}         // names the configuration may lack
//
// Expressions are ktune's expression language; the names are the shape's
// dimensions, the configuration's parameters, then `defaults`.
//
//===----------------------------------------------------------------------===//
#ifndef KTUNE_RUN_SYNTHETICEVALUATOR_H
#define KTUNE_RUN_SYNTHETICEVALUATOR_H

#include "ktune/Expr/Expr.h"
#include "ktune/Tune/Evaluator.h"

#include <nlohmann/json.hpp>

#include <map>
#include <optional>
#include <string>

namespace ktune::run {

struct SyntheticModel {
  std::string device = "synthetic", arch = "sm_90";
  std::optional<double> rooflineTBps;
  expr::Expr timeUs = expr::Expr::integer(1);
  double iqrPct = 0.5;
  std::optional<expr::Expr> fail, registers, smem, threadsPerBlock, blocksPerSM;
  std::map<std::string, int64_t> defaults;
};

/// Reads "synthetic/1"; errors name the JSON path.
Expected<SyntheticModel> syntheticModelFromJson(const nlohmann::json &json);

class SyntheticEvaluator : public Evaluator {
public:
  explicit SyntheticEvaluator(SyntheticModel model) : Model(std::move(model)) {}
  std::string device() const override { return Model.device; }
  std::string arch() const override { return Model.arch; }
  /// A name the expressions cannot resolve is a compile_error naming it
  /// (a mistake in the test's formula should show, not time as zero).
  EvalResult evaluate(const Shape &shape, const Configuration &config) override;

private:
  SyntheticModel Model;
};

} // namespace ktune::run

#endif
