//===- ktune/Tune/ScalarType.h - Scalar kernel arguments --------*- C++ -*-===//
//
// The C type of a scalar kernel argument ("const int", "float", "__half")
// and a value's bytes as the kernel reads them.
//
//===----------------------------------------------------------------------===//
#ifndef KTUNE_TUNE_SCALARTYPE_H
#define KTUNE_TUNE_SCALARTYPE_H

#include "ktune/Expr/Expr.h"
#include "ktune/Support/Error.h"

#include <cstddef>
#include <string>
#include <string_view>

namespace ktune {

/// A C scalar type a kernel argument may have.
struct ScalarType {
  enum class Kind {
    Bool,
    SignedInt,
    UnsignedInt,
    Float,
    Double,
    Half,
    BFloat16
  };
  Kind kind = Kind::SignedInt;
  size_t size = 4;
  std::string spelling; // as normalised: "int", "unsigned long long", ...
};

/// The type without qualifiers (const, volatile, __restrict__) or "std::",
/// its words separated by one space: "const std::size_t" -> "size_t".
std::string normaliseType(std::string_view ctype);

/// Parses "const int", "int64_t", "float", "__nv_bfloat16", ... Pointers and
/// class types are errors.
Expected<ScalarType> parseScalarType(std::string_view ctype);

/// The value's bytes as the kernel reads them (little-endian); an integer
/// that does not fit, or a non-integral value for an integer type, is an
/// error.
Expected<std::string> encodeScalar(const ScalarType &type,
                                   const expr::Value &value);

} // namespace ktune

#endif
