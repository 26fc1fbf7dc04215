//===- HostSideAst.h - Small CUDA units parsed for white-box tests -*- C++
//-*-===//
//
// A CUDA snippet parsed with ktune's shim header (no toolkit), one side at a
// time, and the first node a matcher finds in it.
//
//===----------------------------------------------------------------------===//
#ifndef KTUNE_TEST_UNIT_REFACTOR_HOSTSIDEAST_H
#define KTUNE_TEST_UNIT_REFACTOR_HOSTSIDEAST_H

#include "clang/AST/ASTContext.h"
#include "clang/ASTMatchers/ASTMatchFinder.h"
#include "clang/Frontend/ASTUnit.h"
#include "clang/Tooling/Tooling.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

namespace ktune::testing {

/// Clang's arguments for a CUDA snippet: ktune's shim header instead of the
/// toolkit, one side of the compilation (the device side for sm_90).
inline std::vector<std::string> snippetArgs(bool device = false) {
  std::string share = std::string(KTUNE_SOURCE_DIR) + "/share/ktune";
  std::vector<std::string> args = {
      "-x",         "cuda",
      "-std=c++17", "-nocudainc",
      "-nocudalib", "-Wno-unknown-cuda-version",
      "-include",   share + "/cuda-shim/ktune_cuda_shim.h"};
  if (device) {
    args.push_back("--cuda-device-only");
    args.push_back("--cuda-gpu-arch=sm_90");
  } else {
    args.push_back("--cuda-host-only");
  }
  return args;
}

inline std::unique_ptr<clang::ASTUnit> parseHostSide(const std::string &code) {
  return clang::tooling::buildASTFromCodeWithArgs(code, snippetArgs(), "k.cu");
}

/// The first node `m` matches in the unit, or null.
template <typename T, typename M> const T *first(clang::ASTContext &ctx, M m) {
  auto found = clang::ast_matchers::match(m.bind("x"), ctx);
  return found.empty() ? nullptr : found[0].template getNodeAs<T>("x");
}

/// A test of one snippet parsed host side after `prelude`. Call
/// ASSERT_NO_FATAL_FAILURE(parse(code)): the test stops there when the
/// snippet does not compile.
class HostSnippetTest : public ::testing::Test {
protected:
  std::string prelude;
  std::unique_ptr<clang::ASTUnit> unit;

  void parse(const std::string &code) {
    unit = parseHostSide(prelude + code);
    ASSERT_TRUE(unit);
    ASSERT_FALSE(unit->getDiagnostics().hasErrorOccurred());
  }
  clang::ASTContext &context() { return unit->getASTContext(); }
};

} // namespace ktune::testing

#endif
