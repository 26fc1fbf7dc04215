#include "ktune/Cuda/CompileCache.h"
#include "ktune/Support/Try.h"

#include "ktune/Support/FileUtil.h"
#include "ktune/Support/Sha256.h"

#include <nlohmann/json.hpp>

#include <filesystem>
#include <system_error>
#include <utility>

namespace ktune {

namespace fs = std::filesystem;
using nlohmann::json;

static constexpr const char *EntryVersion = "compile-cache/1";

std::string compileCacheKey(const CompileKey &key) {
  // Length-prefixed parts: no two different keys hash the same text.
  std::string text;
  auto add = [&text](std::string_view part) {
    text += std::to_string(part.size());
    text += ':';
    text += part;
    text += ';';
  };
  add(EntryVersion);
  add(key.compilerVersion);
  add(key.arch);
  add(std::to_string(key.options.size()));
  for (const auto &o : key.options)
    add(o);
  add(key.nameExpression);
  add(key.sourceSha256);
  return sha256Hex(text);
}

Expected<CompileCache> CompileCache::open(const std::string &dir) {
  if (dir.empty())
    return makeError("compile cache directory is empty");
  std::error_code ec;
  fs::path root = fs::absolute(dir, ec);
  if (ec)
    return makeError("cannot resolve compile cache directory: " + ec.message(),
                     dir);
  for (const char *sub : {"entries", "images"}) {
    fs::create_directories(root / sub, ec);
    if (ec)
      return makeError("cannot create compile cache directory: " + ec.message(),
                       (root / sub).string());
  }
  return CompileCache(root.string());
}

std::string CompileCache::entryPath(const std::string &key) const {
  return (fs::path(Dir) / "entries" / key.substr(0, 2) / (key + ".json"))
      .string();
}

// The counts ptxas reports, by their names in a cache entry: one table, so
// that writing and reading an entry cannot disagree.
static constexpr std::pair<const char *, int PtxasFunctionInfo::*>
    ResourceCounts[] = {
        {"registers", &PtxasFunctionInfo::registers},
        {"barriers", &PtxasFunctionInfo::barriers},
        {"smem_static", &PtxasFunctionInfo::smemStatic},
        {"stack_frame", &PtxasFunctionInfo::stackFrame},
        {"cumulative_stack", &PtxasFunctionInfo::cumulativeStack},
        {"spill_stores", &PtxasFunctionInfo::spillStores},
        {"spill_loads", &PtxasFunctionInfo::spillLoads}};

static json resourcesToJson(const PtxasFunctionInfo &r) {
  json j{{"entry", r.entry}};
  for (const auto &[name, count] : ResourceCounts)
    j[name] = r.*count;
  return j;
}

static PtxasFunctionInfo resourcesFromJson(const json &j) {
  PtxasFunctionInfo r;
  r.entry = j.at("entry").get<bool>();
  for (const auto &[name, count] : ResourceCounts)
    r.*count = j.at(name).get<int>();
  return r;
}

std::optional<CacheEntry> CompileCache::lookup(const std::string &key) const {
  std::error_code ec;
  std::string path = entryPath(key);
  if (!fs::exists(path, ec))
    return std::nullopt;
  auto text = readFile(path);
  if (!text)
    return std::nullopt;
  try {
    json j = json::parse(*text);
    if (j.at("ktune").get<std::string>() != EntryVersion)
      return std::nullopt;
    CacheEntry e;
    e.ok = j.at("ok").get<bool>();
    e.error = j.value("error", "");
    e.nameExpression = j.at("name_expression").get<std::string>();
    e.loweredName = j.value("lowered_name", "");
    e.log = j.value("log", "");
    e.compileMs = j.value("compile_ms", 0.0);
    if (e.ok) {
      e.resources = resourcesFromJson(j.at("resources"));
      e.imagePath =
          (fs::path(Dir) / "images" / j.at("image").get<std::string>())
              .string();
      if (!fs::exists(e.imagePath, ec))
        return std::nullopt;
    }
    return e;
  } catch (const json::exception &) {
    return std::nullopt; // a damaged entry is a miss; it will be rewritten
  }
}

Expected<std::string> CompileCache::storeImage(std::string_view bytes,
                                               bool isPtx) {
  return storeImageAs(bytes, isPtx ? ".ptx" : ".cubin");
}

Expected<std::string> CompileCache::storeImageAs(std::string_view bytes,
                                                 std::string_view extension) {
  std::string name = sha256Hex(bytes) + std::string(extension);
  std::string path = (fs::path(Dir) / "images" / name).string();
  std::error_code ec;
  if (fs::exists(path, ec) && fs::file_size(path, ec) == bytes.size())
    return path;
  KTUNE_TRY(writeFileAtomically(path, std::string(bytes)));
  return path;
}

Status CompileCache::store(const std::string &key, const CacheEntry &e) {
  json j{{"ktune", EntryVersion},
         {"ok", e.ok},
         {"name_expression", e.nameExpression},
         {"log", e.log},
         {"compile_ms", e.compileMs}};
  if (e.ok) {
    j["lowered_name"] = e.loweredName;
    j["image"] = fs::path(e.imagePath).filename().string();
    j["resources"] = resourcesToJson(e.resources);
  } else {
    j["error"] = e.error;
  }
  std::string path = entryPath(key);
  std::error_code ec;
  fs::create_directories(fs::path(path).parent_path(), ec);
  if (ec)
    return makeError("cannot create compile cache directory: " + ec.message(),
                     fs::path(path).parent_path().string());
  return writeFileAtomically(path, j.dump(1) + "\n");
}

} // namespace ktune
