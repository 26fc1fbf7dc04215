//===- HeuristicPlanner.cpp - The built-in planner ------------------------===//
//
// Lifts every confident candidate with a small, meaningful domain and the
// constraints the code implies. Its plans must always pass validatePlan, so
// candidates that could not be lifted safely (a value the kind does not
// allow, a site that no longer matches the source, an edit overlapping a
// more confident candidate's) are left out. Rules: docs/plan-validation.md.
//
//===----------------------------------------------------------------------===//
#include "ktune/Plan/Plan.h"

#include "HeuristicChoices.h"
#include "PlanRules.h"

#include "ktune/Expr/Expr.h"
#include "ktune/Plan/SourceScan.h"

#include <algorithm>
#include <cctype>
#include <functional>
#include <limits>
#include <set>

namespace ktune {

using namespace heuristic;

namespace {

int confidenceRank(Confidence c) {
  switch (c) {
  case Confidence::High:
    return 0;
  case Confidence::Medium:
    return 1;
  case Confidence::Low:
    break;
  }
  return 2;
}

class Planner {
public:
  Planner(const CandidateSet &set, const HeuristicOptions &options)
      : Set(set), Options(options) {}

  Plan run() {
    Plan plan;
    plan.planner = "heuristic";
    reserveSourceNames();
    findFamilies();
    acceptCandidates();
    std::vector<std::string> kernels;
    for (const auto &c : Set.candidates)
      if (std::find(kernels.begin(), kernels.end(), c.kernel) == kernels.end())
        kernels.push_back(c.kernel);
    for (const auto &kernel : kernels) {
      PlanKernel planned = planKernel(kernel);
      if (!planned.params.empty())
        plan.kernels.push_back(std::move(planned));
    }
    return plan;
  }

private:
  const CandidateSet &Set;
  const HeuristicOptions &Options;
  std::set<std::string> Reserved;       // identifiers of the sources
  std::set<const Candidate *> Accepted; // to be lifted
  /// The accepted candidates' edits, with the candidate making each.
  std::vector<std::pair<const SourceSite *, const Candidate *>> Edits;
  std::map<const Candidate *, int> Family; // candidates sharing an edit
  int Families = 0;
  std::map<int, std::string> FamilyName;
  std::set<std::string> FamilyNames;
  std::set<const Candidate *> Blocked; // of a family that cannot be lifted

  void reserveSourceNames() {
    auto reserveFrom = [&](std::string_view text) {
      for (const auto &[name, use] : source_scan::scanIdentifiers(text))
        Reserved.insert(name);
    };
    if (Options.sources)
      for (const auto &[file, text] : *Options.sources)
        reserveFrom(text);
    // Without sources, at least avoid what the candidates spell.
    for (const auto &c : Set.candidates) {
      reserveFrom(c.spelling);
      for (const auto &s : c.sites)
        reserveFrom(s.text);
    }
  }

  /// Candidates of different kernels with one shared site (the body of a
  /// launch macro that launchers of several kernels expand): one edit
  /// serves them all, so they are lifted together and under one name.
  void findFamilies() {
    std::map<const Candidate *, const Candidate *> parent;
    std::function<const Candidate *(const Candidate *)> root =
        [&](const Candidate *c) {
          auto it = parent.find(c);
          return it == parent.end() || it->second == c
                     ? c
                     : (it->second = root(it->second));
        };
    // Insertions at one place are told apart by what they insert.
    std::map<
        std::tuple<std::string, unsigned, unsigned, std::string, std::string>,
        const Candidate *>
        firstAt;
    for (const auto &c : Set.candidates) {
      if (Set.find(c.id) != &c)
        continue;
      for (const auto &s : c.sites) {
        if (!s.shared)
          continue;
        auto [it, fresh] = firstAt.try_emplace(
            std::tuple{s.file, s.offset, s.length, s.replacement, s.before},
            &c);
        if (!fresh && it->second->kernel != c.kernel)
          parent[root(&c)] = root(it->second);
      }
    }
    std::map<const Candidate *, int> idOfRoot;
    for (const auto &[c, p] : parent) {
      (void)p;
      for (const Candidate *member : {c, root(c)}) {
        auto [it, fresh] = idOfRoot.try_emplace(root(member), Families);
        Families += fresh;
        Family[member] = it->second;
      }
    }
    // One parameter per kernel: a family holding two candidates of one
    // kernel cannot be lifted at all (no choice names the edit in every
    // launcher for certain).
    std::map<int, std::set<std::string>> kernels;
    std::set<int> invalid;
    for (const auto &[c, family] : Family)
      if (!kernels[family].insert(c->kernel).second)
        invalid.insert(family);
    for (const auto &[c, family] : Family)
      if (invalid.count(family))
        Blocked.insert(c);
  }

