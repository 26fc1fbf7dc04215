// Facts across files: positions, the file table, merging the two sides'
// numberings, the header filter, and where rewritten headers are placed.
#include "Detect/DetectInternal.h"
#include "HostSideAst.h"
#include "Rewrite/RewriteInternal.h"

#include "ktune/Refactor/HeaderFilter.h"

#include "clang/Frontend/ASTUnit.h"
#include "clang/Tooling/Tooling.h"

#include <gtest/gtest.h>

using namespace ktune;
using namespace ktune::refactor;

TEST(Positions, PackTheFileAndTheOffset) {
  unsigned p = makePosition(3, 1234);
  EXPECT_EQ(filePart(p), 3u);
  EXPECT_EQ(localPart(p), 1234u);
  EXPECT_EQ(makePosition(0, 77), 77u); // main-file positions are offsets
  EXPECT_LT(makePosition(0, MaxFileBytes - 1), makePosition(1, 0));
}

TEST(HeaderFilterTest, DefaultIsUnderTheRoots) {
  HeaderFilter f = HeaderFilter::under({"/p/include", "/p/src"});
  EXPECT_TRUE(f.allows("x", "/p/include/lib/a.cuh"));
  EXPECT_TRUE(f.allows("x", "/p/src/b.cuh"));
  EXPECT_FALSE(f.allows("x", "/p/includes/c.cuh")); // a prefix, not a dir
  EXPECT_FALSE(f.allows("x", "/usr/include/d.h"));
  EXPECT_FALSE(HeaderFilter().allows("x", "/p/include/a.cuh"));
}

TEST(HeaderFilterTest, RegexSearchesTheNameAsClangGivesIt) {
  auto f = HeaderFilter::matching("include/lib/.*", {"/p/include"});
  ASSERT_TRUE(bool(f)) << llvm::toString(f.takeError());
  EXPECT_TRUE(f->allows("../include/lib/a.cuh", "/elsewhere/a.cuh"));
  EXPECT_FALSE(f->allows("/p/include/other/a.cuh", "/p/include/other/a.cuh"));
  auto ex = HeaderFilter::matching(".*", {}, "detail");
  ASSERT_TRUE(bool(ex));
  EXPECT_TRUE(ex->allows("lib/a.cuh", "/p/lib/a.cuh"));
  EXPECT_FALSE(ex->allows("lib/detail.cuh", "/p/lib/detail.cuh"));
  EXPECT_NE(f->key(), ex->key());
  auto bad = HeaderFilter::matching("(", {});
  ASSERT_FALSE(bool(bad));
  EXPECT_NE(llvm::toString(bad.takeError()).find("--header-filter"),
            std::string::npos);
}

TEST(HeaderFilterTest, IncludeRootsOfACommandLine) {
  auto roots =
      includeRoots({"-I/p/include", "-I", "rel", "-isystem", "/sys", "-iquote",
                    "/q", "--include-directory=/d", "-DX=1"},
                   "/p/src/k.cu", "/work");
  std::vector<std::string> want = {"/p/include", "/work/rel", "/q", "/d",
                                   "/p/src"};
  EXPECT_EQ(roots, want);
}

namespace {

std::unique_ptr<clang::ASTUnit> parseWithHeader(const std::string &code,
                                                const std::string &header) {
  std::vector<std::string> args = ktune::testing::snippetArgs();
  args.push_back("-I/proj/include");
  // The unit refers to the mapped text: it must outlive the unit.
  static std::vector<std::unique_ptr<clang::tooling::FileContentMappings>> kept;
  kept.push_back(std::make_unique<clang::tooling::FileContentMappings>(
      clang::tooling::FileContentMappings{
          {"/proj/include/lib/k.cuh", header}}));
  return clang::tooling::buildASTFromCodeWithArgs(
      code, args, "/proj/src/k.cu", "ktune-test",
      std::make_shared<clang::PCHContainerOperations>(),
      clang::tooling::getClangStripDependencyFileAdjuster(), *kept.back());
}

const char *Header = R"(#pragma once
__global__ void __launch_bounds__(256) scale(float *x) {
  x[blockIdx.x * 256 + threadIdx.x] *= 2.0f;
}
)";
const char *Main = R"(#include <lib/k.cuh>
void go(float *x, int n) { scale<<<n / 256, 256>>>(x); }
)";

} // namespace

