//===- RewriteStructural.cpp - Structural parameters' edits ---------------===//
//
// row_split (Detect/RowSplit.cpp says when it is legal): the kernel's body
// becomes
//
//   { if constexpr (ROW_SPLIT == 1) { original body }
//     else { the body with blockIdx.x read as blockIdx.x / ROW_SPLIT and
//            each block-stride loop taking every ROW_SPLIT-th chunk of
//            blockDim.x iterations, successive loops from opposite ends } }
//
// so that the default instantiation compiles the original body alone (the
// discarded branch of a template is never instantiated: the same PTX), and
// each launch's grid x is multiplied by the host's ROW_SPLIT.
//
// A register cap (min_blocks, Detect/RegisterCap.cpp) writes its bounds
// into the kernel's declaration; launches pass it like any parameter.
//
// fixed_arg (Detect/FixedArgs.cpp) renames the argument in the definition
// and declares, first in the body, a constant of its name: FIXED_N when
// that is not 0, else the argument.
//
//===----------------------------------------------------------------------===//

#include "RewriteInternal.h"

#include <algorithm>
#include <variant>

namespace ktune::refactor {

/// What a split body reads for `use` ("blockIdx.x" or "gridDim.x"): S
/// blocks share a row.
static std::string splitRead(const std::string &use, const std::string &s) {
  if (use == "blockIdx.x")
    return "(blockIdx.x / " + s + ")";
  return "(gridDim.x / " + s + ")"; // gridDim.x
}

/// The text of [from, to] (positions in one file) with `edits` (sorted,
/// all inside) made, or where two of them overlap.
static std::variant<std::string, Position>
withEdits(llvm::StringRef text, Position from, Position to,
          const std::vector<Edit> &edits) {
  std::string out;
  unsigned at = localPart(from);
  for (const Edit &e : edits) {
    if (e.offset < from || e.offset + e.length > to + 1)
      continue;
    unsigned begin = localPart(e.offset);
    if (begin < at)
      return e.offset;
    out += text.substr(at, begin - at).str() + e.text;
    at = begin + e.length;
  }
  return out + text.substr(at, localPart(to) + 1 - at).str();
}

std::optional<ktune::Error> Rewriter::rowSplitEdits(const KernelWork &w,
                                                    const ParamWork &p) {
  const FunctionFacts &k = *w.kernel;
  const RowSplitFacts &rs = k.rowSplit;
  if (!rs.analysed || !rs.refusal.empty())
    return error(p.path,
                 k.qualifiedName + " cannot take row_split: " +
                     (rs.refusal.empty() ? "not analysed" : rs.refusal));
  const std::string &s = p.kernelName;
  unsigned open = rs.bodyOpen, close = rs.bodyClose;
  llvm::StringRef text = textAt(open);
  auto overlap = [&](Position at) {
    return error(p.path,
                 location(Facts, filePart(at), lineOf(text, localPart(at))) +
                     ": two edits of " + k.qualifiedName +
                     "'s body overlap: it cannot be split");
  };
  // The copy: the body's text with the edits already made inside it, the
  // builtin reads split and each block-stride loop strided over the row's
  // blocks.
  std::vector<Edit> inside;
  for (const Edit &e : Edits)
    if (filePart(e.offset) == filePart(open) && e.offset > open &&
        e.offset + e.length <= close)
      inside.push_back(e);
  std::stable_sort(inside.begin(), inside.end(), [](auto &a, auto &b) {
    return std::tie(a.offset, a.order) < std::tie(b.offset, b.order);
  });
  std::vector<Edit> split = inside;
  for (const BuiltinUse &u : rs.uses)
    split.push_back(Edit{u.offset, u.length, splitRead(u.text, s), p.path, 0});
  // Successive loops deal their chunks from opposite ends of the row's
  // blocks: the blocks left idle by a short loop (FlashInfer's vector loop)
  // take the next one's chunks (its remainder loop), so no block waits on
  // two memory round trips while another has none.
  bool reversed = false;
  for (const SplitLoop &l : rs.loops) {
    const std::string block = reversed
                                  ? "(" + s + " - 1 - blockIdx.x % " + s + ")"
                                  : "(blockIdx.x % " + s + ")";
    reversed = !reversed;
    auto step = withEdits(text, l.step, l.step + l.stepLength - 1, inside);
    if (auto *at = std::get_if<Position>(&step))
      return overlap(*at);
    const std::string &stepText = std::get<std::string>(step);
    split.push_back(Edit{l.start, 0, "(", p.path, -1});
    split.push_back(Edit{l.start + l.startLength, 0,
                         ") + (" + stepText + ") * " + block, p.path, 3});
    split.push_back(Edit{l.step, 0, "(", p.path, -1});
    split.push_back(Edit{l.step + l.stepLength, 0, ") * " + s, p.path, 3});
  }
  std::stable_sort(split.begin(), split.end(), [](auto &a, auto &b) {
    return std::tie(a.offset, a.order) < std::tie(b.offset, b.order);
  });
  auto copy = withEdits(text, open, close, split);
  if (auto *at = std::get_if<Position>(&copy))
    return overlap(*at);
  Edits.push_back(
      Edit{open, 0, "{ if constexpr (" + s + " == 1) ", p.path, -1});
  Edits.push_back(Edit{
      close + 1, 0, " else " + std::get<std::string>(copy) + " }", p.path, 0});

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
    std::string host = nameIn(call.caller, w, p);
    unsigned g = call.gridArgOffset, end = g + call.gridArgLength;
    if (call.gridIsDim3) {
      Edits.push_back(Edit{g, 0, "[&] { dim3 ktune_grid = ", p.path, -1});
      Edits.push_back(
          Edit{end, 0, "; ktune_grid.x *= " + host + "; return ktune_grid; }()",
               p.path, 3});
    } else {
      Edits.push_back(Edit{g, 0, "(", p.path, -1});
      Edits.push_back(Edit{end, 0, ") * " + host, p.path, 3});
    }
  }
  return std::nullopt;
}

