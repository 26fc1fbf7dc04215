#include "ktune/Cuda/CompileCache.h"

#include "ktune/Support/FileUtil.h"

#include "CudaTestUtil.h"

#include <gtest/gtest.h>

#include <filesystem>

using namespace ktune;
using namespace ktune::test;
namespace fs = std::filesystem;

static CompileKey baseKey() {
  return CompileKey{
      "abc", "k<1>", "sm_90", {"-std=c++17", "-arch=sm_90"}, "nvrtc 13.0"};
}

TEST(CompileCache, KeyCoversEveryPart) {
  std::string base = compileCacheKey(baseKey());
  EXPECT_EQ(base.size(), 64u);
  EXPECT_EQ(base, compileCacheKey(baseKey()));
  auto changed = [&](auto mutate) {
    CompileKey k = baseKey();
    mutate(k);
    return compileCacheKey(k);
  };
  EXPECT_NE(base, changed([](CompileKey &k) { k.sourceSha256 = "abd"; }));
  EXPECT_NE(base, changed([](CompileKey &k) { k.nameExpression = "k<2>"; }));
  EXPECT_NE(base, changed([](CompileKey &k) { k.arch = "sm_80"; }));
  EXPECT_NE(base, changed([](CompileKey &k) {
              k.options.push_back("--maxrregcount=32");
            }));
  EXPECT_NE(base,
            changed([](CompileKey &k) { k.compilerVersion = "nvrtc 13.1"; }));
  // Parts are delimited: moving text between parts changes the key.
  EXPECT_NE(changed([](CompileKey &k) { k.options = {"-a", "b"}; }),
            changed([](CompileKey &k) { k.options = {"-ab"}; }));
}

TEST(CompileCache, StoresAndFindsEntries) {
  auto dir = freshDir("ktune-cache");
  auto cache = CompileCache::open(dir + "/nested/cache");
  ASSERT_TRUE(cache) << cache.error().str();
  std::string key = compileCacheKey(baseKey());
  EXPECT_FALSE(cache->lookup(key));

  auto image = cache->storeImage(std::string("\x7f"
                                             "ELF-bytes",
                                             9),
                                 false);
  ASSERT_TRUE(image);
  EXPECT_TRUE(image->ends_with(".cubin"));
  auto again = cache->storeImage(std::string("\x7f"
                                             "ELF-bytes",
                                             9),
                                 false);
  EXPECT_EQ(*image, *again);

  CacheEntry e;
  e.ok = true;
  e.nameExpression = "k<1>";
  e.loweredName = "_Z1kILi1EEvv";
  e.imagePath = *image;
  e.resources.entry = true;
  e.resources.registers = 40;
  e.resources.smemStatic = 2048;
  e.resources.spillStores = 4;
  e.log = "ptxas info : Used 40 registers";
  e.compileMs = 12.5;
  ASSERT_TRUE(cache->store(key, e));

  auto found = cache->lookup(key);
  ASSERT_TRUE(found);
  EXPECT_TRUE(found->ok);
  EXPECT_EQ(found->loweredName, e.loweredName);
  EXPECT_EQ(found->imagePath, *image);
  EXPECT_EQ(found->resources.registers, 40);
  EXPECT_EQ(found->resources.smemStatic, 2048);
  EXPECT_EQ(found->resources.spillStores, 4);
  EXPECT_EQ(found->log, e.log);

  CacheEntry failure;
  failure.ok = false;
  failure.nameExpression = "k<2>";
  failure.error = "compile error: static assertion failed";
  std::string key2 =
      compileCacheKey({"abc", "k<2>", "sm_90", {}, "nvrtc 13.0"});
  ASSERT_TRUE(cache->store(key2, failure));
  auto foundFailure = cache->lookup(key2);
  ASSERT_TRUE(foundFailure);
  EXPECT_FALSE(foundFailure->ok);
  EXPECT_EQ(foundFailure->error, failure.error);
  fs::remove_all(dir);
}

TEST(CompileCache, DamagedEntriesAreMisses) {
  auto dir = freshDir("ktune-cache");
  auto cache = CompileCache::open(dir);
  ASSERT_TRUE(cache);
  auto image = cache->storeImage("cubin", false);
  CacheEntry e;
  e.ok = true;
  e.nameExpression = "k";
  e.loweredName = "k";
  e.imagePath = *image;
  std::string key = compileCacheKey(baseKey());
  ASSERT_TRUE(cache->store(key, e));
  ASSERT_TRUE(cache->lookup(key));

  // The image went missing: a miss, not a dangling entry.
  fs::remove(*image);
  EXPECT_FALSE(cache->lookup(key));

  // A truncated entry: a miss.
  image = cache->storeImage("cubin", false);
  std::string path = dir + "/entries/" + key.substr(0, 2) + "/" + key + ".json";
  ASSERT_TRUE(
      writeFileAtomically(path, "{\"ktune\": \"compile-cache/1\", \"ok\": tr"));
  EXPECT_FALSE(cache->lookup(key));
  fs::remove_all(dir);
}

TEST(CompileCache, RejectsAnEmptyDirectoryName) {
  EXPECT_FALSE(CompileCache::open(""));
}
