#include "ktune/Cuda/DTypeInfo.h"

namespace ktune {

const std::vector<DTypeInfo> &allDTypes() {
  // fp8 tolerances are about one unit in the last place of the format near 1
  // (3 and 2 mantissa bits); integers compare exactly.
  static const std::vector<DTypeInfo> Table = {
      {DType::F32, "fp32", "float", 4, true, {1e-5, 1e-5}},
      {DType::F16, "fp16", "__half", 2, true, {1e-3, 1e-3}},
      {DType::BF16, "bf16", "__nv_bfloat16", 2, true, {1e-2, 1e-2}},
      {DType::F8E4M3, "fp8e4m3", "__nv_fp8_e4m3", 1, true, {0.125, 0.0156}},
      {DType::F8E5M2, "fp8e5m2", "__nv_fp8_e5m2", 1, true, {0.25, 0.0156}},
      {DType::I8, "int8", "signed char", 1, false, {0, 0}},
      {DType::U8, "uint8", "unsigned char", 1, false, {0, 0}},
      {DType::I32, "int32", "int", 4, false, {0, 0}},
      {DType::U32, "uint32", "unsigned int", 4, false, {0, 0}},
      {DType::I64, "int64", "long long", 8, false, {0, 0}},
      {DType::F64, "fp64", "double", 8, true, {1e-12, 1e-12}},
  };
  return Table;
}

const DTypeInfo &dtypeInfo(DType type) {
  for (const auto &info : allDTypes())
    if (info.type == type)
      return info;
  return allDTypes().front(); // unreachable: the table covers the enum
}

std::optional<DType> dtypeFromName(std::string_view name) {
  for (const auto &info : allDTypes())
    if (info.name == name)
      return info.type;
  return std::nullopt;
}

Tolerance toleranceFor(const Spec &spec, DType type) {
  auto it = spec.tolerance.find(type);
  if (it != spec.tolerance.end())
    return it->second;
  return dtypeInfo(type).defaultTolerance;
}

} // namespace ktune
