//===- Rewrite.cpp - From a plan to edits and manifest entries ------------===//
//
// Rewriter::run takes the steps in order: resolve the plan (RewritePlan.cpp),
// name the parameters hosts receive, decide which functions receive which
// parameters (FunctionParams.cpp), then make the edits (template parameter
// lists and forwarders, sites, calls, static_asserts) and merge them into
// Replacements, which reject overlaps.
//
//===----------------------------------------------------------------------===//

#include "RewriteInternal.h"

#include <algorithm>
#include <cctype>
#include <functional>

namespace ktune::refactor {

llvm::Error toLLVMError(const ktune::Error &error) {
  return llvm::createStringError(error.str());
}

void Rewriter::forwarderEdit(const FunctionFacts &f,
                             const std::vector<FnParam> &list,
                             const std::string &path) {
  if (f.forwarderSignature.empty() || f.rangeEnd == 0)
    return;
  std::string args, values;
  for (const auto &a : f.args)
    args += (args.empty() ? "" : ", ") + a.name;
  for (const FnParam &q : list)
    values += (values.empty() ? "" : ", ") + std::to_string(q.defaultValue);
  std::string indent =
      f.declarations.empty() ? "" : f.declarations.back().indent;
  // The signature is the definition's text up to its body, comments
  // included: a line comment at its end would swallow the brace.
  llvm::StringRef lastLine =
      llvm::StringRef(f.forwarderSignature).rsplit('\n').second;
  if (lastLine.empty())
    lastLine = f.forwarderSignature;
  std::string open = lastLine.contains("//") ? "\n" + indent + "{\n" : " {\n";
  Edit e;
  e.offset = f.rangeEnd;
  e.path = path;
  e.order = 2;
  e.text = "\n\n" + indent +
           "// The original entry point: the default configuration.\n" +
           indent + (f.cLinkage ? "extern \"C\" " : "") + f.forwarderSignature +
           open + indent + "  return " + f.forwarderQualifier +
           (f.templateName.empty() ? f.name : f.templateName) + "<" + values +
           ">(" + args + ");\n" + indent + "}";
  Edits.push_back(e);
}

/// Kernels of `f`'s name and parameter types defined elsewhere: the other
/// branch of an `#if __CUDA_ARCH__ >= 300 ... #else` that defines a kernel
/// per architecture, which the host side reads instead of `f`.
static std::vector<const FunctionFacts *> kernelTwins(const SourceFacts &facts,
                                                      const FunctionFacts &f) {
  std::vector<const FunctionFacts *> twins;
  if (f.role != FunctionRole::Kernel)
    return twins;
  for (const FunctionFacts *g : facts.kernels())
    if (g->id != f.id && g->qualifiedName == f.qualifiedName &&
        g->paramTypes == f.paramTypes && !g->isTemplate && !f.isTemplate)
      twins.push_back(g);
  return twins;
}

std::optional<ktune::Error> Rewriter::templateListEdits() {
  for (const auto &[fn, list] : FnParams) {
    const FunctionFacts *f = Facts.function(fn);
    if (HostsLeftAlone.count(fn))
      continue;
    std::string path = FnParamPath[fn + "\n" + list.front().name];
    // A twin takes the same parameters, with their defaults (each side
    // reads one of the two), unused: its launches are this kernel's.
    for (const FunctionFacts *twin : kernelTwins(Facts, *f)) {
      if (FnParams.count(twin->id))
        return error(path, location(Facts, filePart(twin->offset), twin->line) +
                               ": " + twin->qualifiedName +
                               " is defined again there with parameters of "
                               "its own: lift them as one or neither");
      std::string params;
      for (const FnParam &q : list)
        params += (params.empty() ? "" : ", ") + q.type + " " + q.name + " = " +
                  std::to_string(q.defaultValue);
      for (const auto &d : twin->declarations)
        if (d.isDefinition && !d.hasTemplateList)
          Edits.push_back(Edit{d.insertOffset, 0,
                               "template <" + params + ">\n" + d.indent, path,
                               0});
    }
    // An out-of-class member's template is declared in its class, with the
    // defaults (a definition out of the class may not repeat them).
    bool first = !f->outOfClassMember;
    if (f->outOfClassMember) {
      std::string params;
      for (const FnParam &q : list)
        params += (params.empty() ? "" : ", ") + q.type + " " + q.name + " = " +
                  std::to_string(q.defaultValue);
      Edits.push_back(Edit{f->memberDeclarationEnd, 0,
                           "\n" + f->memberDeclarationIndent + "template <" +
                               params + "> " + f->memberDeclaration + ";",
                           path, 0});
    }
    for (const auto &d : f->declarations) {
      if (d.emptyTemplateList)
        return error(path, location(Facts, filePart(f->offset), f->line) +
                               ": " + f->qualifiedName +
                               " is an explicit specialisation");
      std::string params;
      for (const FnParam &q : list) {
        params += (params.empty() ? "" : ", ") + q.type + " " + q.name;
        if (first)
          params += " = " + std::to_string(q.defaultValue);
      }
      Edit e;
      e.offset = d.insertOffset;
      e.path = path;
      if (d.hasTemplateList)
        e.text = ", " + params;
      else
        e.text = "template <" + params + ">\n" + d.indent;
      if (!f->templateName.empty() && d.isDefinition) {
        // main, or a function whose name is taken: the template takes
        // another name (and main's implicit `return 0`); the function
        // itself forwards to it.
        Edits.push_back(Edit{f->offset, static_cast<unsigned>(f->name.size()),
                             f->templateName, path, 0});
        // A member template cannot be virtual: the forwarder stays so.
        for (const auto &[at, length] : f->templateDrops)
          Edits.push_back(Edit{at, length, "", path, 0});
        if (f->name == "main" && !f->endsWithReturn && f->rangeEnd > 0)
          Edits.push_back(Edit{f->rangeEnd - 1, 0, "return 0; ", path, 0});
      }
      if (f->cLinkage) {
        // Templates cannot have C linkage (nor be declared in extern "C").
        e.text = "extern \"C++\" {\n" + d.indent + e.text;
        Edits.push_back(Edit{f->rangeEnd, 0, "\n" + d.indent + "}", path, 1});
      }
      Edits.push_back(e);
      first = false;
    }
    forwarderEdit(*f, list, path);
  }
  return std::nullopt;
}

void Rewriter::siteEdits() {
  for (auto &w : Work)
    for (auto &p : w.params)
      for (const PlacedSite &s : p.sites) {
        if (s.site->role == SiteRole::KernelBody ||
            s.site->role == SiteRole::KernelAttributes)
          continue; // structuralEdits
        // A site in a macro's body is held by every function expanding it:
        // one edit, so one name in all and none left alone.
        std::set<std::string> fns =
            occurrenceFunctions(s.position, w.kernel->id);
        std::set<std::string> names;
        bool alone = false;
        for (const std::string &fn : fns) {
          alone |= HostsLeftAlone.count(fn) > 0 ||
                   (!p.launchParam &&
                    LaunchesLeftAlone.count({fn, w.kernel->id}) > 0);
          names.insert(nameIn(fn, w, p));
        }
        if (alone && fns.size() == 1)
          continue; // that function keeps the default (a note says why)
        if (alone || names.size() != 1) {
          Notes.push_back(
              location(Facts, filePart(s.position), s.site->line, s.site->col) +
              ": " + s.site->text +
              " is spelled in a macro's body that functions "
              "share, and not all of them can take " +
              p.name + " under one name: it is kept");
          continue;
        }
        std::string text = substitute(*s.site, *names.begin());
        if (s.site->role == SiteRole::TemplateDefault && text == p.kernelName &&
            p.boundParam >= 0)
          continue; // `int COLS = COLS`: the parameter's own default stays
        Edits.push_back(Edit{s.position, s.site->length, text, p.path, 0});
        // The constant the site named may have no use left.
        if (auto d = Facts.constantDeclarations.find(s.position);
            d != Facts.constantDeclarations.end())
          Edits.push_back(Edit{d->second, 0, "[[maybe_unused]] ", p.path, 0});
      }
}

std::optional<ktune::Error> Rewriter::callEdits() {
  for (const auto &call : Facts.calls) {
    auto callerIt = FnParams.find(call.caller);
    auto calleeIt = FnParams.find(call.callee);
    std::vector<std::string> pass;
    const FunctionFacts *callee = Facts.function(call.callee);
    if (call.namesKernel()) {
      // A launcher's call: the call of the launcher passes what it takes.
      if (call.form == CallForm::LauncherCall || call.kernelArgsInPicker)
        continue;
      if (callerIt == FnParams.end() || HostsLeftAlone.count(call.caller) ||
          LaunchesLeftAlone.count({call.caller, call.callee}))
        continue;
      // The kernel's new parameters, named as the host names them.
      for (const auto &w : Work)
        if (w.kernel->id == call.callee)
          for (const auto &p : w.params)
            if (p.boundParam < 0 && !p.launchParam)
              pass.push_back(nameIn(call.caller, w, p));
    } else {
      // A virtual function, or a member whose template the class declares
      // beside it, is called as it is: it forwards its defaults.
      if (calleeIt == FnParams.end() || callerIt == FnParams.end() ||
          (callee && (callee->isVirtual || callee->outOfClassMember)))
        continue;
      for (const FnParam &q : calleeIt->second) {
        std::string name = passedAs(call.caller, call.callee, q.name);
        bool callerHas =
            std::any_of(callerIt->second.begin(), callerIt->second.end(),
                        [&](const FnParam &c) { return c.name == name; });
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
    // A call that cannot be given template arguments keeps the callee's
    // defaults (the site, not the file, keeps its value).
    if (!call.implicitArgsError.empty()) {
      noteCallAtDefaults(call);
      continue;
    }
    // A callee whose template took another name: the call names it, or
    // (its name not spelled here) calls the original at the defaults.
    if (!call.namesKernel() && callee && !callee->templateName.empty()) {
      llvm::StringRef at = textAt(call.offset).substr(localPart(call.offset));
      if (!at.starts_with(callee->name) ||
          (at.size() > callee->name.size() &&
           (std::isalnum(static_cast<unsigned char>(at[callee->name.size()])) ||
            at[callee->name.size()] == '_'))) {
        noteCallAtDefaults(call);
        continue;
      }
      Edits.push_back(Edit{call.offset,
                           static_cast<unsigned>(callee->name.size()),
                           callee->templateName, path, 0});
    }
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
  return std::nullopt;
}

llvm::Expected<RewriteResult> Rewriter::run() {
  if (auto e = prepareKernels())
    return toLLVMError(*e);
  nameHostParameters();
  if (auto e = checkSharedMacroSites())
    return toLLVMError(*e);
  if (auto e = assignFunctionParams())
    return toLLVMError(*e);
  if (auto e = templateListEdits())
    return toLLVMError(*e);
  siteEdits();
  if (auto e = callEdits())
    return toLLVMError(*e);
  if (auto e = constraintEdits())
    return toLLVMError(*e);
  instantiationEdits();
  if (auto e = structuralEdits())
    return toLLVMError(*e);
  if (Options.guardHostCode)
    hostGuardEdits();
  RewriteResult result;
  auto replacements = mergedReplacements();
  if (!replacements)
    return replacements.takeError();
  for (auto &[file, edits] : *replacements)
    if (file == 0)
      result.replacements = std::move(edits);
    else
      result.headerEdits.emplace(file, std::move(edits));
  for (auto &w : Work) {
    auto launchName = [&](const ParamWork &p, const std::string &host) {
      auto hosts = launchersOf(p);
      if (std::find(hosts.begin(), hosts.end(), host) != hosts.end())
        return nameIn(host, w, p);
      // A launcher template's launch whose geometry its caller sets
      // (`launch<float, 256>(x, n)`): the name in that caller.
      if (hosts.size() == 1)
        return nameIn(hosts.front(), w, p);
      return std::string();
    };
    result.kernels.push_back(
        manifestFor(Facts, *w.kernel, *w.plan, w.params, launchName));
    result.kernels.back().explicitInstantiation = w.explicitInstantiation;
  }
  for (const auto &[fn, list] : FnParams)
    if (const FunctionFacts *f = Facts.function(fn);
        f && f->role == FunctionRole::Host && !HostsLeftAlone.count(fn))
      result.launchers.push_back(launcherFor(Facts, *f, list));
  result.notes = Notes;
  return result;
}

llvm::Expected<RewriteResult>
planRewrite(const SourceFacts &facts, const CandidateSet &candidates,
            const CandidateIndex &index, const Plan &plan,
            llvm::StringRef source, const RewriteOptions &options) {
  Rewriter r(facts, candidates, index, plan, source, options);
  return r.run();
}

} // namespace ktune::refactor
