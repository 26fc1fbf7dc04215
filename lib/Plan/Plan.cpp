#include "ktune/Plan/Plan.h"

#include "JsonRead.h"

#include <algorithm>
#include <initializer_list>

namespace ktune {

using nlohmann::json;

namespace {

std::string index(const std::string &where, size_t i) {
  return where + "[" + std::to_string(i) + "]";
}

size_t editDistance(std::string_view a, std::string_view b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j)
    row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diagonal = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1,
                         diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[b.size()];
}

/// Plans are often written by hand or by a model: a misspelt field must be
/// an error, never silently ignored.
Status rejectUnknownFields(const json &object, const std::string &where,
                           std::initializer_list<std::string_view> allowed) {
  for (const auto &[key, value] : object.items()) {
    if (std::find(allowed.begin(), allowed.end(), key) != allowed.end())
      continue;
    std::string list, nearest;
    size_t best = 3; // suggest only close spellings
    for (std::string_view a : allowed) {
      list += (list.empty() ? "" : ", ") + std::string(a);
      size_t d = editDistance(key, a);
      if (d < best) {
        best = d;
        nearest = a;
      }
    }
    std::string message = "unknown field \"" + key + "\"";
    if (!nearest.empty())
      message += " (did you mean \"" + nearest + "\"?)";
    message += "; allowed fields: " + list;
    return makeError(message, json_read::join(where, key));
  }
  return {};
}

Expected<std::vector<std::string>>
stringList(const json &j, const std::string &at, bool nonEmpty) {
  if (!j.is_array())
    return makeError("expected an array of strings", at);
  if (nonEmpty && j.empty())
    return makeError("expected a non-empty array of strings", at);
  std::vector<std::string> out;
  for (size_t i = 0; i < j.size(); ++i) {
    if (!j[i].is_string())
      return makeError("expected a string, got " + j[i].dump(), index(at, i));
    out.push_back(j[i].get<std::string>());
  }
  return out;
}

Expected<PlanParam> readParam(const json &j, const std::string &where) {
  if (!j.is_object())
    return makeError("expected a parameter object", where);
  if (auto s = rejectUnknownFields(j, where,
                                   {"name", "kind", "candidates", "sites",
                                    "default", "values", "range", "note"});
      !s)
    return std::unexpected(s.error());
  PlanParam p;
  KTUNE_TRY_ASSIGN(p.name, json_read::string(j, "name", where));
  std::string kind;
  KTUNE_TRY_ASSIGN(kind, json_read::string(j, "kind", where));
  auto parsed = parseKind(kind);
  if (!parsed)
    return makeError("unknown kind \"" + kind +
                         "\" (expected block_size, tile_size, unroll, "
                         "vector_width, items_per_thread, warps_per_block "
                         "or other)",
                     where + ".kind");
  p.kind = *parsed;
  if (!j.contains("candidates"))
    return makeError("missing required field", where + ".candidates");
  KTUNE_TRY_ASSIGN(p.candidates,
                   stringList(j["candidates"], where + ".candidates", true));
  if (j.contains("sites"))
    KTUNE_TRY_ASSIGN(p.sites, stringList(j["sites"], where + ".sites", false));
  KTUNE_TRY_ASSIGN(p.defaultValue, json_read::integer(j, "default", where));
  if (j.contains("range")) {
    const json &range = j["range"];
    if (range.is_object())
      if (auto s = rejectUnknownFields(range, where + ".range",
                                       {"min", "max", "step"});
          !s)
        return std::unexpected(s.error());
  }
  KTUNE_TRY_ASSIGN(p.domain, domainFromJson(j, where));
  if (j.contains("note")) {
    if (!j["note"].is_string())
      return makeError("expected a string", where + ".note");
    p.note = j["note"].get<std::string>();
  }
  return p;
}

Expected<PlanKernel> readKernel(const json &j, const std::string &where) {
  if (!j.is_object())
    return makeError("expected a kernel object", where);
  if (auto s =
          rejectUnknownFields(j, where, {"kernel", "params", "constraints"});
      !s)
    return std::unexpected(s.error());
  PlanKernel k;
  KTUNE_TRY_ASSIGN(k.kernel, json_read::string(j, "kernel", where));
  std::string paramsAt = where + ".params";
  if (!j.contains("params"))
    return makeError("missing required field", paramsAt);
  if (!j["params"].is_array())
    return makeError("expected an array of parameters", paramsAt);
  for (size_t i = 0; i < j["params"].size(); ++i) {
    auto p = readParam(j["params"][i], index(paramsAt, i));
    if (!p)
      return std::unexpected(p.error());
    k.params.push_back(std::move(*p));
  }
  if (j.contains("constraints"))
    KTUNE_TRY_ASSIGN(k.constraints, stringList(j["constraints"],
                                               where + ".constraints", false));
  return k;
}

} // namespace

Expected<Plan> planFromJson(const json &j) {
  if (!j.is_object())
    return makeError("a plan is a JSON object", "$");
  if (!j.contains("ktune") || !j["ktune"].is_string())
    return makeError(std::string("missing version field (expected \"") +
                         PlanVersion + "\")",
                     "ktune");
  std::string version = j["ktune"].get<std::string>();
  if (version != PlanVersion)
    return makeError("unsupported plan version \"" + version +
                         "\" (this ktune reads \"" + PlanVersion + "\")",
                     "ktune");
  if (auto s = rejectUnknownFields(j, "",
                                   {"ktune", "$schema", "planner", "kernels"});
      !s)
    return std::unexpected(s.error());
  Plan plan;
  if (j.contains("planner")) {
    if (!j["planner"].is_string())
      return makeError("expected a string", "planner");
    plan.planner = j["planner"].get<std::string>();
  }
  if (!j.contains("kernels"))
    return makeError("missing required field", "kernels");
  if (!j["kernels"].is_array())
    return makeError("expected an array of kernels", "kernels");
  for (size_t i = 0; i < j["kernels"].size(); ++i) {
    auto k = readKernel(j["kernels"][i], index("kernels", i));
    if (!k)
      return std::unexpected(k.error());
    plan.kernels.push_back(std::move(*k));
  }
  return plan;
}

json planToJson(const Plan &plan) {
  json kernels = json::array();
  for (const auto &k : plan.kernels) {
    json params = json::array();
    for (const auto &p : k.params) {
      json jp = {{"name", p.name},
                 {"kind", std::string(kindName(p.kind))},
                 {"candidates", p.candidates},
                 {"default", p.defaultValue}};
      if (!p.sites.empty())
        jp["sites"] = p.sites;
      domainToJson(p.domain, jp);
      if (!p.note.empty())
        jp["note"] = p.note;
      params.push_back(std::move(jp));
    }
    kernels.push_back({{"kernel", k.kernel},
                       {"params", std::move(params)},
                       {"constraints", k.constraints}});
  }
  json j = {{"ktune", PlanVersion}};
  if (!plan.planner.empty())
    j["planner"] = plan.planner;
  j["kernels"] = std::move(kernels);
  return j;
}

} // namespace ktune
