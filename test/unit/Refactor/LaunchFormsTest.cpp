// The launch steps of collectFacts, one by one (lib/Refactor/LaunchForms.cpp
// and the mutation analysis in ConstantAtoms.cpp), on code written for the
// test and parsed with ktune's CUDA shim.
#include "Detect/DetectInternal.h"
#include "HostSideAst.h"

#include "clang/AST/ASTContext.h"
#include "clang/ASTMatchers/ASTMatchFinder.h"
#include "clang/ASTMatchers/ASTMatchers.h"
#include "clang/Analysis/Analyses/ExprMutationAnalyzer.h"
#include "clang/Frontend/ASTUnit.h"
#include "clang/Tooling/Tooling.h"

#include <gtest/gtest.h>

using namespace ktune;
using namespace ktune::refactor;
using namespace clang::ast_matchers;

namespace {

/// The runtime API the launches use, declared as the CUDA toolkit does in
/// substance (the shim has none of it).
const char *Runtime = R"(
struct cudaLaunchConfig_t {
  dim3 gridDim;
  dim3 blockDim;
  size_t dynamicSmemBytes;
  cudaStream_t stream;
};
template <typename... Exp, typename... Act>
cudaError_t cudaLaunchKernelEx(const cudaLaunchConfig_t *, void (*)(Exp...),
                               Act &&...);
cudaError_t cudaLaunchKernel(const void *, dim3, dim3, void **, size_t = 0,
                             cudaStream_t = 0);
cudaError_t cudaLaunchCooperativeKernel(const void *, dim3, dim3, void **,
                                        size_t = 0, cudaStream_t = 0);
template <class T> cudaError_t cudaFuncSetAttribute(T *, int, int);
void opaque(const void *);
)";

/// Each test parses its snippet after Runtime and collects into `out`.
class LaunchFormsTest : public ktune::testing::HostSnippetTest {
protected:
  LaunchFormsTest() { prelude = Runtime; }
  SourceFacts out;
  DetectContext detectContext() { return DetectContext(context(), "k.cu", out); }
};
using LaunchForms = LaunchFormsTest;
using MutationAnalysis = LaunchFormsTest;
using CollectTypes = LaunchFormsTest;

using ktune::testing::first;

/// The one call of `name` in the unit.
const clang::CallExpr *callOf(clang::ASTContext &ctx, const std::string &name) {
  return first<clang::CallExpr>(ctx,
                                callExpr(callee(functionDecl(hasName(name)))));
}

const clang::FunctionDecl *function(clang::ASTContext &ctx,
                                    const std::string &name) {
  return first<clang::FunctionDecl>(
      ctx, functionDecl(hasName(name), isDefinition()));
}

} // namespace

