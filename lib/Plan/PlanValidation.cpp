//===- PlanValidation.cpp - Checking an untrusted plan --------------------===//
//
// Every rule is listed in docs/plan-validation.md. The checks collect all
// errors rather than stopping at the first, so a planner (a person or a
// model) can fix them in one round.
//
//===----------------------------------------------------------------------===//
#include "ktune/Plan/Plan.h"

#include "PlanEdits.h"
#include "PlanRules.h"

#include "ktune/Expr/Expr.h"
#include "ktune/Plan/SourceScan.h"
#include "ktune/Support/JsonReader.h"

#include <algorithm>
#include <cctype>
#include <limits>
#include <set>

namespace ktune {

namespace {

using source_scan::IdentifierUse;
using namespace plan_edits;

std::string joined(const std::vector<std::string> &items, size_t most = 12) {
  std::string out;
  for (size_t i = 0; i < items.size() && i < most; ++i)
    out += (i ? ", " : "") + items[i];
  if (items.size() > most)
    out += ", ... (" + std::to_string(items.size() - most) + " more)";
  return out;
}

bool looksLikeIdentifier(std::string_view name) {
  if (name.empty() || std::isdigit(static_cast<unsigned char>(name[0])))
    return false;
  return std::all_of(name.begin(), name.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
  });
}

/// A site "file:line:col" as written in a plan.
struct SiteRef {
  std::string file;
  unsigned line = 0, col = 0;
};

std::optional<SiteRef> parseSiteRef(const std::string &text) {
  size_t second = text.rfind(':');
  if (second == std::string::npos || second == 0)
    return std::nullopt;
  size_t first = text.rfind(':', second - 1);
  if (first == std::string::npos || first == 0)
    return std::nullopt;
  auto number = [](std::string_view digits) -> std::optional<unsigned> {
    if (digits.empty() || digits.size() > 9)
      return std::nullopt;
    unsigned v = 0;
    for (char c : digits) {
      if (!std::isdigit(static_cast<unsigned char>(c)))
        return std::nullopt;
      v = v * 10 + unsigned(c - '0');
    }
    return v;
  };
  auto line =
      number(std::string_view(text).substr(first + 1, second - first - 1));
  auto col = number(std::string_view(text).substr(second + 1));
  if (!line || !col || *line == 0 || *col == 0)
    return std::nullopt;
  return SiteRef{text.substr(0, first), *line, *col};
}

class Validator {
public:
  Validator(const Plan &plan, const CandidateSet &candidates,
            const SourceTexts &sources)
      : ThePlan(plan), Candidates(candidates), Sources(sources) {}

  std::vector<Error> run() {
    for (const auto &c : Candidates.candidates)
      if (std::find(KnownKernels.begin(), KnownKernels.end(), c.kernel) ==
          KnownKernels.end())
        KnownKernels.push_back(c.kernel);
    for (size_t k = 0; k < ThePlan.kernels.size(); ++k)
      checkKernel(ThePlan.kernels[k], jsonPathIndex("kernels", k));
    checkOverlaps(Edits, Errors);
    checkSharedSites(Edits, Candidates, CandidateOwner, Errors);
    return std::move(Errors);
  }

private:
  const Plan &ThePlan;
  const CandidateSet &Candidates;
  const SourceTexts &Sources;
  std::vector<Error> Errors;
  std::vector<std::string> KnownKernels;
  std::map<std::string, std::string> KernelPaths;    // kernel -> JSON path
  std::map<std::string, std::string> CandidateOwner; // id -> param path
  std::map<std::string, std::map<std::string, IdentifierUse>> Identifiers;
  std::set<std::string> MissingSources; // reported once each
  std::string Kernel;                   // the one being checked
  std::vector<Edit> Edits;

  void error(std::string where, std::string message) {
    Errors.push_back(Error{std::move(message), std::move(where)});
  }

  const std::map<std::string, IdentifierUse> *
  identifiersOf(const std::string &file) {
    auto source = Sources.find(file);
    if (source == Sources.end())
      return nullptr;
    auto [it, inserted] = Identifiers.try_emplace(file);
    if (inserted)
      it->second = source_scan::scanIdentifiers(source->second);
    return &it->second;
  }

  /// The files a kernel's candidates point into (its source, best effort).
  std::vector<std::string> filesOf(const std::string &kernel) const {
    std::vector<std::string> files;
    for (const auto &c : Candidates.candidates) {
      if (c.kernel != kernel)
        continue;
      for (const auto &s : c.sites)
        if (std::find(files.begin(), files.end(), s.file) == files.end())
          files.push_back(s.file);
    }
    if (files.empty() && !Candidates.file.empty())
      files.push_back(Candidates.file);
    return files;
  }

