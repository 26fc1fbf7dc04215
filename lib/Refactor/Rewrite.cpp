//===- Rewrite.cpp - From a plan to edits and manifest entries ------------===//

#include "ktune/Refactor/Rewrite.h"

#include "ktune/Expr/Expr.h"

#include <algorithm>
#include <map>
#include <regex>
#include <set>

namespace ktune::refactor {

llvm::Error toLLVMError(const ktune::Error &error) {
  return llvm::createStringError(error.str());
}

namespace {

/// A plan parameter as the rewrite sees it.
struct Param {
  std::string name;       // plan name: the template parameter on the host
  std::string kernelName; // name inside the kernel (an existing parameter's
                          // name when the plan sets one)
  const PlanParam *plan = nullptr;
  std::string path; // JSON path of the plan parameter
  int boundParam = -1;
  int64_t defaultValue = 0;
  std::vector<const SourceSite *> sites;
  std::set<std::string> functions; // ids of functions holding sites
};

/// One edit and the plan field it came from.
struct Edit {
  unsigned offset = 0, length = 0;
  std::string text;
  std::string path;
  int order = 0; // insertions at one offset: lower first
};

/// Identifiers of the source, outside comments and literals.
std::vector<std::pair<unsigned, std::string>> identifiers(llvm::StringRef src) {
  std::vector<std::pair<unsigned, std::string>> out;
  size_t i = 0, n = src.size();
  while (i < n) {
    char c = src[i];
    if (c == '/' && i + 1 < n && src[i + 1] == '/') {
      while (i < n && src[i] != '\n')
        ++i;
    } else if (c == '/' && i + 1 < n && src[i + 1] == '*') {
      size_t end = src.find("*/", i + 2);
      i = end == llvm::StringRef::npos ? n : end + 2;
    } else if (c == '"' || c == '\'') {
      ++i;
      while (i < n && src[i] != c) {
        if (src[i] == '\\')
          ++i;
        ++i;
      }
      ++i;
    } else if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
      size_t start = i;
      while (i < n && (std::isalnum(static_cast<unsigned char>(src[i])) ||
                       src[i] == '_'))
        ++i;
      out.emplace_back(static_cast<unsigned>(start),
                       src.substr(start, i - start).str());
    } else if (std::isdigit(static_cast<unsigned char>(c))) {
      while (i < n && (std::isalnum(static_cast<unsigned char>(src[i])) ||
                       src[i] == '.' || src[i] == '\''))
        ++i;
    } else {
      ++i;
    }
  }
  return out;
}

std::set<std::string> definedMacros(llvm::StringRef src) {
  std::set<std::string> out;
  static const std::regex define(R"(^\s*#\s*define\s+([A-Za-z_]\w*))");
  size_t pos = 0;
  while (pos < src.size()) {
    size_t end = src.find('\n', pos);
    if (end == llvm::StringRef::npos)
      end = src.size();
    std::string line = src.substr(pos, end - pos).str();
    std::smatch m;
    if (std::regex_search(line, m, define))
      out.insert(m[1]);
    pos = end + 1;
  }
  return out;
}

std::string location(const SourceFacts &facts, unsigned line,
                     unsigned col = 0) {
  return facts.file + ":" + std::to_string(line) +
         (col ? ":" + std::to_string(col) : "");
}

/// Replacement text of a site for parameter `name`.
std::string substitute(const SourceSite &site, const std::string &name) {
  std::string r = site.replacement;
  std::string out;
  for (size_t i = 0; i < r.size(); ++i) {
    if (r.compare(i, 3, "{P}") == 0) {
      out += name;
      i += 2;
    } else {
      out += r[i];
    }
  }
  static const std::set<std::string> delimited = {
      "definition",      "shared_extent",        "register_array",
      "unroll_pragma",   "launch_bounds",        "launch_bounds_min_blocks",
      "cub_block_size",  "cub_items_per_thread", "template_arg",
      "template_default"};
  bool compound = r != "{P}" && r.rfind("static_cast<", 0) != 0;
  if (compound && !delimited.count(site.role))
    out = "(" + out + ")";
  return out;
}

class Rewriter {
public:
  Rewriter(const SourceFacts &facts, const CandidateSet &candidates,
           const CandidateIndex &index, const Plan &plan, llvm::StringRef src)
      : Facts(facts), Candidates(candidates), Index(index), ThePlan(plan),
        Source(src), Macros(definedMacros(src)), Idents(identifiers(src)) {}

