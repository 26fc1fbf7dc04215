//===- DType.cpp - Element types of kernel buffers ------------------------===//
#include "ktune/Support/DType.h"

namespace ktune {

const std::vector<DTypeInfo> &allDTypes() {
  // fp8 tolerances are about one unit in the last place of the format near 1
  // (3 and 2 mantissa bits); integers compare exactly.
  // clang-format off
  static const std::vector<DTypeInfo> Table = {
      {DType::F32, "fp32", {"f32", "float32", "float"}, "float", 4, true,
       {1e-5, 1e-5}},
      {DType::F16, "fp16", {"f16", "float16", "half"}, "__half", 2, true,
       {1e-3, 1e-3}},
      {DType::BF16, "bf16", {"bfloat16"}, "__nv_bfloat16", 2, true,
       {1e-2, 1e-2}},
      {DType::F8E4M3, "fp8e4m3", {"fp8_e4m3", "e4m3"}, "__nv_fp8_e4m3", 1,
       true, {0.125, 0.0156}},
      {DType::F8E5M2, "fp8e5m2", {"fp8_e5m2", "e5m2"}, "__nv_fp8_e5m2", 1,
       true, {0.25, 0.0156}},
      {DType::I8, "int8", {"i8"}, "signed char", 1, false, {0, 0}},
      {DType::U8, "uint8", {"u8"}, "unsigned char", 1, false, {0, 0}},
      {DType::I32, "int32", {"i32", "int"}, "int", 4, false, {0, 0}},
      {DType::U32, "uint32", {"u32"}, "unsigned int", 4, false, {0, 0}},
      {DType::I64, "int64", {"i64"}, "long long", 8, false, {0, 0}},
      {DType::F64, "fp64", {"f64", "float64", "double"}, "double", 8, true,
       {1e-12, 1e-12}},
  };
  // clang-format on
  return Table;
}

const DTypeInfo &dtypeInfo(DType type) {
  for (const auto &info : allDTypes())
    if (info.type == type)
      return info;
  return allDTypes().front(); // unreachable: the table covers the enum
}

std::string_view dtypeName(DType t) { return dtypeInfo(t).name; }

std::optional<DType> parseDType(std::string_view name) {
  if (name.empty())
    return std::nullopt;
  for (const auto &info : allDTypes()) {
    if (name == info.name)
      return info.type;
    for (std::string_view alias : info.aliases)
      if (name == alias)
        return info.type;
  }
  return std::nullopt;
}

size_t dtypeSize(DType t) { return dtypeInfo(t).size; }

Tolerance toleranceFor(const std::map<DType, Tolerance> &given, DType type) {
  auto it = given.find(type);
  return it != given.end() ? it->second : dtypeInfo(type).defaultTolerance;
}

} // namespace ktune