  void checkKernel(const PlanKernel &kernel, const std::string &at) {
    Kernel = kernel.kernel;
    bool known = std::find(KnownKernels.begin(), KnownKernels.end(),
                           kernel.kernel) != KnownKernels.end();
    if (!known)
      error(at + ".kernel",
            "unknown kernel " + quote(kernel.kernel) +
                (KnownKernels.empty()
                     ? "; the candidates name no kernel"
                     : "; the candidates name: " + joined(KnownKernels)));
    auto [first, inserted] = KernelPaths.try_emplace(kernel.kernel, at);
    if (!inserted)
      error(at + ".kernel", "kernel " + quote(kernel.kernel) +
                                " is already planned at " + first->second +
                                "; give each kernel once");

    std::vector<std::string> files = filesOf(kernel.kernel);
    std::map<std::string, std::string> names; // name -> param path
    std::map<std::string, int64_t> defaults;  // of well-named params
    for (size_t p = 0; p < kernel.params.size(); ++p) {
      const PlanParam &param = kernel.params[p];
      std::string paramAt = jsonPathIndex(at + ".params", p);
      if (checkName(param.name, paramAt, files, names))
        defaults.emplace(param.name, param.defaultValue);
      checkCandidates(param, kernel.kernel, known, paramAt);
      checkDomain(param, paramAt);
    }
    checkConstraints(kernel, at, names, defaults);
  }

  /// True when the name is usable in constraints (valid and unique).
  bool checkName(const std::string &name, const std::string &paramAt,
                 const std::vector<std::string> &files,
                 std::map<std::string, std::string> &names) {
    std::string at = paramAt + ".name";
    auto nameError = [&](const std::string &where, const std::string &what) {
      error(where, "parameter name " + quote(name) + " " + what);
    };
    if (!expr::isValidIdentifier(name)) {
      nameError(at, looksLikeIdentifier(name)
                        ? "is a C++ keyword, a CUDA or expression builtin, or "
                          "a reserved name (leading '_' + capital, or '__')"
                        : "is not a C++ identifier: use letters, digits and "
                          "'_', not starting with a digit (e.g. BLOCK_SIZE)");
      return false;
    }
    auto [first, inserted] = names.try_emplace(name, paramAt);
    if (!inserted) {
      nameError(at, "is already used by " + first->second + " of this kernel");
      return false;
    }
    for (const auto &file : files) {
      const auto *ids = identifiersOf(file);
      if (!ids)
        continue;
      auto it = ids->find(name);
      if (it == ids->end())
        continue;
      const IdentifierUse &use = it->second;
      source_scan::Position pos = use.macro ? use.definedAt : use.first;
      std::string where = at + " (" + file + ":" + std::to_string(pos.line) +
                          ":" + std::to_string(pos.col) + ")";
      nameError(where,
                use.macro
                    ? "is a macro defined in the source; the preprocessor "
                      "would replace the template parameter"
                    : "is already spelled in the source; a template "
                      "parameter of that name would shadow or be shadowed "
                      "by it, so choose a name the source does not use");
      break;
    }
    return true;
  }

  void checkCandidates(const PlanParam &param, const std::string &kernel,
                       bool kernelKnown, const std::string &paramAt) {
    std::vector<const Candidate *> lifted;
    std::vector<std::string> liftedAt;
    std::set<std::string> seen;
    for (size_t i = 0; i < param.candidates.size(); ++i) {
      const std::string &id = param.candidates[i];
      std::string at = jsonPathIndex(paramAt + ".candidates", i);
      if (!seen.insert(id).second) {
        error(at, "candidate " + quote(id) + " is listed twice");
        continue;
      }
      const Candidate *c = Candidates.find(id);
      if (!c) {
        std::vector<std::string> ids;
        for (const auto &other : Candidates.candidates)
          if (other.kernel == kernel)
            ids.push_back(other.id);
        error(at, "unknown candidate " + quote(id) +
                      (ids.empty()
                           ? std::string()
                           : "; this kernel's candidates are: " + joined(ids)));
        continue;
      }
      std::string loc = c->sites.empty()
                            ? std::string()
                            : " (" + plan_rules::location(c->sites[0]) + ")";
      if (c->kernel != kernel) {
        if (kernelKnown)
          error(at + loc, "candidate " + quote(id) + " belongs to kernel " +
                              quote(c->kernel) + ", not " + quote(kernel));
        continue;
      }
      auto [owner, fresh] = CandidateOwner.try_emplace(id, paramAt);
      if (!fresh) {
        error(at + loc, "candidate " + quote(id) + " is already lifted by " +
                            owner->second +
                            "; a candidate belongs to one parameter");
        continue;
      }
      if (param.kind != c->kind && param.kind != ParamKind::Other &&
          c->kind != ParamKind::Other)
        error(paramAt + ".kind" + loc,
              "kind " + std::string(kindName(param.kind)) +
                  " does not match candidate " + quote(id) + "'s kind " +
                  std::string(kindName(c->kind)) +
                  " (use the candidate's kind, or \"other\")");
      if (c->value != param.defaultValue)
        error(paramAt + ".default" + loc,
              "default " + std::to_string(param.defaultValue) +
                  " differs from the original value " +
                  std::to_string(c->value) + " of candidate " + quote(id) +
                  " (spelled " + quote(c->spelling) +
                  "); the default must be the value the source has");
      lifted.push_back(c);
      liftedAt.push_back(at);
    }
    checkSites(param, lifted, liftedAt, paramAt);
  }

