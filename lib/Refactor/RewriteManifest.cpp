//===- RewriteManifest.cpp - The manifest entry of a rewritten kernel -----===//
//
// What ktune-tune reads about a template: its parameters (tunable ones with
// kind, default and domain), the kernel's arguments, the plan's constraints
// in the kernel's names, and the launch geometry as expressions.
//
//===----------------------------------------------------------------------===//

#include "RewriteInternal.h"

namespace ktune::refactor {

std::map<std::string, std::string>
constraintRenames(const std::vector<ParamWork> &params) {
  std::map<std::string, std::string> rename;
  for (const ParamWork &p : params)
    if (p.kernelName != p.name)
      rename.emplace(p.name, p.kernelName);
  return rename;
}

ManifestKernel manifestFor(const SourceFacts &facts,
                           const FunctionFacts &kernel, const PlanKernel &pk,
                           const std::vector<ParamWork> &params) {
  ManifestKernel mk;
  mk.name = kernel.name;
  mk.qualifiedName = kernel.qualifiedName;
  for (size_t i = 0; i < kernel.templateParams.size(); ++i) {
    TemplateParam tp;
    tp.name = kernel.templateParams[i].name;
    tp.type = kernel.templateParams[i].type;
    for (const ParamWork &p : params)
      if (p.boundParam == static_cast<int>(i)) {
        tp.tunable = true;
        tp.kind = std::string(kindName(p.plan->kind));
        tp.defaultValue = p.defaultValue;
        tp.domain = p.plan->domain;
      }
    mk.templateParams.push_back(std::move(tp));
  }
  for (const ParamWork &p : params) {
    if (p.boundParam >= 0)
      continue;
    TemplateParam tp;
    tp.name = p.name;
    tp.type = "int";
    tp.tunable = true;
    tp.kind = std::string(kindName(p.plan->kind));
    tp.defaultValue = p.defaultValue;
    tp.domain = p.plan->domain;
    mk.templateParams.push_back(std::move(tp));
  }
  mk.args = kernel.args;

  std::map<std::string, std::string> rename = constraintRenames(params);
  for (const auto &c : pk.constraints) {
    auto e = expr::Expr::parse(c);
    mk.constraints.push_back(e ? e->rename(rename).str() : c);
  }

  // Launch geometry from the first launch that can be expressed.
  std::set<std::string> known;
  for (const auto &a : kernel.args)
    known.insert(a.name);
  for (const auto &tp : mk.templateParams)
    known.insert(tp.name);
  for (const auto &call : facts.calls) {
    if (!call.isLaunch || call.callee != kernel.id || call.block.empty() ||
        call.grid.empty())
      continue;
    auto resolve = [&](unsigned offset) -> std::optional<std::string> {
      for (const ParamWork &p : params)
        for (const PlacedSite &s : p.sites)
          if (s.position == offset) {
            SourceSite copy = *s.site;
            if (copy.replacement.rfind("static_cast<", 0) == 0)
              copy.replacement = "{P}";
            copy.role = SiteRole::LaunchGrid; // parenthesise compound forms
            return substitute(copy, p.kernelName);
          }
      for (const auto &o : facts.occurrences)
        if (o.offset == offset && o.kernel == kernel.id)
          return std::to_string(o.value);
      return std::nullopt;
    };
    auto canonical =
        [&](const std::string &text) -> std::optional<std::string> {
      auto r = resolveMarkers(text, resolve);
      if (!r)
        return std::nullopt;
      auto e = expr::Expr::parse(*r);
      if (!e)
        return std::nullopt;
      for (const auto &n : e->names())
        if (!known.count(n))
          return std::nullopt;
      return e->str();
    };
    LaunchGeometry g;
    bool ok = true;
    for (const auto &d : call.grid)
      if (auto c = canonical(d))
        g.grid.push_back(*c);
      else
        ok = false;
    for (const auto &d : call.block)
      if (auto c = canonical(d))
        g.block.push_back(*c);
      else
        ok = false;
    if (auto c = canonical(call.smem))
      g.smem = *c;
    else
      ok = false;
    if (!ok)
      continue;
    g.from = location(facts, filePart(call.offset), call.line);
    mk.launch = std::move(g);
    break;
  }
  return mk;
}

} // namespace ktune::refactor