  llvm::Expected<RewriteResult> run();

private:
  ktune::Error error(const std::string &path, const std::string &message) {
    return ktune::Error{message, path};
  }
  std::optional<ktune::Error> prepareKernel(const PlanKernel &pk,
                                            const std::string &path);
  std::string occurrenceFunction(unsigned offset, const std::string &kernel) {
    for (const auto &o : Facts.occurrences)
      if (o.offset == offset && o.kernel == kernel)
        return o.function;
    return {};
  }
  std::optional<ktune::Error> checkName(const Param &p, const FunctionFacts &f);
  ManifestKernel manifestFor(const FunctionFacts &kernel, const PlanKernel &pk,
                             const std::vector<Param> &params);

  const SourceFacts &Facts;
  const CandidateSet &Candidates;
  const CandidateIndex &Index;
  const Plan &ThePlan;
  llvm::StringRef Source;
  std::set<std::string> Macros;
  std::vector<std::pair<unsigned, std::string>> Idents;

  struct KernelWork {
    const FunctionFacts *kernel = nullptr;
    const PlanKernel *plan = nullptr;
    std::string path;
    std::vector<Param> params;
  };
  std::vector<KernelWork> Work;
  /// Template parameters each function receives: name -> (default, path).
  std::map<std::string, std::vector<std::pair<std::string, int64_t>>> FnParams;
  std::map<std::string, std::string> FnParamPath; // fn id + name -> path
  std::vector<Edit> Edits;
  std::vector<std::string> Notes;
  std::set<std::string> HostsLeftAlone;
  std::map<std::tuple<std::string, std::string, std::string>, std::string>
      HostNames;