  void checkSites(const PlanParam &param,
                  const std::vector<const Candidate *> &lifted,
                  const std::vector<std::string> &liftedAt,
                  const std::string &paramAt) {
    if (param.sites.empty()) {
      for (size_t i = 0; i < lifted.size(); ++i)
        for (const auto &site : lifted[i]->sites)
          checkEdit(site, liftedAt[i], paramAt, param.name);
      return;
    }
    std::set<const SourceSite *> chosen;
    for (size_t i = 0; i < param.sites.size(); ++i) {
      std::string at = jsonPathIndex(paramAt + ".sites", i);
      auto ref = parseSiteRef(param.sites[i]);
      if (!ref) {
        error(at, "site " + quote(param.sites[i]) +
                      " is not of the form \"file:line:col\"");
        continue;
      }
      const SourceSite *match = nullptr;
      std::vector<std::string> available;
      for (const Candidate *c : lifted)
        for (const auto &site : c->sites) {
          available.push_back(plan_rules::location(site));
          if (site.file == ref->file && site.line == ref->line &&
              site.col == ref->col)
            match = &site;
        }
      if (!match) {
        error(at, "site " + quote(param.sites[i]) +
                      " is not a site of this parameter's candidates" +
                      (available.empty()
                           ? std::string()
                           : "; their sites are: " + joined(available)));
        continue;
      }
      if (!chosen.insert(match).second) {
        error(at, "site " + quote(param.sites[i]) + " is listed twice");
        continue;
      }
      checkEdit(*match, at, paramAt, param.name);
    }
  }

  void checkEdit(const SourceSite &site, const std::string &at,
                 const std::string &paramAt, const std::string &paramName) {
    std::string where = at + " (" + plan_rules::location(site) + ")";
    if (!Sources.count(site.file)) {
      if (MissingSources.insert(site.file).second)
        error(where, "the source text of " + site.file +
                         " was not given, so its sites cannot be checked");
      return;
    }
    if (auto problem = plan_rules::siteMismatch(site, Sources)) {
      error(where, *problem);
      return;
    }
    if (site.replacement.find("{P}") == std::string::npos)
      error(where, "the site's replacement " + quote(site.replacement) +
                       " does not contain {P}");
    Edits.push_back(Edit{&site, at, paramAt, Kernel, paramName});
  }