TEST(FileTable, KernelsAreFollowedIntoHeadersTheFilterLetsThrough) {
  auto unit = parseWithHeader(Main, Header);
  ASSERT_TRUE(unit);
  ASSERT_FALSE(unit->getDiagnostics().hasErrorOccurred());
  HeaderFilter headers = HeaderFilter::under({"/proj/include", "/proj/src"});
  SourceFacts facts =
      collectFacts(unit->getASTContext(), "/proj/src/k.cu", &headers);
  ASSERT_EQ(facts.files.size(), 2u);
  EXPECT_EQ(facts.files[0].path, "/proj/src/k.cu");
  EXPECT_EQ(facts.files[1].path, "/proj/include/lib/k.cuh");
  EXPECT_EQ(facts.files[1].includedAs, "lib/k.cuh");
  EXPECT_EQ(facts.files[1].foundUnder, "/proj/include");
  EXPECT_EQ(facts.files[1].text, Header);
  ASSERT_EQ(facts.kernels().size(), 1u);
  const FunctionFacts *k = facts.kernels()[0];
  EXPECT_EQ(filePart(k->offset), 1u);
  EXPECT_EQ(k->line, 2u);
  // The launch bounds and the index arithmetic are in the header; the
  // launch's block and grid in the main file.
  std::set<unsigned> files;
  for (const auto &o : facts.occurrences)
    files.insert(filePart(o.offset));
  EXPECT_EQ(files, (std::set<unsigned>{0, 1}));
  for (const auto &o : facts.occurrences)
    if (o.role == SiteRole::LaunchBounds) {
      EXPECT_EQ(facts.files[1].text.substr(localPart(o.offset), o.length),
                "256");
      EXPECT_EQ(o.line, 2u);
    }
}

TEST(FileTable, WithoutAFilterOnlyTheMainFileIsRead) {
  auto unit = parseWithHeader(Main, Header);
  ASSERT_TRUE(unit);
  SourceFacts facts = collectFacts(unit->getASTContext(), "/proj/src/k.cu");
  EXPECT_EQ(facts.files.size(), 1u);
  EXPECT_TRUE(facts.kernels().empty());
  ASSERT_EQ(facts.notes.size(), 1u);
  EXPECT_NE(facts.notes[0].find("k.cu:2:28: launch of scale, a kernel "
                                "defined in /proj/include/lib/k.cuh"),
            std::string::npos)
      << facts.notes[0];
}

TEST(MergeFacts, TheOtherSidesFilesAreRenumbered) {
  SourceFacts host, device;
  host.file = device.file = "k.cu";
  host.files = {{"k.cu", "/p/k.cu", "", "", ""},
                {"a.cuh", "/p/a.cuh", "a.cuh", "/p", ""}};
  device.files = {{"k.cu", "/p/k.cu", "", "", ""},
                  {"b.cuh", "/p/b.cuh", "b.cuh", "/p", ""},
                  {"a.cuh", "/p/a.cuh", "a.cuh", "/p", ""}};
  // The same kernel in a.cuh: file 1 on the host, file 2 on the device.
  FunctionFacts k;
  k.role = FunctionRole::Kernel;
  k.offset = makePosition(1, 40);
  k.id = "fn@" + std::to_string(k.offset);
  host.functions[k.id] = k;
  FunctionFacts dk = k;
  dk.offset = makePosition(2, 40);
  dk.id = "fn@" + std::to_string(dk.offset);
  dk.callees = {"fn@" + std::to_string(makePosition(1, 8))}; // in b.cuh
  device.functions[dk.id] = dk;
  Occurrence o;
  o.offset = makePosition(2, 50);
  o.kernel = o.function = dk.id;
  o.family = Family::unroll(o.offset);
  device.occurrences.push_back(o);
  CallFacts launch;
  launch.isLaunch = true;
  launch.callee = dk.id;
  launch.block = {marker(makePosition(2, 60))};
  device.calls.push_back(launch);
  device.launchBounds[dk.id] = marker(makePosition(2, 70)) + " * 2";

  mergeFacts(host, device);
  ASSERT_EQ(host.files.size(), 3u);
  EXPECT_EQ(host.files[2].path, "b.cuh");
  ASSERT_EQ(host.functions.size(), 1u); // one kernel, not two
  const FunctionFacts &merged = host.functions.begin()->second;
  EXPECT_EQ(merged.id, k.id);
  ASSERT_EQ(merged.callees.size(), 1u);
  EXPECT_EQ(merged.callees[0], "fn@" + std::to_string(makePosition(2, 8)));
  ASSERT_EQ(host.occurrences.size(), 1u);
  EXPECT_EQ(host.occurrences[0].offset, makePosition(1, 50));
  EXPECT_EQ(host.occurrences[0].kernel, k.id);
  EXPECT_EQ(host.occurrences[0].family.at, makePosition(1, 50));
  ASSERT_EQ(host.calls.size(), 1u);
  EXPECT_EQ(host.calls[0].callee, k.id);
  EXPECT_EQ(host.calls[0].block[0], marker(makePosition(1, 60)));
  EXPECT_EQ(host.launchBounds.at(k.id), marker(makePosition(1, 70)) + " * 2");
}

TEST(SourceFactsFiles, SitesAreFoundByPath) {
  SourceFacts f;
  f.file = "k.cu";
  f.files = {{"k.cu", "/p/k.cu", "", "", "main text"},
             {"inc/a.cuh", "/p/inc/a.cuh", "a.cuh", "/p/inc", "header"}};
  SourceSite s;
  s.file = "inc/a.cuh";
  s.offset = 9;
  EXPECT_EQ(f.position(s), makePosition(1, 9));
  s.file = "elsewhere.cuh";
  EXPECT_EQ(f.position(s), std::nullopt);
  EXPECT_EQ(f.pathOf(1), "inc/a.cuh");
  EXPECT_EQ(f.textOf(1, "ignored"), "header");
  SourceFacts byHand;
  byHand.file = "k.cu";
  EXPECT_EQ(byHand.textOf(0, "given"), "given");
}

