//===- PtxCompare.cpp - Is a template's default PTX the original's? -------===//

#include "PtxCompare.h"

#include "llvm/Support/FileSystem.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Demangle/Demangle.h"

#include <algorithm>
#include <cctype>
#include <optional>
#include <regex>
#include <set>

namespace ktune::refactor {

std::map<std::string, std::string> ptxFunctions(const std::string &ptx) {
  static const std::regex header(
      R"(^(?:\.(?:visible|weak|extern)\s+)?\.(?:entry|func)\s+(?:\([^)]*\)\s*)?([A-Za-z_$][\w$]*))");
  std::map<std::string, std::string> out;
  for (size_t line = 0; line < ptx.size();) {
    size_t next = ptx.find('\n', line);
    next = next == std::string::npos ? ptx.size() : next + 1;
    if (ptx[line] != '.') {
      line = next;
      continue;
    }
    // A header may continue on the next lines (a return value's list).
    std::string window = ptx.substr(line, 4096);
    std::smatch m;
    if (!std::regex_search(window, m, header,
                           std::regex_constants::match_continuous)) {
      line = next;
      continue;
    }
    size_t end = line + m.length(0);
    size_t brace = ptx.find('{', end), semicolon = ptx.find(';', end);
    bool declaration = brace == std::string::npos;
    if (!declaration && semicolon < brace) {
      llvm::StringRef between(ptx.data() + end, semicolon - end);
      declaration = between.count('(') == between.count(')');
    }
    if (declaration) {
      line = next;
      continue;
    }
    size_t i = brace;
    for (int depth = 0; i < ptx.size(); ++i) {
      depth += ptx[i] == '{' ? 1 : ptx[i] == '}' ? -1 : 0;
      if (depth == 0)
        break;
    }
    out[m[1].str()] = ptx.substr(line, i + 1 - line);
    line = std::max(next, std::min(i + 1, ptx.size()));
  }
  return out;
}

/// The first index of `text` outside brackets (`open` and `close` list the
/// bracket characters) at which `found(i)` holds, else npos.
template <class Found>
static size_t findOutsideBrackets(const std::string &text,
                                  std::string_view open, std::string_view close,
                                  Found &&found) {
  int depth = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (open.find(c) != std::string_view::npos)
      ++depth;
    else if (close.find(c) != std::string_view::npos)
      --depth;
    else if (depth == 0 && found(i))
      return i;
  }
  return std::string::npos;
}

/// Template functions demangle with their return type first.
static std::string withoutReturnType(const std::string &d) {
  size_t space = findOutsideBrackets(d, "<(", ">)", [&](size_t i) {
    if (d[i] != ' ' || d.find('(', i) == std::string::npos)
      return false;
    llvm::StringRef head(d.data(), i);
    return !head.ends_with("operator") && !head.ends_with(",");
  });
  return space == std::string::npos ? d : d.substr(space + 1);
}

/// nvcc names anonymous namespaces after the file (_GLOBAL__N__<id>), and
/// internal-linkage entities too (_INTERNAL_<id>_<file>_<id>).
static std::string withoutAnonymous(std::string name) {
  static const std::regex global(R"((_GLOBAL__N__|_INTERNAL_)\w+?::)");
  for (size_t at;
       (at = name.find("(anonymous namespace)::")) != std::string::npos;)
    name.erase(at, 23);
  return std::regex_replace(name, global, "");
}

/// Every function `ptx` defines (extern "C" ones unmangled) and every
/// mangled name it uses: the local statics of helpers inlined into them
/// (_ZZ<helper encoding>E8_ca_temp).
static std::set<std::string>
symbols(const std::string &ptx,
        const std::map<std::string, std::string> &functions) {
  static const std::regex symbol(R"(\b_Z[\w$]+)");
  std::set<std::string> out;
  for (const auto &[name, body] : functions)
    out.insert(name);
  for (std::sregex_iterator it(ptx.begin(), ptx.end(), symbol), end; it != end;
       ++it)
    out.insert(it->str());
  return out;
}

static std::string key(const std::string &mangled) {
  return withoutAnonymous(withoutReturnType(llvm::demangle(mangled)));
}

static size_t topLevel(const std::string &text, char wanted) {
  return findOutsideBrackets(text, "<[", ">]",
                             [&](size_t i) { return text[i] == wanted; });
}

/// "ns::k<float, 8>(float*, int)" as "ns::k", {"float", "8"} and the rest.
struct SplitName {
  std::string base;
  std::optional<std::vector<std::string>> args;
  std::string rest;
};

