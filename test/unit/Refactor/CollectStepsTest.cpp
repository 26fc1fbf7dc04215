// The steps of collectFacts, one by one (lib/Refactor/Detect/DetectInternal.h).
#include "Detect/DetectInternal.h"
#include "HostSideAst.h"

#include "clang/AST/ASTContext.h"
#include "clang/ASTMatchers/ASTMatchFinder.h"
#include "clang/ASTMatchers/ASTMatchers.h"
#include "clang/Frontend/ASTUnit.h"
#include "clang/Tooling/Tooling.h"

#include <gtest/gtest.h>

using namespace ktune;
using namespace ktune::refactor;
using namespace clang::ast_matchers;

TEST(CollectSpelling, IdentifiersAndLiterals) {
  EXPECT_TRUE(isIdentifier("kBlock_2"));
  EXPECT_FALSE(isIdentifier("2k"));
  EXPECT_FALSE(isIdentifier(""));
  EXPECT_TRUE(isIntegerLiteralText("256"));
  EXPECT_TRUE(isIntegerLiteralText("1'024u"));
  EXPECT_TRUE(isIntegerLiteralText("0x100"));
  EXPECT_FALSE(isIntegerLiteralText("kBlock"));
  EXPECT_FALSE(isIntegerLiteralText("(256)"));
}

TEST(CollectSpelling, WarpSizeIsNoKnob) {
  EXPECT_TRUE(isFixedByHardware("WARP_SIZE"));
  EXPECT_TRUE(isFixedByHardware("kThreadsPerWarp"));
  EXPECT_FALSE(isFixedByHardware("kWarps"));
  EXPECT_FALSE(isFixedByHardware("BLOCK_SIZE"));
}

TEST(CollectSpelling, VectorTypes) {
  EXPECT_TRUE(isVectorTypeName("float4"));
  EXPECT_TRUE(isVectorTypeName("__nv_bfloat162"));
  EXPECT_FALSE(isVectorTypeName("float"));
  EXPECT_EQ(vectorLanes("float4"), 4);
  EXPECT_EQ(vectorLanes("__half2"), 2);
  EXPECT_EQ(vectorLanes("__nv_bfloat162"), 2);
}

TEST(CollectRoles, TheMoreSpecificRoleWins) {
  EXPECT_EQ(roleRank(SiteRole::Other, std::nullopt), 0);
  EXPECT_EQ(roleRank(SiteRole::Definition, std::nullopt), 0);
  EXPECT_EQ(roleRank(SiteRole::LaunchGrid, std::nullopt), 1);
  EXPECT_EQ(roleRank(SiteRole::LoopBound, std::nullopt), 1);
  EXPECT_EQ(roleRank(SiteRole::LaunchBlock, std::nullopt), 2);
  EXPECT_EQ(roleRank(SiteRole::Definition, SiteRole::SharedExtent), 2);
  EXPECT_EQ(roleRank(SiteRole::VectorBytes, std::nullopt), 3);
}

namespace {

std::unique_ptr<clang::ASTUnit> parse(const std::string &code) {
  return ktune::testing::parseHostSide(code);
}

using CollectConstants = ktune::testing::HostSnippetTest;
using CollectLaunches = ktune::testing::HostSnippetTest;
using ktune::testing::first;

} // namespace

TEST_F(CollectConstants, ClassifyAndEffectivelyConst) {
  ASSERT_NO_FATAL_FAILURE(parse(R"(
#define BLOCK 128
constexpr int kTile = 32;
__global__ void k(float *x) {
  int fixed = 4;
  int changed = 4;
  changed += 1;
  x[0] = BLOCK + kTile + fixed + changed;
}
)"));
  clang::ASTContext &ctx = context();
  SourceFacts out;
  DetectContext c(ctx, "k.cu", out);
  const auto *fn = first<clang::FunctionDecl>(ctx, functionDecl(hasName("k")));
  ASSERT_NE(fn, nullptr);
  const auto *fixed = first<clang::VarDecl>(ctx, varDecl(hasName("fixed")));
  const auto *changed = first<clang::VarDecl>(ctx, varDecl(hasName("changed")));
  ASSERT_TRUE(fixed && changed);
  EXPECT_TRUE(isEffectivelyConst(c, fixed, fn));
  EXPECT_FALSE(isEffectivelyConst(c, changed, fn));

  const auto *ref =
      first<clang::Expr>(ctx, declRefExpr(to(varDecl(hasName("kTile")))));
  ASSERT_NE(ref, nullptr);
  auto atom = classify(c, ref, fn);
  ASSERT_TRUE(atom.has_value());
  EXPECT_EQ(atom->spelling, Spelling::Variable);
  EXPECT_EQ(atom->value, 32);
  EXPECT_EQ(atom->constantName, "kTile");
  const auto *lit = first<clang::Expr>(
      ctx, integerLiteral(equals(128), isExpansionInMainFile()));
  ASSERT_NE(lit, nullptr);
  auto macro = classify(c, lit, fn);
  ASSERT_TRUE(macro.has_value());
  EXPECT_EQ(macro->spelling, Spelling::Macro);
  EXPECT_EQ(macro->constant, "macro:BLOCK");
}

TEST_F(CollectLaunches, TemplateParametersThatSelectBehaviour) {
  ASSERT_NO_FATAL_FAILURE(parse(R"(
enum class Mode { A, B };
template <int N, bool Flag, Mode M, int D>
__global__ void k(float *x) {
  if (D == 2)
    x[0] = N;
}
)"));
  clang::ASTContext &ctx = context();
  const auto *t = first<clang::FunctionTemplateDecl>(
      ctx, functionTemplateDecl(hasName("k")));
  ASSERT_NE(t, nullptr);
  const clang::FunctionDecl *k = t->getTemplatedDecl();
  auto *params = t->getTemplateParameters();
  EXPECT_FALSE(selectsBehaviour(params->getParam(0), k)); // sizes work
  EXPECT_TRUE(selectsBehaviour(params->getParam(1), k));  // bool
  EXPECT_TRUE(selectsBehaviour(params->getParam(2), k));  // enum
  EXPECT_TRUE(selectsBehaviour(params->getParam(3), k));  // compared
}

TEST(CollectHostCode, HostOnlyFunctionsOfTheMainFile) {
  std::string code = R"(__global__ void k(float *x) { x[0] = 1; }
__device__ float twice(float v) { return 2 * v; }
constexpr int eight() { return 8; }
template <typename T>
void launch(T *x) { k<<<1, 1>>>(x); }
void declared(int);
)";
  auto unit = parse(code);
  ASSERT_TRUE(unit);
  SourceFacts facts = collectFacts(unit->getASTContext(), "k.cu");
  ASSERT_EQ(facts.hostOnlyRanges.size(), 2u);
  auto text = [&](std::pair<unsigned, unsigned> r) {
    return code.substr(r.first, r.second - r.first);
  };
  EXPECT_EQ(text(facts.hostOnlyRanges[0]),
            "template <typename T>\nvoid launch(T *x) { k<<<1, 1>>>(x); }");
  EXPECT_EQ(text(facts.hostOnlyRanges[1]), "void declared(int);");
}
