//===- Candidates.cpp - Grouping sites into candidates --------------------===//
//
// A candidate is one constant of one kernel with every site that must change
// with it. buildCandidates groups each kernel's occurrences (Grouping.cpp),
// describes each group (CandidateRules.cpp), gives it a stable id, and adds
// the constraints the code implies (ImpliedConstraints.cpp).
//
//===----------------------------------------------------------------------===//

#include "GroupInternal.h"

#include "ktune/Support/EnumNames.h"

#include <algorithm>

namespace ktune::refactor {

/// The kind in a candidate id ("c_bs_...").
static constexpr EnumName<ParamKind> Abbreviations[] = {
    {ParamKind::BlockSize, "bs"},       {ParamKind::TileSize, "ts"},
    {ParamKind::Unroll, "ur"},          {ParamKind::VectorWidth, "vw"},
    {ParamKind::ItemsPerThread, "ipt"}, {ParamKind::WarpsPerBlock, "wpb"},
    {ParamKind::GridSize, "gs"},        {ParamKind::RowSplit, "rs"},
    {ParamKind::MinBlocks, "mb"},       {ParamKind::Other, "ot"},
};

static uint64_t fnv1a(const std::string &s) {
  uint64_t h = 1469598103934665603ull;
  for (unsigned char c : s) {
    h ^= c;
    h *= 1099511628211ull;
  }
  return h;
}

static std::string hex(uint64_t v, unsigned digits) {
  static const char *d = "0123456789abcdef";
  std::string out(digits, '0');
  for (unsigned i = 0; i < digits; ++i)
    out[digits - 1 - i] = d[(v >> (4 * i)) & 0xf];
  return out;
}

/// Sites in source order, each once, with their final replacement; the
/// kernel template parameter the group sets, by name.
static void finishGroup(const SourceFacts &facts, CandidateGroup &g) {
  const FunctionFacts *k = facts.function(g.kernel);
  if (g.boundParam >= 0 &&
      g.boundParam < static_cast<int>(k->templateParams.size()))
    g.boundName = k->templateParams[g.boundParam].name;
  std::ranges::sort(g.sites, {}, &Occurrence::offset);
  auto dups = std::ranges::unique(g.sites, {}, &Occurrence::offset);
  g.sites.erase(dups.begin(), dups.end());
  g.type = groupType(g);
  for (auto &s : g.sites)
    finishReplacement(s, g.type);
}

/// A site's place: its position, and for an insertion its constant too
/// (shadowing declarations of several constants share a position).
using SiteKey = std::pair<Position, std::string>;
static SiteKey siteKey(const Occurrence &o) {
  return {o.offset, insertedConstant(o)};
}

/// The candidate a finished group becomes, under `id`.
static Candidate candidateOf(const SourceFacts &facts, const CandidateGroup &g,
                             ParamKind kind, const std::string &id,
                             const std::set<SiteKey> &sharedSites) {
  const FunctionFacts *kernel = facts.function(g.kernel);
  Candidate c;
  c.id = id;
  c.kind = kind;
  c.kernel = facts.kernelPlanName(*kernel);
  c.value = g.named ? g.value : g.sites.front().baseValue;
  if (!g.named)
    for (const auto &s : g.sites)
      if (s.replacement == "{P}") {
        c.value = s.value;
        break;
      }
  c.spelling = g.named ? g.constantName : std::to_string(c.value);
  c.confidence = confidenceOf(g);
  c.why = whyOf(g, kind, &facts);
  c.type = g.type;
  c.launchParam = g.launchParam;
  if (g.launchParam) {
    std::string hosts;
    for (const auto &h : g.hosts)
      hosts += (hosts.empty() ? "" : ", ") + h;
    c.why += "; chosen on the host in " + hosts +
             ": a launch parameter (the launcher becomes a template, the "
             "kernel is unchanged)";
  }
  if (const CallFacts *launch = g.caseLaunch) {
    c.caseTable = facts.pathOf(filePart(*launch->caseTable)) + ":" +
                  std::to_string(launch->caseTableLine);
    c.caseIndex = launch->caseIndex;
    c.caseCondition = launch->caseCondition;
    c.why += "; case " + std::to_string(c.caseIndex + 1) +
             " of the configuration table at " + c.caseTable +
             " (reached when " + c.caseCondition + ")";
  }
  std::set<Position> placed;
  for (const auto &o : g.sites) {
    // A macro body's literal: one site for the functions expanding it.
    if (!placed.insert(o.offset).second)
      continue;
    SourceSite site;
    site.file = facts.pathOf(filePart(o.offset));
    site.line = o.line;
    site.col = o.col;
    site.offset = localPart(o.offset);
    site.length = o.length;
    site.text = o.text;
    site.role = o.role;
    site.replacement = o.replacement;
    // An operand of a delimited expression (`smem[BDIM + 2 * RADIUS]`,
    // RADIUS -> `{P}/2`): the parentheses the role would not add.
    if (!o.top && delimitsItsSite(o.role) && site.replacement != "{P}" &&
        site.replacement.rfind("static_cast<", 0) != 0)
      site.replacement = "(" + site.replacement + ")";
    site.before = o.before;
    site.after = o.after;
    site.shared = sharedSites.count(siteKey(o)) > 0;
    c.sites.push_back(std::move(site));
  }
  return c;
}

/// A structural candidate's id: stable over edits elsewhere in the file.
static std::string structuralId(const std::string &kind,
                                const std::string &prefix,
                                const FunctionFacts &kernel,
                                std::set<std::string> &used) {
  uint64_t h = fnv1a(kind + "|" + kernel.qualifiedName + "|" +
                     std::to_string(kernel.line));
  std::string id;
  for (unsigned digits = 4; digits <= 16; digits += 2) {
    id = prefix + hex(h, digits);
    if (!used.count(id))
      break;
  }
  used.insert(id);
  return id;
}

/// The one site of a structural candidate: a place the rewrite writes at,
/// no constant's text.
static SourceSite structuralSite(const SourceFacts &facts, Position at,
                                 unsigned line, unsigned col, SiteRole role) {
  SourceSite site;
  site.file = facts.pathOf(filePart(at));
  site.offset = localPart(at);
  site.line = line;
  site.col = col;
  site.role = role;
  return site;
}

/// Why a structural parameter cannot be introduced into `kernel`: its own
/// analysis's `refusal`, else the kernel's not becoming a template; empty
/// when it can.
static std::string structuralRefusal(const FunctionFacts &kernel,
                                     const std::string &refusal) {
  if (!refusal.empty() || kernel.cannotTemplate.empty())
    return refusal;
  return kernel.qualifiedName +
         " cannot become a template: " + kernel.cannotTemplate;
}

/// A register cap (RegisterCap.cpp): a minimum of blocks per SM written
/// into the kernel's __launch_bounds__, 0 (no minimum) by default.
static void addRegisterCapCandidate(const SourceFacts &facts,
                                    const FunctionFacts &kernel,
                                    std::set<std::string> &used,
                                    CandidateIndex &index, CandidateSet &set) {
  const RegisterCapFacts &rc = kernel.registerCap;
  if (!rc.analysed)
    return;
  std::string name = facts.kernelPlanName(kernel);
  std::string refusal = structuralRefusal(kernel, rc.refusal);
  if (!refusal.empty()) {
    set.refusals.push_back({name, ParamKind::MinBlocks, refusal});
    return;
  }
  Candidate c;
  c.id = structuralId("min_blocks", "c_mb_", kernel, used);
  c.kind = ParamKind::MinBlocks;
  c.kernel = name;
  c.value = 0;
  c.spelling = "0";
  c.confidence = Confidence::Low;
  std::string threads =
      rc.maxThreads > 0 ? std::to_string(rc.maxThreads) : "its bound's";
  c.why = "a register cap: M blocks of " + threads +
          " threads resident per SM (__launch_bounds__'s minimum) limit each "
          "thread to 65536 / (" +
          threads + " * M) registers; 0 names no minimum, the original code";
  SourceSite site =
      structuralSite(facts, rc.at, rc.line, rc.col, SiteRole::KernelAttributes);
  if (rc.extendsBounds) {
    site.before = ", ";
  } else {
    // Bounds of 0 and 0 emit no directive: the default is the original.
    site.replacement = RegisterCapBounds;
  }
  c.sites.push_back(std::move(site));
  index.kernelOf[c.id] = kernel.id;
  index.boundParam[c.id] = -1;
  set.candidates.push_back(std::move(c));
}

/// A fixed_arg for each integer argument the kernel reads and never writes
/// (FixedArgs.cpp), 0 (the argument, read at run time) by default; its one
/// site is the argument's name in the definition, which the rewrite renames.
static void addFixedArgCandidates(const SourceFacts &facts,
                                  const FunctionFacts &kernel,
                                  std::set<std::string> &used,
                                  CandidateIndex &index, CandidateSet &set) {
  std::string name = facts.kernelPlanName(kernel);
  for (const FixableArg &a : kernel.fixableArgs) {
    std::string refusal = structuralRefusal(kernel, a.refusal);
    if (!refusal.empty()) {
      set.refusals.push_back({name, ParamKind::FixedArg, refusal});
      continue;
    }
    Candidate c;
    c.id = structuralId("fixed_arg|" + a.name, "c_fa_", kernel, used);
    c.kind = ParamKind::FixedArg;
    c.kernel = name;
    c.value = 0;
    c.spelling = "0";
    c.confidence = Confidence::Low;
    c.type = a.type;
    c.fixesArgument = a.name;
    c.why = "argument " + a.name +
            " fixed at compile time: an integer read and never written, so "
            "a constant of its value can stand for it (index arithmetic "
            "over it folds); 0 reads the argument, the original code, and "
            "another value is launched only where the argument equals it";
    c.sites.push_back(
        structuralSite(facts, a.nameAt, a.line, a.col, SiteRole::KernelBody));
    index.kernelOf[c.id] = kernel.id;
    index.boundParam[c.id] = -1;
    set.candidates.push_back(std::move(c));
  }
}

/// row_split where a kernel's row can be split (RowSplit.cpp), else the
/// reason it cannot. Its one site is the kernel's body, which the rewrite
/// keeps for the default and copies, split, for the other values. Then the
/// register cap of each kernel that can take one.
static void addStructuralCandidates(const SourceFacts &facts,
                                    const CandidateOptions &options,
                                    std::set<std::string> &used,
                                    CandidateIndex &index, CandidateSet &set) {
  for (const FunctionFacts *kernel : facts.kernels()) {
    const RowSplitFacts &rs = kernel->rowSplit;
    if (!rs.analysed)
      continue;
    std::string name = facts.kernelPlanName(*kernel);
    std::string refusal = structuralRefusal(*kernel, rs.refusal);
    // Every launch must take the grid edit: a <<<>>> with its grid spelled
    // in a file ktune rewrites, outside a macro's body.
    for (const auto &call : facts.calls)
      if (refusal.empty() && call.isLaunch && call.callee == kernel->id &&
          (call.form != CallForm::Chevron || call.gridArgLength == 0 ||
           !call.macro.empty()))
        refusal = facts.pathOf(filePart(call.offset)) + ":" +
                  std::to_string(call.line) + ": its launch " +
                  (call.form != CallForm::Chevron
                       ? "is not <<<>>> (" +
                             std::string(callFormName(call.form)) + ")"
                       : std::string("is spelled in a macro")) +
                  ": the grid cannot be multiplied there";
    if (!refusal.empty()) {
      set.refusals.push_back({name, ParamKind::RowSplit, refusal});
      continue;
    }
    Candidate c;
    c.id = structuralId("row_split", "c_rs_", *kernel, used);
    c.kind = ParamKind::RowSplit;
    c.kernel = name;
    c.value = 1;
    c.spelling = "1";
    c.confidence = Confidence::Low;
    c.why = "blocks per row: the row comes from blockIdx.x, the work over it "
            "is block-stride loops with independent iterations and the "
            "threads never communicate, so S blocks can share a row, each "
            "taking every S-th iteration (blockIdx.x / S is the row); the "
            "original body is kept for 1";
    if (!rs.opaqueCallees.empty()) {
      std::string names;
      for (const auto &n : rs.opaqueCallees)
        names += (names.empty() ? "" : ", ") + n;
      c.why +=
          "; called without a body here, assumed not to communicate: " + names;
    }
    c.sites.push_back(structuralSite(facts, rs.bodyOpen, rs.bodyLine,
                                     rs.bodyCol, SiteRole::KernelBody));
    index.kernelOf[c.id] = kernel->id;
    index.boundParam[c.id] = -1;
    set.candidates.push_back(std::move(c));
  }
  if (options.registerCaps)
    for (const FunctionFacts *kernel : facts.kernels())
      addRegisterCapCandidate(facts, *kernel, used, index, set);
  if (options.fixedArgs)
    for (const FunctionFacts *kernel : facts.kernels())
      addFixedArgCandidates(facts, *kernel, used, index, set);
}

/// Whether every site of `g` is in host code (the kernel's own code keeps
/// its spelling).
static bool onlyOnTheHost(const SourceFacts &facts, const CandidateGroup &g) {
  return !g.sites.empty() &&
         std::all_of(g.sites.begin(), g.sites.end(), [&](const Occurrence &s) {
           const FunctionFacts *f = facts.function(s.function);
           return f && f->role == FunctionRole::Host;
         });
}

CandidateSet buildCandidates(const SourceFacts &facts, CandidateIndex &index,
                             const CandidateOptions &options) {
  CandidateSet set;
  set.file = facts.file;
  std::vector<CandidateGroup> groups;
  for (const FunctionFacts *kernel : facts.kernels()) {
    // A kernel that cannot become a template keeps its code: only what its
    // launches spell on the host, and its code does not, can be lifted (a
    // launch parameter, or a host constant passed as one of the template
    // arguments it already has).
    for (auto &g : groupKernel(facts, *kernel))
      if (kernel->cannotTemplate.empty() || g.launchParam ||
          onlyOnTheHost(facts, g))
        groups.push_back(std::move(g));
  }
  // One launch of overloads (vLLM's enable_if pairs, the overload chosen
  // per expansion of a launch macro) gives each the same host sites: the
  // first overload's parameter is the launch's. A launch macro's body
  // shared by different kernels (one edit for every expansion) stays a site
  // of each: the plan lifts them together, under one name.
  // So does a local constant shadowing a header's (one declaration for
  // every launch in its function).
  std::map<SiteKey, std::string> launchSites; // site -> kernel's name
  std::erase_if(groups, [&](const CandidateGroup &g) {
    if (!g.launchParam)
      return false;
    const std::string &name = facts.function(g.kernel)->qualifiedName;
    bool shared = std::any_of(g.sites.begin(), g.sites.end(), [&](auto &s) {
      auto it = launchSites.find(siteKey(s));
      bool oneEdit = !s.macroBody.empty() || !s.after.empty();
      return it != launchSites.end() && (!oneEdit || it->second == name);
    });
    for (const auto &s : g.sites)
      launchSites.emplace(siteKey(s), name);
    return shared;
  });
  for (auto &g : groups)
    finishGroup(facts, g);
  std::sort(groups.begin(), groups.end(),
            [&](const CandidateGroup &a, const CandidateGroup &b) {
              return std::make_pair(facts.function(a.kernel)->offset,
                                    a.firstOffset()) <
                     std::make_pair(facts.function(b.kernel)->offset,
                                    b.firstOffset());
            });

  // Sites that candidates of several kernels hold: a launch macro's body,
  // or a host constant that sizes several kernels' launches (SHOC's
  // `int num_threads = 256;` before reduce<T, 256>, scan<T, 256>, ...).
  // A device helper's are not: each caller passes the helper its own.
  std::map<SiteKey, std::set<std::string>> kernelsAt;
  for (const auto &g : groups)
    for (const auto &o : g.sites) {
      const FunctionFacts *f = facts.function(o.function);
      if (!o.macroBody.empty() || (f && f->role == FunctionRole::Host))
        kernelsAt[siteKey(o)].insert(g.kernel);
    }
  std::set<SiteKey> sharedSites;
  for (const auto &[key, kernels] : kernelsAt)
    if (kernels.size() > 1)
      sharedSites.insert(key);

  // Stable ids: kind + kernel + first site.
  std::set<std::string> used;
  std::map<const CandidateGroup *, std::string> ids;
  std::map<std::string, int64_t> values;
  std::map<std::pair<std::string, std::string>, std::string> idOfConstant;
  std::map<std::string, int> seedCount;
  for (auto &g : groups) {
    const FunctionFacts *kernel = facts.function(g.kernel);
    ParamKind kind = inferKind(g);
    const Occurrence &first = g.sites.front();
    // No line numbers: an edit elsewhere in the file keeps the ids (and the
    // plans that use them) valid; equal seeds are told apart by their order.
    std::string seed = std::string(kindName(kind)) + "|" +
                       kernel->qualifiedName + "|" + first.text + "|" +
                       std::string(siteRoleName(first.role));
    seed += "|" + std::to_string(seedCount[seed]++);
    uint64_t h = fnv1a(seed);
    std::string id;
    for (unsigned digits = 4; digits <= 16; digits += 2) {
      id = "c_" + std::string(nameOf(Abbreviations, kind, "ot")) + "_" +
           hex(h, digits);
      if (!used.count(id))
        break;
    }
    used.insert(id);
    ids[&g] = id;

    Candidate c = candidateOf(facts, g, kind, id, sharedSites);
    for (const auto &o : g.sites)
      index.byOccurrence[{o.offset, g.kernel}] = id;
    index.kernelOf[id] = g.kernel;
    if (g.named)
      idOfConstant[{g.kernel, g.sites.front().constant}] = id;
    index.boundParam[id] = g.boundParam;
    values[id] = c.value;
    set.candidates.push_back(std::move(c));
  }

  addImpliedConstraints({facts, groups, ids, idOfConstant, values, index}, set);
  addStructuralCandidates(facts, options, used, index, set);
  return set;
}

CandidateSet buildCandidates(const SourceFacts &facts) {
  CandidateIndex index;
  return buildCandidates(facts, index);
}

} // namespace ktune::refactor
