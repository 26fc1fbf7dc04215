//===- ExamplesTestUtil.h - The hand-written example templates --*- C++ -*-===//
//
// Options for examples/handwritten/{silu_and_mul,planted_faults}: manifests
// read from their .tpl.json files, specs written out here as their
// .spec.json files say.
//
//===----------------------------------------------------------------------===//
#ifndef KTUNE_TEST_UNIT_CUDA_EXAMPLESTESTUTIL_H
#define KTUNE_TEST_UNIT_CUDA_EXAMPLESTESTUTIL_H

#include "CudaTestUtil.h"

#include "ktune/Plan/Manifest.h"

#include <optional>

namespace ktune::test {

inline std::string examplePath(const std::string &name) {
  return std::string(KTUNE_SOURCE_DIR) + "/examples/handwritten/" + name;
}

inline std::optional<CudaTuneOptions> exampleOptions(const std::string &stem,
                                                     const std::string &cache) {
  auto json = readJsonFile(examplePath(stem + ".tpl.json"));
  auto source = readFile(examplePath(stem + ".tpl.cu"));
  if (!json || !source)
    return std::nullopt;
  auto manifest = manifestFromJson(*json);
  if (!manifest)
    return std::nullopt;
  CudaTuneOptions o;
  o.templatePath = examplePath(stem + ".tpl.cu");
  o.templateSource = *source;
  o.manifest = *manifest;
  o.kernel = manifest->kernels.at(0).name;
  o.spec.kernel = o.kernel;
  o.cacheDir = cache;
  o.jobs = 2;
  return o;
}

/// examples/silu_and_mul.spec.json
inline std::optional<CudaTuneOptions> exampleSilu(const std::string &cache) {
  auto o = exampleOptions("silu_and_mul", cache);
  if (!o)
    return o;
  o->spec.templateArgs = {{"T", "__nv_bfloat16"}};
  o->spec.dims = {{"num_tokens", {16, 256}}, {"d", {4096, 11008}}};
  o->spec.args = {bufferArg("out", DType::BF16, {"num_tokens", "d"}, Role::Out),
                  bufferArg("input", DType::BF16, {"num_tokens", "2 * d"}, Role::In),
                  scalarArg("d", "d")};
  o->spec.tolerance = {{DType::BF16, {1e-2, 1e-2}}};
  return o;
}

/// examples/handwritten/planted_faults.spec.json
inline std::optional<CudaTuneOptions> examplePlanted(const std::string &cache) {
  auto o = exampleOptions("planted_faults", cache);
  if (!o)
    return o;
  o->spec.dims = {{"n", {4096, 1000003}}};
  o->spec.args = {bufferArg("y", DType::F32, {"n"}, Role::Out),
                  bufferArg("x", DType::F32, {"n"}, Role::In),
                  scalarArg("n", "n")};
  o->spec.tolerance = {{DType::F32, {1e-6, 1e-6}}};
  return o;
}

} // namespace ktune::test

#endif