  /// The most confident candidates are accepted first, so they win overlaps.
  void acceptCandidates() {
    std::vector<const Candidate *> order;
    for (const auto &c : Set.candidates)
      if (Set.find(c.id) == &c) // a repeated id means the first one
        order.push_back(&c);
    std::stable_sort(
        order.begin(), order.end(), [](const Candidate *a, const Candidate *b) {
          return confidenceRank(a->confidence) < confidenceRank(b->confidence);
        });
    for (const Candidate *c : order) {
      if (!liftable(*c))
        continue;
      Accepted.insert(c);
      for (const auto &s : c->sites)
        Edits.emplace_back(&s, c);
    }
    // A family is lifted whole or not at all: its shared edit would
    // otherwise name a parameter some of its functions do not have.
    std::set<int> incomplete;
    for (const auto &[c, family] : Family)
      if (!Accepted.count(c))
        incomplete.insert(family);
    for (const auto &[c, family] : Family)
      if (incomplete.count(family))
        Accepted.erase(c);
    acceptDerived();
  }

  /// `{c0} == {c1} * {c2}`: candidate c0's relation to its bases, as the
  /// implied constraint that says it; the right side, or empty.
  static std::string relationOf(const Candidate &c) {
    std::string lhs = "{" + c.id + "} == ";
    for (const auto &text : c.impliedConstraints)
      if (text.starts_with(lhs))
        return text.substr(lhs.size());
    return {};
  }

  /// A constant computed from others (`THREADS_MEMORY = WARPS * BINS`) is
  /// lifted with the bases that are, whatever its own confidence: held to
  /// its original value, it would pin them to theirs.
  void acceptDerived() {
    for (bool more = true; more;) {
      more = false;
      for (const auto &c : Set.candidates) {
        std::string rhs = relationOf(c);
        if (rhs.empty() || Accepted.count(&c) || Set.find(c.id) != &c)
          continue;
        bool baseLifted = std::any_of(
            Accepted.begin(), Accepted.end(), [&](const Candidate *a) {
              return a->kernel == c.kernel &&
                     rhs.find("{" + a->id + "}") != std::string::npos;
            });
        if (!baseLifted || !liftable(c, /*anyConfidence=*/true))
          continue;
        Accepted.insert(&c);
        for (const auto &s : c.sites)
          Edits.emplace_back(&s, &c);
        more = true;
      }
    }
  }

  bool liftable(const Candidate &c, bool anyConfidence = false) {
    if (Blocked.count(&c) || isStructural(c.kind) || isIntroduced(c))
      return false;
    if (!anyConfidence &&
        confidenceRank(c.confidence) > confidenceRank(Options.minConfidence))
      return false;
    if (!plan_rules::allowedValue(c.kind, c.value) || c.sites.empty())
      return false;
    for (size_t i = 0; i < c.sites.size(); ++i) {
      const SourceSite &s = c.sites[i];
      if (s.replacement.find("{P}") == std::string::npos)
        return false;
      if (Options.sources && plan_rules::siteMismatch(s, *Options.sources))
        return false;
      for (size_t j = 0; j < i; ++j)
        if (plan_rules::editsOverlap(s, c.sites[j]) && !sameEdit(s, c.sites[j]))
          return false;
      // Only a site flagged shared (a launch macro's body) is edited once
      // for a family; validation refuses any other overlap.
      for (const auto &[accepted, owner] : Edits)
        if (plan_rules::editsOverlap(s, *accepted) &&
            !(s.shared && sameFamily(&c, owner) && sameEdit(s, *accepted)))
          return false;
    }
    return true;
  }

