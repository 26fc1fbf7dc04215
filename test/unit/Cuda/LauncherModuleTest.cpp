// Launcher mode on the compile side: the module's generated source, the
// project's flags, nvcc's command, the binding of launcher arguments (the
// stream slot) and launch parameters in kernel mode, and one real nvcc build
// of the bundled launcher example where nvcc is installed.
#include "ktune/Cuda/LauncherModule.h"
#include "ktune/Support/FileUtil.h"
#include "ktune/Tune/KernelBinding.h"

#include <gtest/gtest.h>

#include <filesystem>

using namespace ktune;
using nlohmann::json;
namespace fs = std::filesystem;

namespace {

std::string example(const std::string &name) {
  return std::string(KTUNE_SOURCE_DIR) + "/examples/launcher/" + name;
}

/// examples/launcher/<name>, read by `fromJson`.
template <class Read>
auto exampleDocument(const std::string &name, Read fromJson) {
  auto j = readJsonFile(example(name));
  EXPECT_TRUE(j) << j.error().str();
  auto value = fromJson(*j);
  EXPECT_TRUE(value) << value.error().str();
  return *value;
}

Manifest exampleManifest(const std::string &name) {
  return exampleDocument(
      name, [](const nlohmann::json &j) { return manifestFromJson(j); });
}

Spec exampleSpec(const std::string &name) {
  return exampleDocument(
      name, [](const nlohmann::json &j) { return specFromJson(j); });
}

} // namespace

TEST(LauncherModule, SourceExportsTheInstantiation) {
  std::string s =
      launcherModuleSource("/p/a.tpl.cu", "demo::silu_and_mul<float, 512>");
  EXPECT_NE(s.find("#include \"/p/a.tpl.cu\""), std::string::npos);
  EXPECT_NE(s.find("call(&demo::silu_and_mul<float, 512>, args)"),
            std::string::npos);
  EXPECT_NE(s.find(std::string("int ") + LauncherEntrySymbol + "(void **args)"),
            std::string::npos);
  EXPECT_NE(s.find(LauncherErrorSymbol), std::string::npos);
}

TEST(LauncherModule, ProjectFlagsDropWhatAModuleReplaces) {
  CompileCommandInfo c;
  c.directory = "/proj/build";
  c.compiler = "nvcc";
  c.arguments = {"-O3",         "--expt-relaxed-constexpr",
                 "-gencode",    "arch=compute_80,code=sm_80",
                 "-arch=sm_80", "-I../include",
                 "-I",          "/abs/inc",
                 "-DNDEBUG",    "-c",
                 "-o",          "x.o",
                 "-MD",         "-MF",
                 "x.d",         "kernel.cu"};
  auto f = projectNvccFlags(c);
  std::vector<std::string> want = {"-O3",
                                   "--expt-relaxed-constexpr",
                                   "-I/proj/include",
                                   "-I",
                                   "/abs/inc",
                                   "-DNDEBUG"};
  EXPECT_EQ(f, want);
  c.compiler = "clang++";
  c.arguments = {"-O2", "-std=c++17", "-DX=1", "-Iinc",
                 "--cuda-gpu-arch=sm_90"};
  want = {"-std=c++17", "-DX=1", "-I/proj/build/inc"};
  EXPECT_EQ(projectNvccFlags(c), want);
}

TEST(LauncherModule, CommandPutsIncludeDirsFirst) {
  LauncherModuleSettings s;
  s.nvcc = "/cuda/bin/nvcc";
  s.arch = "sm_90";
  s.templatePath = "/t/a.tpl.cu";
  s.includeDirs = {"/t/include"};
  s.projectFlags = {"-O2", "--expt-relaxed-constexpr"};
  auto argv = launcherCompileCommand(s, "m.cu", "m.so");
  ASSERT_GE(argv.size(), 4u);
  EXPECT_EQ(argv[0], "/cuda/bin/nvcc");
  EXPECT_EQ(argv[1], "-I/t/include");
  auto has = [&](const std::string &a) {
    return std::find(argv.begin(), argv.end(), a) != argv.end();
  };
  EXPECT_TRUE(has("--expt-relaxed-constexpr"));
  EXPECT_TRUE(has("-arch=sm_90"));
  EXPECT_TRUE(has("-shared"));
  EXPECT_TRUE(has("-fPIC"));
  EXPECT_FALSE(has("-O3")); // the project's -O2 stays
  EXPECT_EQ(argv.back(), "m.cu");
}

