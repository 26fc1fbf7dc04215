//===- PlanWithValidation.cpp - Propose, validate, correct once, fall back ===//
//
// A planner's reply is untrusted text. It is held to exactly the checks of
// a --plan file (planFromJson, validatePlan); the reasons go back to the
// planner once; after that the heuristic plan is used. Every exchange is
// saved, so a person can see what was asked, what came back and why it was
// taken or refused.
//
//===----------------------------------------------------------------------===//
#include "ktune/Planner/PlanWithValidation.h"
#include "ktune/Planner/Prompt.h"
#include "ktune/Support/Try.h"

#include "PlannerInternal.h"

#include "ktune/Expr/Expr.h"
#include "ktune/Support/EnumNames.h"
#include "ktune/Support/FileUtil.h"

#include <cctype>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <system_error>

namespace ktune::planner {

namespace fs = std::filesystem;

std::string_view outcomeName(PlanningOutcome outcome) {
  return nameOf(PlanningOutcomeNames, outcome, "fallback");
}

nlohmann::json planningResultToJson(const PlanningResult &r) {
  nlohmann::json exchanges = nlohmann::json::array();
  for (const auto &e : r.exchanges) {
    nlohmann::json reasons = nlohmann::json::array();
    for (const auto &x : e.reasons)
      reasons.push_back(x.str());
    exchanges.push_back({{"exchange", e.number},
                         {"round", e.round},
                         {"verdict", e.verdict},
                         {"reasons", reasons},
                         {"audit", e.auditPrefix}});
  }
  nlohmann::json reasons = nlohmann::json::array();
  for (const auto &x : r.fallbackReasons)
    reasons.push_back(x.str());
  return {{"outcome", outcomeName(r.outcome)},
          {"planner", r.planner},
          {"fallback_reasons", reasons},
          {"exchanges", exchanges}};
}

Plan sanitizeUntrustedPlan(Plan plan, const std::string &planner) {
  plan.planner = planner;
  for (PlanKernel &k : plan.kernels) {
    for (PlanParam &p : k.params)
      p.note.clear();
    for (std::string &c : k.constraints)
      if (auto e = expr::Expr::parse(c))
        c = e->str();
  }
  return plan;
}

namespace {

std::string nowUtc() {
  std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buffer[32];
  std::strftime(buffer, sizeof buffer, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buffer;
}

std::string twoDigits(int n) {
  char buffer[16];
  std::snprintf(buffer, sizeof buffer, "%02d", n);
  return buffer;
}

/// The number after the highest "NN-" file already in `dir`.
int nextExchangeNumber(const std::string &dir) {
  int highest = 0;
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end;
       it.increment(ec)) {
    std::string name = it->path().filename().string();
    size_t digits = 0;
    while (digits < name.size() &&
           std::isdigit(static_cast<unsigned char>(name[digits])))
      ++digits;
    if (digits > 0 && digits < 9 && digits < name.size() && name[digits] == '-')
      highest = std::max(highest, std::stoi(name.substr(0, digits)));
  }
  return highest + 1;
}

nlohmann::json errorsToJson(const std::vector<Error> &errors) {
  nlohmann::json out = nlohmann::json::array();
  for (const Error &e : errors)
    out.push_back({{"where", e.where}, {"message", e.message}});
  return out;
}

std::string countText(size_t n, const char *word) {
  return std::to_string(n) + " " + word + (n == 1 ? "" : "s");
}

std::string planSummary(const Plan &plan) {
  size_t params = 0;
  for (const auto &k : plan.kernels)
    params += k.params.size();
  return countText(params, "parameter") + " in " +
         countText(plan.kernels.size(), "kernel");
}

/// The strict-mode error for a plan refused after the correction round.
std::string refusedTwice(const std::vector<Error> &reasons,
                         const std::string &auditDir) {
  std::string line = "the planner's plan was refused twice";
  if (!reasons.empty()) {
    line += ": " + reasons.front().str();
    if (reasons.size() > 1)
      line += " (and " + countText(reasons.size() - 1, "more reason") + ")";
  }
  if (!auditDir.empty())
    line += "; exchanges saved in " + auditDir;
  return printable(line);
}

/// The reply's plan, or every reason it cannot be used.
std::expected<Plan, std::vector<Error>>
judgeReply(const std::string &text, const PlannerRequest &request,
           const std::string &planner) {
  auto json = extractPlanJson(text);
  if (!json)
    return std::unexpected(std::vector<Error>{json.error()});
  auto plan = planFromJson(*json);
  if (!plan)
    return std::unexpected(std::vector<Error>{plan.error()});
  if (auto errors = validatePlan(*plan, request.candidates, request.sources);
      !errors.empty())
    return std::unexpected(std::move(errors));
  Plan safe = sanitizeUntrustedPlan(std::move(*plan), planner);
  // Canonical constraints mean the same; check again all the same, since
  // this plan is what the rewriter will see.
  if (auto errors = validatePlan(safe, request.candidates, request.sources);
      !errors.empty())
    return std::unexpected(std::move(errors));
  return safe;
}

class Audit {
public:
  Audit(std::string dir, std::string planner)
      : Dir(std::move(dir)), Planner(std::move(planner)) {}

