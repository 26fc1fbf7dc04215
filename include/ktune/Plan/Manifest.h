//===- ktune/Plan/Manifest.h - kernel.tpl.json, stage 2's input -*- C++ -*-===//
//
// The manifest describes the templates stage 1 emitted: each kernel's
// template parameters (tunable ones with kind, default and domain), the
// constraints between them, the kernel's arguments and, where it could be
// read off the host launch site, the launch geometry as expressions.
// Schema: docs/schemas.md#manifest.
//
//===----------------------------------------------------------------------===//
#ifndef KTUNE_PLAN_MANIFEST_H
#define KTUNE_PLAN_MANIFEST_H

#include "ktune/Plan/Domain.h"
#include "ktune/Support/Error.h"

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <vector>

namespace ktune {

inline constexpr const char *ManifestVersion = "manifest/1";

struct TemplateParam {
  std::string name;
  /// "typename", or the C++ type of a non-type parameter ("int", "bool", ...).
  std::string type;
  bool tunable = false;
  std::string kind;                    // tunable: block_size, unroll, ...
  std::optional<int64_t> defaultValue; // tunable: the original constant
  std::optional<Domain> domain;        // tunable
};

struct KernelArg {
  std::string name;
  std::string type; // as spelled, e.g. "const __nv_bfloat16 *__restrict__"
};

/// Launch geometry as expressions over template parameters and kernel
/// argument names (ktune expression language).
struct LaunchGeometry {
  std::vector<std::string> grid;  // 1-3 dimensions
  std::vector<std::string> block; // 1-3 dimensions
  std::string smem = "0";         // dynamic shared memory bytes
  std::string from;               // "file:line" of the launch it was read from
};

struct ManifestKernel {
  std::string name;          // unqualified, e.g. "rmsnorm"
  std::string qualifiedName; // e.g. "ops::rmsnorm", used in name expressions
  std::vector<TemplateParam> templateParams;
  std::vector<KernelArg> args;
  std::vector<std::string> constraints;
  std::optional<LaunchGeometry> launch;

  const TemplateParam *findParam(const std::string &name) const;
  std::vector<const TemplateParam *> tunableParams() const;
};

struct Manifest {
  std::string source;       // the template file, relative to the manifest
  std::string original;     // the file it was made from
  std::string sourceSha256; // of the template file's content
  std::vector<ManifestKernel> kernels;

  const ManifestKernel *findKernel(const std::string &name) const;
};

Expected<Manifest> manifestFromJson(const nlohmann::json &json);
nlohmann::json manifestToJson(const Manifest &manifest);

} // namespace ktune

#endif
