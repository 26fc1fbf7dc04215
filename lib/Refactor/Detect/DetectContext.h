//===- DetectContext.h - What the steps of detection share ------*- C++ -*-===//
//
// collectFacts reads one AST in steps (DetectInternal.h). Every step is a
// free function over a DetectContext: the AST, the files read, and what
// the traversal learnt so far. Steps record what they find through the
// context's one FactSink; locations become positions (SourceFacts.h) only
// through the functions declared here.
//
// Nothing here is part of ktune's public API.
//
//===----------------------------------------------------------------------===//
#ifndef KTUNE_LIB_REFACTOR_DETECT_DETECTCONTEXT_H
#define KTUNE_LIB_REFACTOR_DETECT_DETECTCONTEXT_H

#include "ktune/Refactor/HeaderFilter.h"
#include "ktune/Refactor/SourceFacts.h"

#include "clang/AST/ASTContext.h"
#include "clang/Basic/SourceManager.h"

#include <map>
#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

namespace ktune::refactor {

/// How specific a role is: a site recorded in two roles keeps the more
/// specific one (other < grid and index arithmetic < the rest < vector
/// bytes).
int roleRank(SiteRole role, std::optional<SiteRole> useRole);

/// Where the steps record what they find: the facts of one compilation
/// side. Occurrences are kept one per (position, function id, kernel id)
/// until finish() sorts them into the facts.
class FactSink {
public:
  explicit FactSink(SourceFacts &facts) : Facts(facts) {}

  /// An occurrence in its role: recorded once already, the most specific
  /// role wins (roleRank) and the launches reading it add up (`launch`).
  void occurrence(Occurrence o, std::optional<Position> launch);
  /// An occurrence built whole (vector types): the first one of its key
  /// stays.
  void addOccurrence(Occurrence o);
  void note(std::string message) { Facts.notes.push_back(std::move(message)); }
  void call(CallFacts call) { Facts.calls.push_back(std::move(call)); }
  /// Moves the occurrences into the facts, in order of position.
  void finish();

  SourceFacts &Facts;
  /// By position, function and kernel (and constant, for insertions: the
  /// local constants shadowing header constants share one position).
  std::map<std::tuple<Position, std::string, std::string, std::string>,
           Occurrence>
      Occs;
};

/// Bytes [begin, end) of a file included or not depending on __CUDA_ARCH__:
/// a branch of an #if/#ifdef/#ifndef chain, from the first condition of the
/// chain that names it (or a macro defined from it) on; `directive` is the
/// offset of the chain's #if.
struct ArchRange {
  unsigned begin = 0, end = 0, directive = 0;
};

/// What one traversal knows: the AST, the file table, caches, the sink.
struct DetectContext {
  /// `headers` says which headers besides the main file may be read and
  /// rewritten (null: none). The main file is entered as file 0.
  DetectContext(clang::ASTContext &ctx, std::string file, SourceFacts &out,
                const HeaderFilter *headers = nullptr);

  clang::ASTContext &Ctx;
  clang::SourceManager &SM;
  const clang::LangOptions &LO;
  clang::FileID Main;
  std::string File;
  const HeaderFilter *Headers;
  FactSink Sink;
  /// Sink.Facts.files' entries: the FileID they were entered from, by
  /// index, and the index (or none) of every FileID looked at.
  std::vector<clang::FileID> FileIds;
  std::map<clang::FileID, std::optional<unsigned>> FileIndexCache;
  std::map<std::pair<const clang::FunctionDecl *, const clang::VarDecl *>, bool>
      ConstCache;
  std::set<const clang::FunctionDecl *> ScannedDevice;
  std::map<clang::FileID, std::vector<ArchRange>> ArchRanges;
  /// Kernels that are not templates, named other than as a launch's callee
  /// (cudaLaunchKernel((void *)k, ...), helper(k, ...)), with the line.
  std::map<const clang::FunctionDecl *, unsigned> NamedNotLaunched;
  /// Host functions that are not templates, named other than as a call's
  /// callee (`m.def("f", &f)`, a function pointer): a template of their
  /// name would make that name an overload set, so the template takes
  /// another (FunctionFacts::templateName) and they forward to it.
  std::set<const clang::FunctionDecl *> HostNamedNotCalled;
  /// Constants a launch's grid helper reads in its body, for the launch
  /// being read: kernel id, constant, and the note if the kernel uses it.
  std::vector<std::tuple<std::string, std::string, std::string>>
      GridHelperReads;
  /// Host function templates' calls with explicit template arguments, in
  /// non-template host functions of rewritable files: per template, each
  /// call's written arguments and the calling function (LauncherCallers.cpp).
  struct TemplateCall {
    std::vector<const clang::Expr *> args; // null: not an expression
    std::vector<std::string> argTexts;     // each as written
    const clang::DeclRefExpr *ref = nullptr;
    const clang::FunctionDecl *caller = nullptr;
  };
  std::optional<
      std::map<const clang::FunctionTemplateDecl *, std::vector<TemplateCall>>>
      LauncherCalls;
};

// --- locations as positions (CollectFacts.cpp) -------------------------------
// Places are Positions (SourceFacts.h): in the main file or a rewritable
// header.

/// The expansion of `loc` is in the main file or a rewritable header.
bool inRewritableFile(DetectContext &c, clang::SourceLocation loc);
/// [position, length) of the tokens of `range` (one file).
std::optional<std::pair<Position, unsigned>>
fileRange(DetectContext &c, clang::SourceRange range);
/// The position of `loc` (its file location), in a file detection reads.
std::optional<Position> positionOf(DetectContext &c, clang::SourceLocation loc);
std::pair<unsigned, unsigned> lineCol(DetectContext &c, Position position);
std::string text(DetectContext &c, Position position, unsigned length);
std::string textOf(DetectContext &c, clang::SourceRange range);
/// The whole text of the file `position` is in.
llvm::StringRef fileText(DetectContext &c, Position position);
/// "file:line:col: message" at `loc`.
std::string noteAt(DetectContext &c, clang::SourceLocation loc,
                   const std::string &message);

// --- the file table (FileTable.cpp) ------------------------------------------

/// The index of `fid`'s file in the facts' files, entered on first use;
/// nullopt for system headers and headers the filter keeps out.
std::optional<unsigned> fileIndex(DetectContext &c, clang::FileID fid);

} // namespace ktune::refactor

#endif