static SplitName splitTemplateArgs(const std::string &text) {
  size_t paren = topLevel(text, '(');
  std::string head = paren == std::string::npos ? text : text.substr(0, paren);
  std::string rest = paren == std::string::npos ? "" : text.substr(paren);
  if (head.empty() || head.back() != '>')
    return {head, std::nullopt, rest};
  int depth = 0;
  for (size_t i = head.size(); i-- > 0;) {
    if (head[i] == '>')
      ++depth;
    else if (head[i] == '<' && --depth == 0) {
      std::vector<std::string> args;
      std::string current;
      int d = 0;
      for (char c : head.substr(i + 1, head.size() - i - 2)) {
        d += (c == '<' || c == '(' || c == '[')   ? 1
             : (c == '>' || c == ')' || c == ']') ? -1
                                                  : 0;
        if (c == ',' && d == 0) {
          args.push_back(llvm::StringRef(current).trim().str());
          current.clear();
        } else {
          current += c;
        }
      }
      if (!llvm::StringRef(current).trim().empty())
        args.push_back(llvm::StringRef(current).trim().str());
      return {head.substr(0, i), args, rest};
    }
  }
  return {head, std::nullopt, rest};
}

static std::string joined(const std::vector<std::string> &parts) {
  std::string out;
  for (const auto &p : parts)
    out += (out.empty() ? "" : ", ") + p;
  return out;
}

std::string defaultInstantiations(const std::vector<ManifestKernel> &kernels,
                                  const std::vector<std::string> &original,
                                  std::vector<std::string> &missing,
                                  bool typed) {
  std::string lines = "\n// The default configuration of each kernel the "
                      "original instantiates.\n";
  int count = 0;
  for (const ManifestKernel &k : kernels) {
    bool found = false;
    for (const std::string &mangled : original) {
      SplitName name = splitTemplateArgs(key(mangled));
      if (name.base != k.qualifiedName)
        continue;
      found = true;
      std::vector<std::string> values =
          name.args.value_or(std::vector<std::string>());
      // Nothing added to the kernel, or an argument that cannot be written
      // back (a function pointer): the template instantiates it itself.
      if (k.templateParams.size() <= values.size() ||
          std::any_of(values.begin(), values.end(), [](const std::string &a) {
            return a.find('(') != std::string::npos;
          }))
        continue;
      bool complete = true;
      for (size_t i = values.size(); i < k.templateParams.size(); ++i) {
        const TemplateParam &p = k.templateParams[i];
        complete = complete && p.defaultValue.has_value();
        if (p.defaultValue)
          values.push_back(std::to_string(*p.defaultValue));
      }
      // Not `auto`: C-minded headers define it (`#define auto __auto_type`).
      std::string kernel = "&" + k.qualifiedName + "<" + joined(values) + ">";
      if (complete) {
        std::string instance = "ktune_instance_" + std::to_string(count++);
        bool signature = typed && llvm::StringRef(name.rest).starts_with("(");
        lines +=
            (signature ? "static void (*const " + instance + ")" + name.rest
                       : "static decltype(" + kernel + ") const " + instance) +
            " __attribute__((unused)) = " + kernel + ";\n";
      }
    }
    if (!found)
      missing.push_back(k.qualifiedName);
  }
  return lines;
}

/// `$str$N` -> its bytes: string literals are numbered by the order the
/// module emits them, so a body names them by what they hold.
static std::map<std::string, std::string>
stringConstants(const std::string &ptx, const std::string &file,
                const std::map<std::string, std::string> &copies) {
  static const std::regex definition(
      R"((\$str(?:\$\d+)?)\[\d+\]\s*=\s*\{([^}]*)\})");
  std::map<std::string, std::string> out;
  for (std::sregex_iterator it(ptx.begin(), ptx.end(), definition), end;
       it != end; ++it) {
    std::string bytes = (*it)[2].str();
    bytes.erase(std::remove(bytes.begin(), bytes.end(), ' '), bytes.end());
    // The compiled file's own name (an assert's __FILE__) is no code.
    std::string text;
    for (llvm::StringRef rest = bytes; !rest.empty();) {
      auto [byte, tail] = rest.split(',');
      rest = tail;
      unsigned value = 0;
      if (!byte.getAsInteger(10, value) && value != 0)
        text += static_cast<char>(value);
    }
    // A header's name (an assert's __FILE__ there) spelled another way:
    // the template includes it by another path; the file is the same.
    llvm::SmallString<256> real;
    if (!file.empty() && text == file)
      out[(*it)[1].str()] = "FILE";
    else if (!text.empty() && llvm::sys::fs::is_regular_file(text) &&
             !llvm::sys::fs::real_path(text, real)) {
      // A rewritten header's copy names the header it was made from.
      auto copy = copies.find(real.str().str());
      out[(*it)[1].str()] =
          "PATH{" + (copy == copies.end() ? real.str().str() : copy->second) +
          "}";
    } else
      out[(*it)[1].str()] = bytes;
  }
  return out;
}