  /// The name parameter `p` of kernel `w` has inside function `fn`.
  std::string nameIn(const std::string &fn, const KernelWork &w,
                     const Param &p) const {
    if (fn == w.kernel->id)
      return p.kernelName;
    auto it = HostNames.find({fn, w.kernel->id, p.name});
    return it == HostNames.end() ? p.name : it->second;
  }
};

std::optional<ktune::Error> Rewriter::prepareKernel(const PlanKernel &pk,
                                                    const std::string &path) {
  // Find the kernel by qualified or unqualified name.
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
    return error(path + ".kernel",
                 "no kernel named '" + pk.kernel + "' in " + Facts.file);
  if (matches > 1)
    return error(path + ".kernel", "'" + pk.kernel +
                                       "' names several kernels; use the "
                                       "qualified name, or name@line for an "
                                       "overload");
  KernelWork w;
  w.kernel = kernel;
  w.plan = &pk;
  w.path = path;
  std::set<std::string> names;
  for (size_t j = 0; j < pk.params.size(); ++j) {
    const PlanParam &pp = pk.params[j];
    std::string ppath = path + ".params[" + std::to_string(j) + "]";
    if (!expr::isValidIdentifier(pp.name))
      return error(ppath + ".name",
                   "'" + pp.name + "' is not a valid C++ identifier");
    if (!names.insert(pp.name).second)
      return error(ppath + ".name",
                   "duplicate parameter name '" + pp.name + "'");
    if (Macros.count(pp.name))
      return error(ppath + ".name", "'" + pp.name + "' is a macro in " +
                                        Facts.file + "; choose another name");
    for (const auto &tp : kernel->templateParams)
      if (tp.name == pp.name)
        return error(ppath + ".name",
                     "'" + pp.name + "' is already a template parameter of " +
                         kernel->qualifiedName);
    if (pp.candidates.empty())
      return error(ppath + ".candidates", "a parameter needs candidates");
    Param p;
    p.name = pp.name;
    p.kernelName = pp.name;
    p.plan = &pp;
    p.path = ppath;
    p.defaultValue = pp.defaultValue;
    for (size_t k = 0; k < pp.candidates.size(); ++k) {
      std::string cpath = ppath + ".candidates[" + std::to_string(k) + "]";
      const Candidate *c = Candidates.find(pp.candidates[k]);
      if (!c)
        return error(cpath, "unknown candidate '" + pp.candidates[k] + "'");
      if (Index.kernelOf.at(c->id) != kernel->id)
        return error(cpath, "candidate '" + c->id + "' belongs to kernel " +
                                c->kernel + ", not " +
                                Facts.kernelPlanName(*kernel));
      if (c->value != pp.defaultValue)
        return error(ppath + ".default",
                     "default " + std::to_string(pp.defaultValue) +
                         " differs from the original value " +
                         std::to_string(c->value) + " of candidate " + c->id);
      bool informational = std::any_of(
          c->sites.begin(), c->sites.end(),
          [](const SourceSite &s) { return s.replacement.empty(); });
      if (informational)
        return error(cpath,
                     "candidate '" + c->id +
                         "' is reported for information only: " + c->why);
      int bound =
          Index.boundParam.count(c->id) ? Index.boundParam.at(c->id) : -1;
      if (bound >= 0) {
        if (p.boundParam >= 0 && p.boundParam != bound)
          return error(cpath, "candidates set different template parameters");
        p.boundParam = bound;
        p.kernelName = kernel->templateParams[bound].name;
      }
      for (const SourceSite &s : c->sites) {
        if (!pp.sites.empty()) {
          std::string full = s.file + ":" + std::to_string(s.line) + ":" +
                             std::to_string(s.col);
          std::string brief =
              std::to_string(s.line) + ":" + std::to_string(s.col);
          if (std::find(pp.sites.begin(), pp.sites.end(), full) ==
                  pp.sites.end() &&
              std::find(pp.sites.begin(), pp.sites.end(), brief) ==
                  pp.sites.end())
            continue;
        }
        p.sites.push_back(&s);
        std::string fn = occurrenceFunction(s.offset, kernel->id);
        if (!fn.empty())
          p.functions.insert(fn);
      }
    }
    if (!pp.sites.empty()) {
      // Every listed site must exist.
      for (size_t k = 0; k < pp.sites.size(); ++k) {
        bool found = std::any_of(
            p.sites.begin(), p.sites.end(), [&](const SourceSite *s) {
              return pp.sites[k] == s->file + ":" + std::to_string(s->line) +
                                        ":" + std::to_string(s->col) ||
                     pp.sites[k] ==
                         std::to_string(s->line) + ":" + std::to_string(s->col);
            });
        if (!found)
          return error(ppath + ".sites[" + std::to_string(k) + "]",
                       "no site of the parameter's candidates at '" +
                           pp.sites[k] + "'");
      }
    }
    w.params.push_back(std::move(p));
  }
  Work.push_back(std::move(w));
  return std::nullopt;
}

std::optional<ktune::Error> Rewriter::checkName(const Param &p,
                                                const FunctionFacts &f) {
  // The new name must not already mean something inside the function,
  // except where it is what we write (sites spelled with the same name).
  std::set<unsigned> siteOffsets;
  for (const SourceSite *s : p.sites)
    siteOffsets.insert(s->offset);
  for (const auto &[off, id] : Idents) {
    if (off < f.rangeBegin || off >= f.rangeEnd || id != p.name)
      continue;
    if (siteOffsets.count(off))
      continue;
    auto line = std::count(Source.begin(), Source.begin() + off, '\n') + 1;
    return error(p.path + ".name",
                 "'" + p.name + "' already names something in " +
                     f.qualifiedName + " (" +
                     location(Facts, static_cast<unsigned>(line)) +
                     "); choose another name");
  }
  return std::nullopt;
}

ManifestKernel Rewriter::manifestFor(const FunctionFacts &kernel,
                                     const PlanKernel &pk,
                                     const std::vector<Param> &params) {
  ManifestKernel mk;
  mk.name = kernel.name;
  mk.qualifiedName = kernel.qualifiedName;
  for (size_t i = 0; i < kernel.templateParams.size(); ++i) {
    TemplateParam tp;
    tp.name = kernel.templateParams[i].name;
    tp.type = kernel.templateParams[i].type;
    for (const Param &p : params)
      if (p.boundParam == static_cast<int>(i)) {
        tp.tunable = true;
        tp.kind = std::string(kindName(p.plan->kind));
        tp.defaultValue = p.defaultValue;
        tp.domain = p.plan->domain;
      }
    mk.templateParams.push_back(std::move(tp));
  }
  for (const Param &p : params) {
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

  std::map<std::string, std::string> rename;
  for (const Param &p : params)
    rename.emplace(p.name, p.kernelName);
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
  for (const auto &call : Facts.calls) {
    if (!call.isLaunch || call.callee != kernel.id || call.block.empty() ||
        call.grid.empty())
      continue;
    auto resolve = [&](unsigned offset) -> std::optional<std::string> {
      for (const Param &p : params)
        for (const SourceSite *s : p.sites)
          if (s->offset == offset) {
            SourceSite copy = *s;
            if (copy.replacement.rfind("static_cast<", 0) == 0)
              copy.replacement = "{P}";
            copy.role = "launch_grid"; // parenthesise compound forms
            return substitute(copy, p.kernelName);
          }
      for (const auto &o : Facts.occurrences)
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
    g.from = location(Facts, call.line);
    mk.launch = std::move(g);
    break;
  }
  return mk;
}

llvm::Expected<RewriteResult> Rewriter::run() {
  for (size_t i = 0; i < ThePlan.kernels.size(); ++i)
    if (auto e = prepareKernel(ThePlan.kernels[i],
                               "kernels[" + std::to_string(i) + "]"))
      return toLLVMError(*e);
  for (size_t i = 0; i < Work.size(); ++i)
    for (size_t j = i + 1; j < Work.size(); ++j)
      if (Work[i].kernel == Work[j].kernel)
        return toLLVMError(error(Work[j].path + ".kernel",
                                 "kernel " + Work[j].kernel->qualifiedName +
                                     " is planned twice"));

  // A host function launching several planned kernels whose parameters
  // share a name but not a default names them after their kernels.
  {
    std::map<std::string, std::map<std::string, std::set<int64_t>>> defaults;
    for (const auto &w : Work)
      for (const auto &call : Facts.calls)
        if (call.isLaunch && call.callee == w.kernel->id)
          for (const auto &p : w.params)
            defaults[call.caller][p.name].insert(p.defaultValue);
    for (const auto &w : Work)
      for (const auto &call : Facts.calls)
        if (call.isLaunch && call.callee == w.kernel->id)
          for (const auto &p : w.params)
            if (defaults[call.caller][p.name].size() > 1) {
              std::string prefix;
              for (char c : w.kernel->name)
                prefix += static_cast<char>(
                    std::toupper(static_cast<unsigned char>(c)));
              HostNames[{call.caller, w.kernel->id, p.name}] =
                  prefix + "_" + p.name;
            }
  }

  // Which functions receive which parameters.
  auto addFnParam =
      [&](const std::string &fn, const Param &p,
          const std::string &name) -> std::optional<ktune::Error> {
    auto &list = FnParams[fn];
    for (auto &[n, v] : list)
      if (n == name) {
        if (v != p.defaultValue)
          return error(p.path + ".name",
                       "'" + name +
                           "' is also a parameter of another planned "
                           "kernel launched from the same function, "
                           "with a different default");
        return std::nullopt;
      }
    list.emplace_back(name, p.defaultValue);
    FnParamPath[fn + "\n" + name] = p.path;
    return std::nullopt;
  };
  for (auto &w : Work) {
    const FunctionFacts &k = *w.kernel;
    for (auto &p : w.params) {
      // Device functions on a call path from the kernel to a site.
      std::set<std::string> device;
      if (p.boundParam < 0)
        device.insert(k.id);
      std::function<bool(const std::string &, std::set<std::string> &)>
          reaches =
              [&](const std::string &fn, std::set<std::string> &seen) -> bool {
        if (!seen.insert(fn).second)
          return false;
        bool any = p.functions.count(fn) > 0;
        if (const FunctionFacts *f = Facts.function(fn))
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
      for (const auto &fn : device) {
        const FunctionFacts *f = Facts.function(fn);
        if (!f->cannotTemplate.empty())
          return toLLVMError(
              error(fn == k.id ? w.path + ".kernel" : p.path,
                    location(Facts, f->line) + ": " + f->qualifiedName +
                        " cannot become a template: " + f->cannotTemplate));
        if (auto e = checkName(p, *f))
          return toLLVMError(*e);
        if (auto e = addFnParam(fn, p, fn == k.id ? p.kernelName : p.name))
          return toLLVMError(*e);
      }
    }
    // Host functions launching the kernel get all its parameters.
    for (const auto &call : Facts.calls) {
      if (!call.isLaunch || call.callee != k.id)
        continue;
      const FunctionFacts *h = Facts.function(call.caller);
      if (!h || h->role == FunctionRole::Kernel ||
          h->role == FunctionRole::DeviceHelper)
        continue;
      if (!h->cannotTemplate.empty()) {
        if (HostsLeftAlone.insert(h->id).second)
          Notes.push_back(
              location(Facts, call.line) + ": the launch of " +
              k.qualifiedName + " in " + h->qualifiedName +
              " keeps the default configuration: " + h->qualifiedName +
              " cannot become a template (" + h->cannotTemplate + ")");
        continue;
      }
      for (auto &p : w.params) {
        std::string name = nameIn(h->id, w, p);
        Param renamed = p;
        renamed.name = name;
        if (auto e = checkName(renamed, *h))
          return toLLVMError(*e);
        if (auto e = addFnParam(h->id, p, name))
          return toLLVMError(*e);
      }
    }
    // Host sites outside any launching function (none expected) are left.
    for (auto &p : w.params)
      for (const auto &fn : p.functions) {
        const FunctionFacts *f = Facts.function(fn);
        if (f && f->role == FunctionRole::Host && !FnParams.count(fn) &&
            f->cannotTemplate.empty())
          if (auto e = addFnParam(fn, p, p.name))
            return toLLVMError(*e);
      }
  }

  // 1. Template parameter lists.
  for (const auto &[fn, list] : FnParams) {
    const FunctionFacts *f = Facts.function(fn);
    std::string path = FnParamPath[fn + "\n" + list.front().first];
    bool first = true;
    for (const auto &d : f->declarations) {
      if (d.emptyTemplateList)
        return toLLVMError(error(path, location(Facts, f->line) + ": " +
                                           f->qualifiedName +
                                           " is an explicit specialisation"));
      std::string params;
      for (const auto &[name, def] : list) {
        params += (params.empty() ? "" : ", ") + std::string("int ") + name;
        if (first)
          params += " = " + std::to_string(def);
      }
      Edit e;
      e.offset = d.insertOffset;
      e.path = path;
      if (d.hasTemplateList)
        e.text = ", " + params;
      else
        e.text = "template <" + params + ">\n" + d.indent;
      Edits.push_back(e);
      first = false;
    }
    // Keep the original symbol: a non-template overload forwarding to the
    // default instantiation (overload resolution prefers it for old calls).
    if (!f->forwarderSignature.empty() && f->rangeEnd > 0) {
      std::string args, values;
      for (const auto &a : f->args)
        args += (args.empty() ? "" : ", ") + a.name;
      for (const auto &[name, def] : list)
        values += (values.empty() ? "" : ", ") + std::to_string(def);
      std::string indent =
          f->declarations.empty() ? "" : f->declarations.back().indent;
      Edit e;
      e.offset = f->rangeEnd;
      e.path = path;
      e.order = 2;
      e.text = "\n\n" + indent +
               "// The original entry point: the default configuration.\n" +
               indent + f->forwarderSignature + " {\n" + indent + "  return " +
               f->name + "<" + values + ">(" + args + ");\n" + indent + "}";
      Edits.push_back(e);
    }
  }

  // 2. Sites.
  for (auto &w : Work)
    for (auto &p : w.params)
      for (const SourceSite *s : p.sites) {
        std::string fn = occurrenceFunction(s->offset, w.kernel->id);
        if (HostsLeftAlone.count(fn))
          continue;
        std::string name = nameIn(fn, w, p);
        Edits.push_back(
            Edit{s->offset, s->length, substitute(*s, name), p.path, 0});
      }

  // 3. Calls pass the parameters on.
  for (const auto &call : Facts.calls) {
    auto callerIt = FnParams.find(call.caller);
    auto calleeIt = FnParams.find(call.callee);
    std::vector<std::string> pass;
    const FunctionFacts *callee = Facts.function(call.callee);
    if (call.isLaunch) {
      if (callerIt == FnParams.end() || HostsLeftAlone.count(call.caller))
        continue;
      // The kernel's new parameters, named as the host names them.
      for (const auto &w : Work)
        if (w.kernel->id == call.callee)
          for (const auto &p : w.params)
            if (p.boundParam < 0)
              pass.push_back(nameIn(call.caller, w, p));
    } else {
      if (calleeIt == FnParams.end() || callerIt == FnParams.end())
        continue;
      for (const auto &[name, def] : calleeIt->second) {
        bool callerHas =
            std::any_of(callerIt->second.begin(), callerIt->second.end(),
                        [&](const auto &q) { return q.first == name; });
        if (callerHas)
          pass.push_back(name);
      }
      if (pass.size() != calleeIt->second.size())
        pass.clear(); // the caller is another kernel: defaults apply
    }
    if (pass.empty())
      continue;
    std::string path = FnParamPath[call.callee + "\n" + pass.front()];
    if (path.empty())
      path = FnParamPath[call.caller + "\n" + pass.front()];
    if (!call.implicitArgsError.empty())
      return toLLVMError(error(
          path, location(Facts, call.line, call.col) +
                    ": cannot pass template arguments to " +
                    (callee ? callee->qualifiedName : std::string("callee")) +
                    ": " + call.implicitArgsError));
    std::vector<std::string> all = call.implicitArgs;
    all.insert(all.end(), pass.begin(), pass.end());
    std::string list;
    for (const auto &a : all)
      list += (list.empty() ? "" : ", ") + a;
    Edit e;
    e.offset = call.insertOffset;
    e.path = path;
    if (call.hasExplicitArgs)
      e.text = (call.explicitArgCount ? ", " : "") + list;
    else
      e.text = "<" + list + ">";
    Edits.push_back(e);
  }

  // 4. Constraints as static_asserts.
  for (auto &w : Work) {
    if (w.plan->constraints.empty())
      continue;
    std::map<std::string, std::string> rename;
    for (const auto &p : w.params)
      rename.emplace(p.name, p.kernelName);
    std::string indent = "  ";
    if (!w.kernel->declarations.empty())
      indent = w.kernel->declarations.back().indent + "  ";
    std::string text;
    for (size_t i = 0; i < w.plan->constraints.size(); ++i) {
      std::string cpath = w.path + ".constraints[" + std::to_string(i) + "]";
      auto e = expr::Expr::parse(w.plan->constraints[i]);
      if (!e)
        return toLLVMError(error(cpath, e.error().str()));
      expr::Expr renamed = e->rename(rename);
      std::string quoted;
      for (char c : w.plan->constraints[i]) {
        if (c == '"' || c == '\\')
          quoted += '\\';
        quoted += c;
      }
      text += "\n" + indent + "static_assert(" + renamed.toCpp() +
              ", \"ktune: " + quoted + "\");";
    }
    // Keep the body's first statement on a line of its own.
    size_t next = w.kernel->bodyBegin;
    while (next < Source.size() &&
           (Source[next] == ' ' || Source[next] == '\t'))
      ++next;
    unsigned replaced = 0;
    if (next < Source.size() && Source[next] != '\n' && Source[next] != '\r') {
      text += "\n" + indent;
      replaced = static_cast<unsigned>(next - w.kernel->bodyBegin);
    }
    Edits.push_back(
        Edit{w.kernel->bodyBegin, replaced, text, w.path + ".constraints", 1});
  }

  // Identical edits (a site shared by two kernels' candidates, lifted under
  // the same name) are made once; insertions at one offset are joined.
  std::sort(Edits.begin(), Edits.end(), [](const Edit &a, const Edit &b) {
    return std::tie(a.offset, a.length, a.order, a.text) <
           std::tie(b.offset, b.length, b.order, b.text);
  });
  std::vector<Edit> merged;
  for (const auto &e : Edits) {
    if (!merged.empty() && merged.back().offset == e.offset &&
        merged.back().length == e.length && merged.back().text == e.text)
      continue;
    if (!merged.empty() && merged.back().offset == e.offset &&
        merged.back().length == 0 && e.length == 0) {
      merged.back().text += e.text;
      continue;
    }
    merged.push_back(e);
  }
  RewriteResult result;
  for (const auto &e : merged) {
    clang::tooling::Replacement r(Facts.file, e.offset, e.length, e.text);
    if (auto err = result.replacements.add(r)) {
      llvm::consumeError(std::move(err));
      auto line =
          std::count(Source.begin(), Source.begin() + e.offset, '\n') + 1;
      return toLLVMError(
          error(e.path, location(Facts, static_cast<unsigned>(line)) +
                            ": edits overlap (two parameters change the same "
                            "source text)"));
    }
  }
  for (auto &w : Work)
    result.kernels.push_back(manifestFor(*w.kernel, *w.plan, w.params));
  result.notes = Notes;
  return result;
}

} // namespace

llvm::Expected<RewriteResult> planRewrite(const SourceFacts &facts,
                                          const CandidateSet &candidates,
                                          const CandidateIndex &index,
                                          const Plan &plan,
                                          llvm::StringRef source) {
  Rewriter r(facts, candidates, index, plan, source);
  return r.run();
}

/// Where a `#line` must follow an edit that changed the line count: the
/// start of the first original line after it that does not continue a macro
/// and is not inside another edit; nullopt at the end of the file.
static std::optional<unsigned>
lineMarkAfter(llvm::StringRef source,
              const clang::tooling::Replacements &edits, unsigned end) {
  auto nextLineStart = [&](unsigned from) -> std::optional<unsigned> {
    if (from == 0 || source[from - 1] == '\n')
      return from;
    size_t nl = source.find('\n', from);
    if (nl == llvm::StringRef::npos)
      return std::nullopt;
    return static_cast<unsigned>(nl + 1);
  };
  auto continuesMacro = [&](unsigned lineStart) {
    llvm::StringRef before = source.substr(0, lineStart).rtrim("\r\n");
    return lineStart > 0 && before.ends_with("\\");
  };
  std::optional<unsigned> p = nextLineStart(end);
  for (int guard = 0; p && guard < 100000; ++guard) {
    if (*p >= source.size())
      return std::nullopt;
    if (continuesMacro(*p)) {
      p = nextLineStart(*p + 1);
      continue;
    }
    bool inside = false;
    for (const auto &r : edits)
      if (r.getOffset() < *p && *p < r.getOffset() + r.getLength()) {
        p = nextLineStart(r.getOffset() + r.getLength());
        inside = true;
        break;
      }
    if (!inside)
      return p;
  }
  return std::nullopt;
}

/// An edit whose text ends with a line break (and indentation) before the
/// rest of an original line (`{` + static_asserts + `  x = 1; }`): the #line
/// for that rest goes just after the break, unless it is in a directive or a
/// continued macro.
static bool endsLineMidLine(llvm::StringRef source,
                            const clang::tooling::Replacement &r) {
  unsigned end = r.getOffset() + r.getLength();
  llvm::StringRef text = r.getReplacementText();
  size_t lastBreak = text.rfind('\n');
  if (lastBreak == llvm::StringRef::npos ||
      !text.substr(lastBreak + 1).trim(" \t").empty() || end == 0 ||
      end >= source.size() || source[end - 1] == '\n')
    return false;
  size_t lineStart = source.rfind('\n', end - 1);
  lineStart = lineStart == llvm::StringRef::npos ? 0 : lineStart + 1;
  bool continued = lineStart > 0 && source.substr(0, lineStart)
                                        .rtrim("\r\n")
                                        .ends_with("\\");
  return !continued &&
         !source.substr(lineStart, end - lineStart).ltrim().starts_with("#");
}

llvm::Expected<clang::tooling::Replacements>
withLineMarks(llvm::StringRef source,
              const clang::tooling::Replacements &edits) {
  std::set<unsigned> marks;
  for (const auto &r : edits) {
    auto added = llvm::count(r.getReplacementText(), '\n');
    auto removed = llvm::count(source.substr(r.getOffset(), r.getLength()), '\n');
    if (added == removed)
      continue;
    unsigned end = r.getOffset() + r.getLength();
    if (endsLineMidLine(source, r))
      continue; // the #line goes inside its text
    if (auto p = lineMarkAfter(source, edits, end))
      marks.insert(*p);
  }
  // The original line number of source[offset].
  auto lineAt = [&](unsigned offset) {
    return 1 + static_cast<unsigned>(llvm::count(source.substr(0, offset), '\n'));
  };
  auto mark = [&](unsigned offset) {
    return "#line " + std::to_string(lineAt(offset)) + "\n";
  };
  std::string file =
      edits.empty() ? std::string() : edits.begin()->getFilePath().str();
  clang::tooling::Replacements out;
  auto add = [&](clang::tooling::Replacement r) -> llvm::Error {
    return out.add(r);
  };
  for (const auto &r : edits) {
    std::string text = r.getReplacementText().str();
    unsigned end = r.getOffset() + r.getLength();
    if (endsLineMidLine(source, r)) {
      size_t cut = text.rfind('\n') + 1;
      text = text.substr(0, cut) + mark(end) + text.substr(cut);
    }
    // A mark at a replacement's offset precedes it; one at a pure
    // insertion's offset follows it.
    if (marks.count(r.getOffset())) {
      text = r.getLength() > 0 ? mark(r.getOffset()) + text
                               : text + mark(r.getOffset());
      marks.erase(r.getOffset());
    }
    if (auto e = add({file, r.getOffset(), r.getLength(), text}))
      return std::move(e);
  }
  for (unsigned p : marks)
    if (auto e = add({file, p, 0, mark(p)}))
      return std::move(e);
  return out;
}

llvm::Expected<std::string>
applyRewrite(llvm::StringRef source,
             const clang::tooling::Replacements &edits) {
  auto marked = withLineMarks(source, edits);
  if (!marked)
    return marked.takeError();
  return clang::tooling::applyAllReplacements(source, *marked);
}

} // namespace ktune::refactor