  bool sameFamily(const Candidate *a, const Candidate *b) const {
    auto fa = Family.find(a), fb = Family.find(b);
    return fa != Family.end() && fb != Family.end() && fa->second == fb->second;
  }

  static bool sameEdit(const SourceSite &a, const SourceSite &b) {
    return plan_rules::samePlace(a, b) && a.replacement == b.replacement;
  }

  std::string freeName(const Candidate &c, const std::string &kernel,
                       const std::set<std::string> &taken) {
    std::string base = baseName(c);
    // A family's name is its own in every kernel (and so in every launcher).
    auto isFree = [&](const std::string &n) {
      return expr::isValidIdentifier(n) && !Reserved.count(n) &&
             !taken.count(n) && !FamilyNames.count(n);
    };
    if (!taken.count(base)) {
      if (isFree(base))
        return base;
      std::string prefix = upperSnake(kernel.substr(
          kernel.rfind(':') == std::string::npos ? 0 : kernel.rfind(':') + 1));
      if (!prefix.empty() && isFree(prefix + "_" + base))
        return prefix + "_" + base;
    }
    for (int n = 2;; ++n)
      if (std::string name = base + "_" + std::to_string(n); isFree(name))
        return name;
  }

  PlanKernel planKernel(const std::string &kernel) {
    PlanKernel planned;
    planned.kernel = kernel;

    std::vector<const Candidate *> all;
    for (const auto &c : Set.candidates)
      if (c.kernel == kernel)
        all.push_back(&c);

    // Block dims of the kernel's own code; a launch parameter's block is
    // one launcher's, constrained by its implied constraints alone.
    size_t blockParams = 0;
    for (const Candidate *c : all)
      if (Accepted.count(c) && c->kind == ParamKind::BlockSize &&
          !blockOfOneLaunch(*c))
        ++blockParams;

    // Families first: each keeps the name it got in the first kernel.
    std::stable_partition(all.begin(), all.end(), [&](const Candidate *c) {
      return Family.count(c) > 0;
    });
    std::set<std::string> taken;
    std::map<std::string, std::string> nameOf; // candidate id -> param
    for (const Candidate *c : all) {
      if (!Accepted.count(c))
        continue;
      PlanParam p;
      if (auto f = Family.find(c); f != Family.end()) {
        auto [it, fresh] = FamilyName.try_emplace(f->second);
        if (fresh) {
          it->second = freeName(*c, kernel, taken);
          FamilyNames.insert(it->second);
        }
        p.name = it->second;
      } else {
        p.name = freeName(*c, kernel, taken);
      }
      taken.insert(p.name);
      nameOf[c->id] = p.name;
      p.kind = c->kind;
      p.candidates = {c->id};
      p.defaultValue = c->value;
      ChosenDomain chosen =
          domainFor(*c, blockParams > 1 && !blockOfOneLaunch(*c));
      p.domain = std::move(chosen.domain);
      p.note = std::move(chosen.note);
      planned.params.push_back(std::move(p));
    }
    derivedDomains(planned, all, nameOf);
    addConstraints(planned, all, nameOf);
    return planned;
  }

  /// A lifted derived constant takes the values its relation gives over
  /// its lifted bases' domains (the others at their values).
  void derivedDomains(PlanKernel &planned,
                      const std::vector<const Candidate *> &all,
                      const std::map<std::string, std::string> &nameOf) {
    std::map<std::string, const PlanParam *> byName;
    for (const auto &p : planned.params)
      byName[p.name] = &p;
    for (const Candidate *c : all) {
      auto own = nameOf.find(c->id);
      std::string rhs = relationOf(*c);
      if (own == nameOf.end() || rhs.empty())
        continue;
      auto text = substitute(rhs, nameOf);
      if (!text)
        continue;
      auto parsed = expr::Expr::parse(*text, expr::Dialect::Ktune);
      if (!parsed)
        continue;
      std::vector<std::string> names = parsed->names();
      std::vector<std::vector<int64_t>> domains;
      uint64_t combinations = 1;
      for (const auto &n : names) {
        auto it = byName.find(n);
        if (it == byName.end() || it->first == own->second)
          break;
        domains.push_back(it->second->domain.enumerate());
        combinations *= std::max<size_t>(1, domains.back().size());
      }
      if (domains.size() != names.size() || combinations > 4096)
        continue;
      std::set<int64_t> values = {c->value};
      for (uint64_t k = 0; k < combinations; ++k) {
        std::map<std::string, expr::Value> env;
        uint64_t rest = k;
        for (size_t i = 0; i < names.size(); ++i) {
          env[names[i]] =
              expr::Value::ofInt(domains[i][rest % domains[i].size()]);
          rest /= domains[i].size();
        }
        auto v = parsed->evaluate(env);
        if (v && v->exactInt() &&
            plan_rules::allowedValue(c->kind, *v->exactInt()))
          values.insert(*v->exactInt());
      }
      for (auto &p : planned.params)
        if (p.name == own->second) {
          p.domain = Domain::ofValues({values.begin(), values.end()});
          p.note = "computed from " + *text + ": its values follow theirs";
        }
    }
  }

