// The nvcc backend on a template NVRTC cannot compile (Inputs/
// host_headers.tpl.cu: `uint`, <iostream>, a constexpr host function called
// from device code): several configurations per call, each found in the
// object by its pointer's relocation, resources per instantiation, a
// failing configuration isolated, the cache, register caps; and the object
// reader on nvcc's output and on garbage.
#include "ktune/Cuda/NvccCompiler.h"
#include "ktune/Cuda/ElfObject.h"
#include "ktune/Support/FileUtil.h"

#include "CudaTestUtil.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <set>

using namespace ktune;
using namespace ktune::test;
namespace fs = std::filesystem;

namespace {

bool haveNvcc() {
  std::string nvcc = findNvcc();
  return nvcc != "nvcc" && fs::exists(nvcc);
}

std::unique_ptr<NvccCompiler> makeCompiler(const std::string &cacheDir,
                                           std::vector<std::string> flags = {
                                               "--expt-relaxed-constexpr"}) {
  NvccSettings s;
  s.command.arch = "sm_90";
  s.command.projectFlags = std::move(flags);
  s.templatePath = inputPath("host_headers.tpl.cu");
  s.cacheDir = cacheDir;
  s.jobs = 2;
  auto c = NvccCompiler::create(*readFile(s.templatePath), s);
  EXPECT_TRUE(c) << (c ? "" : c.error().str());
  return c ? std::move(*c) : nullptr;
}

Instantiation axpy(int block, int vec, int maxRegs = 0) {
  return {"hh::axpy<" + std::to_string(block) + ", " + std::to_string(vec) +
              ">",
          maxRegs};
}

} // namespace

TEST(NvccCompiler, BatchSourceTakesEachInstantiationsAddress) {
  std::string s = nvccBatchSource("/t/k.tpl.cu", {"a::k<1>", "a::k<2>"});
  EXPECT_NE(s.find("#include \"/t/k.tpl.cu\""), std::string::npos);
  EXPECT_NE(s.find("void *ktune_kernel_0 = (void *)&a::k<1>;"),
            std::string::npos);
  EXPECT_NE(s.find("void *ktune_kernel_1 = (void *)&a::k<2>;"),
            std::string::npos);
}

TEST(NvccCompiler, CompilesManyConfigurationsPerCall) {
  if (!haveNvcc())
    GTEST_SKIP() << "no nvcc";
  std::string dir = freshDir("ktune-nvcc");
  auto c = makeCompiler(dir);
  ASSERT_TRUE(c);
  std::vector<Instantiation> insts = {
      axpy(128, 1), axpy(256, 2), axpy(512, 4), {"::hidden<64>", 0}};
  auto results = c->compileAll(insts);
  std::set<std::string> names, images;
  for (size_t i = 0; i < results.size(); ++i) {
    ASSERT_TRUE(results[i])
        << insts[i].nameExpression << ": " << results[i].error().str();
    EXPECT_GT(results[i]->resources.registers, 0) << results[i]->log;
    EXPECT_TRUE(results[i]->imagePath.ends_with(".fatbin"));
    EXPECT_TRUE(fs::exists(results[i]->imagePath));
    names.insert(results[i]->loweredName);
    images.insert(results[i]->imagePath);
  }
  EXPECT_EQ(names.size(), insts.size()); // each its own device function
  EXPECT_EQ(*names.begin(), "_ZN2hh4axpyILi128ELi1EEEvPfPKfjNS_4ModeEl");
  // Two jobs: the four went in two calls, each with its own image.
  EXPECT_EQ(c->stats().programs, 2u);
  EXPECT_EQ(images.size(), 2u);
  // The device function of an anonymous namespace keeps nvcc's device name.
  EXPECT_NE(results[3]->loweredName.find("_GLOBAL__N_"), std::string::npos);
  // The image is the device code: the kernel's name is in it.
  auto image = readFile(results[0]->imagePath);
  ASSERT_TRUE(image);
  EXPECT_NE(image->find(results[0]->loweredName), std::string::npos);

  // A second compiler on the same cache compiles nothing.
  auto again = makeCompiler(dir);
  for (const auto &r : again->compileAll(insts))
    ASSERT_TRUE(r && r->fromCache);
  EXPECT_EQ(again->stats().programs, 0u);
  EXPECT_EQ(again->stats().cacheHits, insts.size());
  fs::remove_all(dir);
}

