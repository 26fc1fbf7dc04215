// Spellings nvcc accepts and Clang does not
// (lib/Refactor/Parse/ParseInternal.h).
#include "Parse/ParseInternal.h"

#include <gtest/gtest.h>

using namespace ktune::refactor;

TEST(SpacedChevrons, JoinedInPlace) {
  EXPECT_EQ(joinSpacedLaunchChevrons("k << < g, b >> > (x);"),
            "k <<<  g, b >>>  (x);");
  // The gap keeps its characters (a newline stays a newline).
  EXPECT_EQ(joinSpacedLaunchChevrons("k <<\n< g, f(b) >>\t> (x);"),
            "k <<<\n g, f(b) >>>\t (x);");
  // Only the opener spaced: the closer is already whole.
  EXPECT_EQ(joinSpacedLaunchChevrons("k << <g, b>>>(x);"), "k <<< g, b>>>(x);");
}

TEST(SpacedChevrons, LengthAlwaysKept) {
  std::string text = "void f() { k << <  n / 2, 64 >>  > (a[i >> 1]); }";
  auto joined = joinSpacedLaunchChevrons(text);
  ASSERT_TRUE(joined);
  EXPECT_EQ(joined->size(), text.size());
}

TEST(SpacedChevrons, OtherCodeUntouched) {
  EXPECT_EQ(joinSpacedLaunchChevrons("k<<<g, b>>>(x);"), std::nullopt);
  EXPECT_EQ(joinSpacedLaunchChevrons(
                "template std::ostream &operator<< <int>(std::ostream &);"),
            std::nullopt);
  EXPECT_EQ(joinSpacedLaunchChevrons("std::vector<std::vector<int>> > v;"),
            std::nullopt);
  EXPECT_EQ(joinSpacedLaunchChevrons("int a = b << c; // k << < g >> > ()"),
            std::nullopt);
  EXPECT_EQ(joinSpacedLaunchChevrons("const char *s = \"k << < g >> >\";"),
            std::nullopt);
}

TEST(BracedLaunchDims, Parenthesised) {
  EXPECT_EQ(joinSpacedLaunchChevrons("k<<<g, {bx, by, 1}, 0, s>>>(x);"),
            "k<<<g, (bx, by, 1), 0, s>>>(x);");
  EXPECT_EQ(joinSpacedLaunchChevrons("k<<<{n, f(m)}, b>>>(x);"),
            "k<<<(n, f(m)), b>>>(x);");
  // Spaced chevrons and a braced block together.
  EXPECT_EQ(joinSpacedLaunchChevrons("k << < g, {32, 8} >> > (x);"),
            "k <<<  g, (32, 8) >>>  (x);");
}

TEST(BracedLaunchDims, OtherBracesUntouched) {
  // A dim3 written with braces is a whole expression already.
  EXPECT_EQ(joinSpacedLaunchChevrons("k<<<g, dim3{bx, by}>>>(x);"),
            std::nullopt);
  // Braces among the kernel's arguments are no launch dims.
  EXPECT_EQ(joinSpacedLaunchChevrons("k<<<g, b>>>(S{1, 2});"), std::nullopt);
}

TEST(SpecializationTargets, HostDroppedWhereThePrimaryIsDeviceOnly) {
  // jetson-utils' cudaVector.h: nvcc matches the specialisation, Clang
  // ignores the template ("target attributes do not match").
  std::string text =
      "template<typename T> inline __device__ T alpha(T v, T d = 255) {}\n"
      "template<> inline __host__ __device__ float alpha(float v, float d) "
      "{ return d; }\n";
  auto out = matchSpecializationTargets(text);
  ASSERT_TRUE(out);
  EXPECT_EQ(out->size(), text.size());
  EXPECT_NE(out->find("template<> inline          __device__ float alpha("),
            std::string::npos);
  EXPECT_EQ(nvccSpellings(text), out);
}

TEST(SpecializationTargets, MatchingOrUnknownTargetsUntouched) {
  // The primary is __host__ __device__ too.
  EXPECT_EQ(matchSpecializationTargets(
                "template<typename T> __host__ __device__ T f(T);\n"
                "template<> __host__ __device__ int f(int x) { return x; }\n"),
            std::nullopt);
  // No primary in this text, or two that disagree.
  EXPECT_EQ(matchSpecializationTargets(
                "template<> __host__ __device__ int g(int x) { return x; }\n"),
            std::nullopt);
  EXPECT_EQ(matchSpecializationTargets(
                "template<typename T> __device__ T h(T);\n"
                "template<typename T, int N> __host__ __device__ T h(T, int);\n"
                "template<> __host__ __device__ int h(int x) { return x; }\n"),
            std::nullopt);
  // A class template's specialisation is no function.
  EXPECT_EQ(
      matchSpecializationTargets(
          "template<typename T> struct S { __device__ void f(); };\n"
          "template<> struct S<int> { __host__ __device__ void f(); };\n"),
      std::nullopt);
}

TEST(RuntimeDeclarations, HostDroppedFromAssertfail) {
  // haste's device_assert.h declares __assertfail as CUDA's CRT headers do;
  // Clang's wrapper declares it __device__ only ("cannot overload").
  std::string text = "extern \"C\"\n__host__ __device__\nvoid __assertfail(\n"
                     "    const char *a, const char *f, unsigned l,\n"
                     "    const char *fn, size_t n);\n";
  auto out = matchRuntimeDeclarations(text);
  ASSERT_TRUE(out);
  EXPECT_EQ(out->size(), text.size());
  EXPECT_NE(out->find("extern \"C\"\n         __device__\nvoid __assertfail("),
            std::string::npos);
  EXPECT_EQ(nvccSpellings(text), out);
  // Calls, other functions and host-only declarations are left.
  EXPECT_EQ(matchRuntimeDeclarations(
                "__device__ void f() { __assertfail(\"x\", \"f\", 1, \"f\", "
                "1); }\n__host__ __device__ void g(int);\n"
                "extern \"C\" __host__ void __assertfail(const char *);\n"),
            std::nullopt);
}
