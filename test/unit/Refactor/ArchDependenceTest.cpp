// Which bytes of a file depend on __CUDA_ARCH__ (ArchDependence.cpp), and
// host/device-divergent constants dropped from both sides' facts.
#include "Detect/DetectInternal.h"

#include "clang/Basic/LangOptions.h"

#include <gtest/gtest.h>

using namespace ktune::refactor;

namespace {

/// The text of each dependent range, and the line of its #if.
std::vector<std::pair<std::string, std::string>>
dependent(const std::string &text) {
  clang::LangOptions lo;
  lo.CPlusPlus = true;
  std::vector<std::pair<std::string, std::string>> out;
  for (const ArchRange &r : archConditionalRanges(text, lo)) {
    std::string directive = text.substr(r.directive);
    out.emplace_back(text.substr(r.begin, r.end - r.begin),
                     directive.substr(0, directive.find('\n')));
  }
  return out;
}

using Ranges = std::vector<std::pair<std::string, std::string>>;

} // namespace

TEST(ArchRanges, BothBranchesOfAnArchIf) {
  EXPECT_EQ(dependent("#if __CUDA_ARCH__ >= 900\nA\n#else\nB\n#endif\nC\n"),
            (Ranges{{"A\n", "#if __CUDA_ARCH__ >= 900"},
                    {"B\n", "#if __CUDA_ARCH__ >= 900"}}));
  EXPECT_EQ(dependent("#ifdef __CUDA_ARCH__\nA\n#endif\n"),
            (Ranges{{"A\n", "#ifdef __CUDA_ARCH__"}}));
  EXPECT_EQ(dependent("#  ifndef __CUDA_ARCH__\nA\n#  endif\n"),
            (Ranges{{"A\n", "#  ifndef __CUDA_ARCH__"}}));
}

TEST(ArchRanges, FromTheFirstConditionThatNamesIt) {
  // The #if branch is chosen on FOO alone; the rest depend on the arch.
  EXPECT_EQ(dependent("#if defined(FOO)\nA\n#elif __CUDA_ARCH__ == 800\nB\n"
                      "#else\nC\n#endif\n"),
            (Ranges{{"B\n", "#if defined(FOO)"}, {"C\n", "#if defined(FOO)"}}));
}

TEST(ArchRanges, NestedAndContinuedLines) {
  EXPECT_EQ(dependent("#ifdef X\n#if defined(__CUDA_ARCH__) && \\\n"
                      "    __CUDA_ARCH__ < 800\nA\n#endif\nB\n#endif\n"),
            (Ranges{{"A\n", "#if defined(__CUDA_ARCH__) && \\"}}));
}

TEST(ArchRanges, MacrosDefinedFromTheArch) {
  // A macro defined from __CUDA_ARCH__, or in a dependent branch, makes an
  // #if on it dependent too.
  EXPECT_EQ(dependent("#define SM90 (__CUDA_ARCH__ >= 900)\n#if SM90\nA\n"
                      "#endif\n"),
            (Ranges{{"A\n", "#if SM90"}}));
  Ranges viaBranch =
      dependent("#ifdef __CUDA_ARCH__\n#define ON_GPU 1\n#endif\n"
                "#ifdef ON_GPU\nA\n#endif\n");
  ASSERT_EQ(viaBranch.size(), 2u);
  EXPECT_EQ(viaBranch[1],
            (std::pair<std::string, std::string>{"A\n", "#ifdef ON_GPU"}));
}

TEST(ArchRanges, UnrelatedConditionalsAndText) {
  EXPECT_TRUE(dependent("#ifndef TILE\n#define TILE 64\n#endif\n").empty());
  // Directive-looking text in comments and strings is no directive.
  EXPECT_TRUE(dependent("// #if __CUDA_ARCH__\nconst char *s = \"#if "
                        "__CUDA_ARCH__\";\n/* #ifdef __CUDA_ARCH__ */\n")
                  .empty());
  // An unterminated #if does not crash the scan.
  EXPECT_TRUE(dependent("#if __CUDA_ARCH__\nA\n").empty());
}

TEST(SideDivergence, ConstantsWithTwoValuesDropped) {
  auto site = [](unsigned offset, const std::string &constant, int64_t value) {
    Occurrence o;
    o.offset = offset;
    o.line = 7;
    o.col = 3;
    o.function = o.kernel = "k";
    o.spelling = Spelling::Macro;
    o.constant = constant;
    o.constantName = constant.substr(6);
    o.value = value;
    return o;
  };
  SourceFacts host, device;
  host.file = device.file = "k.cu";
  host.occurrences = {site(10, "macro:UNROLL", 4), site(40, "macro:UNROLL", 4),
                      site(20, "macro:BLOCK", 256)};
  device.occurrences = {site(10, "macro:UNROLL", 8),
                        site(20, "macro:BLOCK", 256)};
  dropSideDivergentConstants(host, device);
  ASSERT_EQ(host.occurrences.size(), 1u);
  EXPECT_EQ(host.occurrences[0].constant, "macro:BLOCK");
  ASSERT_EQ(device.occurrences.size(), 1u);
  ASSERT_EQ(host.notes.size(), 1u);
  EXPECT_EQ(host.notes[0], "k.cu:7:3: UNROLL is 4 on the host and 8 on the "
                           "device: not lifted (one default cannot serve "
                           "both)");
}
