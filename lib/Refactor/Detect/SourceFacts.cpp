//===- SourceFacts.cpp - Facts as data ------------------------------------===//
//
// What detection records, as plain data: families and roles by name, the
// merge of the host and the device side's facts (files renumbered by path),
// and attributing a helper's occurrences to the kernels that call it. The
// JSON of --dump-facts is SourceFactsJson.cpp.
//
//===----------------------------------------------------------------------===//

#include "ktune/Refactor/SourceFacts.h"

#include "ktune/Support/EnumNames.h"

#include <algorithm>
#include <map>
#include <ostream>
#include <set>
#include <tuple>

namespace ktune::refactor {

static constexpr EnumName<CallForm> CallFormNames[] = {
    {CallForm::DeviceCall, "call"},
    {CallForm::Chevron, "<<<>>>"},
    {CallForm::LaunchKernelEx, "cudaLaunchKernelEx"},
    {CallForm::LaunchKernel, "cudaLaunchKernel"},
    {CallForm::CooperativeKernel, "cudaLaunchCooperativeKernel"},
    {CallForm::LaunchHelper, "launch_helper"},
    {CallForm::LauncherCall, "launcher_call"},
    {CallForm::Reference, "reference"},
};

std::string_view callFormName(CallForm form) {
  return nameOf(CallFormNames, form, "call");
}

const FunctionFacts *SourceFacts::function(const std::string &id) const {
  auto it = functions.find(id);
  return it == functions.end() ? nullptr : &it->second;
}

std::vector<const FunctionFacts *> SourceFacts::kernels() const {
  std::vector<const FunctionFacts *> out;
  for (const auto &[id, f] : functions)
    if (f.role == FunctionRole::Kernel)
      out.push_back(&f);
  std::sort(out.begin(), out.end(),
            [](auto *a, auto *b) { return a->offset < b->offset; });
  return out;
}

const std::string &SourceFacts::pathOf(unsigned fileIndex) const {
  if (fileIndex == 0 || fileIndex >= files.size())
    return file;
  return files[fileIndex].path;
}

std::optional<unsigned>
SourceFacts::fileIndexOf(const std::string &path) const {
  if (path == file)
    return 0;
  for (unsigned i = 1; i < files.size(); ++i)
    if (files[i].path == path)
      return i;
  return std::nullopt;
}

std::optional<Position> SourceFacts::position(const SourceSite &site) const {
  auto index = fileIndexOf(site.file);
  if (!index)
    return std::nullopt;
  return makePosition(*index, site.offset);
}

llvm::StringRef SourceFacts::textOf(unsigned fileIndex,
                                    llvm::StringRef mainText) const {
  if (fileIndex < files.size() && (fileIndex > 0 || !files[0].text.empty()))
    return files[fileIndex].text;
  return fileIndex == 0 ? mainText : llvm::StringRef();
}

std::string SourceFacts::kernelPlanName(const FunctionFacts &kernel) const {
  for (const FunctionFacts *other : kernels())
    if (other->id != kernel.id && other->qualifiedName == kernel.qualifiedName)
      return kernel.qualifiedName + "@" + std::to_string(kernel.line);
  return kernel.qualifiedName;
}

/// `other`'s items not in `into` (by position) added, in source order.
template <typename T, typename At>
static void mergeByPosition(std::vector<T> &into, const std::vector<T> &other,
                            At at) {
  for (const T &item : other)
    if (std::none_of(into.begin(), into.end(),
                     [&](const T &have) { return at(have) == at(item); }))
      into.push_back(item);
  std::sort(into.begin(), into.end(),
            [&](const T &a, const T &b) { return at(a) < at(b); });
}

/// Both sides must allow a split; its uses are those of both sides (a body
/// may differ under __CUDA_ARCH__).
static void mergeRowSplit(RowSplitFacts &into, const RowSplitFacts &other) {
  if (!other.analysed)
    return;
  if (!into.analysed || !other.refusal.empty()) {
    if (into.refusal.empty())
      into = other;
    return;
  }
  if (!into.refusal.empty())
    return;
  mergeByPosition(into.uses, other.uses,
                  [](const BuiltinUse &u) { return u.offset; });
  mergeByPosition(into.loops, other.loops,
                  [](const SplitLoop &l) { return l.start; });
  for (const auto &name : other.opaqueCallees)
    if (std::find(into.opaqueCallees.begin(), into.opaqueCallees.end(), name) ==
        into.opaqueCallees.end())
      into.opaqueCallees.push_back(name);
}

/// Both sides must allow the cap (they read the same declaration).
static void mergeRegisterCap(RegisterCapFacts &into,
                             const RegisterCapFacts &other) {
  if (other.analysed &&
      (!into.analysed || (into.refusal.empty() && !other.refusal.empty())))
    into = other;
}

/// Both sides must allow fixing an argument (a body may differ under
/// __CUDA_ARCH__, and write it on one side only).
static void mergeFixableArgs(std::vector<FixableArg> &into,
                             const std::vector<FixableArg> &other) {
  for (const FixableArg &a : other) {
    auto have = std::find_if(into.begin(), into.end(),
                             [&](auto &b) { return b.index == a.index; });
    if (have == into.end())
      into.push_back(a);
    else if (have->refusal.empty() && !a.refusal.empty())
      *have = a;
  }
  std::sort(into.begin(), into.end(),
            [](auto &a, auto &b) { return a.index < b.index; });
}

static void mergeFunction(FunctionFacts &into, const FunctionFacts &other) {
  mergeRowSplit(into.rowSplit, other.rowSplit);
  mergeRegisterCap(into.registerCap, other.registerCap);
  mergeFixableArgs(into.fixableArgs, other.fixableArgs);
  into.usesWarpLevelOps |= other.usesWarpLevelOps;
  into.gridStride |= other.gridStride;
  into.keptConstants.insert(other.keptConstants.begin(),
                            other.keptConstants.end());
  for (const auto &c : other.callees)
    if (std::find(into.callees.begin(), into.callees.end(), c) ==
        into.callees.end())
      into.callees.push_back(c);
  for (size_t i = 0;
       i < into.templateParams.size() && i < other.templateParams.size(); ++i)
    into.templateParams[i].sizesWork |= other.templateParams[i].sizesWork;
  if (into.cannotTemplate.empty())
    into.cannotTemplate = other.cannotTemplate;
  // A role seen only by one side (a helper called from device-only code)
  // is kept; a kernel stays a kernel.
  if (other.role == FunctionRole::Kernel)
    into.role = FunctionRole::Kernel;
}

void remapFiles(SourceFacts &facts, const std::vector<unsigned> &newIndex) {
  auto moved = [&](Position p) -> Position {
    if (filePart(p) < newIndex.size())
      return makePosition(newIndex[filePart(p)], localPart(p));
    return p;
  };
  auto pos = [&](Position &p) { p = moved(p); };
  auto id = [&](std::string &fnId) {
    if (auto p = functionIdPosition(fnId))
      fnId = functionId(moved(*p));
  };
  auto markers = [&](std::string &text) {
    auto r = resolveMarkers(
        text, [&](Position p) { return std::optional(marker(moved(p))); });
    if (r)
      text = *r;
  };
  std::map<std::string, FunctionFacts> functions;
  for (auto &[key, f] : facts.functions) {
    id(f.id);
    pos(f.offset);
    pos(f.bodyBegin);
    pos(f.rangeBegin);
    pos(f.rangeEnd);
    for (auto &d : f.declarations)
      pos(d.insertOffset);
    for (auto &drop : f.templateDrops)
      pos(drop.first);
    if (f.outOfClassMember)
      pos(f.memberDeclarationEnd);
    for (auto &c : f.callees)
      id(c);
    functions.emplace(f.id, std::move(f));
  }
  facts.functions = std::move(functions);
  for (auto &c : facts.calls) {
    pos(c.offset);
    pos(c.insertOffset);
    id(c.caller);
    id(c.callee);
    if (!c.launcher.empty())
      id(c.launcher);
    for (auto &at : c.explicitArgAt)
      if (at != 0)
        pos(at);
    for (auto *dims : {&c.grid, &c.block})
      for (auto &d : *dims)
        markers(d);
    markers(c.smem);
  }
  for (auto &o : facts.occurrences) {
    pos(o.offset);
    for (auto &l : o.launches)
      pos(l);
    id(o.function);
    id(o.kernel);
    if (o.family.kind == Family::Kind::Unroll ||
        o.family.kind == Family::Kind::Items ||
        o.family.kind == Family::Kind::MinBlocks ||
        o.family.kind == Family::Kind::GridSize)
      o.family.at = moved(o.family.at);
  }
  for (auto &a : facts.sharedArrays) {
    pos(a.offset);
    id(a.function);
    for (auto &e : a.extents)
      markers(e);
  }
  for (auto &[begin, end] : facts.hostOnlyRanges) {
    pos(begin);
    pos(end);
  }
  std::map<Position, Position> declarations;
  for (const auto &[use, declaration] : facts.constantDeclarations)
    declarations.emplace(moved(use), moved(declaration));
  facts.constantDeclarations = std::move(declarations);
  for (auto &[name, copy] : facts.macroCopies) {
    pos(copy.begin);
    pos(copy.end);
    pos(copy.insertAt);
  }
  std::map<std::string, std::string> bounds;
  for (const auto &[key, value] : facts.launchBounds) {
    std::string k = key, v = value;
    id(k);
    markers(v);
    bounds.emplace(std::move(k), std::move(v));
  }
  facts.launchBounds = std::move(bounds);
  std::vector<SourceFile> files(facts.files.size());
  for (unsigned i = 0; i < facts.files.size() && i < newIndex.size(); ++i) {
    if (newIndex[i] >= files.size())
      files.resize(newIndex[i] + 1);
    files[newIndex[i]] = std::move(facts.files[i]);
  }
  facts.files = std::move(files);
}

/// The other side's file indices in `into`'s numbering; files `into` has
/// not seen are appended to its table.
static std::vector<unsigned> matchFiles(SourceFacts &into,
                                        const SourceFacts &other) {
  std::vector<unsigned> newIndex;
  for (unsigned i = 0; i < other.files.size(); ++i) {
    if (i == 0) {
      newIndex.push_back(0);
      if (into.files.empty())
        into.files.push_back(other.files[0]);
      continue;
    }
    unsigned found = static_cast<unsigned>(into.files.size());
    for (unsigned j = 1; j < into.files.size(); ++j)
      if (into.files[j].absolutePath == other.files[i].absolutePath)
        found = j;
    if (found == into.files.size())
      into.files.push_back(other.files[i]);
    newIndex.push_back(found);
  }
  return newIndex;
}

void mergeFacts(SourceFacts &into, const SourceFacts &otherSide) {
  SourceFacts renumbered;
  const SourceFacts *otherPtr = &otherSide;
  if (!otherSide.files.empty()) {
    std::vector<unsigned> newIndex = matchFiles(into, otherSide);
    bool identity = true;
    for (unsigned i = 0; i < newIndex.size(); ++i)
      identity &= newIndex[i] == i;
    if (!identity) {
      renumbered = otherSide;
      remapFiles(renumbered, newIndex);
      otherPtr = &renumbered;
    }
  }
  const SourceFacts &other = *otherPtr;
  for (const auto &root : other.includeRoots)
    if (std::find(into.includeRoots.begin(), into.includeRoots.end(), root) ==
        into.includeRoots.end())
      into.includeRoots.push_back(root);
  for (const auto &[id, f] : other.functions) {
    auto it = into.functions.find(id);
    if (it == into.functions.end())
      into.functions.emplace(id, f);
    else
      mergeFunction(it->second, f);
  }
  auto callKey = [](const CallFacts &c) {
    return std::make_tuple(c.offset, c.caller, c.callee);
  };
  std::set<std::tuple<Position, std::string, std::string>> calls;
  for (const auto &c : into.calls)
    calls.insert(callKey(c));
  for (const auto &c : other.calls)
    if (calls.insert(callKey(c)).second)
      into.calls.push_back(c);

  auto occKey = [](const Occurrence &o) {
    return std::make_tuple(o.offset, o.kernel, o.function, o.role,
                           insertedConstant(o));
  };
  std::map<
      std::tuple<Position, std::string, std::string, SiteRole, std::string>,
      size_t>
      occs;
  for (size_t i = 0; i < into.occurrences.size(); ++i)
    occs.emplace(occKey(into.occurrences[i]), i);
  for (const auto &o : other.occurrences) {
    auto [it, added] = occs.emplace(occKey(o), into.occurrences.size());
    if (added) {
      into.occurrences.push_back(o);
      continue;
    }
    auto &mine = into.occurrences[it->second].launches;
    for (Position l : o.launches)
      if (std::find(mine.begin(), mine.end(), l) == mine.end())
        mine.push_back(l);
  }

  std::set<Position> arrays;
  for (const auto &a : into.sharedArrays)
    arrays.insert(a.offset);
  for (const auto &a : other.sharedArrays)
    if (arrays.insert(a.offset).second)
      into.sharedArrays.push_back(a);
  for (const auto &[k, v] : other.launchBounds)
    into.launchBounds.emplace(k, v);
  // A side seeing another definition (under #if) keeps the first's: the
  // host side's, where launches are compiled.
  for (const auto &[use, declaration] : other.constantDeclarations)
    into.constantDeclarations.emplace(use, declaration);
  for (const auto &[name, copy] : other.macroCopies)
    into.macroCopies.emplace(name, copy);
  for (const auto &r : other.hostOnlyRanges)
    if (std::find(into.hostOnlyRanges.begin(), into.hostOnlyRanges.end(), r) ==
        into.hostOnlyRanges.end())
      into.hostOnlyRanges.push_back(r);
  std::sort(into.hostOnlyRanges.begin(), into.hostOnlyRanges.end());
  for (const auto &n : other.notes)
    if (std::find(into.notes.begin(), into.notes.end(), n) == into.notes.end())
      into.notes.push_back(n);
  std::sort(into.occurrences.begin(), into.occurrences.end(),
            [](const Occurrence &a, const Occurrence &b) {
              return std::tie(a.offset, a.kernel, a.role) <
                     std::tie(b.offset, b.kernel, b.role);
            });
  std::sort(into.calls.begin(), into.calls.end(),
            [](const CallFacts &a, const CallFacts &b) {
              return a.offset < b.offset;
            });
}

std::string Family::str() const {
  switch (kind) {
  case Kind::None:
    return "";
  case Kind::Block:
    return "block";
  case Kind::Unlinked:
    return "unlinked";
  case Kind::ItemsPerThread:
    return "ipt";
  case Kind::VectorBytes:
    return "vecbytes";
  case Kind::Unroll:
    return "unroll@" + std::to_string(at);
  case Kind::Items:
    return "items@" + std::to_string(at);
  case Kind::MinBlocks:
    return "minblocks@" + std::to_string(at);
  case Kind::VectorType:
    return "vectype:" + typeName;
  case Kind::TemplateArg:
    // A configuration type's argument names the class's parameter.
    return "targ@" + std::to_string(at) +
           (typeName.empty() ? "" : ":" + typeName);
  case Kind::GridSize:
    return "grid@" + std::to_string(at);
  }
  return "";
}

std::ostream &operator<<(std::ostream &os, const Family &family) {
  return os << family.str();
}

std::string marker(Position position) {
  return "@" + std::to_string(position) + "@";
}

std::string functionId(Position name) { return "fn@" + std::to_string(name); }

std::optional<Position> functionIdPosition(const std::string &id) {
  if (id.rfind("fn@", 0) != 0)
    return std::nullopt;
  return static_cast<unsigned>(std::stoul(id.substr(3)));
}

std::optional<std::string> resolveMarkers(
    const std::string &text,
    const std::function<std::optional<std::string>(Position)> &resolve) {
  std::string out;
  size_t i = 0;
  while (i < text.size()) {
    if (text[i] != '@') {
      out += text[i++];
      continue;
    }
    size_t end = text.find('@', i + 1);
    if (end == std::string::npos)
      return std::nullopt;
    Position position =
        static_cast<unsigned>(std::stoul(text.substr(i + 1, end - i - 1)));
    auto r = resolve(position);
    if (!r)
      return std::nullopt;
    out += *r;
    i = end + 1;
  }
  return out;
}

std::map<std::string, std::vector<std::string>>
kernelsReaching(const SourceFacts &facts) {
  std::map<std::string, std::vector<std::string>> out;
  for (const FunctionFacts *k : facts.kernels()) {
    std::vector<std::string> work{k->id};
    std::set<std::string> seen{k->id};
    while (!work.empty()) {
      std::string id = work.back();
      work.pop_back();
      out[id].push_back(k->id);
      if (const FunctionFacts *f = facts.function(id))
        for (const auto &c : f->callees)
          if (seen.insert(c).second)
            work.push_back(c);
    }
  }
  return out;
}

/// A device helper on the way from `kernel` to `helper` (`helper` itself
/// included) that cannot take template parameters (an operator): the
/// parameter of a site in `helper` could not reach it. Null if none.
static const FunctionFacts *blockedOnTheWay(const SourceFacts &facts,
                                            const std::string &kernel,
                                            const std::string &helper) {
  // The functions the kernel reaches, then those of them reaching helper.
  std::set<std::string> fromKernel{kernel};
  std::vector<std::string> work{kernel};
  while (!work.empty()) {
    std::string id = work.back();
    work.pop_back();
    if (const FunctionFacts *f = facts.function(id))
      for (const auto &c : f->callees)
        if (fromKernel.insert(c).second)
          work.push_back(c);
  }
  std::set<std::string> toHelper{helper};
  for (bool grew = true; grew;) {
    grew = false;
    for (const std::string &id : fromKernel)
      if (const FunctionFacts *f = facts.function(id); f && !toHelper.count(id))
        for (const auto &c : f->callees)
          if (toHelper.count(c)) {
            toHelper.insert(id);
            grew = true;
            break;
          }
  }
  for (const std::string &id : toHelper)
    if (const FunctionFacts *f = facts.function(id);
        f && id != kernel && f->role == FunctionRole::DeviceHelper &&
        !f->cannotTemplate.empty())
      return f;
  return nullptr;
}

void attributeHelperOccurrences(SourceFacts &facts) {
  auto reaching = kernelsReaching(facts);
  std::vector<Occurrence> out;
  auto note = [&](std::string text) {
    if (std::find(facts.notes.begin(), facts.notes.end(), text) ==
        facts.notes.end())
      facts.notes.push_back(std::move(text));
  };
  // Per (kernel, helper): a file has many sites in few helpers.
  std::map<std::pair<std::string, std::string>, const FunctionFacts *>
      blockedFor;
  auto blocked = [&](const std::string &kernel, const std::string &helper) {
    auto key = std::make_pair(kernel, helper);
    auto it = blockedFor.find(key);
    if (it == blockedFor.end())
      it =
          blockedFor.emplace(key, blockedOnTheWay(facts, kernel, helper)).first;
    return it->second;
  };
  for (auto &o : facts.occurrences) {
    if (!o.kernel.empty()) {
      out.push_back(o);
      continue;
    }
    auto it = reaching.find(o.function);
    if (it == reaching.end())
      continue; // a helper no kernel in this file calls
    for (const auto &k : it->second) {
      // A helper that cannot become a template keeps its constants, and
      // so does the kernel, which shares them with it.
      if (const FunctionFacts *helper = blocked(k, o.function)) {
        std::string what = o.constant.empty() ? o.text : o.constantName;
        if (!o.constant.empty())
          facts.functions[k].keptConstants.insert(o.constant);
        note(facts.pathOf(filePart(o.offset)) + ":" + std::to_string(o.line) +
             ": " + what + " keeps its value in " +
             facts.functions[k].qualifiedName + ": it is used in " +
             helper->qualifiedName + ", which cannot become a template (" +
             helper->cannotTemplate + ")");
        continue;
      }
      Occurrence copy = o;
      copy.kernel = k;
      out.push_back(std::move(copy));
    }
  }
  facts.occurrences = std::move(out);
  std::stable_sort(facts.occurrences.begin(), facts.occurrences.end(),
                   [](const Occurrence &a, const Occurrence &b) {
                     return std::tie(a.offset, a.kernel, a.role) <
                            std::tie(b.offset, b.kernel, b.role);
                   });
  // Remove exact duplicates (the same helper site reached twice); a macro
  // body's literal is one site per function expanding it.
  std::vector<Occurrence> unique;
  for (auto &o : facts.occurrences) {
    bool seen = false;
    for (auto u = unique.rbegin();
         u != unique.rend() && !seen && u->offset == o.offset &&
         u->kernel == o.kernel && u->role == o.role;
         ++u)
      seen = u->function == o.function;
    if (!seen)
      unique.push_back(std::move(o));
  }
  facts.occurrences = std::move(unique);
}

} // namespace ktune::refactor
