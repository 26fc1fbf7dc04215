//===- NvccSyntax.h - Spellings nvcc accepts and Clang does not -*- C++ -*-===//
//
// nvcc reads a launch written with spaced chevrons, `k << < grid, block >> >
// (args)`; Clang's lexer forms `<<<` and `>>>` only from adjacent
// characters. The main file is parsed from a copy where such chevrons are
// joined, each replacement of the same length as what it replaces, so every
// offset, and every line but the chevrons' own, is unchanged.
//
//===----------------------------------------------------------------------===//
#ifndef KTUNE_LIB_REFACTOR_NVCCSYNTAX_H
#define KTUNE_LIB_REFACTOR_NVCCSYNTAX_H

#include "llvm/ADT/StringRef.h"

#include <optional>
#include <string>

namespace ktune::refactor {

/// `text` with spaced launch chevrons joined (`<< <` -> `<<< `, and the
/// matching `>> >` -> `>>> `); nullopt when there are none.
std::optional<std::string> joinSpacedLaunchChevrons(llvm::StringRef text);

} // namespace ktune::refactor

#endif
