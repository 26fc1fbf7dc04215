//===- RowSplitLoops.h - Block-stride loops a row_split shares out -*- C++ -*-===//
//
// Private to RowSplit.cpp and RowSplitLoops.cpp.
//
//===----------------------------------------------------------------------===//

#ifndef KTUNE_LIB_REFACTOR_DETECT_ROWSPLITLOOPS_H
#define KTUNE_LIB_REFACTOR_DETECT_ROWSPLITLOOPS_H

#include "DetectInternal.h"

#include <optional>
#include <string>
#include <utility>

namespace ktune::refactor {

/// `at` lies in `range` (both in one translation unit).
bool within(const clang::SourceManager &sm, clang::SourceLocation at,
            clang::SourceRange range);

/// The variable a write to `e` lands in when the write stays in the thread
/// (a variable held by value, reached through `.` and array subscripts);
/// null when it goes to memory (through a pointer).
const clang::VarDecl *variableWritten(const clang::Expr *e);

/// What `s` writes, and where, when it is a write: an assignment, an
/// increment or decrement (also a class's operators), or a call of a
/// method that is not const (its object).
std::optional<std::pair<const clang::Expr *, clang::SourceLocation>>
writeOf(const clang::Stmt *s);

/// Where one iteration of the block-stride loop `loop` of `kernel` may
/// depend on another, and why; nothing when its iterations are
/// independent: its body and condition write no local declared outside the
/// loop (its variable is written only by the step), nothing leaves the loop
/// early, and a variable declared before the loop is not read after it.
std::optional<std::pair<clang::SourceLocation, std::string>>
iterationsDepend(DetectContext &c, const clang::FunctionDecl *kernel,
                 const clang::ForStmt *loop);

} // namespace ktune::refactor

#endif
