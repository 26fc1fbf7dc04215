//===- RewriteText.cpp - Reading and writing source text ------------------===//
//
// What the rewrite reads off the text itself (identifiers, so a new name
// never collides; #defined macros) and how a site's replacement is spelled.
//
//===----------------------------------------------------------------------===//

#include "RewriteInternal.h"

#include <cctype>
#include <regex>

namespace ktune::refactor {

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

std::string location(const SourceFacts &facts, unsigned fileIndex,
                     unsigned line, unsigned col) {
  return facts.pathOf(fileIndex) + ":" + std::to_string(line) +
         (col ? ":" + std::to_string(col) : "");
}

unsigned lineOf(llvm::StringRef text, unsigned position) {
  unsigned local = std::min<unsigned>(localPart(position), text.size());
  return 1 + static_cast<unsigned>(llvm::count(text.substr(0, local), '\n'));
}

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
  // Roles whose text is delimited already (an array extent, a template
  // argument, a pragma's count): no parentheses needed.
  static const std::set<SiteRole> delimited = {
      SiteRole::Definition,    SiteRole::SharedExtent,
      SiteRole::RegisterArray, SiteRole::UnrollPragma,
      SiteRole::LaunchBounds,  SiteRole::LaunchBoundsMinBlocks,
      SiteRole::CubBlockSize,  SiteRole::CubItemsPerThread,
      SiteRole::TemplateArg,   SiteRole::TemplateDefault};
  bool compound = r != "{P}" && r.rfind("static_cast<", 0) != 0;
  if (compound && !delimited.count(site.role))
    out = "(" + out + ")";
  return out;
}

} // namespace ktune::refactor
