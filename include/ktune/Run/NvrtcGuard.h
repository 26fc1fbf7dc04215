//===- ktune/Run/NvrtcGuard.h - Templates NVRTC can compile -----*- C++ -*-===//
//
// The tuner compiles templates with NVRTC, which refuses host functions
// ("host functions are not allowed in JIT mode") and has no C++ standard
// library. Real kernel files have both: host launchers next to the kernels,
// <algorithm> and <cstdint> among the includes. `ktune run` therefore
//
//  - wraps every host-only function of the template (definitions and
//    declarations, found on the host side of a Clang parse) in
//    `#ifndef __CUDACC_RTC__` ... `#endif`: nvcc and clang never define that
//    macro, so for them the file is unchanged;
//  - compiles with share/ktune/nvrtc-compat on NVRTC's include path: small
//    headers named like the standard ones (<cstdint>, <algorithm>, ...) that
//    map to libcu++ (cuda::std) or are empty where only host code uses them.
//
//===----------------------------------------------------------------------===//
#ifndef KTUNE_RUN_NVRTCGUARD_H
#define KTUNE_RUN_NVRTCGUARD_H

#include "ktune/Refactor/CudaParser.h"
#include "ktune/Support/Error.h"

#include <string>
#include <utility>
#include <vector>

namespace ktune::run {

/// A byte range [begin, end) of the main file.
using ByteRange = std::pair<unsigned, unsigned>;

/// The host-only functions of `command.file` (neither __device__ nor
/// __global__, not constexpr): definitions from their `template` keyword or
/// first token to the closing brace, declarations to their ';'. Outermost
/// ranges only, in file order. Parse errors carry Clang's diagnostics.
llvm::Expected<std::vector<ByteRange>>
hostOnlyRanges(const refactor::CompileCommand &command,
               const refactor::ParserOptions &options);

/// `text` with each range, widened to whole lines, between
/// `#ifndef __CUDACC_RTC__` and `#endif` lines. Ranges that share a line
/// with other code are widened to the shared lines too (one guard).
std::string guardHostCode(const std::string &text,
                          const std::vector<ByteRange> &ranges);

} // namespace ktune::run

#endif
