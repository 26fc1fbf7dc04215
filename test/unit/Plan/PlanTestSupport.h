//===- PlanTestSupport.h - Candidates made from real source text -*- C++
//-*-===//
#ifndef KTUNE_TEST_UNIT_PLAN_PLANTESTSUPPORT_H
#define KTUNE_TEST_UNIT_PLAN_PLANTESTSUPPORT_H

#include "ktune/Plan/Plan.h"

#include <stdexcept>
#include <string>

namespace ktune::test {

/// The site of the `occurrence`-th (0-based) spelling of `needle` in `text`,
/// with offset, line and column computed from the text.
inline SourceSite siteOf(const std::string &file, const std::string &text,
                         const std::string &needle, unsigned occurrence = 0,
                         std::string role = "other",
                         std::string replacement = "{P}") {
  size_t at = text.find(needle);
  for (unsigned i = 0; i < occurrence && at != std::string::npos; ++i)
    at = text.find(needle, at + 1);
  if (at == std::string::npos)
    throw std::logic_error("test source lacks '" + needle + "'");
  SourceSite s;
  s.file = file;
  s.offset = static_cast<unsigned>(at);
  s.length = static_cast<unsigned>(needle.size());
  s.text = needle;
  s.line = 1;
  s.col = 1;
  for (size_t i = 0; i < at; ++i) {
    if (text[i] == '\n') {
      ++s.line;
      s.col = 1;
    } else {
      ++s.col;
    }
  }
  s.role = std::move(role);
  s.replacement = std::move(replacement);
  return s;
}

inline std::string locationOf(const SourceSite &s) {
  return s.file + ":" + std::to_string(s.line) + ":" + std::to_string(s.col);
}

} // namespace ktune::test

#endif
