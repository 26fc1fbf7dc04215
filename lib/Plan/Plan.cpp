#include "ktune/Plan/Plan.h"

#include "ktune/Support/JsonReader.h"
#include "ktune/Support/Try.h"

namespace ktune {

using nlohmann::json;

namespace {

Expected<std::vector<std::string>> stringList(const JsonReader &list,
                                              bool nonEmpty) {
  if (!list.isArray())
    return list.fail("expected an array of strings");
  if (nonEmpty && list.size() == 0)
    return list.fail("expected a non-empty array of strings");
  std::vector<std::string> out;
  for (const JsonReader &e : list.elements()) {
    if (!e.isString())
      return e.fail("expected a string, got " + e.brief());
    out.push_back(*e.string());
  }
  return out;
}

/// Plans are often written by hand or by a model: a misspelt field is an
/// error (onlyFields), never silently ignored.
Expected<PlanParam> readParam(const JsonReader &j) {
  if (!j.isObject())
    return j.fail("expected a parameter object");
  KTUNE_TRY(j.onlyFields({"name", "kind", "candidates", "sites", "default",
                          "values", "range", "note"}));
  PlanParam p;
  KTUNE_TRY_ASSIGN(p.name, j.requiredString("name"));
  KTUNE_TRY_ASSIGN(p.kind, kindFromJson(j));
  KTUNE_TRY_ASSIGN(JsonReader candidates, j.required("candidates"));
  KTUNE_TRY_ASSIGN(p.candidates, stringList(candidates, true));
  if (j.has("sites")) {
    KTUNE_TRY_ASSIGN(p.sites, stringList(j["sites"], false));
  }
  KTUNE_TRY_ASSIGN(p.defaultValue, j.requiredInteger("default"));
  if (j["range"].isObject())
    KTUNE_TRY(j["range"].onlyFields({"min", "max", "step"}));
  KTUNE_TRY_ASSIGN(p.domain, domainFromJson(j));
  KTUNE_TRY_ASSIGN(p.note, j.optionalString("note"));
  return p;
}

Expected<PlanKernel> readKernel(const JsonReader &j) {
  if (!j.isObject())
    return j.fail("expected a kernel object");
  KTUNE_TRY(j.onlyFields({"kernel", "params", "constraints"}));
  PlanKernel k;
  KTUNE_TRY_ASSIGN(k.kernel, j.requiredString("kernel"));
  KTUNE_TRY_ASSIGN(JsonReader params, j.required("params"));
  KTUNE_TRY_ASSIGN(
      k.params, params.readArray(readParam, "expected an array of parameters"));
  if (j.has("constraints")) {
    KTUNE_TRY_ASSIGN(k.constraints, stringList(j["constraints"], false));
  }
  return k;
}

} // namespace

Expected<Plan> planFromJson(const json &json) {
  JsonReader j(json);
  KTUNE_TRY(j.expectVersion("a plan", PlanVersion));
  KTUNE_TRY(j.onlyFields({"ktune", "$schema", "planner", "kernels"}));
  Plan plan;
  KTUNE_TRY_ASSIGN(plan.planner, j.optionalString("planner"));
  KTUNE_TRY_ASSIGN(JsonReader kernels, j.required("kernels"));
  KTUNE_TRY_ASSIGN(
      plan.kernels,
      kernels.readArray(readKernel, "expected an array of kernels"));
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
