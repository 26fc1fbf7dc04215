//===- HostSideAst.h - Small CUDA units parsed for white-box tests -*- C++
//-*-===//
//
// The host side of a CUDA snippet (ktune's shim header, no toolkit), and the
// first node a matcher finds in it.
//
//===----------------------------------------------------------------------===//
#ifndef KTUNE_TEST_UNIT_REFACTOR_HOSTSIDEAST_H
#define KTUNE_TEST_UNIT_REFACTOR_HOSTSIDEAST_H

#include "clang/AST/ASTContext.h"
#include "clang/ASTMatchers/ASTMatchFinder.h"
#include "clang/Frontend/ASTUnit.h"
#include "clang/Tooling/Tooling.h"

#include <memory>
#include <string>
#include <vector>

namespace ktune::testing {

inline std::unique_ptr<clang::ASTUnit> parseHostSide(const std::string &code) {
  std::string share = std::string(KTUNE_SOURCE_DIR) + "/share/ktune";
  std::vector<std::string> args = {"-x",
                                   "cuda",
                                   "-std=c++17",
                                   "-nocudainc",
                                   "-nocudalib",
                                   "-Wno-unknown-cuda-version",
                                   "-include",
                                   share + "/cuda-shim/ktune_cuda_shim.h",
                                   "--cuda-host-only"};
  return clang::tooling::buildASTFromCodeWithArgs(code, args, "k.cu");
}

/// The first node `m` matches in the unit, or null.
template <typename T, typename M> const T *first(clang::ASTContext &ctx, M m) {
  auto found = clang::ast_matchers::match(m.bind("x"), ctx);
  return found.empty() ? nullptr : found[0].template getNodeAs<T>("x");
}

} // namespace ktune::testing

#endif
