//===- RewriteStructural.cpp - Structural parameters' edits ---------------===//
//
// row_split (Detect/RowSplit.cpp says when it is legal): the kernel's body
// becomes
//
//   { if constexpr (ROW_SPLIT == 1) { original body }
//     else { the body with blockIdx.x read as blockIdx.x / ROW_SPLIT, ... } }
//
// so that the default instantiation compiles the original body alone (the
// discarded branch of a template is never instantiated: the same PTX), and
// each launch's grid x is multiplied by the host's ROW_SPLIT.
//
//===----------------------------------------------------------------------===//

#include "RewriteInternal.h"

#include <algorithm>

namespace ktune::refactor {

/// What a split body reads for `use` ("blockIdx.x"), S blocks sharing a row
/// as one block of S times the threads.
static std::string splitRead(const std::string &use, const std::string &s) {
  if (use == "threadIdx.x")
    return "(threadIdx.x + blockDim.x * (blockIdx.x % " + s + "))";
  if (use == "blockIdx.x")
    return "(blockIdx.x / " + s + ")";
  if (use == "blockDim.x")
    return "(blockDim.x * " + s + ")";
  return "(gridDim.x / " + s + ")"; // gridDim.x
}

std::optional<ktune::Error> Rewriter::rowSplitEdits(const KernelWork &w,
                                                    const ParamWork &p) {
  const FunctionFacts &k = *w.kernel;
  const RowSplitFacts &rs = k.rowSplit;
  if (!rs.analysed || !rs.refusal.empty())
    return error(p.path,
                 k.qualifiedName + " cannot take row_split: " +
                     (rs.refusal.empty() ? "not analysed" : rs.refusal));
  // The copy: the body's text with the edits already made inside it and the
  // builtin reads split.
  unsigned open = rs.bodyOpen, close = rs.bodyClose;
  std::vector<Edit> inside;
  for (const Edit &e : Edits)
    if (filePart(e.offset) == filePart(open) && e.offset > open &&
        e.offset + e.length <= close)
      inside.push_back(e);
  for (const BuiltinUse &u : rs.uses)
    inside.push_back(
        Edit{u.offset, u.length, splitRead(u.text, p.kernelName), p.path, 0});
  std::stable_sort(inside.begin(), inside.end(), [](auto &a, auto &b) {
    return std::tie(a.offset, a.order) < std::tie(b.offset, b.order);
  });
  llvm::StringRef text = textAt(open);
  std::string copy;
  unsigned at = localPart(open);
  for (const Edit &e : inside) {
    unsigned from = localPart(e.offset);
    if (from < at)
      return error(p.path,
                   location(Facts, filePart(e.offset), lineOf(text, from)) +
                       ": two edits of " + k.qualifiedName +
                       "'s body overlap: it cannot be split");
    copy += text.substr(at, from - at).str() + e.text;
    at = from + e.length;
  }
  copy += text.substr(at, localPart(close) + 1 - at).str();
  Edits.push_back(
      Edit{open, 0, "{ if constexpr (" + p.kernelName + " == 1) ", p.path, -1});
  Edits.push_back(Edit{close + 1, 0, " else " + copy + " }", p.path, 0});

  // Every launch's grid x, times the host's value.
  for (const auto &call : Facts.calls) {
    if (!call.isLaunch || call.callee != k.id ||
        HostsLeftAlone.count(call.caller) ||
        LaunchesLeftAlone.count({call.caller, call.callee}))
      continue;
    std::string where = location(Facts, filePart(call.offset), call.line);
    if (call.form != CallForm::Chevron || call.gridArgLength == 0)
      return error(p.path, where + ": the launch of " + k.qualifiedName +
                               " is not a <<<>>> launch whose grid is "
                               "spelled here: row_split cannot multiply it");
    std::string s = nameIn(call.caller, w, p);
    unsigned g = call.gridArgOffset, end = g + call.gridArgLength;
    if (call.gridIsDim3) {
      Edits.push_back(Edit{g, 0, "[&] { dim3 ktune_grid = ", p.path, -1});
      Edits.push_back(
          Edit{end, 0, "; ktune_grid.x *= " + s + "; return ktune_grid; }()",
               p.path, 3});
    } else {
      Edits.push_back(Edit{g, 0, "(", p.path, -1});
      Edits.push_back(Edit{end, 0, ") * " + s, p.path, 3});
    }
  }
  return std::nullopt;
}

std::optional<ktune::Error> Rewriter::structuralEdits() {
  for (const auto &w : Work)
    for (const auto &p : w.params)
      if (p.plan->kind == ParamKind::RowSplit)
        if (auto e = rowSplitEdits(w, p))
          return e;
  return std::nullopt;
}

} // namespace ktune::refactor
