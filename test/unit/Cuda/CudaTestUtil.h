//===- CudaTestUtil.h - Manifests and specs for the CUDA tests --*- C++ -*-===//
#ifndef KTUNE_TEST_UNIT_CUDA_CUDATESTUTIL_H
#define KTUNE_TEST_UNIT_CUDA_CUDATESTUTIL_H

#include "ktune/Cuda/CudaEvaluator.h"
#include "ktune/Support/FileUtil.h"

#include <filesystem>
#include <string>
#include <unistd.h>

namespace ktune::test {

inline std::string inputPath(const std::string &name) {
  return std::string(KTUNE_SOURCE_DIR) + "/test/unit/Cuda/Inputs/" + name;
}

inline TemplateParam tunable(const std::string &name, int64_t def,
                             std::vector<int64_t> values,
                             const std::string &kind = "other") {
  TemplateParam p;
  p.name = name;
  p.type = "int";
  p.tunable = true;
  p.kind = parseKind(kind).value_or(ParamKind::Other);
  p.defaultValue = def;
  p.domain = Domain::ofValues(std::move(values));
  return p;
}

inline TemplateParam fixedParam(const std::string &name,
                                const std::string &type = "typename") {
  TemplateParam p;
  p.name = name;
  p.type = type;
  return p;
}

inline SpecArg bufferArg(const std::string &name, DType dtype,
                         std::vector<std::string> shape, Role role,
                         const std::string &init = "normal") {
  BufferArg b;
  b.dtype = dtype;
  b.shape = std::move(shape);
  b.role = role;
  b.init = init;
  return SpecArg{name, b};
}

inline SpecArg scalarArg(const std::string &name, const std::string &value) {
  return SpecArg{name, ScalarArg{value, ""}};
}

/// A fresh directory under the system's temporary directory.
inline std::string freshDir(const std::string &prefix) {
  std::string tmpl =
      (std::filesystem::temp_directory_path() / (prefix + "-XXXXXX")).string();
  if (!mkdtemp(tmpl.data()))
    return {};
  return tmpl;
}

/// Options for tuning the template Inputs/<file> (its source read), with
/// the compile cache in `cacheDir` and two compile jobs.
inline CudaTuneOptions templateOptions(const std::string &file,
                                       const std::string &cacheDir) {
  CudaTuneOptions o;
  o.templatePath = inputPath(file);
  o.templateSource = *readFile(o.templatePath);
  o.cacheDir = cacheDir;
  o.jobs = 2;
  return o;
}

inline ManifestKernel kernelNamed(const std::string &name,
                                  const std::string &qualifiedName) {
  ManifestKernel mk;
  mk.name = name;
  mk.qualifiedName = qualifiedName;
  return mk;
}

/// A kernel `name<BLOCK, X>(float *out, const float *in, int n)` over n
/// elements, one element per thread, grid ceil_div(n, BLOCK).
struct ElementwiseKernel {
  std::string name;
  std::string secondParam;
  int64_t blockDefault = 128;
  int64_t secondDefault = 0;
  std::vector<int64_t> secondValues;
};

inline CudaTuneOptions elementwiseOptions(const ElementwiseKernel &k, int64_t n,
                                          const std::string &cacheDir) {
  CudaTuneOptions o = templateOptions("kernels.tpl.cu", cacheDir);
  ManifestKernel mk = kernelNamed(k.name, k.name);
  mk.templateParams = {tunable("BLOCK", k.blockDefault,
                               {32, 64, 128, 256, 512, 1024, 2048},
                               "block_size"),
                       tunable(k.secondParam, k.secondDefault, k.secondValues)};
  mk.args = {{"out", "float *"}, {"in", "const float *"}, {"n", "int"}};
  mk.launch = LaunchGeometry{{"ceil_div(n, BLOCK)"}, {"BLOCK"}, "0", ""};
  o.manifest.kernels = {mk};
  o.kernel = k.name;
  o.spec.kernel = k.name;
  o.spec.dims = {{"n", {n}}};
  o.spec.args = {bufferArg("out", DType::F32, {"n"}, Role::Out),
                 bufferArg("in", DType::F32, {"n"}, Role::In),
                 scalarArg("n", "n")};
  return o;
}

inline CudaTuneOptions siluOptions(const std::string &cacheDir) {
  CudaTuneOptions o = templateOptions("silu_mul.tpl.cu", cacheDir);
  ManifestKernel mk = kernelNamed("silu_and_mul", "ops::silu_and_mul");
  mk.templateParams = {
      fixedParam("T"),
      tunable("BLOCK_SIZE", 256, {64, 128, 256, 512, 1024, 2048}, "block_size"),
      tunable("VEC", 4, {1, 2, 4, 8, 16}, "vector_width")};
  mk.args = {{"out", "T *__restrict__"},
             {"in", "const T *__restrict__"},
             {"d", "int"}};
  mk.launch = LaunchGeometry{{"tokens"}, {"BLOCK_SIZE"}, "0", ""};
  o.manifest.kernels = {mk};
  o.kernel = "silu_and_mul";
  o.spec.kernel = "silu_and_mul";
  o.spec.templateArgs = {{"T", "__nv_bfloat16"}};
  o.spec.dims = {{"tokens", {64}}, {"d", {4096}}};
  o.spec.args = {bufferArg("out", DType::BF16, {"tokens", "d"}, Role::Out),
                 bufferArg("in", DType::BF16, {"tokens", "2 * d"}, Role::In),
                 scalarArg("d", "d")};
  return o;
}

} // namespace ktune::test

#endif
