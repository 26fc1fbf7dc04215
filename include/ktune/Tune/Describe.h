//===- ktune/Tune/Describe.h - What ktune reads, resolved -------*- C++ -*-===//
//
// `ktune-tune --describe` prints what ktune makes of a spec and a manifest,
// with every expression evaluated: the shapes in tuning order, each buffer's
// extents and bytes, each scalar argument's value, the bytes moved, the launch
// geometry at the default configuration, and each manifest kernel's valid
// configurations. Scripts (the end-to-end benchmark, the examples' checks)
// read this instead of evaluating the expression language themselves.
// Schema: docs/schemas.md#describe.
//
//===----------------------------------------------------------------------===//
#ifndef KTUNE_TUNE_DESCRIBE_H
#define KTUNE_TUNE_DESCRIBE_H

#include "ktune/Plan/Manifest.h"
#include "ktune/Support/Error.h"
#include "ktune/Tune/Spec.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>

namespace ktune {

inline constexpr const char *DescribeVersion = "describe/1";

/// At most this many configurations are listed per kernel.
inline constexpr uint64_t DescribeMaxConfigurations = 1u << 16;

struct DescribeRequest {
  std::string templatePath; // its manifest is read from beside it
  std::string manifestPath; // when not beside the template (or no template)
  std::string specPath;
  std::string kernel; // with a spec: the manifest kernel (default: the spec's)
};

/// The "describe/1" document for whatever the request names: a "spec"
/// section when it has a spec, a "kernels" section when it has a manifest
/// (or a template). Errors name the file and JSON path.
Expected<nlohmann::ordered_json> describeInputs(const DescribeRequest &request);

/// The "spec" section. `specText` is the spec file's text: arguments and
/// dimensions are listed in the order it writes them. With `kernel`, the
/// spec is checked and resolved against it first (as for tuning), scalar C
/// types are known and each shape gets its launch geometry at the default
/// configuration.
Expected<nlohmann::ordered_json> describeSpec(const std::string &specText,
                                              const std::string &origin,
                                              const ManifestKernel *kernel);

/// One entry of the "kernels" section: tunable parameters, the default
/// configuration and the configurations valid under the manifest's
/// constraints, in lexicographic order of the domains.
Expected<nlohmann::ordered_json>
describeManifestKernel(const ManifestKernel &kernel,
                       uint64_t limit = DescribeMaxConfigurations);

} // namespace ktune

#endif
