// The clang-tidy module's state: one analysis per translation unit, owned by
// whoever shares it (no process-global state), and the __CUDA_ARCH__
// regions the device pass reports.
#include "UnitAnalysis.h"
#include "../Refactor/HostSideAst.h"
#include "ArchRegions.h"

#include "clang/Frontend/ASTUnit.h"
#include "clang/Frontend/CompilerInstance.h"
#include "clang/Frontend/FrontendActions.h"
#include "clang/Lex/Preprocessor.h"
#include "clang/Tooling/Tooling.h"

#include <gtest/gtest.h>

using namespace ktune;
using namespace ktune::tidy;

namespace {

std::unique_ptr<clang::ASTUnit> parse(const std::string &code) {
  return ktune::testing::parseHostSide(code);
}

const char *Block = R"(
__global__ void scale(float *x, int n) {
  for (int i = threadIdx.x; i < n; i += 256)
    x[i] *= 2.0f;
}
void launch(float *x, int n) { scale<<<1, 256>>>(x, n); }
)";

const char *Unroll = R"(
__global__ void sum(float *x) {
  float s = 0;
#pragma unroll 4
  for (int i = 0; i < 16; ++i)
    s += x[i];
  x[0] = s;
}
void launch(float *x) { sum<<<1, 1>>>(x); }
)";

auto everything = [](const Finding &) { return true; };

} // namespace

TEST(UnitAnalysis, FindingsOfTheUnitAtTheseSettings) {
  auto unit = parse(Block);
  ASSERT_TRUE(unit);
  UnitAnalysis analysis;
  const auto &found = analysis.findings(unit->getASTContext(), Confidence::High,
                                        NamingStyle::UpperCase, everything);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].check, "ktune-block-size");
  EXPECT_EQ(found[0].paramName, "BLOCK_SIZE");
  // Cached per setting: the same findings, not a second analysis.
  EXPECT_EQ(&analysis.findings(unit->getASTContext(), Confidence::High,
                               NamingStyle::UpperCase, everything),
            &found);
  const auto &camel = analysis.findings(unit->getASTContext(), Confidence::High,
                                        NamingStyle::CamelCase, everything);
  ASSERT_EQ(camel.size(), 1u);
  EXPECT_EQ(camel[0].paramName, "BlockSize");
}

TEST(UnitAnalysis, InstancesShareNothing) {
  auto block = parse(Block);
  auto unroll = parse(Unroll);
  ASSERT_TRUE(block && unroll);
  UnitAnalysis a, b;
  const auto &fa = a.findings(block->getASTContext(), Confidence::Low,
                              NamingStyle::UpperCase, everything);
  const auto &fb = b.findings(unroll->getASTContext(), Confidence::Low,
                              NamingStyle::UpperCase, everything);
  ASSERT_FALSE(fa.empty());
  ASSERT_FALSE(fb.empty());
  EXPECT_EQ(fa[0].kind, ParamKind::BlockSize);
  EXPECT_EQ(fb[0].kind, ParamKind::Unroll);
}

TEST(UnitAnalysis, ANewUnitOrAResetStartsAfresh) {
  auto block = parse(Block);
  auto unroll = parse(Unroll);
  ASSERT_TRUE(block && unroll);
  UnitAnalysis analysis;
  auto none = [](const Finding &) { return false; };
  EXPECT_TRUE(analysis
                  .findings(block->getASTContext(), Confidence::Low,
                            NamingStyle::UpperCase, none)
                  .empty());
  // Another unit is analysed on its own, whatever was cached.
  const auto &other =
      analysis.findings(unroll->getASTContext(), Confidence::Low,
                        NamingStyle::UpperCase, everything);
  ASSERT_FALSE(other.empty());
  EXPECT_EQ(other[0].kind, ParamKind::Unroll);
  // After a reset the cache is gone: the filter applies again.
  analysis.reset();
  const auto &again = analysis.findings(block->getASTContext(), Confidence::Low,
                                        NamingStyle::UpperCase, everything);
  ASSERT_FALSE(again.empty());
  EXPECT_EQ(again[0].kind, ParamKind::BlockSize);
}

namespace {

class TrackArch : public clang::PreprocessOnlyAction {
public:
  explicit TrackArch(ArchRegions &regions) : Regions(regions) {}
  bool BeginSourceFileAction(clang::CompilerInstance &ci) override {
    ci.getPreprocessor().addPPCallbacks(
        std::make_unique<ArchConditionTracker>(ci.getSourceManager(), Regions));
    return true;
  }
  ArchRegions &Regions;
};

} // namespace

TEST(ArchRegions, ConditionalsOnCudaArch) {
  std::string code = "#ifdef __CUDA_ARCH__\nint a;\n#endif\n"
                     "#if defined(FOO)\nint b;\n#elif __CUDA_ARCH__ >= 800\n"
                     "int c;\n#endif\n"
                     "#ifndef BAR\nint d;\n#endif\n";
  ArchRegions regions;
  ASSERT_TRUE(clang::tooling::runToolOnCodeWithArgs(
      std::make_unique<TrackArch>(regions), code, {"-std=c++17"}, "k.cpp"));
  ASSERT_EQ(regions.spans.size(), 2u);
  EXPECT_TRUE(regions.contains(static_cast<unsigned>(code.find("int a"))));
  EXPECT_TRUE(regions.contains(static_cast<unsigned>(code.find("int b"))));
  EXPECT_TRUE(regions.contains(static_cast<unsigned>(code.find("int c"))));
  EXPECT_FALSE(regions.contains(static_cast<unsigned>(code.find("int d"))));
}
