//===- ktune/Tune/DispatchHeader.h - kernel.tuned.h -------------*- C++ -*-===//
//
// The header a kernel engineer includes to use what tuning found: it includes
// the template and provides launch_<kernel>_tuned(args..., dims..., stream),
// which launches the best instantiation for the nearest tuned shape and the
// default instantiation for anything else, plus the default and general
// configurations as constants. The text comes from a template file
// (templates/dispatch_header.h.in) with {{placeholders}} filled in here.
//
//===----------------------------------------------------------------------===//
#ifndef KTUNE_TUNE_DISPATCHHEADER_H
#define KTUNE_TUNE_DISPATCHHEADER_H

#include "ktune/Plan/Manifest.h"
#include "ktune/Tune/Results.h"
#include "ktune/Tune/Spec.h"

#include <map>
#include <string>
#include <vector>

namespace ktune {

struct DispatchHeaderInput {
  const ManifestKernel *kernel = nullptr;
  const Spec *spec = nullptr; // as resolved by resolveSpec
  const TuneResults *results = nullptr;
  /// The constraints the space was built with (manifest + spec); those that
  /// mention dimensions are checked at run time before a tuned launch.
  std::vector<std::string> constraints;
  std::string templateInclude; // as written in #include "..."
  std::string templateFile;    // for the banner
  /// Launcher mode: the launcher's return type as spelled ("void").
  std::string launcherReturns;
};

/// Fills `templateText` in. `templateOrigin` names it in errors (an unknown
/// placeholder is reported with its line).
Expected<std::string> renderDispatchHeader(const std::string &templateText,
                                           const std::string &templateOrigin,
                                           const DispatchHeaderInput &input);

/// renderTextTemplate (ktune/Support/TextTemplate.h) with the header's
/// syntax: strict, since a stray `{{` in C++ output can only be a typo. An
/// unknown name is an error naming origin:line.
Expected<std::string>
fillPlaceholders(const std::string &text, const std::string &origin,
                 const std::map<std::string, std::string> &values);

/// Upper bounds of the buckets of a dimension tuned at `values` (sorted,
/// distinct): a value v is in bucket i when it is above bound i-1 and at
/// most bound i. Bounds are the geometric midpoints of neighbouring values
/// (arithmetic when a value is not positive), since problem sizes are
/// usually tuned at geometric steps.
std::vector<int64_t> bucketBounds(const std::vector<int64_t> &values);

} // namespace ktune

#endif
