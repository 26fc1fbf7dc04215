//===- OutputTree.cpp - Where rewritten headers go ------------------------===//
//
// The template's text and the copies of rewritten headers, placed where
// the same #include finds them, with quoted #includes re-spelled
// (RewriteInternal.h).
//
//===----------------------------------------------------------------------===//

#include "RewriteInternal.h"

#include "ktune/Refactor/HeaderFilter.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

#include <algorithm>
#include <map>
#include <set>

namespace ktune::refactor {

namespace {

std::string normalized(llvm::StringRef path) {
  llvm::SmallString<256> p(path);
  llvm::sys::path::remove_dots(p, /*remove_dot_dot=*/true);
  return std::string(p);
}

std::string joined(llvm::StringRef dir, llvm::StringRef rel) {
  llvm::SmallString<256> p(dir);
  llvm::sys::path::append(p, rel);
  return normalized(p);
}

std::string parentOf(llvm::StringRef path) {
  return llvm::sys::path::parent_path(path).str();
}

/// `path` below `root` (both absolute), or empty when it is not below it.
std::string below(llvm::StringRef path, llvm::StringRef root) {
  if (!isUnder(path, root))
    return {};
  return path.drop_front(root.rtrim('/').size() + 1).str();
}

} // namespace

std::vector<QuotedInclude> quotedIncludes(llvm::StringRef text) {
  std::vector<QuotedInclude> out;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t end = text.find('\n', pos);
    if (end == llvm::StringRef::npos)
      end = text.size();
    llvm::StringRef line = text.slice(pos, end);
    llvm::StringRef rest = line.ltrim(" \t");
    if (rest.consume_front("#")) {
      rest = rest.ltrim(" \t");
      if (rest.consume_front("include") && !rest.starts_with("_next")) {
        rest = rest.ltrim(" \t");
        size_t close =
            rest.size() > 1 ? rest.find('"', 1) : llvm::StringRef::npos;
        if (rest.starts_with("\"") && close != llvm::StringRef::npos) {
          QuotedInclude q;
          q.offset = static_cast<unsigned>(pos + (rest.data() - line.data()));
          q.length = static_cast<unsigned>(close + 1);
          q.spelling = rest.slice(1, close).str();
          out.push_back(std::move(q));
        }
      }
    }
    pos = end + 1;
  }
  return out;
}

llvm::Expected<std::string> includePathOf(const SourceFacts &facts,
                                          unsigned fileIndex) {
  const SourceFile &f = facts.files.at(fileIndex);
  for (const auto &root : facts.includeRoots)
    if (f.foundUnder == root && !f.includedAs.empty() &&
        !llvm::sys::path::is_absolute(f.includedAs)) {
      std::string spelled = normalized(f.includedAs);
      if (!llvm::StringRef(spelled).starts_with(".."))
        return spelled;
    }
  std::string best;
  size_t bestRoot = 0;
  for (const auto &root : facts.includeRoots)
    if (std::string rel = below(f.absolutePath, root);
        !rel.empty() && root.size() > bestRoot) {
      best = rel;
      bestRoot = root.size();
    }
  if (best.empty())
    return llvm::createStringError(
        f.path + " would be rewritten but lies under none of the project's "
                 "include directories (-I) nor the main file's directory, so "
                 "no #include would find its rewritten copy");
  return best;
}

namespace {

/// Builds the tree: which files are written, where, and their texts.
class TreeBuilder {
public:
  TreeBuilder(const SourceFacts &facts, llvm::StringRef mainSource,
              const FileEdits &marked, FileExists exists)
      : Facts(facts), MainSource(mainSource), Marked(marked),
        Exists(std::move(exists)) {
    // Files below are appended to the copy (addUnrecordedHeaders).
    if (!Exists)
      Exists = [](const std::string &p) {
        return llvm::sys::fs::is_regular_file(p);
      };
    MainDir = parentOf(absoluteMain());
  }

  llvm::Expected<OutputTree> build() {
    if (!Marked.empty())
      addUnrecordedHeaders();
    if (auto e = chooseFiles())
      return e;
    OutputTree tree;
    auto main = textOf(0);
    if (!main)
      return main.takeError();
    tree.mainText = std::move(*main);
    for (const auto &[index, path] : Placed) {
      auto text = textOf(index);
      if (!text)
        return text.takeError();
      const SourceFile &f = Facts.files[index];
      tree.headers.push_back({index, path, std::move(*text),
                              Marked.count(index) > 0, f.path, f.absolutePath});
    }
    return tree;
  }

private:
  std::string absoluteMain() const {
    return Facts.files.empty() ? absolutePathIn("", Facts.file)
                               : Facts.files[0].absolutePath;
  }
  llvm::StringRef source(unsigned index) const {
    return Facts.textOf(index, MainSource);
  }
  std::string original(unsigned index) const {
    return index == 0 ? absoluteMain() : Facts.files[index].absolutePath;
  }