static std::string
namedByContent(const std::string &body,
               const std::map<std::string, std::string> &strings) {
  static const std::regex use(R"(\$str(?:\$\d+)?)");
  std::string out;
  auto last = body.cbegin();
  for (std::sregex_iterator it(body.begin(), body.end(), use), end; it != end;
       ++it) {
    out.append(last, (*it)[0].first);
    auto s = strings.find((*it)[0].str());
    out += "$str{" + (s == strings.end() ? (*it)[0].str() : s->second) + "}";
    last = (*it)[0].second;
  }
  out.append(last, body.cend());
  return out;
}

static std::vector<std::string> normalisedLines(const std::string &body) {
  static const std::regex comment("//.*"),
      visibility(R"(^\.(visible|weak)\s+)"), label(R"(\$L__BB\d+_)"),
      depot(R"(__local_depot\d+)"), unnamed(R"(__unnamed_\d+)");
  std::vector<std::string> out;
  for (llvm::StringRef rest = body; !rest.empty();) {
    auto [line, tail] = rest.split('\n');
    rest = tail;
    std::string l = std::regex_replace(line.str(), comment, "");
    l = llvm::StringRef(l).rtrim().str();
    l = std::regex_replace(l, visibility, "");
    // Block labels, local depots and the compiler's unnamed constants (an
    // assert's function name) are numbered by the function's place in the
    // module.
    l = std::regex_replace(l, label, "$$L__BB_");
    l = std::regex_replace(l, depot, "__local_depot");
    l = std::regex_replace(l, unnamed, "__unnamed_");
    if (!llvm::StringRef(l).trim().empty())
      out.push_back(l);
  }
  return out;
}

/// Every `.shared` variable the PTX declares, by name: at module scope or
/// in a function. With -rdc a non-template kernel's static `__shared__`
/// variables are declared in its body ("demoted"), a template's at module
/// scope (`.weak .shared`).
static std::map<std::string, std::string>
sharedDeclarations(const std::string &ptx) {
  static const std::regex decl(
      R"((?:^|\n)[ \t]*(?:\.(?:weak|visible|extern)[ \t]+)?(\.shared\b[^;\n]*?([A-Za-z_$][\w$]*)(?:\[[^\]]*\])*[ \t]*;))");
  static const std::regex space(R"([ \t]+)");
  std::map<std::string, std::string> out;
  for (std::sregex_iterator it(ptx.begin(), ptx.end(), decl), end; it != end;
       ++it)
    out[(*it)[2].str()] = std::regex_replace((*it)[1].str(), space, " ");
  return out;
}

/// A function's lines without its own `.shared` declarations, followed by
/// the declarations (wherever they are) of every `.shared` variable it
/// names, so a variable declared in the body on one side and at module scope
/// on the other compares equal, and one whose size changed does not.
static std::vector<std::string>
withSharedDeclarations(std::vector<std::string> lines,
                       const std::map<std::string, std::string> &declared) {
  auto identChar = [](char ch) {
    return std::isalnum(static_cast<unsigned char>(ch)) || ch == '_' ||
           ch == '$';
  };
  std::set<std::string> used;
  std::vector<std::string> kept;
  for (const std::string &l : lines) {
    if (llvm::StringRef(l).ltrim().starts_with(".shared"))
      continue;
    for (size_t i = 0; i < l.size();) {
      if (!identChar(l[i])) {
        ++i;
        continue;
      }
      size_t j = i;
      while (j < l.size() && identChar(l[j]))
        ++j;
      if (std::string token = l.substr(i, j - i); declared.count(token))
        used.insert(token);
      i = j;
    }
    kept.push_back(l);
  }
  for (const std::string &name : used)
    kept.push_back("shared: " + declared.at(name));
  return kept;
}

