//===- ScalarType.cpp - The C scalar types of kernel arguments ------------===//
#include "ktune/Tune/ScalarType.h"

#include <cmath>
#include <cstring>
#include <limits>
#include <sstream>

namespace ktune {

using expr::Value;

std::string normaliseType(std::string_view text) {
  std::istringstream in{std::string(text)};
  std::string word, out;
  while (in >> word) {
    if (word == "const" || word == "volatile" || word == "__restrict__" ||
        word == "__restrict" || word == "restrict")
      continue;
    if (word.starts_with("std::"))
      word = word.substr(5);
    out += (out.empty() ? "" : " ") + word;
  }
  return out;
}

Expected<ScalarType> parseScalarType(std::string_view ctype) {
  std::string t = normaliseType(ctype);
  if (t.find('*') != std::string::npos || t.find('[') != std::string::npos ||
      t.find('&') != std::string::npos)
    return makeError("'" + std::string(ctype) +
                     "' is a pointer or reference: give the argument a buffer");
  using K = ScalarType::Kind;
  struct Row {
    const char *names;
    K kind;
    size_t size;
  };
  static const Row Rows[] = {
      {"bool", K::Bool, 1},
      {"char|signed char|int8_t", K::SignedInt, 1},
      {"unsigned char|uint8_t", K::UnsignedInt, 1},
      {"short|short int|signed short|signed short int|int16_t", K::SignedInt,
       2},
      // glibc's typedefs (uint, ushort, ulong) come with nvcc's host headers.
      {"unsigned short|unsigned short int|uint16_t|ushort|u_short",
       K::UnsignedInt, 2},
      {"int|signed|signed int|int32_t", K::SignedInt, 4},
      {"unsigned|unsigned int|uint32_t|uint|u_int", K::UnsignedInt, 4},
      {"long|long int|signed long|long long|long long int|signed long long|"
       "int64_t|ptrdiff_t|ssize_t|intptr_t|long signed int",
       K::SignedInt, 8},
      {"unsigned long|unsigned long int|unsigned long long|"
       "unsigned long long int|uint64_t|size_t|uintptr_t|long unsigned int|"
       "ulong|u_long",
       K::UnsignedInt, 8},
      {"float", K::Float, 4},
      {"double", K::Double, 8},
      {"__half|half", K::Half, 2},
      {"__nv_bfloat16|nv_bfloat16", K::BFloat16, 2},
  };
  for (const auto &row : Rows) {
    std::string_view names = row.names;
    size_t start = 0;
    while (start <= names.size()) {
      size_t end = names.find('|', start);
      if (end == std::string_view::npos)
        end = names.size();
      if (names.substr(start, end - start) == t)
        return ScalarType{row.kind, row.size, t};
      start = end + 1;
    }
  }
  return makeError("unsupported scalar argument type '" + std::string(ctype) +
                   "' (kernels taking classes or structs by value cannot be "
                   "launched by the tuner)");
}

static uint16_t floatToHalfBits(float f) {
  uint32_t x;
  std::memcpy(&x, &f, 4);
  uint32_t sign = (x >> 16) & 0x8000u;
  uint32_t exp = (x >> 23) & 0xffu;
  uint32_t mant = x & 0x7fffffu;
  if (exp == 0xff)
    return static_cast<uint16_t>(sign | 0x7c00u | (mant ? 0x200u : 0u));
  int e = static_cast<int>(exp) - 127 + 15;
  if (e >= 31)
    return static_cast<uint16_t>(sign | 0x7c00u);
  if (e <= 0) {
    if (e < -10)
      return static_cast<uint16_t>(sign);
    mant |= 0x800000u;
    int shift = 14 - e;
    uint32_t h = mant >> shift;
    uint32_t rem = mant & ((1u << shift) - 1);
    uint32_t halfway = 1u << (shift - 1);
    if (rem > halfway || (rem == halfway && (h & 1u)))
      ++h;
    return static_cast<uint16_t>(sign | h);
  }
  uint32_t h = (static_cast<uint32_t>(e) << 10) | (mant >> 13);
  uint32_t rem = mant & 0x1fffu;
  if (rem > 0x1000u || (rem == 0x1000u && (h & 1u)))
    ++h; // a carry into the exponent rounds up correctly, to inf at the top
  return static_cast<uint16_t>(sign | h);
}

static uint16_t floatToBFloat16Bits(float f) {
  uint32_t x;
  std::memcpy(&x, &f, 4);
  if (std::isnan(f))
    return static_cast<uint16_t>((x >> 16) | 0x40u);
  x += 0x7fffu + ((x >> 16) & 1u);
  return static_cast<uint16_t>(x >> 16);
}

template <class T> static std::string bytesOf(T v) {
  std::string s(sizeof(T), '\0');
  std::memcpy(s.data(), &v, sizeof(T));
  return s;
}

Expected<std::string> encodeScalar(const ScalarType &type, const Value &v) {
  using K = ScalarType::Kind;
  switch (type.kind) {
  case K::Bool:
    return bytesOf<uint8_t>(v.truthy() ? 1 : 0);
  case K::Float:
    return bytesOf<float>(static_cast<float>(v.asDouble()));
  case K::Double:
    return bytesOf<double>(v.asDouble());
  case K::Half:
    return bytesOf<uint16_t>(floatToHalfBits(static_cast<float>(v.asDouble())));
  case K::BFloat16:
    return bytesOf<uint16_t>(
        floatToBFloat16Bits(static_cast<float>(v.asDouble())));
  case K::SignedInt:
  case K::UnsignedInt:
    break;
  }
  int64_t i = v.i;
  if (!v.isInt()) {
    if (!std::isfinite(v.f) || std::trunc(v.f) != v.f ||
        std::fabs(v.f) > 9.2e18)
      return makeError("value " + v.str() + " is not an integer, but the " +
                       "argument is '" + type.spelling + "'");
    i = static_cast<int64_t>(v.f);
  }
  bool isSigned = type.kind == K::SignedInt;
  if (type.size < 8) {
    int bits = static_cast<int>(type.size * 8);
    int64_t lo = isSigned ? -(int64_t(1) << (bits - 1)) : 0;
    int64_t hi =
        isSigned ? (int64_t(1) << (bits - 1)) - 1 : (int64_t(1) << bits) - 1;
    if (i < lo || i > hi)
      return makeError("value " + std::to_string(i) + " does not fit in '" +
                       type.spelling + "'");
  } else if (!isSigned && i < 0) {
    return makeError("value " + std::to_string(i) + " does not fit in '" +
                     type.spelling + "'");
  }
  switch (type.size) {
  case 1:
    return bytesOf<uint8_t>(static_cast<uint8_t>(i));
  case 2:
    return bytesOf<uint16_t>(static_cast<uint16_t>(i));
  case 4:
    return bytesOf<uint32_t>(static_cast<uint32_t>(i));
  default:
    return bytesOf<uint64_t>(static_cast<uint64_t>(i));
  }
}

} // namespace ktune
