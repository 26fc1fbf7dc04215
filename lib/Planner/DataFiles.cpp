//===- DataFiles.cpp - Finding the prompt template and the schema ---------===//
//
// The prompt template is meant to be edited without rebuilding, so it is
// read at run time: from an override, from an install beside the
// executable or under the install prefix, or from the source tree.
//
//===----------------------------------------------------------------------===//
#include "ktune/Planner/Prompt.h"

#include <cstdlib>
#include <filesystem>
#include <system_error>

#ifndef KTUNE_SOURCE_DIR
#define KTUNE_SOURCE_DIR ""
#endif
#ifndef KTUNE_INSTALL_PREFIX
#define KTUNE_INSTALL_PREFIX ""
#endif

namespace ktune::planner {

namespace fs = std::filesystem;

namespace {

std::string executableDir() {
  std::error_code ec;
  fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (ec)
    return {};
  return exe.parent_path().string();
}

bool isFile(const fs::path &p) {
  std::error_code ec;
  return fs::is_regular_file(p, ec);
}

} // namespace

Expected<std::string> findDataFile(const std::string &explicitPath,
                                   const std::string &envVariable,
                                   const std::string &installRelative,
                                   const std::string &sourceRelative) {
  // An explicit choice that does not exist is a mistake to report, not a
  // reason to silently use another file.
  if (!explicitPath.empty()) {
    if (!isFile(explicitPath))
      return makeError("no such file", explicitPath);
    return explicitPath;
  }
  if (const char *env = std::getenv(envVariable.c_str()); env && *env) {
    if (!isFile(env))
      return makeError("no such file (from " + envVariable + ")", env);
    return std::string(env);
  }
  std::vector<fs::path> tried;
  if (const char *dataDir = std::getenv("KTUNE_DATA_DIR"); dataDir && *dataDir)
    tried.push_back(fs::path(dataDir) / installRelative);
  if (std::string exe = executableDir(); !exe.empty())
    tried.push_back(fs::path(exe) / ".." / "share" / "ktune" / installRelative);
  if (*KTUNE_INSTALL_PREFIX)
    tried.push_back(fs::path(KTUNE_INSTALL_PREFIX) / "share" / "ktune" /
                    installRelative);
  if (*KTUNE_SOURCE_DIR)
    tried.push_back(fs::path(KTUNE_SOURCE_DIR) / sourceRelative);
  for (const auto &p : tried)
    if (isFile(p))
      return p.lexically_normal().string();
  std::string list;
  for (const auto &p : tried)
    list += (list.empty() ? "" : ", ") + p.lexically_normal().string();
  return makeError("cannot find " +
                   fs::path(installRelative).filename().string() + " (set " +
                   envVariable + "; looked in: " + list + ")");
}

Expected<std::string> findPromptTemplate(const PromptOptions &options) {
  return findDataFile(options.templatePath, "KTUNE_PROMPT_TEMPLATE",
                      "templates/planner_prompt.md",
                      "templates/planner_prompt.md");
}

Expected<std::string> findPlanSchema(const PromptOptions &options) {
  return findDataFile(options.schemaPath, "KTUNE_PLAN_SCHEMA",
                      "schemas/plan.schema.json",
                      "docs/schemas/plan.schema.json");
}

} // namespace ktune::planner