  /// Headers the parse recorded nothing in (one of #includes only) are not
  /// among the files read: they are found on disk through the quoted
  /// #includes of those that are (the includer's directory, then the
  /// project's include roots), so that one including a rewritten header
  /// beside itself is copied too and its #include reaches the copy.
  void addUnrecordedHeaders() {
    constexpr size_t MaxFiles = 512;
    std::set<std::string> known;
    for (const auto &f : Facts.files)
      known.insert(normalized(f.absolutePath));
    for (size_t i = 0; i < Facts.files.size() && Facts.files.size() < MaxFiles;
         ++i) {
      std::string text = source(i).str(); // the vector may grow below
      for (const auto &q : quotedIncludes(text)) {
        if (llvm::sys::path::is_absolute(q.spelling))
          continue;
        std::vector<std::string> dirs = {parentOf(original(i))};
        dirs.insert(dirs.end(), Facts.includeRoots.begin(),
                    Facts.includeRoots.end());
        std::string found, under;
        for (const auto &dir : dirs)
          if (Exists(joined(dir, q.spelling))) {
            found = joined(dir, q.spelling);
            under = dir;
            break;
          }
        bool inProject = std::any_of(
            Facts.includeRoots.begin(), Facts.includeRoots.end(),
            [&](const std::string &root) { return isUnder(found, root); });
        if (found.empty() || !inProject || !known.insert(found).second)
          continue;
        auto buffer = llvm::MemoryBuffer::getFile(found);
        if (!buffer)
          continue;
        SourceFile header;
        header.path = found;
        header.absolutePath = found;
        header.text = (*buffer)->getBuffer().str();
        header.includedAs = q.spelling;
        header.foundUnder = under;
        Facts.files.push_back(std::move(header));
      }
    }
  }

  /// The rewritten headers, then (to a fixed point) the headers of the
  /// files read that include a written one beside themselves.
  llvm::Error chooseFiles() {
    std::set<unsigned> written;
    for (const auto &[index, edits] : Marked)
      if (index > 0 && !edits.empty())
        written.insert(index);
    for (bool grew = true; grew;) {
      grew = false;
      for (unsigned i = 1; i < Facts.files.size(); ++i) {
        if (written.count(i))
          continue;
        for (const auto &q : quotedIncludes(source(i))) {
          if (llvm::sys::path::is_absolute(q.spelling))
            continue;
          std::string target = joined(parentOf(original(i)), q.spelling);
          bool includesWritten = false;
          for (unsigned w : written)
            includesWritten |= Facts.files[w].absolutePath == target;
          if (includesWritten && Exists(target)) {
            written.insert(i);
            grew = true;
            break;
          }
        }
      }
    }
    std::map<std::string, unsigned> byPath;
    for (unsigned i : written) {
      auto path = includePathOf(Facts, i);
      if (!path)
        return path.takeError();
      auto [it, fresh] = byPath.emplace(*path, i);
      if (!fresh)
        return llvm::createStringError(
            Facts.files[it->second].path + " and " + Facts.files[i].path +
            " would both be written as include/" + *path);
      Placed.emplace(i, *path);
      ByAbsolute.emplace(Facts.files[i].absolutePath, *path);
    }
    return llvm::Error::success();
  }

  /// How a file placed at `placed` (empty: the template, beside the include
  /// directory) spells the quoted #include `q` of its original so that it
  /// finds the same file (or its copy); nullopt: unchanged.
  std::optional<std::string>
  respelled(unsigned index, const std::string &placed, const QuotedInclude &q) {
    if (llvm::sys::path::is_absolute(q.spelling))
      return std::nullopt;
    std::string target = joined(parentOf(original(index)), q.spelling);
    if (!Exists(target))
      return std::nullopt; // found through the include path: unchanged
    if (auto it = ByAbsolute.find(target); it != ByAbsolute.end()) {
      // Its copy, through the output's include directory.
      if (!placed.empty() && joined(parentOf(placed), q.spelling) == it->second)
        return std::nullopt;
      return it->second == q.spelling ? std::nullopt
                                      : std::optional(it->second);
    }
    // The original: the template finds it through the main file's
    // directory (on the include path); a copy through a project include
    // root when the search finds that file first, else by absolute path.
    if (placed.empty() && parentOf(target) == MainDir &&
        !ByPlacement(q.spelling))
      return std::nullopt;
    for (const auto &root : Facts.includeRoots) {
      std::string rel = below(target, root);
      if (rel.empty() || ByPlacement(rel) ||
          (!placed.empty() && ByPlacement(joined(parentOf(placed), rel))))
        continue;
      if (firstFound(rel) == target)
        return rel;
    }
    return target;
  }

