//===- ktune/Support/DType.h - Element types of kernel buffers --*- C++ -*-===//
//
// One table of the element types a spec can give a buffer: the name spec
// files use and the aliases they accept, the size, the CUDA C++ type that
// spells it in helper kernels, whether it is a floating-point type, and the
// default verification tolerance. Both the spec reader and the CUDA side
// read it.
//
//===----------------------------------------------------------------------===//
#ifndef KTUNE_SUPPORT_DTYPE_H
#define KTUNE_SUPPORT_DTYPE_H

#include <array>
#include <cstddef>
#include <map>
#include <optional>
#include <string_view>
#include <vector>

namespace ktune {

enum class DType { F32, F16, BF16, F8E4M3, F8E5M2, I8, U8, I32, U32, I64, F64 };

/// |got - want| <= atol + rtol * |want|
struct Tolerance {
  double rtol = 0.0, atol = 0.0;
};

struct DTypeInfo {
  DType type;
  std::string_view name; // "fp32", "bf16", ... (as spec files write it)
  std::array<std::string_view, 3> aliases; // also accepted ("float", "half")
  std::string_view cudaType;               // "float", "__nv_bfloat16", ...
  size_t size;
  bool isFloat;
  Tolerance defaultTolerance;
};

/// Every element type, in the enum's order.
const std::vector<DTypeInfo> &allDTypes();
const DTypeInfo &dtypeInfo(DType type);

std::string_view dtypeName(DType t); // "fp32", "fp16", "bf16", "fp8e4m3", ...
/// A name or an alias.
std::optional<DType> parseDType(std::string_view name);
size_t dtypeSize(DType t);

/// The tolerance `given` sets for `type`, else the type's default.
Tolerance toleranceFor(const std::map<DType, Tolerance> &given, DType type);

} // namespace ktune

#endif
