//===- ImpliedConstraints.cpp - What the code implies about candidates ---===//
//
// Constraints read off the code, over candidate ids ("{c_bs_1a2b} <= 1024"):
// block dims and __launch_bounds__ within the hardware's limit (and whole
// warps for warp-level code), static shared memory within 48 KiB, constants
// computed from others kept equal to their formula, unroll counts >= 1.
// Each is kept only when it holds at the original values.
//
//===----------------------------------------------------------------------===//

#include "GroupInternal.h"

#include "ktune/Expr/Expr.h"

#include <algorithm>
#include <cctype>
#include <functional>

namespace ktune::refactor {

std::optional<std::string> canonicalConstraint(const std::string &text) {
  std::string plain;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '{') {
      size_t end = text.find('}', i);
      plain += "KTUNECAND_" + text.substr(i + 1, end - i - 1);
      i = end;
    } else {
      plain += text[i];
    }
  }
  auto e = expr::Expr::parse(plain);
  if (!e)
    return std::nullopt;
  std::string out = e->str();
  std::string result;
  for (size_t i = 0; i < out.size();) {
    if (out.compare(i, 10, "KTUNECAND_") == 0) {
      size_t j = i + 10;
      while (
          j < out.size() &&
          (std::isalnum(static_cast<unsigned char>(out[j])) || out[j] == '_'))
        ++j;
      result += "{" + out.substr(i + 10, j - i - 10) + "}";
      i = j;
    } else {
      result += out[i++];
    }
  }
  return result;
}

bool holdsAtDefaults(const std::string &text,
                     const std::map<std::string, int64_t> &values) {
  std::string plain;
  std::map<std::string, expr::Value> env;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '{') {
      size_t end = text.find('}', i);
      std::string id = text.substr(i + 1, end - i - 1);
      plain += "KTUNECAND_" + id;
      auto it = values.find(id);
      if (it == values.end())
        return false;
      env["KTUNECAND_" + id] = expr::Value::ofInt(it->second);
      i = end;
    } else {
      plain += text[i];
    }
  }
  auto e = expr::Expr::parse(plain);
  if (!e)
    return false;
  auto v = e->evaluate(env);
  return v && v->truthy();
}

namespace {

bool mentionsCandidate(const std::string &s) {
  return s.find('{') != std::string::npos;
}

/// Collects constraints per candidate id, each once, in the order found.
class ConstraintCollector {
public:
  ConstraintCollector(const ConstraintInputs &in, const CandidateSet &set)
      : In(in), Set(set), Reaching(kernelsReaching(in.facts)) {}

  /// Keeps `text` for every candidate it names, when it holds at the
  /// original values.
  void add(const std::string &text) {
    auto canon = canonicalConstraint(text);
    if (!canon || canon->find('{') == std::string::npos ||
        !holdsAtDefaults(*canon, In.values))
      return;
    for (const auto &c : Set.candidates)
      if (canon->find("{" + c.id + "}") != std::string::npos) {
        auto &list = Of[c.id];
        if (std::find(list.begin(), list.end(), *canon) == list.end())
          list.push_back(*canon);
      }
  }

  /// A marker of kernel `kernelId` as "({id})" (or "({id} - 1)", ...) when
  /// its site is in a candidate, else as its value.
  std::optional<std::string> resolve(Position position,
                                     const std::string &kernelId) const {
    auto it = In.index.byOccurrence.find({position, kernelId});
    for (const auto &o : In.facts.occurrences) {
      if (o.offset != position || o.kernel != kernelId)
        continue;
      if (it == In.index.byOccurrence.end())
        return std::to_string(o.value);
      const Candidate *c = Set.find(it->second);
      std::string repl = "{P}";
      for (const auto &s : c->sites)
        if (In.facts.position(s) == position)
          repl = s.replacement;
      if (repl.rfind("static_cast<", 0) == 0) {
        repl = repl.substr(repl.find(">(") + 2);
        repl.pop_back();
      }
      std::string out;
      for (size_t i = 0; i < repl.size(); ++i) {
        if (repl.compare(i, 3, "{P}") == 0) {
          out += "{" + c->id + "}";
          i += 2;
        } else {
          out += repl[i];
        }
      }
      return "(" + out + ")";
    }
    return std::nullopt;
  }

  std::function<std::optional<std::string>(Position)>
  resolverFor(const std::string &kernelId) const {
    return [this, kernelId](Position position) {
      return resolve(position, kernelId);
    };
  }