  bool ByPlacement(const std::string &path) const {
    for (const auto &[index, placed] : Placed)
      if (placed == normalized(path))
        return true;
    return false;
  }

  /// What a search of the output's include path finds for `rel` among the
  /// originals: the main file's directory, then the include roots.
  std::string firstFound(const std::string &rel) const {
    if (Exists(joined(MainDir, rel)))
      return joined(MainDir, rel);
    for (const auto &root : Facts.includeRoots)
      if (Exists(joined(root, rel)))
        return joined(root, rel);
    return {};
  }

  /// The #include lines of a header that reach the main file again (a
  /// header library's `detail/iht_impl.cuh` including `<bght/iht.hpp>`,
  /// the input, which includes it): the main file is being read when the
  /// copy is, so the line is a no-op there (`#pragma once`, guards), and
  /// the copy must not reach the original main file beside the template.
  std::vector<unsigned> includesOfMain(unsigned index) {
    std::vector<unsigned> out;
    llvm::StringRef text = source(index);
    for (size_t pos = 0; pos < text.size();) {
      size_t end = std::min(text.find('\n', pos), text.size());
      llvm::StringRef line = text.slice(pos, end);
      llvm::StringRef rest = line.ltrim(" \t");
      unsigned at = static_cast<unsigned>(pos + (rest.data() - line.data()));
      bool directive = rest.consume_front("#");
      rest = rest.ltrim(" \t");
      if (directive && rest.consume_front("include") &&
          !rest.starts_with("_next")) {
        rest = rest.ltrim(" \t");
        char close = rest.starts_with("<") ? '>' : '"';
        size_t stop = rest.size() > 1 ? rest.find(close, 1) : rest.npos;
        if ((rest.starts_with("<") || rest.starts_with("\"")) &&
            stop != rest.npos) {
          std::string spelled = rest.slice(1, stop).str();
          std::vector<std::string> dirs;
          if (close == '"')
            dirs.push_back(parentOf(original(index)));
          dirs.insert(dirs.end(), Facts.includeRoots.begin(),
                      Facts.includeRoots.end());
          for (const auto &dir : dirs)
            if (Exists(joined(dir, spelled))) {
              if (joined(dir, spelled) == normalized(absoluteMain()))
                out.push_back(at);
              break;
            }
        }
      }
      pos = end + 1;
    }
    return out;
  }

  llvm::Expected<std::string> textOf(unsigned index) {
    std::string placed;
    if (index > 0)
      placed = Placed.at(index);
    clang::tooling::Replacements edits;
    if (auto it = Marked.find(index); it != Marked.end())
      edits = it->second;
    if (index > 0)
      for (unsigned at : includesOfMain(index)) {
        clang::tooling::Replacement r(
            Facts.pathOf(index), at, 0,
            "// the main file, which includes this header: ");
        if (auto e = edits.add(r))
          return e;
      }
    for (const auto &q : quotedIncludes(source(index))) {
      auto spelling = respelled(index, placed, q);
      if (!spelling)
        continue;
      clang::tooling::Replacement r(Facts.pathOf(index), q.offset, q.length,
                                    "\"" + *spelling + "\"");
      if (auto e = edits.add(r))
        return e;
    }
    auto text = clang::tooling::applyAllReplacements(source(index), edits);
    if (!text)
      return text.takeError();
    return *text;
  }

  SourceFacts Facts;
  llvm::StringRef MainSource;
  const FileEdits &Marked;
  FileExists Exists;
  std::string MainDir;
  std::map<unsigned, std::string> Placed;        // file index -> include path
  std::map<std::string, std::string> ByAbsolute; // original -> include path
};

} // namespace

llvm::Expected<OutputTree> buildOutputTree(const SourceFacts &facts,
                                           llvm::StringRef mainSource,
                                           const FileEdits &marked,
                                           const FileExists &exists) {
  return TreeBuilder(facts, mainSource, marked, exists).build();
}

} // namespace ktune::refactor
