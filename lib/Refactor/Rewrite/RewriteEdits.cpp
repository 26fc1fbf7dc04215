//===- RewriteEdits.cpp - Edits besides sites, and merging them -----------===//
//
// The plan's constraints as static_asserts at the top of each kernel, an
// explicit instantiation for a kernel nothing else instantiates, and the
// merge of all edits into one Replacements per file, which rejects overlaps.
//
//===----------------------------------------------------------------------===//

#include "RewriteInternal.h"

#include <algorithm>

namespace ktune::refactor {

void Rewriter::staticAssertEdit(const FunctionFacts &f,
                                const std::string &asserts,
                                const std::string &path) {
  if (f.bodyBegin == 0)
    return; // no braced body to put them in
  std::string text = asserts;
  std::string indent = "  ";
  if (!f.declarations.empty())
    indent = f.declarations.back().indent + "  ";
  // Keep the body's first statement on a line of its own.
  llvm::StringRef source = textAt(f.bodyBegin);
  size_t begin = localPart(f.bodyBegin), next = begin;
  while (next < source.size() && (source[next] == ' ' || source[next] == '\t'))
    ++next;
  unsigned replaced = 0;
  if (next < source.size() && source[next] != '\n' && source[next] != '\r') {
    text += "\n" + indent;
    replaced = static_cast<unsigned>(next - begin);
  }
  Edits.push_back(Edit{f.bodyBegin, replaced, text, path, 1});
}

std::vector<std::string> Rewriter::launchersOf(const ParamWork &p) const {
  std::vector<std::string> out;
  for (const auto &[fn, list] : FnParams)
    if (std::any_of(list.begin(), list.end(), [&](const FnParam &q) {
          return std::find(q.params.begin(), q.params.end(), &p) !=
                 q.params.end();
        }))
      if (const FunctionFacts *f = Facts.function(fn);
          f && f->role == FunctionRole::Host && !HostsLeftAlone.count(fn))
        out.push_back(fn);
  return out;
}

std::optional<ktune::Error> Rewriter::constraintEdits() {
  // Files whose static_asserts call the ktune_expr helpers, and the plan
  // path that first needed them there.
  std::map<unsigned, std::string> helpersPath;
  for (auto &w : Work) {
    if (w.plan->constraints.empty())
      continue;
    std::map<std::string, std::string> rename = constraintRenames(w.params);
    std::set<std::string> launchNames;
    for (const auto &p : w.params)
      if (p.launchParam)
        launchNames.insert(p.name);
    // A constraint over launch parameters is checked in each launcher that
    // has all its names; the others in the kernel.
    std::string kernelText;
    std::map<std::string, std::string> hostText;
    auto assertion = [&](const expr::Expr &e, const std::string &original,
                         const FunctionFacts &in, const std::string &cpath) {
      // Kernel code goes through NVRTC, which takes no lambda there: an
      // operand used more than once goes to a helper defined at the top.
      std::string cpp = e.toCpp(expr::CppForm::Helper);
      if (expr::usesCppHelpers(cpp))
        helpersPath.emplace(filePart(in.bodyBegin), cpath);
      std::string quoted;
      for (char c : original) {
        if (c == '"' || c == '\\')
          quoted += '\\';
        // A line break would end the string literal; spaces read the same.
        quoted += static_cast<unsigned char>(c) < ' ' ? ' ' : c;
      }
      std::string indent =
          (in.declarations.empty() ? "" : in.declarations.back().indent) + "  ";
      return "\n" + indent + "static_assert(" + cpp + ", \"ktune: " + quoted +
             "\");";
    };
    for (size_t i = 0; i < w.plan->constraints.size(); ++i) {
      std::string cpath = w.path + ".constraints[" + std::to_string(i) + "]";
      auto e = expr::Expr::parse(w.plan->constraints[i]);
      if (!e)
        return error(cpath, e.error().str());
      auto names = e->names();
      bool onHost = std::any_of(names.begin(), names.end(), [&](auto &n) {
        return launchNames.count(n) != 0;
      });
      if (!onHost) {
        kernelText +=
            assertion(e->rename(rename),
                      expr::renameIdentifiers(w.plan->constraints[i], rename),
                      *w.kernel, cpath);
        continue;
      }
      std::set<std::string> launchers;
      for (const auto &p : w.params)
        if (p.launchParam)
          for (const auto &fn : launchersOf(p))
            launchers.insert(fn);
      for (const auto &fn : launchers) {
        const auto &list = FnParams[fn];
        std::map<std::string, std::string> hostRename;
        bool hasAll = true;
        for (const auto &n : names) {
          auto p = std::find_if(w.params.begin(), w.params.end(),
                                [&](auto &q) { return q.name == n; });
          std::string inHost = p == w.params.end() ? n : nameIn(fn, w, *p);
          hostRename[n] = inHost;
          hasAll = hasAll &&
                   std::any_of(list.begin(), list.end(), [&](const FnParam &q) {
                     return q.name == inHost;
                   });
        }
        if (hasAll)
          hostText[fn] += assertion(
              e->rename(hostRename),
              expr::renameIdentifiers(w.plan->constraints[i], hostRename),
              *Facts.function(fn), cpath);
      }
    }
    if (!kernelText.empty())
      staticAssertEdit(*w.kernel, kernelText, w.path + ".constraints");
    for (const auto &[fn, text] : hostText)
      staticAssertEdit(*Facts.function(fn), text, w.path + ".constraints");
  }
  // Once per file that uses them, at its top (global namespace; guarded, so
  // a file that includes another rewritten one sees them once).
  for (const auto &[file, path] : helpersPath)
    Edits.push_back(
        Edit{makePosition(file, 0), 0, expr::cppHelpers(), path, -2});
  return std::nullopt;
}

void Rewriter::instantiationEdits() {
  for (auto &w : Work) {
    const FunctionFacts &k = *w.kernel;
    if (k.isTemplate || k.rangeEnd == 0)
      continue;
    bool launched = std::any_of(
        Facts.calls.begin(), Facts.calls.end(),
        [&](const CallFacts &c) { return c.isLaunch && c.callee == k.id; });
    if (launched)
      continue;
    // Launched nowhere in the files read, and no template before: code that
    // links to it or loads it by name expects its code in the output.
    if (!k.atNamespaceScope || k.paramTypes.size() != k.args.size()) {
      Notes.push_back(location(Facts, filePart(k.offset), k.line) + ": " +
                      k.qualifiedName +
                      " is launched nowhere in the files read and is not at "
                      "namespace scope: no explicit instantiation keeps it "
                      "in the output");
      continue;
    }
    std::string values, types;
    for (const FnParam &q : FnParams[k.id])
      values += (values.empty() ? "" : ", ") + std::to_string(q.defaultValue);
    for (const auto &t : k.paramTypes)
      types += (types.empty() ? "" : ", ") + t;
    std::string indent =
        k.declarations.empty() ? "" : k.declarations.back().indent;
    Edits.push_back(Edit{k.rangeEnd, 0,
                         "\n" + indent +
                             "// Launched nowhere here: its code stays in the "
                             "output at the defaults.\n" +
                             indent + "template __global__ void " + k.name +
                             "<" + values + ">(" + types + ");",
                         w.path, 3});
    w.explicitInstantiation = true;
  }
}

void Rewriter::hostGuardEdits() {
  llvm::StringRef text = Facts.textOf(0, Source);
  // Whole lines, merged where they touch.
  std::vector<std::pair<unsigned, unsigned>> lines;
  for (auto [begin, end] : Facts.hostOnlyRanges) {
    if (filePart(begin) != 0 || begin >= text.size() || end <= begin)
      continue;
    end = std::min<unsigned>(end, static_cast<unsigned>(text.size()));
    size_t b = text.rfind('\n', begin); // the last one before `begin`
    b = b == llvm::StringRef::npos ? 0 : b + 1;
    size_t nl = text.find('\n', end - 1);
    size_t e = nl == llvm::StringRef::npos ? text.size() : nl + 1;
    if (!lines.empty() && b <= lines.back().second)
      lines.back().second = std::max<unsigned>(lines.back().second, e);
    else
      lines.emplace_back(b, e);
  }
  // The guard opens before anything else inserted at the line (a template
  // parameter list) but after the ktune_expr helpers at the top; it closes
  // before what the next line receives.
  for (auto [b, e] : lines) {
    Edits.push_back(Edit{b, 0,
                         "#ifndef __CUDACC_RTC__ // host code: NVRTC (the "
                         "tuner) skips it\n",
                         "", -1});
    bool lastLine = e == text.size() && !text.ends_with("\n");
    Edits.push_back(Edit{
        e, 0, std::string(lastLine ? "\n" : "") + "#endif // __CUDACC_RTC__\n",
        "", -3});
  }
}

std::optional<ktune::Error>
Rewriter::moveIntoMacroCopies(std::vector<Edit> &edits) {
  for (const auto &[name, copy] : Facts.macroCopies) {
    std::vector<Edit> inside;
    for (auto it = edits.begin(); it != edits.end();) {
      bool in = filePart(it->offset) == filePart(copy.begin) &&
                copy.begin <= it->offset && it->offset < copy.end;
      if (in && it->offset + it->length > copy.end)
        return error(it->path, "an edit crosses the end of macro " + name);
      if (!in) {
        ++it;
        continue;
      }
      inside.push_back(*it);
      it = edits.erase(it);
    }
    if (inside.empty())
      continue;
    // The header's definition with the edits, after an #undef of the one
    // included: the header itself is left as it is.
    std::string text = textAt(copy.begin)
                           .substr(localPart(copy.begin), copy.end - copy.begin)
                           .str();
    std::sort(inside.begin(), inside.end(),
              [](const Edit &a, const Edit &b) { return a.offset > b.offset; });
    for (const Edit &e : inside)
      text.replace(e.offset - copy.begin, e.length, e.text);
    std::string definition = "#undef " + name +
                             " // redefined with ktune's parameters\n" + text +
                             "\n";
    // Before whatever else is inserted there (a template parameter list).
    auto at = std::find_if(edits.begin(), edits.end(), [&](const Edit &e) {
      return e.offset == copy.insertAt && e.length == 0;
    });
    if (at != edits.end())
      at->text = definition + at->text;
    else
      edits.push_back(
          Edit{copy.insertAt, 0, definition, inside.front().path, -2});
  }
  std::sort(edits.begin(), edits.end(), [](const Edit &a, const Edit &b) {
    return std::tie(a.offset, a.length, a.order) <
           std::tie(b.offset, b.length, b.order);
  });
  return std::nullopt;
}

llvm::Expected<FileEdits> Rewriter::mergedReplacements() {
  // Identical edits (a site shared by two kernels' candidates, lifted under
  // the same name) are made once; insertions at one offset are joined.
  std::vector<Edit> sorted = Edits;
  std::sort(sorted.begin(), sorted.end(), [](const Edit &a, const Edit &b) {
    return std::tie(a.offset, a.length, a.order, a.text) <
           std::tie(b.offset, b.length, b.order, b.text);
  });
  std::vector<Edit> merged;
  std::set<std::string> joined; // the insertions at merged.back()'s offset
  for (const auto &e : sorted) {
    bool sameOffset = !merged.empty() && merged.back().offset == e.offset;
    if (sameOffset && merged.back().length == e.length &&
        (merged.back().text == e.text ||
         (e.length == 0 && joined.count(e.text))))
      continue;
    if (sameOffset && merged.back().length == 0 && e.length == 0) {
      merged.back().text += e.text;
      joined.insert(e.text);
      continue;
    }
    merged.push_back(e);
    joined = {e.text};
  }
  if (auto err = moveIntoMacroCopies(merged))
    return toLLVMError(*err);
  FileEdits out;
  for (const auto &e : merged) {
    unsigned file = filePart(e.offset);
    clang::tooling::Replacement r(Facts.pathOf(file), localPart(e.offset),
                                  e.length, e.text);
    if (auto err = out[file].add(r)) {
      llvm::consumeError(std::move(err));
      return toLLVMError(error(
          e.path, location(Facts, file, lineOf(textAt(e.offset), e.offset)) +
                      ": edits overlap (two parameters change the same "
                      "source text)"));
    }
  }
  return out;
}

} // namespace ktune::refactor