std::optional<ktune::Error> Rewriter::fixedArgEdits(const KernelWork &w,
                                                    const ParamWork &p) {
  if (!p.fixes)
    return error(p.path, w.kernel->qualifiedName +
                             " has no argument this parameter can fix");
  const FixableArg &a = *p.fixes;
  std::string renamed = "ktune_arg_" + a.name;
  const std::string &n = p.kernelName;
  Edits.push_back(Edit{a.nameAt, a.nameLength, renamed, p.path, 0});
  // Before any other edit inside the body: a row_split's copy of the body
  // (which starts after the '{') declares it too.
  Edits.push_back(Edit{a.bodyOpen + 1, 0,
                       " const decltype(" + renamed + ") " + a.name + " = " +
                           n + " != 0 ? " + n + " : " + renamed + ";",
                       p.path, -2});
  return std::nullopt;
}

std::optional<ktune::Error> Rewriter::structuralEdits() {
  // Fixed arguments first: a row_split copies the body with its edits.
  for (const auto &w : Work)
    for (const auto &p : w.params)
      if (p.plan->kind == ParamKind::FixedArg)
        if (auto e = fixedArgEdits(w, p))
          return e;
  for (const auto &w : Work)
    for (const auto &p : w.params) {
      if (p.plan->kind == ParamKind::RowSplit)
        if (auto e = rowSplitEdits(w, p))
          return e;
      // A register cap's bounds, in the kernel's declaration.
      for (const PlacedSite &s : p.sites)
        if (s.site->role == SiteRole::KernelAttributes)
          Edits.push_back(Edit{s.position, 0, substitute(*s.site, p.kernelName),
                               p.path, 0});
    }
  return std::nullopt;
}

} // namespace ktune::refactor
