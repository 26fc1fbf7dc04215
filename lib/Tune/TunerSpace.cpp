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

/// `text`, an expression over the kernel's (or launcher's) arguments, over
/// the problem dimensions: each argument replaced by the spec's value for
/// it. Nothing for "unknown" or one naming an argument the spec gives no
/// scalar.
static std::optional<std::string> overDims(const std::string &text,
                                           const Spec &spec) {
  if (text.empty() || text == "unknown")
    return std::nullopt;
  auto condition = expr::Expr::parse(text);
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

/// When a parameter's configuration-table cases are reached, over the
/// problem dimensions.
static std::optional<std::string> caseOverDims(const TemplateParam &p,
                                               const Spec &spec) {
  if (!p.defaultValue)
    return std::nullopt;
  return overDims(p.caseCondition, spec);
}

/// A shape's dimensions as an expression's names.
static std::map<std::string, expr::Value> shapeEnv(const Shape &shape) {
  std::map<std::string, expr::Value> env;
  for (const auto &[name, value] : shape)
    env[name] = expr::Value::ofInt(value);
  return env;
}

/// A fixed argument's values: its default (0, the argument read at run
/// time) and the argument's value at each of the spec's shapes, with the
/// constraint that a value other than the default equals the argument.
/// Where the argument is not one the spec sets, the default alone.
static void fixedArgSpace(const TemplateParam &p, const Spec &spec,
                          SpaceParam &sp, std::vector<std::string> &constraints,
                          SpaceDefinition &def) {
  const int64_t none = p.defaultValue.value_or(0);
  std::vector<int64_t> values = {none};
  if (auto value = overDims(p.fixes, spec))
    if (auto parsed = expr::Expr::parse(*value)) {
      for (const Shape &shape : spec.allShapes()) {
        auto v = parsed->evaluateInt(shapeEnv(shape));
        if (v && std::find(values.begin(), values.end(), *v) == values.end())
          values.push_back(*v);
      }
      constraints.push_back(p.name + " == " + std::to_string(none) + " || " +
                            p.name + " == (" + *value + ")");
      def.fixedArgs[p.name] = *value;
    }
  std::sort(values.begin(), values.end());
  sp.domain = Domain::ofValues(values);
}

Configuration onShape(const SpaceDefinition &space, const Shape &shape,
                      Configuration config) {
  const std::map<std::string, expr::Value> env = shapeEnv(shape);
  for (const auto &[param, condition] : space.caseConditions) {
    auto parsed = expr::Expr::parse(condition);
    auto reached = parsed ? parsed->evaluateInt(env) : Expected<int64_t>(0);
    if (reached && *reached)
      continue;
    for (const SpaceParam &p : space.params)
      if (p.name == param && p.defaultValue && config.count(param))
        config[param] = *p.defaultValue;
  }
  for (const auto &[param, value] : space.fixedArgs) {
    auto parsed = expr::Expr::parse(value);
    auto here = parsed ? parsed->evaluateInt(env) : Expected<int64_t>(0);
    auto it = config.find(param);
    if (it == config.end() || (here && *here == it->second))
      continue;
    for (const SpaceParam &p : space.params)
      if (p.name == param && p.defaultValue)
        it->second = *p.defaultValue;
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
  std::vector<std::string> fixedConstraints;
  for (const TemplateParam *p : kernel.tunableParams()) {
    SpaceParam sp;
    sp.name = p->name;
    sp.defaultValue = p->defaultValue;
    if (auto it = spec.domains.find(p->name); it != spec.domains.end())
      sp.domain = it->second;
    else if (!p->fixes.empty())
      fixedArgSpace(*p, spec, sp, fixedConstraints, def);
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
  def.constraints.insert(def.constraints.end(), fixedConstraints.begin(),
                         fixedConstraints.end());
  for (const TemplateParam *p : kernel.tunableParams())
    if (auto c = caseOverDims(*p, spec)) {
      def.constraints.push_back("(" + *c + ") || " + p->name +
                                " == " + std::to_string(*p->defaultValue));
      def.caseConditions[p->name] = *c;
    }
  return def;
}

} // namespace ktune
