//===- ktune/Cuda/DTypeInfo.h - Element types on the device -----*- C++ -*-===//
//
// What the CUDA side needs to know about a buffer's element type: its size,
// the CUDA C++ type that spells it in helper kernels, whether it is a
// floating-point type, and the default verification tolerance.
//
//===----------------------------------------------------------------------===//
#ifndef KTUNE_CUDA_DTYPEINFO_H
#define KTUNE_CUDA_DTYPEINFO_H

#include "ktune/Tune/Spec.h"

#include <optional>
#include <string_view>
#include <vector>

namespace ktune {

struct DTypeInfo {
  DType type;
  std::string_view name;     // "fp32", "bf16", ... (as in spec files)
  std::string_view cudaType; // "float", "__nv_bfloat16", ...
  size_t size;
  bool isFloat;
  Tolerance defaultTolerance; // |got - want| <= atol + rtol * |want|
};

const DTypeInfo &dtypeInfo(DType type);
const std::vector<DTypeInfo> &allDTypes();
std::optional<DType> dtypeFromName(std::string_view name);

/// The spec's tolerance for `type` when it gives one, else the default.
Tolerance toleranceFor(const Spec &spec, DType type);

} // namespace ktune

#endif
