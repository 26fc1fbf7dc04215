#include "ktune/Plan/Candidates.h"

#include "JsonRead.h"

#include <array>
#include <limits>
#include <set>
#include <utility>

namespace ktune {

using nlohmann::json;

namespace {

constexpr std::array<std::pair<ParamKind, std::string_view>, 7> KindNames = {{
    {ParamKind::BlockSize, "block_size"},
    {ParamKind::TileSize, "tile_size"},
    {ParamKind::Unroll, "unroll"},
    {ParamKind::VectorWidth, "vector_width"},
    {ParamKind::ItemsPerThread, "items_per_thread"},
    {ParamKind::WarpsPerBlock, "warps_per_block"},
    {ParamKind::Other, "other"},
}};

constexpr std::array<std::pair<Confidence, std::string_view>, 3>
    ConfidenceNames = {{
        {Confidence::High, "high"},
        {Confidence::Medium, "medium"},
        {Confidence::Low, "low"},
    }};

std::string index(const std::string &where, size_t i) {
  return where + "[" + std::to_string(i) + "]";
}

Expected<std::string> optionalString(const json &j, const std::string &key,
                                     const std::string &where,
                                     std::string fallback) {
  if (!j.contains(key))
    return fallback;
  if (!j[key].is_string())
    return makeError("expected a string", json_read::join(where, key));
  return j[key].get<std::string>();
}

/// A required non-negative integer that fits an `unsigned`.
Expected<unsigned> unsignedField(const json &j, const std::string &key,
                                 const std::string &where, unsigned least) {
  std::string at = json_read::join(where, key);
  if (!j.contains(key))
    return makeError("missing required field", at);
  const json &v = j[key];
  if (!v.is_number_integer())
    return makeError("expected an integer, got " + v.dump(), at);
  if (v.is_number_unsigned()) {
    uint64_t u = v.get<uint64_t>();
    if (u > std::numeric_limits<unsigned>::max())
      return makeError("value " + std::to_string(u) + " is too large", at);
    if (u < least)
      return makeError("expected at least " + std::to_string(least), at);
    return static_cast<unsigned>(u);
  }
  int64_t s = v.get<int64_t>();
  if (s < static_cast<int64_t>(least))
    return makeError("expected at least " + std::to_string(least) + ", got " +
                         std::to_string(s),
                     at);
  if (s > static_cast<int64_t>(std::numeric_limits<unsigned>::max()))
    return makeError("value " + std::to_string(s) + " is too large", at);
  return static_cast<unsigned>(s);
}

Expected<SourceSite> readSite(const json &j, const std::string &where,
                              const std::string &defaultFile) {
  if (!j.is_object())
    return makeError("expected a site object", where);
  SourceSite s;
  KTUNE_TRY_ASSIGN(s.file, optionalString(j, "file", where, defaultFile));
  if (s.file.empty())
    return makeError("missing required field", json_read::join(where, "file"));
  KTUNE_TRY_ASSIGN(s.line, unsignedField(j, "line", where, 1));
  KTUNE_TRY_ASSIGN(s.col, unsignedField(j, "col", where, 1));
  KTUNE_TRY_ASSIGN(s.offset, unsignedField(j, "offset", where, 0));
  KTUNE_TRY_ASSIGN(s.text, json_read::string(j, "text", where));
  if (j.contains("length")) {
    KTUNE_TRY_ASSIGN(s.length, unsignedField(j, "length", where, 0));
    if (s.length != s.text.size())
      return makeError("length " + std::to_string(s.length) +
                           " differs from the size of text \"" + s.text +
                           "\" (" + std::to_string(s.text.size()) + ")",
                       json_read::join(where, "length"));
  } else {
    s.length = static_cast<unsigned>(s.text.size());
  }
  std::string role;
  KTUNE_TRY_ASSIGN(role, optionalString(j, "role", where, "other"));
  auto parsedRole = parseSiteRole(role);
  if (!parsedRole)
    return makeError("unknown role \"" + role + "\"",
                     json_read::join(where, "role"));
  s.role = *parsedRole;
  KTUNE_TRY_ASSIGN(s.replacement,
                   optionalString(j, "replacement", where, "{P}"));
  return s;
}

Expected<Candidate> readCandidate(const json &j, const std::string &where,
                                  const std::string &defaultFile) {
  if (!j.is_object())
    return makeError("expected a candidate object", where);
  Candidate c;
  KTUNE_TRY_ASSIGN(c.id, json_read::string(j, "id", where));
  if (c.id.empty())
    return makeError("candidate id is empty", json_read::join(where, "id"));

  std::string kind;
  KTUNE_TRY_ASSIGN(kind, json_read::string(j, "kind", where));
  auto parsedKind = parseKind(kind);
  if (!parsedKind)
    return makeError("unknown kind \"" + kind +
                         "\" (expected block_size, tile_size, unroll, "
                         "vector_width, items_per_thread, warps_per_block "
                         "or other)",
                     json_read::join(where, "kind"));
  c.kind = *parsedKind;

  KTUNE_TRY_ASSIGN(c.kernel, json_read::string(j, "kernel", where));
  KTUNE_TRY_ASSIGN(c.value, json_read::integer(j, "value", where));
  KTUNE_TRY_ASSIGN(c.spelling, optionalString(j, "spelling", where,
                                              std::to_string(c.value)));
  std::string confidence;
  KTUNE_TRY_ASSIGN(confidence,
                   optionalString(j, "confidence", where, "medium"));
  auto parsedConfidence = parseConfidence(confidence);
  if (!parsedConfidence)
    return makeError("unknown confidence \"" + confidence +
                         "\" (expected high, medium or low)",
                     json_read::join(where, "confidence"));
  c.confidence = *parsedConfidence;
  KTUNE_TRY_ASSIGN(c.why, optionalString(j, "why", where, ""));

  std::string sitesAt = json_read::join(where, "sites");
  if (!j.contains("sites"))
    return makeError("missing required field", sitesAt);
  if (!j["sites"].is_array() || j["sites"].empty())
    return makeError("expected a non-empty array of sites", sitesAt);
  for (size_t i = 0; i < j["sites"].size(); ++i) {
    auto site = readSite(j["sites"][i], index(sitesAt, i), defaultFile);
    if (!site)
      return std::unexpected(site.error());
    c.sites.push_back(std::move(*site));
  }

  if (j.contains("implied_constraints")) {
    std::string at = json_read::join(where, "implied_constraints");
    const json &list = j["implied_constraints"];
    if (!list.is_array())
      return makeError("expected an array of constraint strings", at);
    for (size_t i = 0; i < list.size(); ++i) {
      if (!list[i].is_string())
        return makeError("expected a constraint string", index(at, i));
      c.impliedConstraints.push_back(list[i].get<std::string>());
    }
  }
  return c;
}

json siteToJson(const SourceSite &s) {
  std::string_view role = siteRoleName(s.role);
  return {{"file", s.file},     {"line", s.line},
          {"col", s.col},       {"offset", s.offset},
          {"length", s.length}, {"text", s.text},
          {"role", role},       {"replacement", s.replacement}};
}

} // namespace

std::string_view kindName(ParamKind kind) {
  for (const auto &[k, name] : KindNames)
    if (k == kind)
      return name;
  return "other";
}

std::optional<ParamKind> parseKind(std::string_view name) {
  for (const auto &[k, n] : KindNames)
    if (n == name)
      return k;
  return std::nullopt;
}

std::string_view confidenceName(Confidence c) {
  for (const auto &[k, name] : ConfidenceNames)
    if (k == c)
      return name;
  return "medium";
}

std::optional<Confidence> parseConfidence(std::string_view name) {
  for (const auto &[k, n] : ConfidenceNames)
    if (n == name)
      return k;
  return std::nullopt;
}

const Candidate *CandidateSet::find(const std::string &id) const {
  for (const auto &c : candidates)
    if (c.id == id)
      return &c;
  return nullptr;
}

Expected<CandidateSet> candidatesFromJson(const json &j) {
  if (!j.is_object())
    return makeError("a candidates file is a JSON object", "$");
  if (!j.contains("ktune") || !j["ktune"].is_string())
    return makeError(std::string("missing version field (expected \"") +
                         CandidatesVersion + "\")",
                     "ktune");
  std::string version = j["ktune"].get<std::string>();
  if (version != CandidatesVersion)
    return makeError("unsupported candidates version \"" + version +
                         "\" (this ktune reads \"" + CandidatesVersion + "\")",
                     "ktune");
  CandidateSet set;
  KTUNE_TRY_ASSIGN(set.file, optionalString(j, "file", "", ""));
  if (!j.contains("candidates"))
    return makeError("missing required field", "candidates");
  if (!j["candidates"].is_array())
    return makeError("expected an array of candidates", "candidates");
  std::set<std::string> ids;
  for (size_t i = 0; i < j["candidates"].size(); ++i) {
    std::string at = index("candidates", i);
    auto c = readCandidate(j["candidates"][i], at, set.file);
    if (!c)
      return std::unexpected(c.error());
    if (!ids.insert(c->id).second)
      return makeError("duplicate candidate id \"" + c->id + "\"", at + ".id");
    set.candidates.push_back(std::move(*c));
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
    list.push_back(std::move(jc));
  }
  return {{"ktune", CandidatesVersion},
          {"file", set.file},
          {"candidates", std::move(list)}};
}

} // namespace ktune