  /// "{c3} % 32 == 0" with c3 lifted as BLOCK_SIZE -> "BLOCK_SIZE % 32 ==
  /// 0"; a candidate that stays a constant becomes its value.
  std::optional<std::string>
  substitute(const std::string &text,
             const std::map<std::string, std::string> &nameOf) {
    std::string out;
    for (size_t i = 0; i < text.size();) {
      if (text[i] != '{') {
        out += text[i++];
        continue;
      }
      size_t close = text.find('}', i);
      if (close == std::string::npos)
        return std::nullopt;
      std::string id = text.substr(i + 1, close - i - 1);
      if (auto it = nameOf.find(id); it != nameOf.end())
        out += it->second;
      else if (const Candidate *c = Set.find(id); c && !Accepted.count(c))
        out.append("(").append(std::to_string(c->value)).append(")");
      else
        return std::nullopt; // unknown, or another kernel's parameter
      i = close + 1;
    }
    return out;
  }

  void addConstraints(PlanKernel &planned,
                      const std::vector<const Candidate *> &all,
                      const std::map<std::string, std::string> &nameOf) {
    std::map<std::string, expr::Value> defaults;
    std::vector<std::string> blockNames;
    std::set<std::string> launchParams;
    for (const Candidate *c : all)
      if (blockOfOneLaunch(*c))
        if (auto it = nameOf.find(c->id); it != nameOf.end())
          launchParams.insert(it->second);
    for (const auto &p : planned.params) {
      defaults.emplace(p.name, expr::Value::ofInt(p.defaultValue));
      if (p.kind == ParamKind::BlockSize && !launchParams.count(p.name))
        blockNames.push_back(p.name);
    }
    std::set<std::string> seen;
    auto add = [&](const std::string &text) {
      auto parsed = expr::Expr::parse(text, expr::Dialect::Ktune);
      if (!parsed || text.size() > plan_rules::MaxConstraintLength)
        return;
      std::vector<std::string> names = parsed->names();
      if (names.empty())
        return; // says nothing about a parameter
      for (const auto &n : names)
        if (!defaults.count(n))
          return;
      auto value = parsed->evaluate(defaults);
      if (!value || !value->truthy())
        return; // the original program must satisfy it: a wrong hint
      if (seen.insert(parsed->str()).second)
        planned.constraints.push_back(parsed->str());
    };

    if (!blockNames.empty()) {
      std::string product;
      for (const auto &n : blockNames)
        product += (product.empty() ? "" : " * ") + n;
      add(product + " <= 1024");
      if (blockNames.size() > 1)
        add("(" + product + ") % 32 == 0");
    }
    for (const Candidate *c : all)
      for (const auto &text : c->impliedConstraints)
        if (auto substituted = substitute(text, nameOf))
          add(*substituted);
  }
};

} // namespace

Plan heuristicPlan(const CandidateSet &candidates,
                   const HeuristicOptions &options) {
  return Planner(candidates, options).run();
}

Plan defaultPlan(const CandidateSet &candidates, const SourceTexts &sources,
                 Confidence minConfidence) {
  HeuristicOptions options;
  options.minConfidence = minConfidence;
  options.sources = &sources;
  return heuristicPlan(candidates, options);
}

} // namespace ktune
