//===- ParamNames.cpp - New names that mean nothing yet at a site ---------===//

#include "ParamNames.h"

#include "RewriteInternal.h"

#include "clang/Basic/IdentifierTable.h"

#include <cctype>
#include <map>
#include <memory>

namespace ktune::refactor {

std::set<std::string> macroNames(clang::ASTContext &ctx) {
  std::set<std::string> out;
  auto add = [&](const clang::IdentifierInfo *ii) {
    if (ii && ii->hasMacroDefinition())
      out.insert(ii->getName().str());
  };
  for (const auto &entry : ctx.Idents)
    add(entry.getValue());
  // Identifiers of a precompiled preamble are loaded on demand.
  if (clang::IdentifierInfoLookup *external =
          ctx.Idents.getExternalIdentifierLookup()) {
    std::unique_ptr<clang::IdentifierIterator> it(external->getIdentifiers());
    for (llvm::StringRef name = it ? it->Next() : ""; !name.empty();
         name = it->Next())
      add(&ctx.Idents.get(name));
  }
  return out;
}

/// `text` with every whole identifier `from` replaced by `to`.
static std::string renamed(const std::string &text, const std::string &from,
                           const std::string &to) {
  auto identChar = [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
  };
  std::string out;
  for (size_t i = 0; i < text.size();) {
    if (identChar(text[i]) && (i == 0 || !identChar(text[i - 1]))) {
      size_t end = i;
      while (end < text.size() && identChar(text[end]))
        ++end;
      std::string word = text.substr(i, end - i);
      out += word == from ? to : word;
      i = end;
    } else {
      out += text[i++];
    }
  }
  return out;
}

static bool spelledIn(const SourceTexts &sources, const std::string &name) {
  for (const auto &[file, text] : sources)
    if (renamed(text, name, name + "\x01") != text)
      return true;
  return false;
}

Plan withoutMacroNames(Plan plan, const std::set<std::string> &macros,
                       const SourceTexts &sources,
                       std::vector<std::string> &notes) {
  // A macro the sources define is theirs to see: validation names it.
  std::set<std::string> defined;
  for (const auto &[file, text] : sources)
    defined.merge(definedMacros(text));
  std::set<std::string> used;
  for (const PlanKernel &k : plan.kernels)
    for (const PlanParam &p : k.params)
      used.insert(p.name);
  // One new name per old one, so parameters sharing a name keep sharing it.
  std::map<std::string, std::string> newName;
  for (PlanKernel &k : plan.kernels) {
    for (PlanParam &p : k.params) {
      if (!macros.count(p.name) || defined.count(p.name))
        continue;
      auto [it, fresh] = newName.try_emplace(p.name);
      if (fresh) {
        for (int n = 2;; ++n) {
          std::string candidate = p.name + "_" + std::to_string(n);
          if (!macros.count(candidate) && !used.count(candidate) &&
              !spelledIn(sources, candidate)) {
            it->second = candidate;
            break;
          }
        }
        used.insert(it->second);
        notes.push_back("parameter " + p.name + " is named " + it->second +
                        ": " + p.name +
                        " is a macro where the code is compiled");
      }
      p.name = it->second;
    }
    for (std::string &c : k.constraints)
      for (const auto &[from, to] : newName)
        c = renamed(c, from, to);
  }
  return plan;
}

} // namespace ktune::refactor
