//===- RewriteText.cpp - Reading and writing source text ------------------===//
//
// What the rewrite reads off the text itself (identifiers, so a new name
// never collides, through source_scan) and how a site's replacement is
// spelled.
//
//===----------------------------------------------------------------------===//

#include "RewriteInternal.h"

namespace ktune::refactor {

std::vector<std::pair<unsigned, std::string>> identifiers(llvm::StringRef src) {
  std::vector<std::pair<unsigned, std::string>> out;
  for (const auto &token : source_scan::identifierTokens(src))
    out.emplace_back(static_cast<unsigned>(token.offset), token.name);
  return out;
}

std::string location(const SourceFacts &facts, unsigned fileIndex,
                     unsigned line, unsigned col) {
  return facts.pathOf(fileIndex) + ":" + std::to_string(line) +
         (col ? ":" + std::to_string(col) : "");
}

unsigned lineOf(llvm::StringRef text, Position position) {
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
  bool compound = r != "{P}" && r.rfind("static_cast<", 0) != 0;
  if (compound && !delimitsItsSite(site.role))
    out = "(" + out + ")";
  return site.before + out + site.after;
}

} // namespace ktune::refactor