TEST_F(LaunchForms, ApiNames) {
  ASSERT_NO_FATAL_FAILURE(parse(R"(
__global__ void k(int n) {}
void go(int n) {
  void *args[] = {&n};
  cudaLaunchKernel((const void *)k, dim3(1), dim3(64), args);
  cudaLaunchCooperativeKernel((const void *)k, dim3(1), dim3(64), args);
  opaque((const void *)k);
}
)"));
  clang::ASTContext &ctx = context();
  EXPECT_EQ(launchApiName(callOf(ctx, "cudaLaunchKernel")), "cudaLaunchKernel");
  EXPECT_EQ(launchApiName(callOf(ctx, "cudaLaunchCooperativeKernel")),
            "cudaLaunchCooperativeKernel");
  EXPECT_EQ(launchApiName(callOf(ctx, "opaque")), "");
  EXPECT_TRUE(isCudaRuntimeCall(callOf(ctx, "cudaLaunchKernel")));
  EXPECT_FALSE(isCudaRuntimeCall(callOf(ctx, "opaque")));
  EXPECT_TRUE(isCeilDivName("ceil_div"));
  EXPECT_TRUE(isCeilDivName("DIV_UP"));
  EXPECT_TRUE(isCeilDivName("cdiv"));
  EXPECT_FALSE(isCeilDivName("div"));
}

TEST_F(LaunchForms, LaunchKernelExReadsTheConfigAndTheKernelLocal) {
  ASSERT_NO_FATAL_FAILURE(parse(R"(
template <int V, typename T> __global__ void k(T *x, int n) {}
void go(float *x, int n, int rows) {
  cudaLaunchConfig_t config;
  config.gridDim = dim3(rows);
  config.blockDim = dim3(256);
  config.dynamicSmemBytes = 64;
  auto kernel = k<4, float>;
  cudaFuncSetAttribute(kernel, 0, 0);
  cudaLaunchKernelEx(&config, kernel, x, n);
}
)"));
  clang::ASTContext &ctx = context();
  DetectContext c = detectContext();
  const clang::FunctionDecl *go = function(ctx, "go");
  auto view = apiLaunch(c, callOf(ctx, "cudaLaunchKernelEx"), go);
  ASSERT_TRUE(view.has_value());
  EXPECT_EQ(view->form, CallForm::LaunchKernelEx);
  EXPECT_EQ(callFormName(view->form), "cudaLaunchKernelEx");
  ASSERT_NE(view->named.kernel, nullptr);
  EXPECT_EQ(view->named.kernel->getNameAsString(), "k");
  ASSERT_NE(view->named.through, nullptr);
  EXPECT_EQ(view->named.through->getNameAsString(), "kernel");
  EXPECT_TRUE(view->problem.empty()) << view->problem;
  ASSERT_TRUE(view->grid && view->block && view->smem);
  EXPECT_EQ(textOf(c, view->block->getSourceRange()), "dim3(256)");
  EXPECT_EQ(textOf(c, view->smem->getSourceRange()), "64");
  ASSERT_EQ(view->args.size(), 2u);
  EXPECT_EQ(textOf(c, view->args[1]->getSourceRange()), "n");
  // The kernel local is handed to the runtime only: an edit point.
  const auto *init = first<clang::Expr>(
      ctx, declRefExpr(to(functionDecl(hasName("k"))),
                       hasAncestor(varDecl(hasName("kernel")))));
  ASSERT_NE(init, nullptr);
  EXPECT_TRUE(isEditableKernelUse(c, init, go));
}

TEST_F(LaunchForms, ConfigFieldSetTwiceIsNotRead) {
  ASSERT_NO_FATAL_FAILURE(parse(R"(
__global__ void k(int n) {}
void go(int n, bool wide) {
  cudaLaunchConfig_t config = {dim3(1), dim3(128), 0, 0};
  if (wide)
    config.blockDim = dim3(256);
  cudaLaunchKernelEx(&config, k, n);
}
)"));
  clang::ASTContext &ctx = context();
  DetectContext c = detectContext();
  auto view =
      apiLaunch(c, callOf(ctx, "cudaLaunchKernelEx"), function(ctx, "go"));
  ASSERT_TRUE(view.has_value());
  EXPECT_NE(view->problem.find("blockDim"), std::string::npos) << view->problem;
}

TEST_F(LaunchForms, LaunchKernelArgumentsFromTheArray) {
  ASSERT_NO_FATAL_FAILURE(parse(R"(
__global__ void k(float *x, int n) {}
void go(float *x, int n) {
  void *args[] = {(void *)&x, (void *)&n};
  cudaLaunchCooperativeKernel((const void *)k, dim3(n / 128), dim3(128), args,
                              16);
}
)"));
  clang::ASTContext &ctx = context();
  DetectContext c = detectContext();
  auto view = apiLaunch(c, callOf(ctx, "cudaLaunchCooperativeKernel"),
                        function(ctx, "go"));
  ASSERT_TRUE(view.has_value());
  EXPECT_TRUE(view->cooperative);
  ASSERT_EQ(view->args.size(), 2u);
  EXPECT_EQ(textOf(c, view->args[1]->getSourceRange()), "n");
  ASSERT_NE(view->smem, nullptr);
  EXPECT_EQ(textOf(c, view->smem->getSourceRange()), "16");
  // &n in the kernel argument array changes nothing.
  const auto *ref = first<clang::DeclRefExpr>(
      ctx, declRefExpr(to(parmVarDecl(hasName("n"))),
                       hasParent(unaryOperator(hasOperatorName("&")))));
  ASSERT_NE(ref, nullptr);
  EXPECT_TRUE(isLaunchArgumentUse(ctx, ref));
}

TEST_F(LaunchForms, LaunchHelperOfTheFile) {
  ASSERT_NO_FATAL_FAILURE(parse(R"(
__global__ void k(float *x, int n) {}
template <typename K, typename... A>
void launch_with(K kernel, dim3 grid, dim3 block, cudaStream_t s, A... args) {
  kernel<<<grid, block, 0, s>>>(args...);
}
void go(float *x, int n, cudaStream_t s) {
  launch_with(k, dim3(n / 64), dim3(64), s, x, n);
  opaque((const void *)k);
}
)"));
  clang::ASTContext &ctx = context();
  DetectContext c = detectContext();
  const clang::CallExpr *call = callOf(ctx, "launch_with");
  ASSERT_NE(call, nullptr);
  auto helper = launchHelper(c, call->getDirectCallee());
  ASSERT_TRUE(helper.has_value());
  EXPECT_EQ(helper->kernel, 0);
  EXPECT_EQ(helper->grid, 1);
  EXPECT_EQ(helper->block, 2);
  EXPECT_EQ(helper->smem, -1);
  EXPECT_EQ(helper->pack, 4);
  const clang::FunctionDecl *go = function(ctx, "go");
  auto view = helperLaunch(c, call, go);
  ASSERT_TRUE(view.has_value());
  EXPECT_EQ(textOf(c, view->block->getSourceRange()), "dim3(64)");
  ASSERT_EQ(view->args.size(), 2u);
  EXPECT_TRUE(isEditableKernelUse(c, call->getArg(0), go));
  // Handed to an unknown function: no edit point.
  const clang::CallExpr *op = callOf(ctx, "opaque");
  EXPECT_FALSE(isEditableKernelUse(c, op->getArg(0), go));
  EXPECT_FALSE(launchHelper(c, op->getDirectCallee()).has_value());
}

TEST_F(LaunchForms, DispatchesAndTheirConstants) {
  ASSERT_NO_FATAL_FAILURE(parse(R"(
template <int V> __global__ void k(int n) {}
#define DISPATCH(v, V, ...)                                                  \
  switch (v) {                                                               \
  case 8: {                                                                  \
    constexpr int V = 8;                                                     \
    __VA_ARGS__                                                              \
  }                                                                          \
  }
void go(int n, int vec) {
  DISPATCH(vec, VEC, { k<VEC><<<1, n / vec>>>(n); })
  switch (vec) {
  case 4: {
    constexpr int W = 4;
    constexpr int other = 3;
    k<W><<<1, 32>>>(n);
  }
  }
}
)"));
  clang::ASTContext &ctx = context();
  DetectContext c = detectContext();
  const auto *vecConst = first<clang::VarDecl>(ctx, varDecl(hasName("VEC")));
  const auto *w = first<clang::VarDecl>(ctx, varDecl(hasName("W")));
  const auto *other = first<clang::VarDecl>(ctx, varDecl(hasName("other")));
  ASSERT_TRUE(vecConst && w && other);
  EXPECT_TRUE(isDispatchedConstant(c, vecConst)); // from the macro's body
  EXPECT_TRUE(isDispatchedConstant(c, w));        // equal to its case label
  EXPECT_FALSE(isDispatchedConstant(c, other));
  const auto *launch = first<clang::CUDAKernelCallExpr>(
      ctx, cudaKernelCallExpr(
               hasDescendant(declRefExpr(to(varDecl(hasName("W")))))));
  ASSERT_NE(launch, nullptr);
  auto values = dispatchedValues(c, launch);
  ASSERT_EQ(values.size(), 1u);
  EXPECT_EQ(values[0].runtime->getNameAsString(), "vec");
  EXPECT_EQ(values[0].constant, w);
}

TEST_F(LaunchForms, WarpCounts) {
  ASSERT_NO_FATAL_FAILURE(parse(R"(
constexpr unsigned ceil_div(unsigned a, unsigned b) { return (a + b - 1) / b; }
void go(unsigned d) {
  const unsigned block = d < 1024 ? d : 1024;
  const unsigned warps = ceil_div(block, 32);
  const unsigned halves = block / 16;
  (void)warps;
  (void)halves;
}
)"));
  clang::ASTContext &ctx = context();
  DetectContext c = detectContext();
  const clang::FunctionDecl *go = function(ctx, "go");
  auto use = [&](const char *name) {
    return first<clang::Expr>(ctx, declRefExpr(to(varDecl(hasName(name))),
                                               hasParent(cStyleCastExpr())));
  };
  ASSERT_TRUE(use("warps") && use("halves"));
  EXPECT_TRUE(countsWarps(c, use("warps"), go));
  EXPECT_FALSE(countsWarps(c, use("halves"), go));
}

TEST_F(MutationAnalysis, RuntimeArgumentsAndCapturesAreNoWrites) {
  ASSERT_NO_FATAL_FAILURE(parse(R"(
__global__ void k(int n) {}
void go(int n) {
  int block = 128;
  int changed = 64;
  changed *= 2;
  auto run = [&] { k<<<1, block>>>(n); };
  run();
  cudaFuncSetAttribute(k, 0, block);
}
)"));
  clang::ASTContext &ctx = context();
  DetectContext c = detectContext();
  const clang::FunctionDecl *go = function(ctx, "go");
  const auto *block = first<clang::VarDecl>(ctx, varDecl(hasName("block")));
  const auto *changed = first<clang::VarDecl>(ctx, varDecl(hasName("changed")));
  const auto *n = first<clang::ParmVarDecl>(ctx, parmVarDecl(hasName("n")));
  ASSERT_TRUE(block && changed && n);
  EXPECT_TRUE(isEffectivelyConst(c, block, go));
  EXPECT_FALSE(isEffectivelyConst(c, changed, go));
  EXPECT_TRUE(isEffectivelyConst(c, n, go));
}

TEST_F(CollectTypes, ParameterTypesAndCanonicalArguments) {
  ASSERT_NO_FATAL_FAILURE(parse(R"(
typedef unsigned int uint;
enum class Layout : short { Rows };
void go(uint n, long m, Layout l, const int c) {
  using local_t = unsigned long;
  constexpr local_t kLocal = 4;
  (void)kLocal;
}
)"));
  clang::ASTContext &ctx = context();
  const clang::FunctionDecl *go = function(ctx, "go");
  ASSERT_NE(go, nullptr);
  clang::PrintingPolicy pp(ctx.getLangOpts());
  KernelArg n, l, c;
  canonicalArgType(go->getParamDecl(0)->getType(), pp, n);
  canonicalArgType(go->getParamDecl(2)->getType(), pp, l);
  canonicalArgType(go->getParamDecl(3)->getType(), pp, c);
  EXPECT_EQ(n.canonicalType, "unsigned int");
  EXPECT_EQ(l.canonicalType, "short");
  EXPECT_EQ(l.enumName, "Layout");
  EXPECT_EQ(c.canonicalType, "int");
  // Spelled as declared; a function-local typedef as what it names; int as
  // nothing.
  EXPECT_EQ(typeSpelling(ctx, go->getParamDecl(0)->getType()), "uint");
  EXPECT_EQ(typeSpelling(ctx, go->getParamDecl(3)->getType()), "");
  const auto *local = first<clang::VarDecl>(ctx, varDecl(hasName("kLocal")));
  ASSERT_NE(local, nullptr);
  EXPECT_EQ(typeSpelling(ctx, local->getType()), "unsigned long");
}
