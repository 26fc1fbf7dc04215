#include "ktune/Support/DType.h"

#include <gtest/gtest.h>

using namespace ktune;

TEST(DType, TheTableCoversTheEnumInOrder) {
  const auto &all = allDTypes();
  ASSERT_EQ(all.size(), static_cast<size_t>(DType::F64) + 1);
  for (size_t i = 0; i < all.size(); ++i) {
    EXPECT_EQ(static_cast<size_t>(all[i].type), i);
    EXPECT_EQ(&dtypeInfo(all[i].type), &all[i]);
    EXPECT_EQ(parseDType(all[i].name), all[i].type);
    EXPECT_EQ(dtypeName(all[i].type), all[i].name);
    EXPECT_EQ(dtypeSize(all[i].type), all[i].size);
  }
}

TEST(DType, NamesAndAliases) {
  EXPECT_EQ(parseDType("float"), DType::F32);
  EXPECT_EQ(parseDType("half"), DType::F16);
  EXPECT_EQ(parseDType("bfloat16"), DType::BF16);
  EXPECT_EQ(parseDType("e4m3"), DType::F8E4M3);
  EXPECT_EQ(parseDType("int"), DType::I32);
  EXPECT_EQ(parseDType("double"), DType::F64);
  EXPECT_FALSE(parseDType(""));
  EXPECT_FALSE(parseDType("fp128"));
  EXPECT_EQ(dtypeInfo(DType::BF16).cudaType, "__nv_bfloat16");
  EXPECT_TRUE(dtypeInfo(DType::F8E5M2).isFloat);
  EXPECT_FALSE(dtypeInfo(DType::U32).isFloat);
}

TEST(DType, ToleranceGivenElseTheDefault) {
  std::map<DType, Tolerance> given = {{DType::BF16, {0.5, 0.25}}};
  EXPECT_EQ(toleranceFor(given, DType::BF16).rtol, 0.5);
  EXPECT_EQ(toleranceFor(given, DType::BF16).atol, 0.25);
  EXPECT_EQ(toleranceFor(given, DType::F32).rtol, 1e-5);
  EXPECT_EQ(toleranceFor({}, DType::I32).atol, 0.0);
}
