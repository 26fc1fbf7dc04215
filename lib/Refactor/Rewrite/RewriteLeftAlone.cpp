//===- RewriteLeftAlone.cpp - Sites that keep their values ----------------===//
//
// Where one launch or function cannot be rewritten safely, that site keeps
// its original value, with a note saying why, and the rest of the file is
// still lifted.
//
//===----------------------------------------------------------------------===//

#include "RewriteInternal.h"

#include <algorithm>

namespace ktune::refactor {

/// A launch whose implicit template arguments cannot be spelled cannot
/// pass the kernel's new ones: its host keeps that kernel's defaults.
void Rewriter::leaveUnspellableLaunches(const KernelWork &w) {
  bool passes = std::any_of(w.params.begin(), w.params.end(), [](auto &p) {
    return p.boundParam < 0 && !p.launchParam;
  });
  for (const auto &call : Facts.calls) {
    const FunctionFacts *h = Facts.function(call.caller);
    if (!passes || !call.namesKernel() || call.callee != w.kernel->id ||
        call.implicitArgsError.empty() || !h || h->role != FunctionRole::Host ||
        !LaunchesLeftAlone.insert({h->id, w.kernel->id}).second)
      continue;
    Notes.push_back(
        location(Facts, filePart(call.offset), call.line) + ": the launch of " +
        w.kernel->qualifiedName + " in " + h->qualifiedName +
        " keeps the default configuration: " + call.implicitArgsError);
  }
}

} // namespace ktune::refactor
