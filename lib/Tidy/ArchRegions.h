//===- ArchRegions.h - Code one compilation side does not see ---*- C++ -*-===//
//
// A CUDA file is often checked twice (--cuda-host-only and
// --cuda-device-only). The device pass reports only what lies inside an
// #if/#ifdef on __CUDA_ARCH__, which the host pass never sees; these are
// the byte ranges of the main file (and of headers) inside such
// conditionals.
//
//===----------------------------------------------------------------------===//
#ifndef KTUNE_LIB_TIDY_ARCHREGIONS_H
#define KTUNE_LIB_TIDY_ARCHREGIONS_H

#include "clang/Basic/SourceManager.h"
#include "clang/Lex/PPCallbacks.h"

#include <map>
#include <string>
#include <utility>
#include <vector>

namespace ktune::tidy {

/// Byte ranges inside #if/#ifdef chains that test __CUDA_ARCH__: what one
/// compilation side sees and the other does not. `spans` are the main
/// file's; headers' are kept by the name Clang gives them.
struct ArchRegions {
  std::vector<std::pair<unsigned, unsigned>> spans;
  std::map<std::string, std::vector<std::pair<unsigned, unsigned>>> headerSpans;
  bool contains(unsigned offset) const;
  bool contains(const std::string &header, unsigned offset) const;
};

/// Records the regions while the preprocessor runs.
class ArchConditionTracker : public clang::PPCallbacks {
public:
  ArchConditionTracker(const clang::SourceManager &sm, ArchRegions &regions)
      : SM(sm), Regions(regions) {}

  void If(clang::SourceLocation loc, clang::SourceRange condition,
          ConditionValueKind) override;
  void Elif(clang::SourceLocation loc, clang::SourceRange condition,
            ConditionValueKind, clang::SourceLocation ifLoc) override;
  void Ifdef(clang::SourceLocation loc, const clang::Token &name,
             const clang::MacroDefinition &) override;
  void Ifndef(clang::SourceLocation loc, const clang::Token &name,
              const clang::MacroDefinition &) override;
  void Endif(clang::SourceLocation loc, clang::SourceLocation ifLoc) override;

private:
  void note(clang::SourceLocation ifLoc, bool arch);
  bool mentionsArch(clang::SourceRange range) const;

  const clang::SourceManager &SM;
  ArchRegions &Regions;
  std::map<clang::SourceLocation::UIntTy, bool> Open;
};

} // namespace ktune::tidy

#endif
