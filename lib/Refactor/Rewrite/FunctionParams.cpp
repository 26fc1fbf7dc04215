//===- FunctionParams.cpp - Which functions receive which parameters ------===//
//
// Before any edit: the parameters each kernel and device helper receives
// (a helper gets those of the sites in it, for every kernel calling it),
// the launch parameters a host function receives and passes on to its
// callers, and the names host functions give them. Sites in a macro body
// shared by several functions must receive one parameter.
//
//===----------------------------------------------------------------------===//

#include "RewriteInternal.h"

#include <algorithm>
#include <functional>

namespace ktune::refactor {

void Rewriter::nameHostParameters() {
  // A host function launching several planned kernels, or holding sites of
  // their parameters (the template arguments of launcher calls), whose
  // parameters share a name but not a default names them after their
  // kernels.
  auto hostsOf = [&](const KernelWork &w, const ParamWork &p) {
    std::set<std::string> hosts;
    for (const auto &call : Facts.calls)
      if (call.isLaunch && call.callee == w.kernel->id)
        hosts.insert(call.caller);
    for (const std::string &fn : p.functions)
      if (const FunctionFacts *f = Facts.function(fn);
          f && f->role == FunctionRole::Host)
        hosts.insert(fn);
    return hosts;
  };
  std::map<std::string, std::map<std::string, std::set<int64_t>>> defaults;
  for (const auto &w : Work)
    for (const auto &p : w.params)
      for (const std::string &host : hostsOf(w, p))
        defaults[host][p.name].insert(p.defaultValue);
  for (const auto &w : Work)
    for (const auto &p : w.params)
      for (const std::string &host : hostsOf(w, p))
        if (defaults[host][p.name].size() > 1) {
          std::string prefix;
          for (char c : w.kernel->name)
            prefix +=
                static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
          HostNames[{host, w.kernel->id, p.name}] = prefix + "_" + p.name;
        }
}

std::optional<ktune::Error> Rewriter::checkSharedMacroSites() {
  // Who lifts each macro-body site: kernel id -> (parameter, its name in
  // each function expanding the macro for that kernel).
  struct Lift {
    const ParamWork *param;
    std::set<std::string> names;
  };
  std::map<Position, std::map<std::string, Lift>> lifts;
  for (const auto &w : Work)
    for (const auto &p : w.params)
      for (const PlacedSite &s : p.sites) {
        Lift &l = lifts[s.position][w.kernel->id];
        l.param = &p;
        for (const std::string &fn :
             occurrenceFunctions(s.position, w.kernel->id))
          l.names.insert(nameIn(fn, w, p));
      }
  for (const auto &[position, byKernel] : lifts) {
    const auto &[firstKernel, first] = *byKernel.begin();
    std::string where =
        location(Facts, filePart(position), lineOf(textAt(position), position));
    for (const Occurrence &o : Facts.occurrences) {
      if (o.offset != position || o.macroBody.empty())
        continue;
      auto it = byKernel.find(o.kernel);
      const FunctionFacts *k = Facts.function(o.kernel);
      std::string kernel = k ? Facts.kernelPlanName(*k) : o.kernel;
      if (it == byKernel.end()) {
        auto id = Index.byOccurrence.find({o.offset, o.kernel});
        return error(first.param->path,
                     where + " is spelled in the body of macro " + o.macroBody +
                         ", which also serves the launch of " + kernel +
                         ": one edit changes every expansion, so lift " +
                         (id == Index.byOccurrence.end()
                              ? "it"
                              : "candidate " + id->second) +
                         " of " + kernel + " too, under the same name");
      }
      if (byKernel.size() > 1 &&
          (it->second.names.size() != 1 || it->second.names != first.names))
        return error(it->second.param->path + ".name",
                     where + " is spelled in the body of macro " + o.macroBody +
                         ", whose one edit serves " + kernel + " and " +
                         Facts.kernelPlanName(*Facts.function(firstKernel)) +
                         ": give their parameters one name");
    }
  }
  return std::nullopt;
}

std::optional<ktune::Error> Rewriter::addFnParam(const std::string &fn,
                                                 const ParamWork &p,
                                                 const std::string &name) {
  auto &list = FnParams[fn];
  for (FnParam &q : list)
    if (q.name == name) {
      if (q.defaultValue != p.defaultValue || q.type != p.type)
        return error(p.path + ".name",
                     "'" + name +
                         "' is also a parameter of another planned "
                         "kernel launched from the same function, "
                         "with a different default or type");
      q.params.push_back(&p);
      return std::nullopt;
    }
  list.push_back(FnParam{name, p.defaultValue, p.type, {&p}});
  FnParamPath[fn + "\n" + name] = p.path;
  return std::nullopt;
}

/// Device functions on a call path from the kernel to a site of `p` (the
/// kernel itself unless `p` sets one of its existing parameters).
static std::set<std::string> deviceFunctionsOf(const SourceFacts &facts,
                                               const FunctionFacts &k,
                                               const ParamWork &p) {
  std::set<std::string> device;
  if (p.boundParam < 0)
    device.insert(k.id);
  std::function<bool(const std::string &, std::set<std::string> &)> reaches =
      [&](const std::string &fn, std::set<std::string> &seen) -> bool {
    if (!seen.insert(fn).second)
      return false;
    bool any = p.functions.count(fn) > 0;
    if (const FunctionFacts *f = facts.function(fn))
      for (const auto &c : f->callees)
        if (reaches(c, seen)) {
          any = true;
        }
    if (any && fn != k.id)
      device.insert(fn);
    return any;
  };
  std::set<std::string> seen;
  reaches(k.id, seen);
  return device;
}

/// A launch parameter goes to the host functions holding its sites, each
/// under the name that function gives it; a function that cannot become a
/// template keeps its sites (a note says so).
std::optional<ktune::Error> Rewriter::assignLaunchParam(const KernelWork &w,
                                                        const ParamWork &p) {
  for (const auto &fn : p.functions) {
    const FunctionFacts *h = Facts.function(fn);
    if (!h || h->role != FunctionRole::Host)
      continue;
    if (!h->cannotTemplate.empty()) {
      if (HostsLeftAlone.insert(h->id).second)
        Notes.push_back(
            location(Facts, filePart(h->offset), h->line) + ": the launch of " +
            w.kernel->qualifiedName + " in " + h->qualifiedName +
            " keeps its " + std::string(kindName(p.plan->kind)) + " " +
            std::to_string(p.defaultValue) + ": " + h->qualifiedName +
            " cannot become a template (" + h->cannotTemplate + ")");
      continue;
    }
    ParamWork renamed = p;
    renamed.name = nameIn(h->id, w, p);
    if (auto e = checkName(renamed, *h))
      return e;
    if (auto e = addFnParam(h->id, p, renamed.name))
      return e;
  }
  return std::nullopt;
}

std::optional<ktune::Error> Rewriter::assignKernelParams(const KernelWork &w) {
  const FunctionFacts &k = *w.kernel;
  for (auto &p : w.params) {
    if (p.launchParam)
      continue;
    for (const auto &fn : deviceFunctionsOf(Facts, k, p)) {
      const FunctionFacts *f = Facts.function(fn);
      if (!f->cannotTemplate.empty())
        return error(fn == k.id ? w.path + ".kernel" : p.path,
                     location(Facts, filePart(f->offset), f->line) + ": " +
                         f->qualifiedName +
                         " cannot become a template: " + f->cannotTemplate);
      if (auto e = checkName(p, *f))
        return e;
      if (auto e = addFnParam(fn, p, fn == k.id ? p.kernelName : p.name))
        return e;
    }
  }
  leaveUnspellableLaunches(w);
  // Host functions launching the kernel (or naming it for a launch) get all
  // its parameters; launch parameters and those of a configuration table's
  // case only where their sites are.
  for (const auto &call : Facts.calls) {
    if (!call.namesKernel() || call.callee != k.id)
      continue;
    const FunctionFacts *h = Facts.function(call.caller);
    if (!h || h->role == FunctionRole::Kernel ||
        h->role == FunctionRole::DeviceHelper)
      continue;
    // A call of a launcher template (LauncherCall) takes the parameters of
    // the constants it spells; the kernel's new ones reach the launcher
    // and come back to the caller through the call of the launcher.
    bool launcherCall = call.form == CallForm::LauncherCall;
    bool passes = !launcherCall &&
                  std::any_of(w.params.begin(), w.params.end(), [](auto &p) {
                    return p.boundParam < 0 && !p.launchParam;
                  });
    if (launcherCall &&
        std::none_of(w.params.begin(), w.params.end(),
                     [&](auto &p) { return p.functions.count(h->id) > 0; }))
      continue;
    if (passes && !call.macro.empty() && h->cannotTemplate.empty()) {
      // The kernel's new arguments would go into the macro's body, which
      // every expansion shares: the host keeps the default configuration.
      if (HostsLeftAlone.insert(h->id).second)
        Notes.push_back(
            location(Facts, filePart(call.offset), call.line) +
            ": the launch of " + k.qualifiedName + " in " + h->qualifiedName +
            " keeps the default configuration: it is spelled "
            "in the body of macro " +
            call.macro + ", where template arguments cannot be added");
      continue;
    }
    if (!h->cannotTemplate.empty()) {
      if (HostsLeftAlone.insert(h->id).second)
        Notes.push_back(
            location(Facts, filePart(call.offset), call.line) +
            ": the launch of " + k.qualifiedName + " in " + h->qualifiedName +
            " keeps the default configuration: " + h->qualifiedName +
            " cannot become a template (" + h->cannotTemplate + ")");
      continue;
    }
    if (passes && LaunchesLeftAlone.count({h->id, k.id}))
      continue;
    for (auto &p : w.params) {
      if ((p.launchParam || !p.caseCondition.empty() || launcherCall) &&
          !p.functions.count(h->id))
        continue;
      // A launcher whose callers set the kernel's template arguments needs
      // no parameter for a constant they spell.
      if (call.setByCallers && p.boundParam >= 0 && !p.functions.count(h->id))
        continue;
      std::string name = nameIn(h->id, w, p);
      ParamWork renamed = p;
      renamed.name = name;
      if (auto e = checkName(renamed, *h))
        return e;
      if (auto e = addFnParam(h->id, p, name))
        return e;
    }
  }
  // Launch parameters also go where their sites are without a launch.
  for (auto &p : w.params)
    if (p.launchParam)
      if (auto e = assignLaunchParam(w, p))
        return e;
  // Host sites outside any launching function (none expected) are left.
  for (auto &p : w.params)
    for (const auto &fn :
         p.launchParam ? std::set<std::string>() : p.functions) {
      const FunctionFacts *f = Facts.function(fn);
      if (f && f->role == FunctionRole::Host && !FnParams.count(fn) &&
          f->cannotTemplate.empty() && !LaunchesLeftAlone.count({fn, k.id}))
        if (auto e = addFnParam(fn, p, p.name))
          return e;
    }
  return std::nullopt;
}

std::optional<ktune::Error> Rewriter::assignFunctionParams() {
  for (auto &w : Work)
    if (auto e = assignKernelParams(w))
      return e;
  return passLaunchParamsToCallers();
}

std::optional<ktune::Error> Rewriter::passLaunchParamsToCallers() {
  // A host function that calls a launcher given parameters (SGLang's
  // sgl_fused_add_rmsnorm over FlashInfer's norm::FusedAddRMSNorm) takes
  // them too and passes them on, up to the entry point a user calls.
  for (bool changed = true; changed;) {
    changed = false;
    for (const auto &call : Facts.calls) {
      if (call.namesKernel() || HostsLeftAlone.count(call.caller))
        continue;
      auto calleeIt = FnParams.find(call.callee);
      const FunctionFacts *caller = Facts.function(call.caller);
      // A virtual function is called as it is (a call naming its template
      // would no longer dispatch): it forwards its defaults.
      const FunctionFacts *callee = Facts.function(call.callee);
      if (calleeIt == FnParams.end() || HostsLeftAlone.count(call.callee) ||
          !caller || caller->role != FunctionRole::Host ||
          (callee && (callee->isVirtual || callee->outOfClassMember)))
        continue;
      if (!call.implicitArgsError.empty()) {
        noteCallAtDefaults(call);
        continue;
      }
      if (!caller->cannotTemplate.empty()) {
        HostsLeftAlone.insert(caller->id);
        Notes.push_back(location(Facts, filePart(call.offset), call.line) +
                        ": " + caller->qualifiedName +
                        " calls the tuned launcher at its defaults: it "
                        "cannot become a template (" +
                        caller->cannotTemplate + ")");
        continue;
      }
      std::vector<FnParam> wanted = calleeIt->second;
      for (const FnParam &q : wanted) {
        auto key = std::make_tuple(call.caller, call.callee, q.name);
        if (PassedAs.count(key))
          continue;
        const auto &have = FnParams[call.caller];
        auto same = std::find_if(have.begin(), have.end(),
                                 [&](auto &h) { return h.name == q.name; });
        std::string name = q.name;
        if (same != have.end()) {
          // The caller's own knob of that name (another kernel's block
          // size, say) is the same knob only with the same default.
          if (same->defaultValue == q.defaultValue && same->type == q.type)
            continue;
          name = freshName(call.caller, q.name);
          PassedAs[key] = name;
        }
        for (const ParamWork *p : q.params)
          if (auto e = addFnParam(call.caller, *p, name))
            return e;
        changed = true;
      }
    }
  }
  return std::nullopt;
}

std::string Rewriter::passedAs(const std::string &caller,
                               const std::string &callee,
                               const std::string &name) const {
  auto it = PassedAs.find({caller, callee, name});
  return it == PassedAs.end() ? name : it->second;
}

std::string Rewriter::freshName(const std::string &fn,
                                const std::string &base) const {
  auto taken = [&](const std::string &n) {
    if (Macros.count(n))
      return true;
    for (const auto &[at, id] : Idents)
      if (id == n)
        return true;
    auto it = FnParams.find(fn);
    return it != FnParams.end() &&
           std::any_of(it->second.begin(), it->second.end(),
                       [&](const FnParam &q) { return q.name == n; });
  };
  for (int i = 2;; ++i)
    if (std::string n = base + "_" + std::to_string(i); !taken(n))
      return n;
}

/// Keep the original symbol: a non-template overload forwarding to the
/// default instantiation (overload resolution prefers it for old calls).

} // namespace ktune::refactor
