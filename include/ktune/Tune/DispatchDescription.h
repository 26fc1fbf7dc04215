//===- ktune/Tune/DispatchDescription.h - kernel.tuned.json -----*- C++ -*-===//
//
// Beside every dispatch header (kernel.tuned.h) ktune writes kernel.tuned.json:
// the header's entry points, the parameters they take (each tied to the spec
// argument or dimension it carries), the default and general
// configurations, the buckets of the tuned dimensions and the configuration
// each tuned shape launches. A program that calls the header learns its
// signature here instead of parsing C++. Schema: docs/schemas.md#dispatch.
//
//===----------------------------------------------------------------------===//
#ifndef KTUNE_TUNE_DISPATCHDESCRIPTION_H
#define KTUNE_TUNE_DISPATCHDESCRIPTION_H

#include "ktune/Tune/DispatchHeader.h"

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace ktune {

inline constexpr const char *DispatchVersion = "dispatch/1";

/// One parameter of launch_<kernel>_tuned and launch_<kernel>_general.
struct LauncherParam {
  enum class Source { Buffer, Scalar, Dim, Stream };
  std::string name; // the C++ parameter name
  std::string type; // its C++ type, the spec's template arguments filled in
  Source source = Source::Scalar;
  std::string of; // the spec argument or dimension it carries ("" for stream)
  /// Launcher mode: the dimension a scalar argument carries (the spec sets
  /// it to the dimension itself), so the dimension needs no parameter.
  std::string dim;
};

/// The launchers' parameters in order: the kernel's arguments, then each
/// dimension the arguments do not already carry (int64_t, renamed dim_<name>
/// where an argument of the same name holds something else), then the
/// stream. `spec` is resolved (resolveSpec). In launcher mode they are the
/// launcher's own parameters, its stream included, and nothing else unless a
/// dimension is carried by no argument.
std::vector<LauncherParam> launcherParams(const ManifestKernel &kernel,
                                          const Spec &spec);

/// The header's default configuration: the results' (the reference every
/// speedup was measured against), else the manifest's defaults.
/// An error when the results choose a register cap (maxrregcount) at a
/// shape or as the general configuration: no header can apply one, and a
/// header must not promise a time it cannot reproduce.
Status checkNoRegisterCap(const TuneResults &results);

Configuration dispatchDefaultConfig(const ManifestKernel &kernel,
                                    const TuneResults &results);

/// Replaces whole identifiers in a C++ type ("const T *" with T -> float).
std::string
substituteIdentifiers(const std::string &text,
                      const std::map<std::string, std::string> &map);

/// The "dispatch/1" description of the header rendered from `input` and
/// written at `headerPath`.
Expected<nlohmann::ordered_json>
describeDispatch(const DispatchHeaderInput &input,
                 const std::string &headerPath);

/// Where the description of a header goes: kernel.tuned.h -> kernel.tuned.json.
std::string dispatchDescriptionPath(const std::string &headerPath);

} // namespace ktune

#endif