  Status open() {
    if (Dir.empty())
      return {};
    std::error_code ec;
    fs::create_directories(Dir, ec);
    if (ec)
      return makeError(
          "cannot create the planner audit directory: " + ec.message(), Dir);
    Next = nextExchangeNumber(Dir);
    return {};
  }

  int reserve() { return Next++; }

  std::string prefix(int number) const {
    return Dir.empty() ? std::string()
                       : (fs::path(Dir) / (twoDigits(number) + "-")).string();
  }

  Status save(int number, const std::string &prompt, const PlannerReply &reply,
              nlohmann::json verdict) {
    if (Dir.empty())
      return {};
    std::string p = prefix(number);
    if (auto s = writeFileAtomically(p + "prompt.md", prompt); !s)
      return s;
    if (auto s = writeFileAtomically(p + "reply.txt", reply.text); !s)
      return s;
    if (!reply.rawResponse.empty())
      if (auto s = writeFileAtomically(p + "response.json", reply.rawResponse);
          !s)
        return s;
    return writeFileAtomically(p + "verdict.json", dumpJson(verdict, 2) + "\n");
  }

  nlohmann::json verdict(int number, int round, const std::string &what,
                         const std::vector<Error> &reasons,
                         const PlannerReply &reply) const {
    return {{"ktune", "planner-verdict/1"},
            {"exchange", number},
            {"round", round},
            {"planner", Planner},
            {"verdict", what},
            {"reasons", errorsToJson(reasons)},
            {"transport", reply.transport},
            {"at", nowUtc()}};
  }

