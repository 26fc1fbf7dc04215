//===- Evaluator.cpp - Status names and counts ---------------------------===//

#include "ktune/Tune/Evaluator.h"

#include <array>
#include <utility>

namespace ktune {

namespace {
constexpr std::array<std::pair<EvalStatus, std::string_view>, 6> StatusNames{{
    {EvalStatus::Ok, "ok"},
    {EvalStatus::Pruned, "pruned"},
    {EvalStatus::CompileError, "compile_error"},
    {EvalStatus::RuntimeError, "runtime_error"},
    {EvalStatus::Timeout, "timeout"},
    {EvalStatus::WrongResult, "wrong_result"},
}};
} // namespace

std::string_view statusName(EvalStatus s) {
  for (const auto &[status, name] : StatusNames)
    if (status == s)
      return name;
  return "unknown";
}

std::optional<EvalStatus> parseStatus(std::string_view name) {
  for (const auto &[status, text] : StatusNames)
    if (text == name)
      return status;
  return std::nullopt;
}

void to_json(nlohmann::json &j, const StatusCounts &counts) {
  j = nlohmann::json::object();
  for (const auto &[status, n] : counts)
    j[std::string(statusName(status))] = n;
}

} // namespace ktune