  void checkDomain(const PlanParam &param, const std::string &paramAt) {
    const Domain &d = param.domain;
    bool isList = d.form == Domain::Form::Values;
    std::string at = paramAt + (isList ? ".values" : ".range");
    if (!isList && (d.max < d.min || (!d.pow2 && d.step <= 0))) {
      error(at, "the range needs min <= max and a positive step");
      return;
    }
    constexpr int64_t IntMin = std::numeric_limits<int32_t>::min();
    constexpr int64_t IntMax = std::numeric_limits<int32_t>::max();
    if (!isList && (d.min < IntMin || d.max > IntMax)) {
      error(at, "the range bounds must fit in an int");
      return;
    }
    uint64_t size = d.size();
    if (size == 0) {
      error(at, "the domain holds no value");
      return;
    }
    if (size > Domain::MaxSize) {
      error(at, "the domain holds " + std::to_string(size) +
                    " values; at most " + std::to_string(Domain::MaxSize) +
                    " are allowed");
      return;
    }
    std::string kind(kindName(param.kind));
    plan_rules::KindRange range = plan_rules::kindRange(param.kind);
    if (isList) {
      std::set<int64_t> seen;
      std::vector<std::string> bad;
      for (size_t i = 0; i < d.values.size(); ++i) {
        int64_t v = d.values[i];
        if (!seen.insert(v).second)
          error(jsonPathIndex(at, i), "duplicate value " + std::to_string(v));
        if (!plan_rules::allowedValue(param.kind, v))
          bad.push_back(std::to_string(v));
      }
      if (!bad.empty())
        error(at, "value" + std::string(bad.size() > 1 ? "s " : " ") +
                      joined(bad) + " not allowed for a " + kind +
                      " parameter: " + range.reason);
    } else {
      int64_t lo = d.at(0), hi = d.at(size - 1);
      bool ok = plan_rules::allowedValue(param.kind, lo) &&
                plan_rules::allowedValue(param.kind, hi);
      if (ok && range.pow2 && !d.pow2)
        for (uint64_t i = 0; ok && i < size; ++i)
          ok = plan_rules::allowedValue(param.kind, d.at(i));
      if (!ok)
        error(at, "the range " + std::to_string(d.min) + ".." +
                      std::to_string(d.max) +
                      " holds values not allowed "
                      "for a " +
                      kind + " parameter: " + range.reason);
    }
    if (!d.contains(param.defaultValue))
      error(paramAt + ".default",
            "default " + std::to_string(param.defaultValue) +
                " is not in the domain; the domain must include the "
                "original value");
  }

  void checkConstraints(const PlanKernel &kernel, const std::string &at,
                        const std::map<std::string, std::string> &names,
                        const std::map<std::string, int64_t> &defaults) {
    std::vector<std::string> paramNames;
    for (const auto &[name, path] : names)
      paramNames.push_back(name);
    std::map<std::string, expr::Value> env;
    for (const auto &[name, value] : defaults)
      env.emplace(name, expr::Value::ofInt(value));
    for (size_t i = 0; i < kernel.constraints.size(); ++i) {
      const std::string &text = kernel.constraints[i];
      std::string where = jsonPathIndex(at + ".constraints", i);
      if (text.size() > plan_rules::MaxConstraintLength) {
        error(where, "constraint is " + std::to_string(text.size()) +
                         " characters long; at most " +
                         std::to_string(plan_rules::MaxConstraintLength) +
                         " are allowed");
        continue;
      }
      auto parsed = expr::Expr::parse(text, expr::Dialect::Ktune);
      if (!parsed) {
        error(where, "constraint " + quote(text) +
                         " does not parse: " + parsed.error().message);
        continue;
      }
      std::vector<std::string> used = parsed->names();
      std::vector<std::string> unknown;
      for (const auto &name : used)
        if (!names.count(name))
          unknown.push_back(name);
      if (!unknown.empty()) {
        error(where,
              "constraint " + quote(text) + " names " + joined(unknown) +
                  ", not " +
                  (unknown.size() > 1 ? "parameters" : "a parameter") +
                  " of kernel " + quote(kernel.kernel) +
                  (paramNames.empty()
                       ? std::string(" (it has no parameters)")
                       : " (its parameters: " + joined(paramNames) + ")"));
        continue;
      }
      // Parameters whose own checks failed leave no default: skip rather
      // than report a second, derived error.
      bool complete =
          std::all_of(used.begin(), used.end(),
                      [&](const std::string &n) { return env.count(n) > 0; });
      if (!complete)
        continue;
      auto value = parsed->evaluate(env);
      if (!value) {
        error(where, "constraint " + quote(text) +
                         " cannot be evaluated at the defaults: " +
                         value.error().message);
        continue;
      }
      if (!value->truthy()) {
        std::vector<std::string> atDefaults;
        for (const auto &name : used)
          atDefaults.push_back(name + "=" + env.at(name).str());
        error(where, "constraint " + quote(text) +
                         " is false at the defaults (" + joined(atDefaults) +
                         "), but the original program must satisfy it");
      }
    }
  }
};

} // namespace

std::vector<Error> validatePlan(const Plan &plan,
                                const CandidateSet &candidates,
                                const SourceTexts &sources) {
  return Validator(plan, candidates, sources).run();
}

std::string formatPlanErrors(const std::vector<Error> &errors) {
  constexpr size_t Most = 50;
  std::string out;
  for (size_t i = 0; i < errors.size() && i < Most; ++i)
    out += "- " + errors[i].str() + "\n";
  if (errors.size() > Most)
    out +=
        "- ... and " + std::to_string(errors.size() - Most) + " more errors\n";
  return out;
}

} // namespace ktune
