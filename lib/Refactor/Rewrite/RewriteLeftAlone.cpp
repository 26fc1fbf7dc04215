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

/// A call of a launcher that cannot be given template arguments keeps the
/// launcher's defaults there: said once per caller and callee.
void Rewriter::noteCallAtDefaults(const CallFacts &call) {
  if (!CallsAtDefaults.insert({call.caller, call.callee}).second)
    return;
  const FunctionFacts *caller = Facts.function(call.caller);
  const FunctionFacts *callee = Facts.function(call.callee);
  // A call spelled outside its caller (in a header's macro) is placed at
  // the caller.
  bool inCaller = caller && caller->rangeBegin <= call.offset &&
                  call.offset < caller->rangeEnd;
  Notes.push_back(
      (inCaller || !caller
           ? location(Facts, filePart(call.offset), call.line)
           : location(Facts, filePart(caller->offset), caller->line)) +
      ": the call of " +
      (callee ? callee->qualifiedName : std::string("its callee")) +
      (caller ? " in " + caller->qualifiedName : std::string()) +
      " keeps the callee's default configuration: cannot pass template "
      "arguments: " +
      call.implicitArgsError);
}

} // namespace ktune::refactor
