//===- ktune/Planner/Planner.h - Who writes the rewrite plan ----*- C++ -*-===//
//
// A planner proposes a rewrite plan for the candidates of a kernel: the
// built-in heuristic, a user's command (`command:<cmdline>`) or a model
// behind an OpenAI-compatible chat-completions endpoint
// (`openai:<base_url>`). Text planners get a prompt rendered from
// templates/planner_prompt.md and answer with text; nothing they say is
// trusted: planWithValidation (PlanWithValidation.h) extracts, parses and
// validates the plan exactly like a --plan file. Guide: docs/llm-planners.md.
//
//===----------------------------------------------------------------------===//
#ifndef KTUNE_PLANNER_PLANNER_H
#define KTUNE_PLANNER_PLANNER_H

#include "ktune/Plan/Candidates.h"
#include "ktune/Plan/Plan.h"
#include "ktune/Support/Error.h"
#include "ktune/Target/DeviceLimits.h"

#include <nlohmann/json.hpp>

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace ktune::planner {

/// What a planner is asked. `sources` holds the text of every file a
/// candidate's site points into, keyed like SourceSite::file.
struct PlannerRequest {
  std::string file; // the main file analysed, as the candidates name it
  SourceTexts sources;
  CandidateSet candidates;
  /// The limits the plan should respect, shown in the prompt.
  DeviceLimits device = assumedDeviceLimits();

  /// Re-plan rounds (`ktune run`): the plan tuned last round and what the
  /// tuning found (docs/llm-planners.md#tuning-summary). Null when absent.
  std::optional<Plan> previousPlan;
  nlohmann::json tuningSummary;

  /// Set by planWithValidation for the corrective exchange: why the last
  /// reply was refused, and that reply (so the model sees what it wrote).
  std::vector<Error> rejections;
  std::string rejectedReply;
};

/// One answer of a planner: text from a text planner, a plan from the
/// heuristic one, or why there is none.
struct PlannerReply {
  std::string text;
  std::optional<Plan> plan;
  /// The planner could not answer: unreachable, timed out, exited non-zero,
  /// HTTP error. Not set for a wrong answer: planWithValidation judges that.
  std::optional<Error> failure;
  /// How it was obtained, for the audit record: endpoint, model, HTTP
  /// attempts and statuses, exit status, seconds. Never holds credentials.
  nlohmann::json transport = nlohmann::json::object();
  /// The raw response body where it differs from `text` (HTTP), saved for
  /// audit with any credential removed.
  std::string rawResponse;
};

/// Where the prompt template and the plan schema come from.
struct PromptOptions {
  /// Explicit files; empty = searched (see findPromptTemplate).
  std::string templatePath;
  std::string schemaPath;
};

/// Knobs of the text planners. plannerOptionsFromEnvironment fills them
/// from KTUNE_* variables; drivers override with their flags.
struct PlannerOptions {
  PromptOptions prompt;
  std::string model;           // openai: model name (KTUNE_MODEL)
  double timeoutSeconds = 300; // per exchange (KTUNE_PLANNER_TIMEOUT)
  double connectTimeoutSeconds = 10;
  int attempts = 3;             // openai: tries per exchange (>= 1)
  double backoffSeconds = 1;    // openai: first wait; doubles per retry
  bool jsonMode = false;        // openai: send response_format json_object
  std::optional<int> maxTokens; // openai: max_tokens, when set
  /// openai: environment variables holding the API key, first set wins.
  /// The key is read from the environment only, sent as a Bearer token,
  /// and removed from anything saved or printed.
  std::vector<std::string> apiKeyVariables = {"KTUNE_API_KEY",
                                              "OPENAI_API_KEY"};
};

/// Defaults overridden by KTUNE_MODEL, KTUNE_PLANNER_TIMEOUT (seconds),
/// KTUNE_PLANNER_JSON_MODE (1/0), KTUNE_PROMPT_TEMPLATE and
/// KTUNE_PLAN_SCHEMA. A malformed value is an error naming the variable.
Expected<PlannerOptions> plannerOptionsFromEnvironment();

class Planner {
public:
  virtual ~Planner() = default;
  /// "heuristic", "command:./agent --json", "openai:http://host:8000/v1
  /// (model qwen2.5-coder)"; never contains credentials.
  virtual std::string describe() const = 0;
  /// True for planners that answer a prompt with text (everything but the
  /// heuristic).
  virtual bool isTextPlanner() const { return true; }
  /// The prompt this planner sends for `request` (renderPrompt with its
  /// PromptOptions); empty for the heuristic planner. An error means the
  /// template or the schema cannot be found or the template is malformed.
  virtual Expected<std::string> prompt(const PlannerRequest &request) const {
    return std::string();
  }
  /// One proposal. `prompt` is the rendered prompt (renderPrompt) for text
  /// planners and empty otherwise; `round` is 1 for the first proposal of a
  /// planning call and 2 for the corrective one.
  virtual PlannerReply propose(const PlannerRequest &request,
                               const std::string &prompt, int round) = 0;
};

/// The built-in planner (ktune::heuristicPlan with the request's sources).
std::unique_ptr<Planner> makeHeuristicPlanner();
/// `command:<cmdline>`: runs `/bin/sh -c <cmdline>` with the prompt on
/// stdin and takes stdout as the reply. KTUNE_PLANNER_ROUND (1 or 2) is set
/// in its environment. Timeout, then the process group is killed; a
/// non-zero exit is an error quoting the end of stderr.
std::unique_ptr<Planner> makeCommandPlanner(std::string commandLine,
                                            PlannerOptions options);
/// `openai:<base_url>`: POST <base_url>/chat/completions. Errors when the
/// library was built without libcurl, with a message saying so.
Expected<std::unique_ptr<Planner>> makeOpenAIPlanner(std::string baseUrl,
                                                     PlannerOptions options);

/// "heuristic" | "command:<cmdline>" | "openai:<base_url>"; anything else
/// is an error listing the forms.
Expected<std::unique_ptr<Planner>> parsePlannerSpec(const std::string &spec,
                                                    PlannerOptions options);

/// True when this build can speak HTTP (libcurl was found).
bool haveHttpPlanner();

} // namespace ktune::planner

#endif
