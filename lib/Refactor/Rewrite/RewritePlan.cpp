//===- RewritePlan.cpp - The plan resolved to functions and sites ---------===//
//
// Each plan kernel names a kernel of the file; each parameter names
// candidates of that kernel (and optionally a subset of their sites) and a
// new name that must be free where it will be written. Errors name the
// plan's JSON path.
//
//===----------------------------------------------------------------------===//

#include "RewriteInternal.h"

#include <algorithm>

namespace ktune::refactor {

Rewriter::Rewriter(const SourceFacts &facts, const CandidateSet &candidates,
                   const CandidateIndex &index, const Plan &plan,
                   llvm::StringRef src, RewriteOptions options)
    : Facts(facts), Candidates(candidates), Index(index), ThePlan(plan),
      Source(src), Options(options) {
  // Names already taken: in the main file and every header read.
  unsigned files = std::max<unsigned>(1, Facts.files.size());
  for (unsigned i = 0; i < files; ++i) {
    llvm::StringRef text = Facts.textOf(i, Source);
    Macros.merge(definedMacros(text));
    for (auto &[offset, name] : identifiers(text))
      Idents.emplace_back(makePosition(i, offset), std::move(name));
  }
}

std::string Rewriter::occurrenceFunction(Position position,
                                         const std::string &kernel) {
  for (const auto &o : Facts.occurrences)
    if (o.offset == position && o.kernel == kernel)
      return o.function;
  return {};
}

std::set<std::string> Rewriter::occurrenceFunctions(Position position,
                                                    const std::string &kernel) {
  std::set<std::string> out;
  for (const auto &o : Facts.occurrences)
    if (o.offset == position && o.kernel == kernel)
      out.insert(o.function);
  return out;
}

std::string Rewriter::nameIn(const std::string &fn, const KernelWork &w,
                             const ParamWork &p) const {
  if (fn == w.kernel->id)
    return p.kernelName;
  auto it = HostNames.find({fn, w.kernel->id, p.name});
  return it == HostNames.end() ? p.name : it->second;
}

/// The kernel a plan kernel names: by plan name (qualified, or name@line
/// for an overload), else by qualified or unqualified name if only one.
ktune::Expected<const FunctionFacts *>
Rewriter::findKernel(const PlanKernel &pk, const std::string &path) {
  const FunctionFacts *kernel = nullptr;
  int matches = 0;
  for (const FunctionFacts *k : Facts.kernels())
    if (Facts.kernelPlanName(*k) == pk.kernel) {
      kernel = k;
      matches = 1;
      break;
    } else if (k->qualifiedName == pk.kernel || k->name == pk.kernel) {
      kernel = k;
      ++matches;
    }
  if (!kernel)
    return std::unexpected(error(
        path + ".kernel",
        "no kernel named '" + pk.kernel + "' in " + Facts.file +
            (Facts.files.size() > 1 ? " or the headers it launches kernels of"
                                    : "")));
  if (matches > 1)
    return std::unexpected(
        error(path + ".kernel", "'" + pk.kernel +
                                    "' names several kernels; use the "
                                    "qualified name, or name@line for an "
                                    "overload"));
  return kernel;
}

/// A new parameter name: a valid identifier, not used twice, not a macro,
/// not already a template parameter of the kernel; and with candidates.
std::optional<ktune::Error>
Rewriter::checkParamName(const PlanParam &pp, const FunctionFacts &kernel,
                         std::set<std::string> &names,
                         const std::string &ppath) {
  if (!expr::isValidIdentifier(pp.name))
    return error(ppath + ".name",
                 "'" + pp.name + "' is not a valid C++ identifier");
  if (!names.insert(pp.name).second)
    return error(ppath + ".name", "duplicate parameter name '" + pp.name + "'");
  if (Macros.count(pp.name))
    return error(
        ppath + ".name",
        "'" + pp.name + "' is a macro in " + Facts.file +
            (Facts.files.size() > 1 ? " or a header it includes" : "") +
            "; choose another name");
  for (const auto &tp : kernel.templateParams)
    if (tp.name == pp.name)
      return error(ppath + ".name",
                   "'" + pp.name + "' is already a template parameter of " +
                       kernel.qualifiedName);
  if (pp.candidates.empty())
    return error(ppath + ".candidates", "a parameter needs candidates");
  return std::nullopt;
}

/// The case condition of a parameter after one more candidate: "" once a
/// candidate is in no case, "unknown" once one's is unknown, else each
/// case's condition once, joined with "||".
static std::string joinCases(bool first, const std::string &sofar,
                             const Candidate &c) {
  if (c.caseTable.empty() || (!first && sofar.empty()))
    return "";
  if (c.caseCondition == "unknown" || sofar == "unknown")
    return "unknown";
  if (first || sofar == c.caseCondition)
    return c.caseCondition;
  return "(" + sofar + ") || (" + c.caseCondition + ")";
}

/// The sites of the parameter's candidates (those the plan lists, if it
/// lists any), and the functions that hold them.
std::optional<ktune::Error>
Rewriter::addCandidateSites(const PlanParam &pp, const FunctionFacts &kernel,
                            ParamWork &p) {
  for (size_t k = 0; k < pp.candidates.size(); ++k) {
    std::string cpath = p.path + ".candidates[" + std::to_string(k) + "]";
    const Candidate *c = Candidates.find(pp.candidates[k]);
    if (!c)
      return error(cpath, "unknown candidate '" + pp.candidates[k] + "'");
    if (Index.kernelOf.at(c->id) != kernel.id)
      return error(cpath, "candidate '" + c->id + "' belongs to kernel " +
                              c->kernel + ", not " +
                              Facts.kernelPlanName(kernel));
    if (c->value != pp.defaultValue)
      return error(p.path + ".default",
                   "default " + std::to_string(pp.defaultValue) +
                       " differs from the original value " +
                       std::to_string(c->value) + " of candidate " + c->id);
    bool informational =
        std::any_of(c->sites.begin(), c->sites.end(),
                    [](const SourceSite &s) { return s.replacement.empty(); });
    if (informational)
      return error(cpath, "candidate '" + c->id +
                              "' is reported for information only: " + c->why);
    std::string type = c->type.empty() ? "int" : c->type;
    if (k == 0) {
      p.type = type;
      p.launchParam = c->launchParam;
    } else if (type != p.type) {
      return error(cpath, "candidate '" + c->id + "' is a " + type +
                              " constant, the parameter's other candidates " +
                              p.type + "; lift them as separate parameters");
    }
    p.launchParam = p.launchParam && c->launchParam;
    p.caseCondition = joinCases(k == 0, p.caseCondition, *c);
    if (c->kind == ParamKind::FixedArg)
      for (const FixableArg &a : kernel.fixableArgs)
        if (a.name == c->fixesArgument && a.refusal.empty())
          p.fixes = &a;
    int bound = Index.boundParam.count(c->id) ? Index.boundParam.at(c->id) : -1;
    if (bound >= 0) {
      if (p.boundParam >= 0 && p.boundParam != bound)
        return error(cpath, "candidates set different template parameters");
      p.boundParam = bound;
      p.kernelName = kernel.templateParams[bound].name;
    }
    for (const SourceSite &s : c->sites) {
      if (!pp.sites.empty()) {
        std::string full =
            s.file + ":" + std::to_string(s.line) + ":" + std::to_string(s.col);
        std::string brief =
            std::to_string(s.line) + ":" + std::to_string(s.col);
        if (std::find(pp.sites.begin(), pp.sites.end(), full) ==
                pp.sites.end() &&
            std::find(pp.sites.begin(), pp.sites.end(), brief) ==
                pp.sites.end())
          continue;
      }
      auto position = Facts.position(s);
      if (!position)
        return error(cpath, "candidate '" + c->id + "' has a site in " +
                                s.file + ", a file this analysis did not read");
      p.sites.push_back({&s, *position});
      // Every function expanding a macro whose body spells the site.
      for (const std::string &fn : occurrenceFunctions(*position, kernel.id))
        p.functions.insert(fn);
    }
  }
  return std::nullopt;
}

/// Every site the plan lists must be a site of the parameter's candidates.
std::optional<ktune::Error> Rewriter::checkListedSites(const PlanParam &pp,
                                                       const ParamWork &p) {
  if (!pp.sites.empty()) {
    // Every listed site must exist.
    for (size_t k = 0; k < pp.sites.size(); ++k) {
      bool found = std::any_of(
          p.sites.begin(), p.sites.end(), [&](const PlacedSite &placed) {
            const SourceSite *s = placed.site;
            return pp.sites[k] == s->file + ":" + std::to_string(s->line) +
                                      ":" + std::to_string(s->col) ||
                   pp.sites[k] ==
                       std::to_string(s->line) + ":" + std::to_string(s->col);
          });
      if (!found)
        return error(p.path + ".sites[" + std::to_string(k) + "]",
                     "no site of the parameter's candidates at '" +
                         pp.sites[k] + "'");
    }
  }
  return std::nullopt;
}

std::optional<ktune::Error> Rewriter::prepareKernel(const PlanKernel &pk,
                                                    const std::string &path) {
  auto kernel = findKernel(pk, path);
  if (!kernel)
    return kernel.error();
  KernelWork w;
  w.kernel = *kernel;
  w.plan = &pk;
  w.path = path;
  std::set<std::string> names;
  for (size_t j = 0; j < pk.params.size(); ++j) {
    const PlanParam &pp = pk.params[j];
    std::string ppath = path + ".params[" + std::to_string(j) + "]";
    if (auto e = checkParamName(pp, **kernel, names, ppath))
      return e;
    ParamWork p;
    p.name = pp.name;
    p.kernelName = pp.name;
    p.plan = &pp;
    p.path = ppath;
    p.defaultValue = pp.defaultValue;
    if (auto e = addCandidateSites(pp, **kernel, p))
      return e;
    if (auto e = checkListedSites(pp, p))
      return e;
    w.params.push_back(std::move(p));
  }
  Work.push_back(std::move(w));
  return std::nullopt;
}

std::optional<ktune::Error> Rewriter::prepareKernels() {
  for (size_t i = 0; i < ThePlan.kernels.size(); ++i)
    if (auto e = prepareKernel(ThePlan.kernels[i],
                               "kernels[" + std::to_string(i) + "]"))
      return e;
  for (size_t i = 0; i < Work.size(); ++i)
    for (size_t j = i + 1; j < Work.size(); ++j)
      if (Work[i].kernel == Work[j].kernel)
        return error(Work[j].path + ".kernel",
                     "kernel " + Work[j].kernel->qualifiedName +
                         " is planned twice");
  return std::nullopt;
}

std::optional<ktune::Error> Rewriter::checkName(const ParamWork &p,
                                                const FunctionFacts &f) {
  // The new name must not already mean something inside the function,
  // except where it is what we write (sites spelled with the same name).
  std::set<Position> sitePositions;
  for (const PlacedSite &s : p.sites)
    sitePositions.insert(s.position);
  for (const auto &[at, id] : Idents) {
    if (at < f.rangeBegin || at >= f.rangeEnd || id != p.name)
      continue;
    if (sitePositions.count(at))
      continue;
    return error(p.path + ".name",
                 "'" + p.name + "' already names something in " +
                     f.qualifiedName + " (" +
                     location(Facts, filePart(at), lineOf(textAt(at), at)) +
                     "); choose another name");
  }
  return std::nullopt;
}

} // namespace ktune::refactor
