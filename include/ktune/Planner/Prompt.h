//===- ktune/Planner/Prompt.h - What a text planner is sent -----*- C++ -*-===//
//
// The prompt is templates/planner_prompt.md with {{placeholders}} filled in,
// so it can be edited without rebuilding. The template and the plan schema
// (docs/schemas/plan.schema.json) are found at run time; the reply's JSON
// is extracted by extractPlanJson. Guide: docs/llm-planners.md.
//
//===----------------------------------------------------------------------===//
#ifndef KTUNE_PLANNER_PROMPT_H
#define KTUNE_PLANNER_PROMPT_H

#include "ktune/Planner/Planner.h"
#include "ktune/Support/Error.h"

#include <nlohmann/json.hpp>

#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace ktune::planner {

/// A data file installed with ktune. Searched, first found wins:
///   1. `explicitPath` (a driver's option), then the environment variable
///      `envVariable`, when set (a missing file is then an error);
///   2. $KTUNE_DATA_DIR/<installRelative>;
///   3. <executable's directory>/../share/ktune/<installRelative>;
///   4. <install prefix>/share/ktune/<installRelative>;
///   5. <source tree>/<sourceRelative> (a build that was not installed).
/// The error lists every place tried.
Expected<std::string> findDataFile(const std::string &explicitPath,
                                   const std::string &envVariable,
                                   const std::string &installRelative,
                                   const std::string &sourceRelative);

/// templates/planner_prompt.md (override: KTUNE_PROMPT_TEMPLATE).
Expected<std::string> findPromptTemplate(const PromptOptions &options);
/// docs/schemas/plan.schema.json (override: KTUNE_PLAN_SCHEMA).
Expected<std::string> findPlanSchema(const PromptOptions &options);

/// Replaces every `{{name}}` in `templateText` by `values[name]` and keeps
/// `{{#name}}...{{/name}}` only when `name` is not empty, in one pass
/// (renderTextTemplate, ktune/Support/TextTemplate.h): inserted text is never
/// scanned again, so a kernel source containing `{{x}}` stays as it is. An
/// unknown placeholder is an error naming it and its line ("prompt template
/// line N"); `{{` not followed by a name and `}}` is kept literally.
Expected<std::string>
substitutePlaceholders(std::string_view templateText,
                       const std::map<std::string, std::string> &values);

/// The placeholder values for a request: kernel_file, kernel_source,
/// candidates_json, plan_schema, plan_version, device_limits,
/// previous_round, rejection_reasons (the last two are whole sections, empty
/// when they do not apply).
std::map<std::string, std::string> promptValues(const PlannerRequest &request,
                                                const std::string &planSchema);

/// The prompt exactly as a text planner would send it: finds and reads the
/// template and the schema, and substitutes the request.
Expected<std::string> renderPrompt(const PlannerRequest &request,
                                   const PromptOptions &options);

/// The plan JSON in a reply, tried in order: a leading `<think>...</think>`
/// block is dropped; then (1) the whole reply, (2) the first fenced block
/// tagged json, (3) the first fenced block whose content is a JSON object,
/// (4) the text from the first `{` to the last `}`. The first candidate
/// that parses as a JSON object wins. Replies over 1 MiB are refused.
Expected<nlohmann::json> extractPlanJson(std::string_view reply);

/// Most bytes of a reply that are read.
inline constexpr size_t MaxReplyBytes = size_t(1) << 20;

} // namespace ktune::planner

#endif
