//===- RewriteManifest.cpp - The manifest entries of a rewrite ------------===//
//
// What ktune-tune reads about a template: each kernel's parameters (tunable
// ones with kind, default and domain), its launch parameters, its
// arguments, the plan's constraints in the kernel's names and the launch
// geometry as expressions; and each host function that became a template
// (a launcher), with its parameters and arguments.
//
//===----------------------------------------------------------------------===//

#include "RewriteInternal.h"

#include <algorithm>
#include <set>

namespace ktune::refactor {

std::map<std::string, std::string>
constraintRenames(const std::vector<ParamWork> &params) {
  std::map<std::string, std::string> rename;
  for (const ParamWork &p : params)
    if (p.kernelName != p.name)
      rename.emplace(p.name, p.kernelName);
  return rename;
}

namespace {

constexpr const char *SizeofMark = "ktune_sizeof_";

/// `sizeof(T)` -> `ktune_sizeof_T`, so the expression parser reads a name;
/// nullopt when a sizeof names something else than an identifier.
std::optional<std::string> hideSizeof(const std::string &text) {
  std::string out;
  size_t pos = 0;
  while (true) {
    size_t at = text.find("sizeof(", pos);
    if (at == std::string::npos)
      break;
    size_t close = text.find(')', at);
    if (close == std::string::npos)
      return std::nullopt;
    std::string name = text.substr(at + 7, close - at - 7);
    if (!expr::isValidIdentifier(name))
      return std::nullopt;
    out += text.substr(pos, at - pos) + SizeofMark + name;
    pos = close + 1;
  }
  return out + text.substr(pos);
}

std::string showSizeof(const std::string &text) {
  std::string out;
  size_t pos = 0;
  std::string mark = SizeofMark;
  while (true) {
    size_t at = text.find(mark, pos);
    if (at == std::string::npos)
      break;
    size_t end = at + mark.size();
    while (end < text.size() &&
           (std::isalnum(static_cast<unsigned char>(text[end])) ||
            text[end] == '_'))
      ++end;
    out += text.substr(pos, at - pos) + "sizeof(" +
           text.substr(at + mark.size(), end - at - mark.size()) + ")";
    pos = end;
  }
  return out + text.substr(pos);
}

} // namespace

std::optional<std::string> launchExpression(
    const std::string &text,
    const std::function<std::optional<std::string>(Position)> &resolve,
    const std::set<std::string> &known) {
  auto resolved = resolveMarkers(text, resolve);
  if (!resolved)
    return std::nullopt;
  auto hidden = hideSizeof(*resolved);
  if (!hidden)
    return std::nullopt;
  auto e = expr::Expr::parse(*hidden);
  if (!e)
    return std::nullopt;
  for (const auto &n : e->names()) {
    std::string name = n;
    if (name.rfind(SizeofMark, 0) == 0)
      name = name.substr(std::string(SizeofMark).size());
    if (!known.count(name))
      return std::nullopt;
  }
  return showSizeof(e->str());
}

/// A new template parameter as the manifest lists it.
static TemplateParam tunableParam(const ParamWork &p, const std::string &name) {
  TemplateParam tp;
  tp.name = name;
  tp.type = p.type;
  tp.tunable = true;
  tp.kind = p.plan->kind;
  tp.defaultValue = p.defaultValue;
  tp.domain = p.plan->domain;
  tp.caseCondition = p.caseCondition;
  if (p.fixes)
    tp.fixes = p.fixes->name;
  return tp;
}

/// What a fixed argument equals over launcher `f`'s parameters: the one
/// parameter every launch of the kernel in `f` passes it unchanged, else
/// "unknown" (a value computed there, or a launch in another function).
static std::string fixesOverLauncher(const SourceFacts &facts,
                                     const FunctionFacts &f,
                                     const FixableArg &a) {
  std::string kernel;
  for (const FunctionFacts *k : facts.kernels())
    for (const FixableArg &b : k->fixableArgs)
      if (&b == &a)
        kernel = k->id;
  std::string passed;
  for (const auto &call : facts.calls) {
    if (!call.isLaunch || call.caller != f.id || call.callee != kernel)
      continue;
    std::string name =
        a.index < call.argParams.size() ? call.argParams[a.index] : "";
    if (name.empty() || (!passed.empty() && passed != name))
      return "unknown";
    passed = name;
  }
  return passed.empty() ? "unknown" : passed;
}

ManifestKernel manifestFor(const SourceFacts &facts,
                           const FunctionFacts &kernel, const PlanKernel &pk,
                           const std::vector<ParamWork> &params,
                           const LaunchParamName &launchName) {
  ManifestKernel mk;
  mk.name = kernel.name;
  mk.qualifiedName = kernel.qualifiedName;
  for (size_t i = 0; i < kernel.templateParams.size(); ++i) {
    TemplateParam tp;
    tp.name = kernel.templateParams[i].name;
    tp.type = kernel.templateParams[i].type;
    for (const ParamWork &p : params)
      if (p.boundParam == static_cast<int>(i)) {
        tp = tunableParam(p, tp.name);
        tp.type = kernel.templateParams[i].type;
      }
    mk.templateParams.push_back(std::move(tp));
  }
  for (const ParamWork &p : params)
    if (p.boundParam < 0 && !p.launchParam)
      mk.templateParams.push_back(tunableParam(p, p.name));
  mk.args = kernel.args;

  // Launch geometry from the first launch that can be expressed: in kernel
  // arguments, template and launch parameters, and the launcher's own
  // parameters (dimensions of the problem, like `num_tokens`).
  std::set<std::string> kernelNames;
  for (const auto &a : kernel.args)
    kernelNames.insert(a.name);
  for (const auto &tp : mk.templateParams)
    kernelNames.insert(tp.name);
  const CallFacts *from = nullptr;
  for (const auto &call : facts.calls) {
    if (!call.isLaunch || call.callee != kernel.id || call.block.empty() ||
        call.grid.empty())
      continue;
    std::set<std::string> known = kernelNames;
    for (const auto &h : call.hostNames)
      known.insert(h);
    auto resolve = [&](Position position) -> std::optional<std::string> {
      for (const ParamWork &p : params)
        for (const PlacedSite &s : p.sites)
          if (s.position == position) {
            std::string name =
                p.launchParam ? launchName(p, call.caller) : p.kernelName;
            if (name.empty())
              return std::nullopt;
            known.insert(name);
            // A derived constant's site: its value from the parameter.
            SourceSite copy = *s.site;
            copy.before.clear();
            copy.after.clear();
            if (copy.replacement.rfind("static_cast<", 0) == 0)
              copy.replacement = "{P}";
            for (const auto &o : facts.occurrences)
              if (o.offset == position && o.kernel == kernel.id &&
                  (!o.valueForm.empty() || o.baseValue != o.value)) {
                if (o.valueForm.empty())
                  return std::nullopt; // not one an expression can say
                copy.replacement = o.valueForm;
              }
            copy.role = SiteRole::LaunchGrid; // parenthesise compound forms
            return substitute(copy, name);
          }
      for (const auto &o : facts.occurrences)
        if (o.offset == position && o.kernel == kernel.id)
          return std::to_string(o.value);
      return std::nullopt;
    };
    LaunchGeometry g;
    bool ok = true;
    for (const auto *dims : {&call.grid, &call.block})
      for (const auto &d : *dims) {
        // Resolving a site adds its parameter's name to `known`.
        auto c = launchExpression(d, resolve, known);
        if (c)
          (dims == &call.grid ? g.grid : g.block).push_back(*c);
        else
          ok = false;
      }
    auto smem = launchExpression(call.smem, resolve, known);
    if (!ok || !smem)
      continue;
    g.smem = *smem;
    // A row split launches its blocks per row side by side in x.
    for (const ParamWork &p : params)
      if (p.plan->kind == ParamKind::RowSplit && !g.grid.empty())
        g.grid[0] = LaunchExpr("(" + g.grid[0].text() + ") * " + p.kernelName);
    g.from = location(facts, filePart(call.offset), call.line);
    g.cooperative = call.cooperative;
    mk.launch = std::move(g);
    from = &call;
    break;
  }

  // Launch parameters, each under its launcher's name: the launcher of the
  // geometry where it holds one, else the first that does.
  std::map<std::string, std::string> rename = constraintRenames(params);
  for (const ParamWork &p : params) {
    if (!p.launchParam)
      continue;
    std::vector<std::string> hosts(p.functions.begin(), p.functions.end());
    std::sort(hosts.begin(), hosts.end(), [&](auto &a, auto &b) {
      return facts.function(a)->offset < facts.function(b)->offset;
    });
    if (from && p.functions.count(from->caller))
      hosts.insert(hosts.begin(), from->caller);
    for (const auto &h : hosts) {
      std::string name = launchName(p, h);
      if (name.empty())
        continue;
      TemplateParam tp = tunableParam(p, name);
      tp.launcher = facts.function(h)->name;
      mk.launchParams.push_back(std::move(tp));
      if (name != p.name)
        rename[p.name] = name;
      break;
    }
  }

  // The plan's constraints in the manifest's names.
  // (Two launchers' parameters bound to one kernel parameter say the same.)
  // A constraint on a parameter that no launcher took (its function kept
  // its value, a note says why) constrains nothing left to tune.
  std::set<std::string> inManifest;
  for (const auto *list : {&mk.templateParams, &mk.launchParams})
    for (const auto &tp : *list)
      inManifest.insert(tp.name);
  std::set<std::string> leftOut;
  for (const ParamWork &p : params) {
    auto renamed = rename.find(p.name);
    std::string name = renamed == rename.end() ? p.name : renamed->second;
    if (p.launchParam && !inManifest.count(name))
      leftOut.insert(name);
  }
  for (const auto &c : pk.constraints) {
    auto e = expr::Expr::parse(c);
    if (e) {
      std::vector<std::string> names = e->rename(rename).names();
      if (std::any_of(names.begin(), names.end(),
                      [&](auto &n) { return leftOut.count(n) > 0; }))
        continue;
    }
    std::string text = e ? e->rename(rename).str() : c;
    if (std::find(mk.constraints.begin(), mk.constraints.end(), text) ==
        mk.constraints.end())
      mk.constraints.push_back(std::move(text));
  }
  return mk;
}

ManifestLauncher launcherFor(const SourceFacts &facts, const FunctionFacts &f,
                             const std::vector<FnParam> &params) {
  ManifestLauncher l;
  // A function whose template took another name is launched by that name.
  l.name = f.templateName.empty() ? f.name : f.templateName;
  l.qualifiedName =
      f.qualifiedName.substr(0, f.qualifiedName.size() - f.name.size()) +
      l.name;
  for (const auto &tp : f.templateParams) {
    TemplateParam fixed;
    fixed.name = tp.name;
    fixed.type = tp.type;
    l.templateParams.push_back(std::move(fixed));
  }
  for (const FnParam &fp : params) {
    TemplateParam tp = tunableParam(*fp.params.front(), fp.name);
    tp.type = fp.type;
    if (const FixableArg *a = fp.params.front()->fixes)
      tp.fixes = fixesOverLauncher(facts, f, *a);
    l.templateParams.push_back(std::move(tp));
  }
  l.args = f.args;
  l.returns = f.returnType.empty() ? "void" : f.returnType;
  // The kernels it launches, itself or through the launchers it calls.
  std::set<std::string> hosts = {f.id};
  for (bool grew = true; grew;) {
    grew = false;
    for (const auto &call : facts.calls) {
      if (!hosts.count(call.caller))
        continue;
      if (!call.isLaunch) {
        if (const FunctionFacts *g = facts.function(call.callee);
            g && g->role == FunctionRole::Host)
          grew |= hosts.insert(call.callee).second;
      } else if (const FunctionFacts *k = facts.function(call.callee);
                 k && std::find(l.kernels.begin(), l.kernels.end(),
                                k->qualifiedName) == l.kernels.end()) {
        l.kernels.push_back(k->qualifiedName);
      }
    }
  }
  l.from = location(facts, filePart(f.offset), f.line);
  l.forwarder = !f.forwarderSignature.empty();
  return l;
}

} // namespace ktune::refactor
