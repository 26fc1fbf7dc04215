//===- Prompt.cpp - Rendering the planner prompt --------------------------===//
#include "ktune/Planner/Prompt.h"

#include "PlannerInternal.h"

#include "ktune/Support/FileUtil.h"
#include "ktune/Support/TextTemplate.h"
#include "ktune/Support/Try.h"

#include <algorithm>
#include <cctype>
#include <cstdio>

namespace ktune::planner {

std::string fenced(std::string_view text, std::string_view language) {
  size_t longest = 0, run = 0;
  for (char c : text) {
    run = c == '`' ? run + 1 : 0;
    longest = std::max(longest, run);
  }
  std::string fence(std::max<size_t>(3, longest + 1), '`');
  std::string out = fence + std::string(language) + "\n" + std::string(text);
  if (out.empty() || out.back() != '\n')
    out += '\n';
  return out + fence;
}

std::string redact(std::string text, const std::string &secret) {
  if (secret.empty())
    return text;
  for (size_t at = text.find(secret); at != std::string::npos;
       at = text.find(secret, at + 3))
    text.replace(at, secret.size(), "***");
  return text;
}

std::string clip(std::string_view text, size_t max) {
  if (text.size() <= max)
    return std::string(text);
  return std::string(text.substr(0, max)) + "\n[... " +
         std::to_string(text.size() - max) + " more bytes left out]";
}

std::string printable(std::string_view text) {
  std::string out;
  for (unsigned char c : text) {
    if (c == '\n' || c == '\t') {
      out += ' ';
    } else if (c < 0x20 || c == 0x7f) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\x%02X", c);
      out += buf;
    } else {
      out += static_cast<char>(c);
    }
  }
  return out;
}

std::string tail(std::string_view text, size_t max) {
  if (text.size() <= max)
    return std::string(text);
  return "..." + std::string(text.substr(text.size() - max));
}

Expected<std::string>
substitutePlaceholders(std::string_view templateText,
                       const std::map<std::string, std::string> &values) {
  auto text = renderTextTemplate(templateText, values);
  if (!text) // "line 3" -> "prompt template line 3"
    text.error().where = "prompt template " + text.error().where;
  return text;
}

/// The limits a plan can act on; the others (compute capability, block and
/// grid dimensions, the driver's reserve) would only lengthen the prompt.
static nlohmann::json promptDeviceLimits(const DeviceLimits &device) {
  nlohmann::json all = deviceLimitsToJson(device), shown;
  for (const char *key :
       {"name", "arch", "sm_count", "warp_size", "max_threads_per_block",
        "max_threads_per_sm", "max_blocks_per_sm", "regs_per_block",
        "regs_per_sm", "max_regs_per_thread", "smem_per_block",
        "smem_per_block_optin", "smem_per_sm", "l2_bytes"})
    shown[key] = all[key];
  return shown;
}

std::map<std::string, std::string> promptValues(const PlannerRequest &request,
                                                const std::string &planSchema) {
  std::map<std::string, std::string> v;
  v["kernel_file"] = request.file;
  v["plan_version"] = PlanVersion;

  // The main file first, then the others (headers) by name.
  std::vector<std::string> files;
  if (request.sources.count(request.file))
    files.push_back(request.file);
  for (const auto &[name, text] : request.sources)
    if (name != request.file)
      files.push_back(name);
  std::string sources;
  for (const auto &name : files) {
    if (!sources.empty())
      sources += "\n\n";
    sources +=
        "File `" + name + "`:\n\n" + fenced(request.sources.at(name), "cuda");
  }
  v["kernel_source"] = sources;
  v["candidates"] =
      fenced(dumpJson(candidatesToJson(request.candidates), 2), "json");
  std::string schema = planSchema;
  while (!schema.empty() &&
         std::isspace(static_cast<unsigned char>(schema.back())))
    schema.pop_back();
  v["plan_schema"] = fenced(schema, "json");
  v["device_limits"] =
      fenced(dumpJson(promptDeviceLimits(request.device), 2), "json");
  v["previous_plan"] =
      request.previousPlan
          ? fenced(dumpJson(planToJson(*request.previousPlan), 2), "json")
          : std::string();
  v["tuning_summary"] =
      request.tuningSummary.is_null()
          ? std::string()
          : fenced(dumpJson(request.tuningSummary, 2), "json");
  v["rejection_reasons"] = request.rejections.empty()
                               ? std::string()
                               : formatPlanErrors(request.rejections);
  v["rejected_reply"] = request.rejections.empty()
                            ? std::string()
                            : fenced(request.rejectedReply.empty()
                                         ? std::string("(an empty reply)")
                                         : clip(request.rejectedReply, 8000),
                                     "text");
  return v;
}

Expected<std::string> renderPrompt(const PlannerRequest &request,
                                   const PromptOptions &options) {
  KTUNE_TRY_ASSIGN(std::string templatePath, findPromptTemplate(options));
  KTUNE_TRY_ASSIGN(std::string templateText, readFile(templatePath));
  KTUNE_TRY_ASSIGN(std::string schemaPath, findPlanSchema(options));
  KTUNE_TRY_ASSIGN(std::string schema, readFile(schemaPath));
  return withContext(
      substitutePlaceholders(templateText, promptValues(request, schema)),
      templatePath);
}

} // namespace ktune::planner
