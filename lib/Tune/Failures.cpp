//===- Failures.cpp - What failed, how often, and why ---------------------===//
//
// A run where most configurations fail must not read as a success: results
// count failures by status and reason, the final table warns when one kind
// is the majority, and a default configuration that fails stops the run.
//
//===----------------------------------------------------------------------===//
#include "ktune/Tune/Results.h"

#include "ktune/Support/CompilerMessage.h"

namespace ktune {

std::string reasonKey(const EvalResult &r) {
  std::string reason = r.reason;
  if (r.status == EvalStatus::CompileError)
    if (auto first = firstCompilerError(reason))
      return first->where + ": " + first->message;
  reason = reason.substr(0, reason.find('\n'));
  if (reason.size() > 300)
    reason = reason.substr(0, 297) + "...";
  return reason;
}

void FailureTally::add(const EvalResult &r) {
  if (r.status != EvalStatus::Ok)
    ++Reasons[r.status][reasonKey(r)];
}

FailureSummaries FailureTally::summaries() const {
  FailureSummaries out;
  for (const auto &[status, reasons] : Reasons) {
    FailureSummary &f = out[status];
    for (const auto &[reason, n] : reasons) {
      f.count += n;
      if (n > f.commonestCount) {
        f.commonestCount = n;
        f.commonestReason = reason;
      }
    }
  }
  return out;
}

bool journaledBy(const JournalKey &key, const TuneResults &r) {
  return key.templateSha256 == r.templateSha256 && key.kernel == r.kernel &&
         key.device == r.device && key.arch == r.arch &&
         key.compiler == journalCompiler(r.compiler);
}

std::string failureWarning(const TuneResults &r) {
  uint64_t total = 0;
  for (const auto &s : r.shapes)
    total += s.evaluations;
  std::string out;
  for (const auto &[status, f] : r.failures) {
    if (status == EvalStatus::Pruned || total == 0 || 2 * f.count <= total)
      continue;
    std::string what = status == EvalStatus::CompileError
                           ? "did not compile"
                           : "failed (" + std::string(statusName(status)) + ")";
    out += "warning: " + std::to_string(f.count) + " of " +
           std::to_string(total) + " evaluated configurations " + what +
           "; the commonest reason (" + std::to_string(f.commonestCount) +
           " of them): " + f.commonestReason + "\n";
  }
  return out;
}

Error defaultFailureError(const Shape &shape, const Configuration &config,
                          const EvalResult &r) {
  Error e;
  std::string why = r.reason;
  if (r.status == EvalStatus::CompileError) {
    if (auto first = firstCompilerError(why)) {
      e.where = first->where;
      why = first->message;
    }
    e.message = "the default configuration (" + configText(config) +
                ") does not compile";
  } else {
    e.message = "the default configuration (" + configText(config) + ") is " +
                std::string(statusPhrase(r.status));
  }
  e.message += " at shape " + shapeText(shape) + ": " +
               why.substr(0, why.find('\n')) +
               "; it is the reference every configuration is checked "
               "against, so nothing was tuned";
  return e;
}

} // namespace ktune
