#include "ktune/Plan/Candidates.h"

#include "ktune/Support/EnumNames.h"
#include "ktune/Support/JsonReader.h"
#include "ktune/Support/Try.h"

#include <algorithm>
#include <limits>
#include <regex>
#include <set>
#include <utility>

namespace ktune {

using nlohmann::json;

bool isIntroduced(const Candidate &c) {
  return std::any_of(c.sites.begin(), c.sites.end(), [](const SourceSite &s) {
    return s.role == SiteRole::KernelBody ||
           s.role == SiteRole::KernelAttributes;
  });
}

namespace {

/// A required non-negative integer that fits an `unsigned`.
Expected<unsigned> unsignedField(const JsonReader &j, std::string_view key,
                                 unsigned least) {
  KTUNE_TRY_ASSIGN(JsonReader v, j.required(key));
  if (!v.isInteger())
    return v.fail("expected an integer, got " + v.brief());
  if (v.json().is_number_unsigned()) {
    uint64_t u = *v.unsignedInteger();
    if (u > std::numeric_limits<unsigned>::max())
      return v.fail("value " + std::to_string(u) + " is too large");
    if (u < least)
      return v.fail("expected at least " + std::to_string(least));
    return static_cast<unsigned>(u);
  }
  int64_t s = *v.integer();
  if (s < static_cast<int64_t>(least))
    return v.fail("expected at least " + std::to_string(least) + ", got " +
                  std::to_string(s));
  if (s > static_cast<int64_t>(std::numeric_limits<unsigned>::max()))
    return v.fail("value " + std::to_string(s) + " is too large");
  return static_cast<unsigned>(s);
}

Expected<SourceSite> readSite(const JsonReader &j,
                              const std::string &defaultFile) {
  if (!j.isObject())
    return j.fail("expected a site object");
  SourceSite s;
  KTUNE_TRY_ASSIGN(s.file, j.optionalString("file", defaultFile));
  if (s.file.empty())
    return j.failAt("file", "missing required field");
  KTUNE_TRY_ASSIGN(s.line, unsignedField(j, "line", 1));
  KTUNE_TRY_ASSIGN(s.col, unsignedField(j, "col", 1));
  KTUNE_TRY_ASSIGN(s.offset, unsignedField(j, "offset", 0));
  KTUNE_TRY_ASSIGN(s.text, j.requiredString("text"));
  if (j.has("length")) {
    KTUNE_TRY_ASSIGN(s.length, unsignedField(j, "length", 0));
    if (s.length != s.text.size())
      return j.failAt("length", "length " + std::to_string(s.length) +
                                    " differs from the size of text \"" +
                                    s.text + "\" (" +
                                    std::to_string(s.text.size()) + ")");
  } else {
    s.length = static_cast<unsigned>(s.text.size());
  }
  KTUNE_TRY_ASSIGN(std::string role, j.optionalString("role", "other"));
  auto parsedRole = parseSiteRole(role);
  if (!parsedRole)
    return j["role"].fail("unknown role \"" + role + "\"");
  s.role = *parsedRole;
  KTUNE_TRY_ASSIGN(s.replacement, j.optionalString("replacement", "{P}"));
  KTUNE_TRY_ASSIGN(s.shared, j.optionalBool("shared", false));
  KTUNE_TRY_ASSIGN(s.before, j.optionalString("before", ""));
  KTUNE_TRY_ASSIGN(s.after, j.optionalString("after", ""));
  static const std::regex shadow(
      R"( constexpr [A-Za-z_][A-Za-z0-9_: ]* [A-Za-z_][A-Za-z0-9_]* = )");
  bool declares = std::regex_match(s.before, shadow) && s.after == ";";
  if (!declares && !s.after.empty())
    return j["after"].fail("after must be \";\" after a constexpr "
                           "declaration's before, or absent");
  if (!declares && !s.before.empty() && s.before != ", ")
    return j["before"].fail(
        "before must be \", \", \" constexpr <type> <name> = \" or absent");
  if (!s.before.empty() && s.length != 0)
    return j["before"].fail("a site with before inserts: its length is 0");
  // A register cap's bounds: a minimum joining `__launch_bounds__(N`, or
  // bounds that are none at the default.
  if (s.role == SiteRole::KernelAttributes &&
      (s.length != 0 ||
       !(s.before == ", " ? s.replacement == "{P}"
                          : s.replacement == RegisterCapBounds)))
    return j["replacement"].fail(
        "a kernel_attributes site inserts `, {P}` (before \", \") or \"" +
        std::string(RegisterCapBounds) + "\" at length 0");
  return s;
}

Expected<Candidate> readCandidate(const JsonReader &j,
                                  const std::string &defaultFile) {
  if (!j.isObject())
    return j.fail("expected a candidate object");
  Candidate c;
  KTUNE_TRY_ASSIGN(c.id, j.requiredString("id"));
  if (c.id.empty())
    return j.failAt("id", "candidate id is empty");

  KTUNE_TRY_ASSIGN(c.kind, kindFromJson(j));

  KTUNE_TRY_ASSIGN(c.kernel, j.requiredString("kernel"));
  KTUNE_TRY_ASSIGN(c.value, j.requiredInteger("value"));
  KTUNE_TRY_ASSIGN(c.spelling,
                   j.optionalString("spelling", std::to_string(c.value)));
  KTUNE_TRY_ASSIGN(std::string confidence,
                   j.optionalString("confidence", "medium"));
  auto parsedConfidence = parseConfidence(confidence);
  if (!parsedConfidence)
    return j.failAt("confidence", "unknown confidence \"" + confidence +
                                      "\" (expected high, medium or low)");
  c.confidence = *parsedConfidence;
  KTUNE_TRY_ASSIGN(c.why, j.optionalString("why"));
  KTUNE_TRY_ASSIGN(c.type, j.optionalString("type"));
  KTUNE_TRY_ASSIGN(c.launchParam, j.optionalBool("launch_param", false));
  if (j.has("case")) {
    JsonReader cs = j["case"];
    KTUNE_TRY_ASSIGN(c.caseTable, cs.requiredString("table"));
    KTUNE_TRY_ASSIGN(c.caseIndex, cs.requiredInteger("index"));
    KTUNE_TRY_ASSIGN(c.caseCondition, cs.requiredString("condition"));
  }
  KTUNE_TRY_ASSIGN(c.fixesArgument, j.optionalString("fixes_argument"));
  if (c.kind == ParamKind::FixedArg && c.fixesArgument.empty())
    return j.failAt("fixes_argument",
                    "a fixed_arg candidate names the argument it fixes");

  KTUNE_TRY_ASSIGN(JsonReader sites, j.required("sites"));
  if (!sites.isArray() || sites.size() == 0)
    return sites.fail("expected a non-empty array of sites");
  for (const JsonReader &site : sites.elements()) {
    KTUNE_TRY_ASSIGN(auto s, readSite(site, defaultFile));
    c.sites.push_back(std::move(s));
  }

  KTUNE_TRY_ASSIGN(c.impliedConstraints,
                   j.optionalArray(
                       "implied_constraints",
                       [](const JsonReader &e) -> Expected<std::string> {
                         if (!e.isString())
                           return e.fail("expected a constraint string");
                         return *e.string();
                       },
                       "expected an array of constraint strings"));
  return c;
}

json siteToJson(const SourceSite &s) {
  std::string_view role = siteRoleName(s.role);
  json out = {{"file", s.file},     {"line", s.line},
              {"col", s.col},       {"offset", s.offset},
              {"length", s.length}, {"text", s.text},
              {"role", role},       {"replacement", s.replacement}};
  if (s.shared)
    out["shared"] = true;
  if (!s.before.empty())
    out["before"] = s.before;
  if (!s.after.empty())
    out["after"] = s.after;
  return out;
}

} // namespace

std::string_view confidenceName(Confidence c) {
  return nameOf(ConfidenceNames, c, "medium");
}

std::optional<Confidence> parseConfidence(std::string_view name) {
  return parseName(ConfidenceNames, name);
}

const Candidate *CandidateSet::find(const std::string &id) const {
  for (const auto &c : candidates)
    if (c.id == id)
      return &c;
  return nullptr;
}

Expected<CandidateSet> candidatesFromJson(const json &json) {
  JsonReader j(json);
  KTUNE_TRY(j.expectVersion("a candidates file", CandidatesVersion));
  CandidateSet set;
  KTUNE_TRY_ASSIGN(set.file, j.optionalString("file"));
  KTUNE_TRY_ASSIGN(JsonReader candidates, j.required("candidates"));
  if (!candidates.isArray())
    return candidates.fail("expected an array of candidates");
  std::set<std::string> ids;
  for (const JsonReader &candidate : candidates.elements()) {
    KTUNE_TRY_ASSIGN(auto c, readCandidate(candidate, set.file));
    if (!ids.insert(c.id).second)
      return candidate.failAt("id", "duplicate candidate id \"" + c.id + "\"");
    set.candidates.push_back(std::move(c));
  }
  if (j.hasValue("refusals")) {
    KTUNE_TRY_ASSIGN(JsonReader refusals, j.required("refusals"));
    if (!refusals.isArray())
      return refusals.fail("expected an array of refusals");
    for (const JsonReader &r : refusals.elements()) {
      Refusal refusal;
      KTUNE_TRY_ASSIGN(refusal.kernel, r.requiredString("kernel"));
      KTUNE_TRY_ASSIGN(refusal.kind, kindFromJson(r));
      KTUNE_TRY_ASSIGN(refusal.why, r.requiredString("why"));
      set.refusals.push_back(std::move(refusal));
    }
  }
  return set;
}

json candidatesToJson(const CandidateSet &set) {
  json list = json::array();
  for (const auto &c : set.candidates) {
    json sites = json::array();
    for (const auto &s : c.sites)
      sites.push_back(siteToJson(s));
    json jc = {{"id", c.id},
               {"kind", std::string(kindName(c.kind))},
               {"kernel", c.kernel},
               {"value", c.value},
               {"spelling", c.spelling},
               {"confidence", std::string(confidenceName(c.confidence))},
               {"why", c.why},
               {"sites", std::move(sites)}};
    if (!c.impliedConstraints.empty())
      jc["implied_constraints"] = c.impliedConstraints;
    if (!c.type.empty())
      jc["type"] = c.type;
    if (c.launchParam)
      jc["launch_param"] = true;
    if (!c.caseTable.empty())
      jc["case"] = {{"table", c.caseTable},
                    {"index", c.caseIndex},
                    {"condition", c.caseCondition}};
    if (!c.fixesArgument.empty())
      jc["fixes_argument"] = c.fixesArgument;
    list.push_back(std::move(jc));
  }
  json out = {{"ktune", CandidatesVersion},
              {"file", set.file},
              {"candidates", std::move(list)}};
  for (const auto &r : set.refusals)
    out["refusals"].push_back({{"kernel", r.kernel},
                               {"kind", std::string(kindName(r.kind))},
                               {"why", r.why}});
  return out;
}

} // namespace ktune
