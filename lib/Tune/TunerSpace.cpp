//===- TunerSpace.cpp - The search space of a manifest kernel and spec ----===//
//
// The parameters, domains and constraints a SearchSpace is built from for
// each shape, and the cases of configuration tables: a parameter of a case
// moves only at the shapes that reach it.
//
//===----------------------------------------------------------------------===//
#include "ktune/Tune/Tuner.h"

#include <algorithm>
#include <map>
#include <variant>

namespace ktune {

/// When a parameter's configuration-table cases are reached, over the
/// problem dimensions: the launcher's arguments replaced by the spec's
/// values for them. Nothing for an "unknown" case or one naming an argument
/// the spec gives no scalar.
static std::optional<std::string> caseOverDims(const TemplateParam &p,
                                               const Spec &spec) {
  if (p.caseCondition.empty() || p.caseCondition == "unknown" ||
      !p.defaultValue)
    return std::nullopt;
  auto condition = expr::Expr::parse(p.caseCondition);
  if (!condition)
    return std::nullopt;
  std::map<std::string, expr::Expr> values;
  for (const SpecArg &a : spec.args)
    if (const auto *s = std::get_if<ScalarArg>(&a.arg); s && !s->stream)
      if (auto value = expr::Expr::parse(s->value))
        values.emplace(a.name, *value);
  for (const std::string &name : condition->names())
    if (!values.count(name))
      return std::nullopt;
  return condition->substitute(values).str();
}

Configuration onShape(const SpaceDefinition &space, const Shape &shape,
                      Configuration config) {
  std::map<std::string, expr::Value> env;
  for (const auto &[name, value] : shape)
    env[name] = expr::Value::ofInt(value);
  for (const auto &[param, condition] : space.caseConditions) {
    auto parsed = expr::Expr::parse(condition);
    auto reached = parsed ? parsed->evaluateInt(env) : Expected<int64_t>(0);
    if (reached && *reached)
      continue;
    for (const SpaceParam &p : space.params)
      if (p.name == param && p.defaultValue && config.count(param))
        config[param] = *p.defaultValue;
  }
  return config;
}

std::optional<Configuration>
mergedCases(const SpaceDefinition &space, const Configuration &defaultConfig,
            const std::vector<std::pair<Shape, Configuration>> &bests) {
  if (space.caseConditions.empty())
    return std::nullopt;
  Configuration merged = defaultConfig;
  for (const auto &[shape, best] : bests) {
    Configuration reached = onShape(space, shape, best);
    for (const auto &[param, condition] : space.caseConditions)
      if (reached.count(param) && merged[param] == defaultConfig.at(param))
        merged[param] = reached.at(param);
  }
  return merged;
}

Expected<SpaceDefinition> spaceFromManifest(const ManifestKernel &kernel,
                                            const Spec &spec) {
  SpaceDefinition def;
  for (const TemplateParam *p : kernel.tunableParams()) {
    SpaceParam sp;
    sp.name = p->name;
    sp.defaultValue = p->defaultValue;
    if (auto it = spec.domains.find(p->name); it != spec.domains.end())
      sp.domain = it->second;
    else if (p->domain)
      sp.domain = *p->domain;
    else
      return makeError("tunable parameter '" + p->name +
                           "' has no domain in the manifest: give one in the "
                           "spec's \"domains\"",
                       "domains." + p->name);
    if (sp.defaultValue && !sp.domain.contains(*sp.defaultValue))
      return makeError("the domain of '" + p->name +
                           "' does not contain its default " +
                           std::to_string(*sp.defaultValue),
                       "domains." + p->name);
    def.params.push_back(std::move(sp));
  }
  if (!spec.maxRegisters.empty()) {
    // The default configuration (the reference) is the kernel as written:
    // no register cap. Keep 0 in the domain even when the spec omits it.
    std::vector<int64_t> values = spec.maxRegisters;
    if (std::find(values.begin(), values.end(), 0) == values.end())
      values.insert(values.begin(), 0);
    def.params.push_back(
        SpaceParam{MaxRegistersParam, Domain::ofValues(std::move(values)), 0});
  }
  def.constraints = kernel.constraints;
  def.constraints.insert(def.constraints.end(), spec.constraints.begin(),
                         spec.constraints.end());
  for (const TemplateParam *p : kernel.tunableParams())
    if (auto c = caseOverDims(*p, spec)) {
      def.constraints.push_back("(" + *c + ") || " + p->name +
                                " == " + std::to_string(*p->defaultValue));
      def.caseConditions[p->name] = *c;
    }
  return def;
}

} // namespace ktune