TEST(NvccCompiler, AFailingConfigurationDoesNotFailTheOthers) {
  if (!haveNvcc())
    GTEST_SKIP() << "no nvcc";
  std::string dir = freshDir("ktune-nvcc");
  NvccSettings s;
  s.command.arch = "sm_90";
  s.command.projectFlags = {"--expt-relaxed-constexpr"};
  s.templatePath = inputPath("host_headers.tpl.cu");
  s.cacheDir = dir;
  s.jobs = 1;
  auto c = NvccCompiler::create(*readFile(s.templatePath), s);
  ASSERT_TRUE(c) << c.error().str();
  std::vector<Instantiation> insts = {axpy(128, 1), axpy(128, 3), axpy(256, 1)};
  auto results = (*c)->compileAll(insts);
  EXPECT_TRUE(results[0]) << results[0].error().str();
  ASSERT_FALSE(results[1]);
  EXPECT_NE(results[1].error().str().find("VEC = 3 is not a vector width"),
            std::string::npos)
      << results[1].error().str();
  EXPECT_NE(results[1].error().str().find("host_headers.tpl.cu("),
            std::string::npos);
  EXPECT_TRUE(results[2]) << results[2].error().str();
  EXPECT_EQ((*c)->stats().failures, 1u);
  fs::remove_all(dir);
}

TEST(NvccCompiler, TheProjectsFlagsReachNvcc) {
  if (!haveNvcc())
    GTEST_SKIP() << "no nvcc";
  std::string dir = freshDir("ktune-nvcc");
  auto c = makeCompiler(dir, {});
  ASSERT_TRUE(c);
  auto r = c->get(axpy(128, 1));
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().str().find("--expt-relaxed-constexpr"), std::string::npos)
      << r.error().str();
  // Other flags, other cache keys.
  auto with = makeCompiler(dir);
  EXPECT_NE(with->options(0), c->options(0));
  EXPECT_TRUE(with->get(axpy(128, 1)));
  fs::remove_all(dir);
}

TEST(NvccCompiler, RegisterCapsAreOptionsOfTheirOwnCall) {
  if (!haveNvcc())
    GTEST_SKIP() << "no nvcc";
  std::string dir = freshDir("ktune-nvcc");
  auto c = makeCompiler(dir);
  ASSERT_TRUE(c);
  auto options = c->options(40);
  EXPECT_NE(std::find(options.begin(), options.end(), "-maxrregcount=40"),
            options.end());
  auto capped = c->get(axpy(128, 1, 40));
  ASSERT_TRUE(capped) << capped.error().str();
  EXPECT_LE(capped->resources.registers, 40);
  fs::remove_all(dir);
}

TEST(ElfObject, RefusesWhatIsNotARelocatableObject) {
  EXPECT_FALSE(ElfObject::parse(""));
  EXPECT_FALSE(ElfObject::parse("not an ELF file at all, just text....."));
  std::string header(64, '\0');
  header[0] = 0x7f;
  header.replace(1, 3, "ELF");
  header[4] = 2;
  header[5] = 1;
  header[16] = 1;                       // ET_REL
  header[40] = static_cast<char>(0xff); // section headers far past the end
  header[58] = 64;
  header[60] = 3;
  EXPECT_FALSE(ElfObject::parse(header));
}

TEST(ElfObject, ReadsTheHostStubBehindAPointer) {
  if (!haveNvcc())
    GTEST_SKIP() << "no nvcc";
  std::string dir = freshDir("ktune-elf");
  std::string cu = dir + "/b.cu", obj = dir + "/b.o";
  ASSERT_TRUE(writeFileAtomically(
      cu, nvccBatchSource(inputPath("host_headers.tpl.cu"),
                          {"hh::axpy<64, 2>", "::hidden<32>"})));
  NvccCommand command;
  command.projectFlags = {"--expt-relaxed-constexpr"};
  auto run = runNvcc(nvccArgv(command, NvccOutput::Object, cu, obj), 300);
  ASSERT_TRUE(run && run->ok) << (run ? run->log : run.error().str());
  auto bytes = readFile(obj);
  ASSERT_TRUE(bytes);
  auto elf = ElfObject::parse(*bytes);
  ASSERT_TRUE(elf) << elf.error().str();
  auto fatbin = elf->section(".nv_fatbin");
  ASSERT_TRUE(fatbin);
  EXPECT_EQ(fatbin->substr(0, 4), std::string("\x50\xed\x55\xba", 4));
  auto first = elf->pointerTarget("ktune_kernel_0");
  ASSERT_TRUE(first);
  EXPECT_EQ(demangle(*first), "void hh::axpy<64, 2>(float*, float const*, "
                              "unsigned int, hh::Mode, long)");
  auto second = elf->pointerTarget("ktune_kernel_1");
  ASSERT_TRUE(second);
  EXPECT_EQ(demangle(*second),
            "void (anonymous namespace)::hidden<32>(float*)");
  EXPECT_FALSE(elf->pointerTarget("ktune_kernel_2"));
  // Every prefix of the object parses or fails cleanly.
  for (size_t n = 0; n < bytes->size(); n += 97) {
    auto cut = ElfObject::parse(bytes->substr(0, n));
    if (cut)
      (void)cut->pointerTarget("ktune_kernel_0");
  }
  fs::remove_all(dir);
}
