//===- ktune/Support/Sha256.h - Content hashes ------------------*- C++ -*-===//
#ifndef KTUNE_SUPPORT_SHA256_H
#define KTUNE_SUPPORT_SHA256_H

#include <string>
#include <string_view>

namespace ktune {

/// Lower-case hex SHA-256 of `data`.
std::string sha256Hex(std::string_view data);

} // namespace ktune

#endif
