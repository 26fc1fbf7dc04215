// detectCandidates on an ASTContext, the way a clang-tidy check calls it:
// a CUDA snippet parsed with ktune's shim header (no toolkit needed).
#include "HostSideAst.h"
#include "ktune/Refactor/CudaParser.h"
#include "ktune/Refactor/Detection.h"

#include "clang/AST/ASTContext.h"
#include "clang/Frontend/ASTUnit.h"
#include "clang/Tooling/Tooling.h"

#include <gtest/gtest.h>

using namespace ktune;
using namespace ktune::refactor;

namespace {

std::unique_ptr<clang::ASTUnit> parse(const std::string &code, bool device) {
  return clang::tooling::buildASTFromCodeWithArgs(
      code, ktune::testing::snippetArgs(device), "k.cu");
}

} // namespace

TEST(AstDetection, OneCandidatePerLinkedConstant) {
  const char *code = R"(
__global__ void __launch_bounds__(256) k(float *x, int n) {
  for (int i = threadIdx.x; i < n; i += 256)
    x[i] = 0.0f;
}
void go(float *x, int n) { k<<<(n + 255) / 256, 256>>>(x, n); }
)";
  for (bool device : {false, true}) {
    auto unit = parse(code, device);
    ASSERT_TRUE(unit);
    ASSERT_FALSE(unit->getDiagnostics().hasErrorOccurred());
    CandidateSet set = detectCandidates(unit->getASTContext(), "k.cu");
    ASSERT_EQ(set.candidates.size(), 1u);
    const Candidate &c = set.candidates[0];
    EXPECT_EQ(c.kind, ParamKind::BlockSize);
    EXPECT_EQ(c.kernel, "k");
    EXPECT_EQ(c.value, 256);
    // launch_bounds, stride, 255 (as P - 1), grid 256, block 256.
    ASSERT_EQ(c.sites.size(), 5u);
    EXPECT_EQ(c.sites[0].role, SiteRole::LaunchBounds);
    EXPECT_EQ(c.sites[2].replacement, "{P} - 1");
    EXPECT_EQ(c.sites[4].role, SiteRole::LaunchBlock);
  }
}

TEST(AstDetection, DeviceOnlyCodeIsSeenByTheDevicePass) {
  const char *code = R"(
__global__ void k(float *x) {
#ifdef __CUDA_ARCH__
#pragma unroll 4
  for (int i = 0; i < 16; ++i)
    x[i] += 1.0f;
#endif
}
)";
  auto host = parse(code, false);
  auto device = parse(code, true);
  ASSERT_TRUE(host && device);
  EXPECT_TRUE(
      detectCandidates(host->getASTContext(), "k.cu").candidates.empty());
  CandidateSet set = detectCandidates(device->getASTContext(), "k.cu");
  ASSERT_EQ(set.candidates.size(), 1u);
  EXPECT_EQ(set.candidates[0].kind, ParamKind::Unroll);
}