  /// Warp-level code in the kernel or a helper it reaches.
  bool isWarpLevel(const FunctionFacts &kernel) const {
    bool warp = false;
    for (const auto &[fn, ks] : Reaching)
      if (std::find(ks.begin(), ks.end(), kernel.id) != ks.end())
        if (const FunctionFacts *f = In.facts.function(fn))
          warp |= f->usesWarpLevelOps;
    return warp;
  }

  /// Block dims at each launch, and __launch_bounds__.
  void launchConstraints(const FunctionFacts &kernel) {
    auto resolve = resolverFor(kernel.id);
    bool warp = isWarpLevel(kernel);
    for (const auto &call : In.facts.calls) {
      if (!call.isLaunch || call.callee != kernel.id || call.block.empty())
        continue;
      std::string product;
      bool ok = true;
      for (const auto &d : call.block) {
        auto r = resolveMarkers(d, resolve);
        if (!r) {
          ok = false;
          break;
        }
        product += (product.empty() ? "" : " * ") + ("(" + *r + ")");
      }
      if (!ok || !mentionsCandidate(product))
        continue;
      add(product + " <= 1024");
      if (warp)
        add("(" + product + ") % 32 == 0");
    }
    if (auto it = In.facts.launchBounds.find(kernel.id);
        it != In.facts.launchBounds.end())
      if (auto r = resolveMarkers(it->second, resolve);
          r && mentionsCandidate(*r)) {
        add("(" + *r + ") <= 1024");
        if (warp)
          add("(" + *r + ") % 32 == 0");
      }
  }

  /// Static shared memory of the kernel and the helpers it calls.
  void sharedMemoryConstraint(const FunctionFacts &kernel) {
    auto resolve = resolverFor(kernel.id);
    std::string total;
    bool known = true;
    for (const auto &arr : In.facts.sharedArrays) {
      auto r = Reaching.find(arr.function);
      if (r == Reaching.end() || std::find(r->second.begin(), r->second.end(),
                                           kernel.id) == r->second.end())
        continue;
      if (arr.elementSize == 0 || arr.extents.empty()) {
        known = false;
        break;
      }
      std::string bytes = std::to_string(arr.elementSize);
      for (const auto &e : arr.extents) {
        auto v = resolveMarkers(e, resolve);
        if (!v) {
          known = false;
          break;
        }
        bytes += " * (" + *v + ")";
      }
      total += (total.empty() ? "" : " + ") + bytes;
    }
    if (known && !total.empty() && mentionsCandidate(total))
      add(total + " <= 49152");
  }

  /// Constants defined from others: `kThreads == kGroups * kPerGroup`.
  void derivedConstraints() {
    for (const auto &g : In.groups) {
      for (const auto &o : g.sites) {
        if (o.derivedExpr.empty())
          continue;
        const std::string section = "\xC2\xA7";
        std::string text, id = In.ids.at(&g);
        const std::string &d = o.derivedExpr;
        for (size_t i = 0; i < d.size();) {
          if (d.compare(i, 2, section) != 0) {
            text += d[i++];
            continue;
          }
          size_t end = d.find(section, i + 2);
          std::string inner = d.substr(i + 2, end - i - 2);
          size_t eq = inner.rfind('=');
          std::string key = inner.substr(0, eq);
          auto it = In.idOfConstant.find({g.kernel, key});
          text += it != In.idOfConstant.end() ? "{" + it->second + "}"
                                              : inner.substr(eq + 1);
          i = end + 2;
        }
        add("{" + id + "} == " + text);
        break;
      }
    }
  }

  /// What a kind implies: unroll >= 1, a launched or cub block <= 1024.
  void kindConstraints() {
    for (const auto &c : Set.candidates) {
      if (c.kind == ParamKind::Unroll)
        add("{" + c.id + "} >= 1");
      if (c.kind == ParamKind::BlockSize &&
          std::any_of(c.sites.begin(), c.sites.end(), [](const SourceSite &s) {
            return s.role == SiteRole::CubBlockSize ||
                   s.role == SiteRole::LaunchBlock;
          }))
        add("{" + c.id + "} <= 1024");
    }
  }

  std::map<std::string, std::vector<std::string>> Of;

private:
  const ConstraintInputs &In;
  const CandidateSet &Set;
  std::map<std::string, std::vector<std::string>> Reaching;
};

} // namespace

void addImpliedConstraints(const ConstraintInputs &in, CandidateSet &set) {
  ConstraintCollector constraints(in, set);
  for (const FunctionFacts *kernel : in.facts.kernels()) {
    constraints.launchConstraints(*kernel);
    constraints.sharedMemoryConstraint(*kernel);
  }
  constraints.derivedConstraints();
  constraints.kindConstraints();
  for (auto &c : set.candidates)
    c.impliedConstraints = constraints.Of[c.id];
}

} // namespace ktune::refactor