/// With -rdc nvcc prefixes internal-linkage functions with an id of the file
/// (`__nv_static_<n>__<hash>_<len>_<file>_..._Z15kernel...`), which differs
/// between the original and the template: dropped on both sides.
static std::string withoutStaticPrefixes(const std::string &ptx) {
  static const std::regex prefix(R"(__nv_static_\d+_\w*?_(?=_Z\d))");
  return std::regex_replace(ptx, prefix, "");
}

std::vector<PtxMismatch>
comparePtx(const std::string &originalPtxAsCompiled,
           const std::string &templatePtxAsCompiled,
           const std::string &originalFile, const std::string &templateFile,
           const std::map<std::string, std::string> &headerCopies) {
  std::string originalPtx = withoutStaticPrefixes(originalPtxAsCompiled);
  std::string templatePtx = withoutStaticPrefixes(templatePtxAsCompiled);
  auto original = ptxFunctions(originalPtx);
  auto tpl = ptxFunctions(templatePtx);
  // Both sides' paths as real paths.
  std::map<std::string, std::string> copies;
  for (const auto &[copy, header] : headerCopies) {
    llvm::SmallString<256> c, h;
    if (!llvm::sys::fs::real_path(copy, c) &&
        !llvm::sys::fs::real_path(header, h))
      copies[c.str().str()] = h.str().str();
  }
  auto originalStrings = stringConstants(originalPtx, originalFile, {}),
       templateStrings = stringConstants(templatePtx, templateFile, copies);
  std::set<std::string> originalSymbols = symbols(originalPtx, original);
  std::map<std::string, std::string> byKey;
  for (const std::string &mangled : originalSymbols)
    byKey.emplace(key(mangled), mangled);
  // Each template symbol mapped to the original one it must equal: its
  // functions, and the local statics that follow a helper's added template
  // arguments and the file's internal name.
  std::vector<std::pair<std::string, std::string>> rename;
  for (const std::string &mangled : symbols(templatePtx, tpl)) {
    if (originalSymbols.count(mangled)) {
      rename.emplace_back(mangled, mangled);
      continue;
    }
    std::string k = key(mangled);
    if (auto it = byKey.find(k); it != byKey.end()) {
      rename.emplace_back(mangled, it->second);
      continue;
    }
    SplitName name = splitTemplateArgs(k);
    for (auto args = name.args; args && !args->empty();) {
      args->pop_back();
      std::string shorter = name.base +
                            (args->empty() ? "" : "<" + joined(*args) + ">") +
                            name.rest;
      if (auto it = byKey.find(shorter); it != byKey.end()) {
        rename.emplace_back(mangled, it->second);
        break;
      }
    }
  }
  // Encodings (without _Z) renamed so local statics (_ZZ<encoding>E4tile)
  // follow their function.
  std::vector<std::pair<std::string, std::string>> longestFirst = rename;
  std::stable_sort(longestFirst.begin(), longestFirst.end(),
                   [](const auto &a, const auto &b) {
                     return a.first.size() > b.first.size();
                   });
  auto renamed = [&](std::string text) {
    for (const auto &[from, to] : longestFirst) {
      if (from == to || from.size() < 2 || to.size() < 2)
        continue;
      std::string f = from.substr(2), t = to.substr(2);
      for (size_t at = 0; (at = text.find(f, at)) != std::string::npos;
           at += t.size())
        text.replace(at, f.size(), t);
    }
    return text;
  };
  auto originalShared = sharedDeclarations(originalPtx);
  auto templateShared = sharedDeclarations(renamed(templatePtx));
  std::vector<PtxMismatch> out;
  for (const auto &[mangled, body] : original) {
    auto partner =
        std::find_if(rename.begin(), rename.end(),
                     [&](const auto &r) { return r.second == mangled; });
    std::string name = llvm::demangle(mangled);
    if (partner == rename.end()) {
      out.push_back({name, ""});
      continue;
    }
    auto a = withSharedDeclarations(
        normalisedLines(namedByContent(body, originalStrings)), originalShared);
    auto b = withSharedDeclarations(
        normalisedLines(
            namedByContent(renamed(tpl.at(partner->first)), templateStrings)),
        templateShared);
    if (a == b)
      continue;
    size_t i = 0;
    while (i < a.size() && i < b.size() && a[i] == b[i])
      ++i;
    std::string diff = "line " + std::to_string(i + 1) + ": original '" +
                       (i < a.size() ? a[i] : std::string("<end>")) +
                       "', template '" +
                       (i < b.size() ? b[i] : std::string("<end>")) + "'";
    out.push_back({name, diff});
  }
  return out;
}

} // namespace ktune::refactor
