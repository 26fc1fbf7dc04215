//===- PlannerInternal.h - Helpers shared inside lib/Planner ----*- C++ -*-===//
#ifndef KTUNE_LIB_PLANNER_PLANNERINTERNAL_H
#define KTUNE_LIB_PLANNER_PLANNERINTERNAL_H

#include "ktune/Support/Error.h"

#include <nlohmann/json.hpp>

#include <string>
#include <string_view>

namespace ktune::planner {

/// An error without a location (planner failures are about the planner).
inline Error plannerError(std::string message) {
  return Error{std::move(message), {}};
}

/// JSON text that never throws on invalid UTF-8 in strings (kernel sources
/// and replies may hold any bytes): bad sequences become U+FFFD.
inline std::string dumpJson(const nlohmann::json &j, int indent = -1) {
  return j.dump(indent, ' ', false, nlohmann::json::error_handler_t::replace);
}

/// A Markdown code fence around `text`, longer than any backtick run in it,
/// so the text cannot close the block early.
std::string fenced(std::string_view text, std::string_view language);

/// `text` with every occurrence of `secret` replaced by "***" (no-op for an
/// empty secret).
std::string redact(std::string text, const std::string &secret);

/// At most `max` bytes of `text`, cut at the end with a note of how much
/// was left out.
std::string clip(std::string_view text, size_t max);

/// `text` with newlines and tabs as spaces and other control characters as
/// \xNN, so text from a planner or a server cannot drive the terminal it is
/// printed on.
std::string printable(std::string_view text);

/// The last `max` bytes of `text` (for stderr tails).
std::string tail(std::string_view text, size_t max);

} // namespace ktune::planner

#endif
