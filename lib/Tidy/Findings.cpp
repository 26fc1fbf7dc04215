#include "ktune/Tidy/Findings.h"

#include "ktune/Expr/Expr.h"
#include "ktune/Plan/SourceScan.h"
#include "ktune/Refactor/Rewrite.h"

#include "llvm/Support/Error.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <set>

namespace ktune::tidy {

namespace {
/// Sets f.fix to what applying `plan` writes, or clears it and says in
/// f.fixError why the plan is refused or cannot be rewritten. A fix applies
/// exactly what ktune-refactor -o writes, `#line` directives included (they
/// keep __LINE__ and the default PTX unchanged), in every file it changes.
void setFix(Finding &f, const refactor::Detection &detection, const Plan &plan,
            const SourceTexts &sources) {
  f.fix = {};
  auto errors = validatePlan(plan, detection.candidates, sources);
  if (!errors.empty()) {
    f.fixError = errors.front().str();
    return;
  }
  auto rewrite = refactor::planRewrite(detection.facts, detection.candidates,
                                       detection.index, plan, detection.source);
  if (!rewrite) {
    f.fixError = llvm::toString(rewrite.takeError());
    return;
  }
  auto marked =
      refactor::withLineMarks(detection.facts, detection.source, *rewrite);
  if (!marked) {
    f.fixError = llvm::toString(marked.takeError());
    return;
  }
  f.fix = std::move(*marked);
}

struct KindInfo {
  ParamKind kind;
  const char *check;
  const char *phrase;
};
constexpr KindInfo Kinds[] = {
    {ParamKind::BlockSize, "ktune-block-size", "block size"},
    {ParamKind::TileSize, "ktune-tile-size", "tile size"},
    {ParamKind::Unroll, "ktune-unroll-factor", "unroll factor"},
    {ParamKind::VectorWidth, "ktune-vector-width", "vector width"},
    {ParamKind::ItemsPerThread, "ktune-items-per-thread", "items per thread"},
    {ParamKind::WarpsPerBlock, "ktune-warps-per-block", "warps per block"},
    {ParamKind::GridSize, "ktune-grid-size", "grid size"},
};

/// Identifiers spelled in `source` (a name is free when it is not one).
std::set<std::string> identifiersIn(std::string_view source) {
  std::set<std::string> names;
  for (const auto &token : source_scan::identifierTokens(source))
    names.emplace(token.name);
  return names;
}

/// The plan's constraints that mention only names `renames` renames (and at
/// least one), rewritten with the new names.
std::vector<std::string>
constraintsOf(const PlanKernel &kernel,
              const std::map<std::string, std::string> &renames) {
  std::vector<std::string> out;
  for (const auto &text : kernel.constraints) {
    auto parsed = expr::Expr::parse(text);
    if (!parsed)
      continue;
    auto names = parsed->names();
    if (names.empty() ||
        !std::all_of(names.begin(), names.end(), [&](const std::string &n) {
          return renames.count(n) != 0;
        }))
      continue;
    out.push_back(expr::renameIdentifiers(text, renames));
  }
  return out;
}
} // namespace

std::optional<std::string> checkName(ParamKind kind) {
  for (const auto &k : Kinds)
    if (k.kind == kind)
      return std::string(k.check);
  return std::nullopt;
}

std::vector<std::string> allCheckNames() {
  std::vector<std::string> names;
  for (const auto &k : Kinds)
    names.emplace_back(k.check);
  return names;
}

std::string_view kindPhrase(ParamKind kind) {
  for (const auto &k : Kinds)
    if (k.kind == kind)
      return k.phrase;
  return "tuning constant";
}

std::optional<NamingStyle> parseNamingStyle(std::string_view text) {
  return parseName(NamingStyleNames, text);
}

std::string applyNamingStyle(const std::string &upperSnake, NamingStyle style) {
  if (style == NamingStyle::UpperCase)
    return upperSnake;
  std::string out = style == NamingStyle::KCamelCase ? "k" : "";
  bool startWord = true;
  for (char c : upperSnake) {
    if (c == '_') {
      startWord = true;
      continue;
    }
    unsigned char u = static_cast<unsigned char>(c);
    out += static_cast<char>(startWord ? std::toupper(u) : std::tolower(u));
    startWord = false;
  }
  return out.empty() || out == "k" ? upperSnake : out;
}

std::vector<Finding> findingsForPlan(const refactor::Detection &detection,
                                     const Plan &plan, NamingStyle style) {
  std::vector<Finding> findings;
  std::set<std::string> taken;
  SourceTexts sources = detection.sources();
  if (style != NamingStyle::UpperCase)
    for (const auto &[file, text] : sources)
      taken.merge(identifiersIn(text));

  for (const auto &kernel : plan.kernels) {
    for (const auto &param : kernel.params) {
      auto check = checkName(param.kind);
      if (!check)
        continue;
      Finding f;
      f.check = *check;
      f.kind = param.kind;
      f.kernel = kernel.kernel;
      f.value = param.defaultValue;
      f.paramName = applyNamingStyle(param.name, style);
      if (f.paramName != param.name && taken.count(f.paramName))
        f.paramName = param.name;

      // Sites: every site of the parameter's candidates (or the plan's
      // subset), in source order.
      std::set<std::string> chosen(param.sites.begin(), param.sites.end());
      f.confidence = Confidence::High;
      for (const auto &id : param.candidates) {
        const Candidate *c = detection.candidates.find(id);
        if (!c)
          continue;
        if (static_cast<int>(c->confidence) > static_cast<int>(f.confidence))
          f.confidence = c->confidence;
        for (const auto &s : c->sites) {
          std::string key = s.file + ":" + std::to_string(s.line) + ":" +
                            std::to_string(s.col);
          if (chosen.empty() || chosen.count(key))
            f.sites.push_back(s);
        }
      }
      // A value that is already a template parameter's default only:
      // nothing hardcoded is left to lift.
      if (f.sites.empty() ||
          std::all_of(f.sites.begin(), f.sites.end(), [](const SourceSite &s) {
            return s.role == SiteRole::TemplateDefault;
          }))
        continue;
      // One site per position, in order of position.
      auto position = [&](const SourceSite &s) {
        return detection.facts.position(s).value_or(s.offset);
      };
      std::ranges::sort(f.sites, {}, position);
      auto dups = std::ranges::unique(f.sites, {}, position);
      f.sites.erase(dups.begin(), dups.end());
      // The first site that spells the value (an argument a site adds to
      // a call spells nothing yet).
      auto spelled = std::ranges::find_if(
          f.sites, [](const SourceSite &s) { return s.length > 0; });
      if (spelled != f.sites.end())
        std::rotate(f.sites.begin(), spelled, spelled + 1);
      f.primary = f.sites.front();
      std::string unqualified = kernel.kernel;
      if (auto pos = unqualified.rfind("::"); pos != std::string::npos)
        unqualified = unqualified.substr(pos + 2);
      f.message = "hardcoded " + std::string(kindPhrase(param.kind)) + " " +
                  std::to_string(param.defaultValue) + " in kernel '" +
                  unqualified + "' (" + std::to_string(f.sites.size()) +
                  (f.sites.size() == 1 ? " site" : " sites") +
                  "); lift it to a template parameter";
      for (size_t i = 1; i < f.sites.size(); ++i) {
        const SourceSite &s = f.sites[i];
        std::string what =
            !s.after.empty()
                ? "a local constant declared here, shadowing the one a "
                  "macro's body spells, changes with it ("
            : s.length == 0 ? "an argument passed here changes with it ("
                            : "'" + s.text + "' here changes with it (";
        f.notes.push_back(
            {s, what + std::string(siteRolePhrase(s.role)) + ")"});
      }

      // The fix: the plan restricted to this parameter, through the same
      // validation and rewrite as ktune-refactor.
      Plan single;
      single.planner = plan.planner;
      PlanKernel pk;
      pk.kernel = kernel.kernel;
      PlanParam renamed = param;
      renamed.name = f.paramName;
      f.param = renamed;
      f.planName = param.name;
      pk.params.push_back(renamed);
      pk.constraints = constraintsOf(kernel, {{param.name, f.paramName}});
      single.kernels.push_back(std::move(pk));
      setFix(f, detection, single, sources);
      findings.push_back(std::move(f));
    }
  }
  return findings;
}

namespace {
/// `plan` restricted to the given (renamed) parameters of each kernel,
/// with the constraints that only mention them.
Plan restrictPlan(const Plan &plan,
                  const std::vector<const Finding *> &members) {
  Plan out;
  out.planner = plan.planner;
  for (const auto &kernel : plan.kernels) {
    PlanKernel pk;
    pk.kernel = kernel.kernel;
    std::map<std::string, std::string> renames; // plan name -> new name
    for (const auto &param : kernel.params)
      for (const Finding *f : members)
        if (f->kernel == kernel.kernel && f->planName == param.name) {
          pk.params.push_back(f->param);
          renames[param.name] = f->param.name;
        }
    if (pk.params.empty())
      continue;
    pk.constraints = constraintsOf(kernel, renames);
    out.kernels.push_back(std::move(pk));
  }
  return out;
}
} // namespace

void combineFixes(std::vector<Finding> &findings,
                  const refactor::Detection &detection, const Plan &plan) {
  // Union-find over conflicting fixes.
  std::vector<size_t> parent(findings.size());
  for (size_t i = 0; i < parent.size(); ++i)
    parent[i] = i;
  auto root = [&](size_t i) {
    while (parent[i] != i)
      i = parent[i] = parent[parent[i]];
    return i;
  };
  for (size_t i = 0; i < findings.size(); ++i)
    for (size_t j = i + 1; j < findings.size(); ++j)
      if (!findings[i].fix.empty() && !findings[j].fix.empty() &&
          editsConflict(findings[i].fix, findings[j].fix))
        parent[root(j)] = root(i);
  std::map<size_t, std::vector<size_t>> groups;
  for (size_t i = 0; i < findings.size(); ++i)
    if (!findings[i].fix.empty())
      groups[root(i)].push_back(i);
  SourceTexts sources = detection.sources();
  for (auto &[first, members] : groups) {
    if (members.size() < 2)
      continue;
    std::vector<const Finding *> group;
    for (size_t i : members)
      group.push_back(&findings[i]);
    Plan combined = restrictPlan(plan, group);
    Finding &carrier = findings[members.front()];
    setFix(carrier, detection, combined, sources);
    for (size_t k = 1; k < members.size(); ++k) {
      findings[members[k]].fix = {};
      findings[members[k]].fixedWith = carrier.paramName;
      if (!carrier.fix.empty())
        carrier.fixAlsoLifts.push_back(findings[members[k]].paramName);
    }
  }
}

bool editsConflict(const clang::tooling::Replacements &a,
                   const clang::tooling::Replacements &b) {
  for (const auto &x : a)
    for (const auto &y : b) {
      unsigned xb = x.getOffset(), xe = xb + x.getLength();
      unsigned yb = y.getOffset(), ye = yb + y.getLength();
      if (xb == yb)
        return true;
      if (std::max(xb, yb) < std::min(xe, ye))
        return true;
      if (x.getLength() == 0 && yb < xb && xb < ye)
        return true;
      if (y.getLength() == 0 && xb < yb && yb < xe)
        return true;
    }
  return false;
}

bool editsConflict(const refactor::FileEdits &a, const refactor::FileEdits &b) {
  for (const auto &[file, edits] : a)
    if (auto it = b.find(file);
        it != b.end() && editsConflict(edits, it->second))
      return true;
  return false;
}

} // namespace ktune::tidy