TEST(OutputTreeTest, QuotedIncludes) {
  auto found = quotedIncludes("#include \"a.h\"\n  #  include \"b/c.h\"\n"
                              "#include <d.h>\n#include_next \"e.h\"\n");
  ASSERT_EQ(found.size(), 2u);
  EXPECT_EQ(found[0].spelling, "a.h");
  EXPECT_EQ(found[0].offset, 9u);
  EXPECT_EQ(found[0].length, 5u);
  EXPECT_EQ(found[1].spelling, "b/c.h");
}

namespace {

/// A project: /p/include/lib/{k.cuh,detail.cuh,all.cuh}, /p/src/k.cu.
SourceFacts project() {
  SourceFacts f;
  f.file = "/p/src/k.cu";
  f.includeRoots = {"/p/include", "/p/src"};
  f.files = {{"/p/src/k.cu", "/p/src/k.cu", "", "", "#include \"local.cuh\"\n"},
             {"/p/include/lib/k.cuh", "/p/include/lib/k.cuh", "lib/k.cuh",
              "/p/include", "#include \"detail.cuh\"\nint k;\n"},
             {"/p/include/lib/all.cuh", "/p/include/lib/all.cuh", "lib/all.cuh",
              "/p/include", "#include \"k.cuh\"\n"},
             {"/p/src/local.cuh", "/p/src/local.cuh", "local.cuh", "/p/src",
              "int local;\n"}};
  return f;
}

bool exists(const std::string &p) {
  return p == "/p/include/lib/k.cuh" || p == "/p/include/lib/detail.cuh" ||
         p == "/p/include/lib/all.cuh" || p == "/p/src/local.cuh";
}

clang::tooling::Replacements edit(const std::string &file, unsigned offset,
                                  const std::string &text) {
  clang::tooling::Replacements r;
  llvm::cantFail(r.add(clang::tooling::Replacement(file, offset, 0, text)));
  return r;
}

} // namespace

TEST(OutputTreeTest, IncludePaths) {
  SourceFacts f = project();
  EXPECT_EQ(llvm::cantFail(includePathOf(f, 1)), "lib/k.cuh");
  EXPECT_EQ(llvm::cantFail(includePathOf(f, 3)), "local.cuh");
  // Found beside its includer: its path below the deepest root.
  f.files[1].foundUnder = "/p/include/lib";
  f.files[1].includedAs = "k.cuh";
  EXPECT_EQ(llvm::cantFail(includePathOf(f, 1)), "lib/k.cuh");
  f.files[1].absolutePath = "/elsewhere/k.cuh";
  auto none = includePathOf(f, 1);
  ASSERT_FALSE(bool(none));
  EXPECT_NE(llvm::toString(none.takeError()).find("none of the project's"),
            std::string::npos);
}

TEST(OutputTreeTest, CopiesFindWhatTheOriginalsFound) {
  SourceFacts f = project();
  FileEdits marked;
  marked[1] = edit("/p/include/lib/k.cuh", 22, "// changed\n");
  marked[3] = edit("/p/src/local.cuh", 0, "// changed\n");
  auto tree = buildOutputTree(f, "", marked, exists);
  ASSERT_TRUE(bool(tree)) << llvm::toString(tree.takeError());
  // k.cuh's sibling is not copied: it is named through -I /p/include. The
  // main file finds the copy of local.cuh through the include directory.
  EXPECT_EQ(tree->mainText, "#include \"local.cuh\"\n");
  ASSERT_EQ(tree->headers.size(), 3u);
  EXPECT_EQ(tree->headers[0].includePath, "lib/k.cuh");
  EXPECT_EQ(tree->headers[0].text,
            "#include \"lib/detail.cuh\"\n// changed\nint k;\n");
  EXPECT_TRUE(tree->headers[0].rewritten);
  // all.cuh includes k.cuh beside itself: copied, unchanged.
  EXPECT_EQ(tree->headers[1].includePath, "lib/all.cuh");
  EXPECT_EQ(tree->headers[1].text, "#include \"k.cuh\"\n");
  EXPECT_FALSE(tree->headers[1].rewritten);
  EXPECT_EQ(tree->headers[2].includePath, "local.cuh");
}

TEST(OutputTreeTest, TwoHeadersCannotShareAPlace) {
  SourceFacts f = project();
  f.files[3].includedAs = "lib/k.cuh";
  f.files[3].foundUnder = "/p/include";
  FileEdits marked;
  marked[1] = edit("/p/include/lib/k.cuh", 0, "x");
  marked[3] = edit("/p/src/local.cuh", 0, "y");
  auto tree = buildOutputTree(f, "", marked, exists);
  ASSERT_FALSE(bool(tree));
  EXPECT_NE(llvm::toString(tree.takeError()).find("both be written"),
            std::string::npos);
}
