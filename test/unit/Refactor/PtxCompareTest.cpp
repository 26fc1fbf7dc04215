//===- PtxCompareTest.cpp - The self-check's PTX comparison ---------------===//

#include "PtxCompare.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/raw_ostream.h"

#include <gtest/gtest.h>

using namespace ktune::refactor;

namespace {

/// A module of one kernel `_Z5scalePf` whose local depot and block label
/// carry the numbers nvcc gives by the function's place in the module.
std::string module(int place, const std::string &multiplier) {
  std::string n = std::to_string(place);
  return ".version 8.8\n.target sm_90\n.address_size 64\n\n"
         ".visible .entry _Z5scalePf(\n\t.param .u64 _Z5scalePf_param_0\n)\n{\n"
         "\t.local .align 1 .b8 \t__local_depot" +
         n +
         "[5];\n"
         "\tmov.u64 \t%SPL, __local_depot" +
         n +
         ";\n"
         "$L__BB" +
         n +
         "_1:\n"
         "\tmul.f32 \t%f2, %f1, " +
         multiplier +
         ";\n"
         "\tret;\n}\n";
}

TEST(PtxCompareTest, NumbersGivenByPlaceInTheModuleAreNoDifference) {
  EXPECT_TRUE(
      comparePtx(module(279, "0f40000000"), module(275, "0f40000000")).empty());
}

/// A kernel that asserts: its message and file name are string literals
/// `$str$N`, its function name an unnamed constant, numbered by place.
std::string assertingModule(int place, const std::string &message,
                            const std::string &file) {
  auto bytes = [](const std::string &text) {
    std::string out;
    for (char c : text)
      out += std::to_string(static_cast<unsigned char>(c)) + ", ";
    return out + "0";
  };
  std::string n = std::to_string(place), m = std::to_string(place + 1);
  return ".version 8.8\n.target sm_90\n.address_size 64\n\n"
         ".global .align 1 .b8 __unnamed_" +
         n +
         "[2] = {107, 0};\n"
         ".global .align 1 .b8 $str$" +
         n + "[" + std::to_string(message.size() + 1) + "] = {" +
         bytes(message) + "};\n.global .align 1 .b8 $str$" + m + "[" +
         std::to_string(file.size() + 1) + "] = {" + bytes(file) +
         "};\n\n"
         ".visible .entry _Z1kv()\n{\n"
         "\tmov.u64 \t%rd1, $str$" +
         n +
         ";\n"
         "\tmov.u64 \t%rd2, $str$" +
         m +
         ";\n"
         "\tmov.u64 \t%rd3, __unnamed_" +
         n +
         ";\n"
         "\tret;\n}\n";
}

TEST(PtxCompareTest, StringLiteralsCompareByWhatTheyHold) {
  EXPECT_TRUE(comparePtx(assertingModule(8, "n < 256", "k.cu"),
                         assertingModule(10, "n < 256", "k.cu"))
                  .empty());
  EXPECT_EQ(comparePtx(assertingModule(8, "n < 256", "k.cu"),
                       assertingModule(10, "n < TILE", "k.cu"))
                .size(),
            1u);
}

TEST(PtxCompareTest, TheCompiledFilesOwnNamesAreOneName) {
  std::string original = assertingModule(8, "n < 256", "src/k.cu"),
              tpl = assertingModule(10, "n < 256", "/tmp/v/k.tpl.cu");
  EXPECT_EQ(comparePtx(original, tpl).size(), 1u);
  EXPECT_TRUE(comparePtx(original, tpl, "src/k.cu", "/tmp/v/k.tpl.cu").empty());
}

TEST(PtxCompareTest, AHeadersNameSpelledAnotherWayIsOneName) {
  // An assert in a header: its __FILE__ is the path the header was included
  // by, relative in the original, absolute in the template.
  llvm::SmallString<128> root;
  ASSERT_FALSE(llvm::sys::fs::createUniqueDirectory("ptx-paths", root));
  std::string dir = root.str().str();
  ASSERT_FALSE(llvm::sys::fs::create_directories(dir + "/src/x"));
  ASSERT_FALSE(llvm::sys::fs::create_directories(dir + "/common"));
  for (const char *name : {"/common/bits.h", "/common/other.h"}) {
    std::error_code ec;
    llvm::raw_fd_ostream(dir + name, ec) << "// header\n";
    ASSERT_FALSE(ec);
  }
  std::string relative = dir + "/src/x/../../common/bits.h";
  EXPECT_TRUE(comparePtx(assertingModule(8, "i < n", relative),
                         assertingModule(10, "i < n", dir + "/common/bits.h"))
                  .empty());
  EXPECT_EQ(comparePtx(assertingModule(8, "i < n", relative),
                       assertingModule(10, "i < n", dir + "/common/other.h"))
                .size(),
            1u);
  llvm::sys::fs::remove_directories(dir);
}

TEST(PtxCompareTest, ARewrittenHeadersCopyIsTheHeader) {
  // An assert in a header that the template rewrites: its __FILE__ is the
  // copy written beside the template, which stands for the header; another
  // file does not.
  llvm::SmallString<128> root;
  ASSERT_FALSE(llvm::sys::fs::createUniqueDirectory("ptx-copies", root));
  std::string dir = root.str().str();
  ASSERT_FALSE(llvm::sys::fs::create_directories(dir + "/lib"));
  ASSERT_FALSE(llvm::sys::fs::create_directories(dir + "/out/include/lib"));
  for (const char *name :
       {"/lib/norm.cuh", "/out/include/lib/norm.cuh", "/lib/other.cuh"}) {
    std::error_code ec;
    llvm::raw_fd_ostream(dir + name, ec) << "// header\n";
    ASSERT_FALSE(ec);
  }
  std::string header = dir + "/lib/norm.cuh",
              copy = dir + "/out/include/lib/norm.cuh";
  std::map<std::string, std::string> copies = {{copy, header}};
  EXPECT_TRUE(comparePtx(assertingModule(8, "i < n", header),
                         assertingModule(10, "i < n", copy), "", "", copies)
                  .empty());
  EXPECT_EQ(comparePtx(assertingModule(8, "i < n", header),
                       assertingModule(10, "i < n", copy))
                .size(),
            1u);
  EXPECT_EQ(comparePtx(assertingModule(8, "i < n", dir + "/lib/other.cuh"),
                       assertingModule(10, "i < n", copy), "", "", copies)
                .size(),
            1u);
  llvm::sys::fs::remove_directories(dir);
}

TEST(PtxCompareTest, AnInstructionThatDiffersIsReported) {
  auto mismatches =
      comparePtx(module(279, "0f40000000"), module(275, "0f40400000"));
  ASSERT_EQ(mismatches.size(), 1u);
  EXPECT_NE(mismatches[0].diff.find("0f40400000"), std::string::npos);
}

/// A kernel whose inlined static helper (internal linkage, so nvcc names it
/// after the file) owns a __shared__ array: `kernel` is the kernel's
/// mangled name, `helper` the helper's encoding inside the local static's.
std::string helperModule(const std::string &kernel, const std::string &helper,
                         const std::string &size) {
  std::string tile = "_ZZ" + helper + "E4tile";
  return ".version 8.8\n.target sm_90\n.address_size 64\n\n"
         ".visible .entry " +
         kernel + "(\n\t.param .u64 " + kernel +
         "_param_0\n)\n{\n"
         "\t.shared .align 4 .b8 " +
         tile + "[" + size +
         "];\n"
         "\tmov.u32 \t%r1, " +
         tile +
         ";\n"
         "\tret;\n}\n";
}

// The original file k.cu: kernel `k(float*)` calls `helper<false>`; the
// template k.tpl.cu: `k<8>` calls `helper<false, 8>`.
const char *OriginalKernel = "_Z1kPf";
const char *TemplateKernel = "_Z1kILi8EEvPf";
const char *OriginalHelper =
    "N34_INTERNAL_0a1b2c3d_4_k_cu_5e6f7a8b6helperILb0EEEvPf";
const char *TemplateHelper =
    "N38_INTERNAL_9c8d7e6f_8_k_tpl_cu_5e6f7a8b6helperILb0ELi8EEEvPf";

TEST(PtxCompareTest, AnInlinedHelpersLocalStaticFollowsItsAddedArguments) {
  EXPECT_TRUE(comparePtx(helperModule(OriginalKernel, OriginalHelper, "256"),
                         helperModule(TemplateKernel, TemplateHelper, "256"))
                  .empty());
}

TEST(PtxCompareTest, AnInlinedHelpersLocalStaticOfAnotherSizeDiffers) {
  auto mismatches =
      comparePtx(helperModule(OriginalKernel, OriginalHelper, "256"),
                 helperModule(TemplateKernel, TemplateHelper, "512"));
  ASSERT_EQ(mismatches.size(), 1u);
  EXPECT_NE(mismatches[0].diff.find("[512]"), std::string::npos);
}

TEST(PtxCompareTest, ALocalStaticOfAnotherHelperDiffers) {
  // helper<true, 8> is not what the original's helper<false> became.
  auto mismatches = comparePtx(
      helperModule(OriginalKernel, OriginalHelper, "256"),
      helperModule(
          TemplateKernel,
          "N38_INTERNAL_9c8d7e6f_8_k_tpl_cu_5e6f7a8b6helperILb1ELi8EEEvPf",
          "256"));
  EXPECT_EQ(mismatches.size(), 1u);
}

/// A kernel with a static __shared__ word, built with -rdc: a non-template
/// kernel's is declared in its body ("demoted"), a template's at module
/// scope (.weak .shared).
std::string rdcModule(const std::string &kernel, bool atModuleScope,
                      const std::string &type) {
  std::string sum = "_ZZ" + std::string(kernel).substr(2) + "E3sum";
  std::string decl = ".shared .align 4 ." + type + " " + sum + ";\n";
  return ".version 8.8\n.target sm_90\n.address_size 64\n\n" +
         (atModuleScope ? ".weak " + decl : std::string()) +
         ".visible .entry " + kernel + "(\n\t.param .u64 " + kernel +
         "_param_0\n)\n{\n" +
         (atModuleScope ? std::string() : "\t// demoted variable\n\t" + decl) +
         "\tst.shared.u32 \t[" + sum + "], %r1;\n\tret;\n}\n";
}

TEST(PtxCompareTest, AStaticSharedDeclaredAtModuleScopeIsTheDemotedOne) {
  EXPECT_TRUE(comparePtx(rdcModule(OriginalKernel, false, "u32"),
                         rdcModule(TemplateKernel, true, "u32"))
                  .empty());
  auto mismatches = comparePtx(rdcModule(OriginalKernel, false, "u32"),
                               rdcModule(TemplateKernel, true, "u64"));
  ASSERT_EQ(mismatches.size(), 1u);
  EXPECT_NE(mismatches[0].diff.find(".u64"), std::string::npos);
}

} // namespace