  const std::string &dir() const { return Dir; }

private:
  std::string Dir, Planner;
  int Next = 1;
};

} // namespace

Expected<PlanningResult> planWithValidation(Planner &planner,
                                            const PlannerRequest &request,
                                            const PlanningOptions &options) {
  PlanningResult result;
  result.planner = planner.describe();
  auto log = [&](const std::string &line) {
    std::string shown = printable(line);
    result.messages.push_back(shown);
    if (options.log)
      options.log(shown);
  };
  auto logReasons = [&](const std::vector<Error> &reasons) {
    for (const Error &e : reasons)
      log("  - " + e.str());
  };
  auto heuristic = [&]() -> Expected<Plan> {
    Plan plan = defaultPlan(request.candidates, request.sources);
    if (auto errors = validatePlan(plan, request.candidates, request.sources);
        !errors.empty())
      return makeError("the heuristic plan does not validate (a bug in "
                       "ktune):\n" +
                       formatPlanErrors(errors));
    return plan;
  };

  if (!request.tuningSummary.is_null())
    if (auto errors = checkTuningSummary(request.tuningSummary);
        !errors.empty())
      return makeError("the tuning summary for the planner is malformed:\n" +
                       formatPlanErrors(errors));

  if (!planner.isTextPlanner()) {
    PlannerReply reply = planner.propose(request, "", 1);
    if (reply.failure)
      return std::unexpected(*reply.failure);
    if (!reply.plan)
      return makeError("planner " + result.planner + " returned no plan");
    if (auto errors =
            validatePlan(*reply.plan, request.candidates, request.sources);
        !errors.empty())
      return makeError("the plan of " + result.planner +
                       " does not validate:\n" + formatPlanErrors(errors));
    result.plan = std::move(*reply.plan);
    result.outcome = PlanningOutcome::Applied;
    return result;
  }

  // Known before asking, so each verdict that ends in the fallback can
  // record the plan used.
  auto fallback = heuristic();
  if (!fallback)
    return std::unexpected(fallback.error());
  fallback->planner = "heuristic (fallback from " + result.planner + ")";

  Audit audit(options.auditDir, result.planner);
  KTUNE_TRY(audit.open());

  PlannerRequest current = request;
  current.rejections.clear();
  current.rejectedReply.clear();
  for (int round = 1; round <= 2; ++round) {
    KTUNE_TRY_ASSIGN(auto prompt, planner.prompt(current));
    int number = audit.reserve();
    log(round == 1 ? "asking " + result.planner + " for a plan"
                   : "asking once for a corrected plan");
    PlannerReply reply = planner.propose(current, prompt, round);

    PlanningExchange exchange;
    exchange.number = number;
    exchange.round = round;
    exchange.auditPrefix = audit.prefix(number);

    if (reply.failure) {
      exchange.verdict = "planner_error";
      exchange.reasons = {*reply.failure};
      result.exchanges.push_back(exchange);
      nlohmann::json v = audit.verdict(number, round, exchange.verdict,
                                       exchange.reasons, reply);
      if (!options.strict) {
        v["outcome"] = outcomeName(PlanningOutcome::Fallback);
        v["plan"] = planToJson(*fallback);
      }
      KTUNE_TRY(audit.save(number, prompt, reply, v));
      if (options.strict)
        return std::unexpected(*reply.failure);
      log(reply.failure->str());
      result.fallbackReasons = exchange.reasons;
      break;
    }

    auto judged = judgeReply(reply.text, request, result.planner);
    if (judged) {
      exchange.verdict = "accepted";
      result.exchanges.push_back(exchange);
      result.plan = std::move(*judged);
      result.fallbackReasons.clear();
      result.outcome =
          round == 1 ? PlanningOutcome::Applied : PlanningOutcome::Corrected;
      nlohmann::json v =
          audit.verdict(number, round, exchange.verdict, {}, reply);
      v["outcome"] = outcomeName(result.outcome);
      v["plan"] = planToJson(result.plan);
      KTUNE_TRY(audit.save(number, prompt, reply, v));
      log(std::string(round == 1 ? "plan" : "corrected plan") +
          " accepted: " + planSummary(result.plan));
      if (!audit.dir().empty())
        log("exchanges saved in " + audit.dir());
      return result;
    }

    exchange.verdict = "rejected";
    exchange.reasons = judged.error();
    result.exchanges.push_back(exchange);
    nlohmann::json v =
        audit.verdict(number, round, exchange.verdict, exchange.reasons, reply);
    if (round == 2 && !options.strict) {
      v["outcome"] = outcomeName(PlanningOutcome::Fallback);
      v["plan"] = planToJson(*fallback);
    }
    KTUNE_TRY(audit.save(number, prompt, reply, v));
    // Strict: a plan from the planner or an error, one line naming the
    // first reason (the audit directory holds them all).
    if (round == 2 && options.strict)
      return makeError(refusedTwice(exchange.reasons, audit.dir()));
    log(std::string(round == 1 ? "plan" : "corrected plan") + " refused" +
        (round == 2 ? " too" : "") + ", " +
        countText(exchange.reasons.size(), "reason") + ":");
    logReasons(exchange.reasons);
    result.fallbackReasons = exchange.reasons;
    current.rejections = exchange.reasons;
    current.rejectedReply = reply.text;
  }

  result.plan = std::move(*fallback);
  result.outcome = PlanningOutcome::Fallback;
  log("falling back to the heuristic plan: " + planSummary(result.plan));
  if (!audit.dir().empty())
    log("exchanges saved in " + audit.dir());
  return result;
}

} // namespace ktune::planner
