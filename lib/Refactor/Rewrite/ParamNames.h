//===- ParamNames.h - New names that mean nothing yet at a site -*- C++ -*-===//
//
// A new template parameter named like a macro would be expanded away
// (`template <int BLOCK_SIZE = 256>` under `#define BLOCK_SIZE (BLOCK_X *
// BLOCK_Y)` reads `template <int (16 * 16) = 256>`). Planners see the
// sources' text only, not the macros a header, a system header or the
// command line defines: every macro Clang knew at the end of either side's
// parse is collected, and a plan's name that is one of them is renamed.
//
//===----------------------------------------------------------------------===//
#ifndef KTUNE_LIB_REFACTOR_PARAMNAMES_H
#define KTUNE_LIB_REFACTOR_PARAMNAMES_H

#include "ktune/Plan/Plan.h"

#include "clang/AST/ASTContext.h"

#include <set>
#include <string>
#include <vector>

namespace ktune::refactor {

/// Every identifier that is a macro at the end of the translation unit,
/// those of a precompiled preamble included.
std::set<std::string> macroNames(clang::ASTContext &ctx);

/// `plan` with every parameter named like one of `macros` (but those the
/// sources #define, which validation reports) renamed to a name
/// used nowhere in `sources` nor among `macros` (`BLOCK_SIZE_2`), in its
/// constraints too; one note per renamed parameter.
Plan withoutMacroNames(Plan plan, const std::set<std::string> &macros,
                       const SourceTexts &sources,
                       std::vector<std::string> &notes);

} // namespace ktune::refactor

#endif