TEST(LauncherModule, BindingPassesTheStreamAndTheTunedCap) {
  Manifest m = exampleManifest("silu_and_mul_launcher.tpl.json");
  auto k = launcherAsKernel(m, "silu_and_mul");
  ASSERT_TRUE(k) << k.error().str();
  auto spec = resolveSpec(exampleSpec("silu_and_mul_launcher.spec.json"), *k);
  ASSERT_TRUE(spec) << spec.error().str();
  auto b = KernelBinding::create(*k, *spec);
  ASSERT_TRUE(b) << b.error().str();
  EXPECT_TRUE(b->launcherMode());
  auto name = b->nameExpression({{"BLOCK_CAP", 512}});
  ASSERT_TRUE(name) << name.error().str();
  EXPECT_EQ(*name, "demo::silu_and_mul<__nv_bfloat16, 512>");
  Shape shape = {{"num_tokens", 4096}, {"d", 11008}};
  auto args = b->args(shape, {{"BLOCK_CAP", 512}});
  ASSERT_TRUE(args) << args.error().str();
  ASSERT_EQ(args->size(), 5u);
  EXPECT_EQ((*args)[4].buffer, KernelArgValue::StreamSlot);
  EXPECT_EQ((*args)[3].bytes.size(), 8u); // int64_t num_tokens
  // The launched kernel's geometry, over the launcher's names, prunes.
  auto dims = b->launch(shape, {{"BLOCK_CAP", 512}});
  ASSERT_TRUE(dims) << dims.error().str();
  EXPECT_EQ(dims->block[0], 512);
  EXPECT_EQ(dims->grid[0], 4096);
}

TEST(LauncherModule, KernelModeInstantiatesWithoutTheLaunchParameter) {
  Manifest m = exampleManifest("act_and_mul_kernel.tpl.json");
  auto spec =
      resolveSpec(exampleSpec("act_and_mul_kernel.spec.json"), m.kernels[0]);
  ASSERT_TRUE(spec) << spec.error().str();
  auto b = KernelBinding::create(m.kernels[0], *spec);
  ASSERT_TRUE(b) << b.error().str();
  EXPECT_EQ(b->defaultConfig().at("BLOCK_CAP"), 1024);
  auto full = b->complete({{"BLOCK_CAP", 256}});
  ASSERT_TRUE(full) << full.error().str();
  auto name = b->nameExpression(*full);
  ASSERT_TRUE(name);
  EXPECT_EQ(*name, "demo::activation::act_and_mul_kernel<__nv_bfloat16, "
                   "demo::activation::silu>");
  auto dims = b->launch({{"num_tokens", 64}, {"d", 11008}}, *full);
  ASSERT_TRUE(dims) << dims.error().str();
  EXPECT_EQ(dims->block[0], 256);
  // d / 8 = 512 is under the cap.
  dims = b->launch({{"num_tokens", 64}, {"d", 4096}}, b->defaultConfig());
  ASSERT_TRUE(dims);
  EXPECT_EQ(dims->block[0], 512);
}

TEST(LauncherModule, BuildsTheExampleWithNvcc) {
  std::string nvcc = findNvcc();
  if (nvcc == "nvcc" || !fs::exists(nvcc))
    GTEST_SKIP() << "no nvcc";
  Manifest m = exampleManifest("silu_and_mul_launcher.tpl.json");
  LauncherModuleSettings s;
  s.arch = "sm_90";
  s.templatePath = example("silu_and_mul_launcher.tpl.cu");
  s.projectFlags = projectNvccFlags(*m.compile);
  s.kernelName = "act_and_mul_kernel";
  s.jobs = 1;
  auto c = LauncherCompiler::create(s);
  ASSERT_TRUE(c) << c.error().str();
  auto k = (*c)->get("demo::silu_and_mul<__nv_bfloat16, 512U>");
  ASSERT_TRUE(k) << k.error().str();
  EXPECT_TRUE(fs::exists(k->imagePath));
  EXPECT_EQ(k->loweredName, LauncherEntrySymbol);
  EXPECT_GT(k->resources.registers, 0) << k->log;
  // A configuration that does not compile says why, with nvcc's line.
  auto bad = (*c)->get("demo::silu_and_mul<__nv_bfloat16, no_such_value>");
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().str().find("error"), std::string::npos);
  EXPECT_EQ((*c)->stats().failures, 1u);
}
