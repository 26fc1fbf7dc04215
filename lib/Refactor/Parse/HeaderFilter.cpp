//===- HeaderFilter.cpp - Headers that may change -------------------------===//
//
// Which project headers detection may follow kernels into and rewrite
// (--header-filter, else the project's include directories), and which
// function bodies a parse keeps (BodySkipper).
//
//===----------------------------------------------------------------------===//

#include "ktune/Refactor/HeaderFilter.h"

#include "ParseInternal.h"

#include "clang/AST/Attr.h"
#include "clang/AST/DeclTemplate.h"

#include "llvm/ADT/StringSet.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Regex.h"

#include <algorithm>
#include <optional>
#include <cctype>

namespace ktune::refactor {

HeaderFilter HeaderFilter::under(std::vector<std::string> roots) {
  HeaderFilter f;
  f.Roots = std::move(roots);
  f.Default = true;
  return f;
}

llvm::Expected<HeaderFilter>
HeaderFilter::matching(const std::string &regex, std::vector<std::string> roots,
                       const std::string &exclude) {
  auto compile = [](const std::string &pattern, const char *option)
      -> llvm::Expected<std::shared_ptr<const llvm::Regex>> {
    auto compiled = std::make_shared<llvm::Regex>(pattern);
    std::string error;
    if (!compiled->isValid(error))
      return llvm::createStringError(std::string("invalid ") + option + " '" +
                                     pattern + "': " + error);
    return compiled;
  };
  HeaderFilter f;
  f.Roots = std::move(roots);
  f.Pattern = regex;
  auto compiled = compile(regex, "--header-filter");
  if (!compiled)
    return compiled.takeError();
  f.Regex = std::move(*compiled);
  if (!exclude.empty()) {
    auto excluded = compile(exclude, "--exclude-header-filter");
    if (!excluded)
      return excluded.takeError();
    f.ExcludePattern = exclude;
    f.Exclude = std::move(*excluded);
  }
  return f;
}

bool isUnder(llvm::StringRef path, llvm::StringRef dir) {
  dir = dir.rtrim('/');
  return path.size() > dir.size() && path.starts_with(dir) &&
         path[dir.size()] == '/';
}

bool HeaderFilter::allows(llvm::StringRef name,
                          llvm::StringRef absolute) const {
  if (Regex)
    return Regex->match(name) && !(Exclude && Exclude->match(name));
  if (!Default)
    return false;
  return std::any_of(Roots.begin(), Roots.end(), [&](const std::string &r) {
    return isUnder(absolute, r);
  });
}

std::string HeaderFilter::key() const {
  // Which bodies are kept also depends on BodySkipper's rule: kernels,
  // launchers and their callers.
  return "kernel and launcher bodies;" + filterKey();
}

std::string HeaderFilter::filterKey() const {
  if (Regex)
    return "regex:" + Pattern + (Exclude ? "\nexclude:" + ExcludePattern : "");
  if (!Default)
    return "none";
  std::string k = "roots";
  for (const auto &r : Roots)
    k += ":" + r;
  return k;
}

std::string absolutePathIn(const std::string &directory,
                           const std::string &path) {
  llvm::SmallString<256> p(path);
  if (!llvm::sys::path::is_absolute(p)) {
    llvm::SmallString<256> base(directory);
    if (base.empty())
      llvm::sys::fs::current_path(base);
    else if (!llvm::sys::path::is_absolute(base))
      llvm::sys::fs::make_absolute(base);
    llvm::sys::path::append(base, path);
    p = base;
  }
  llvm::sys::path::remove_dots(p, /*remove_dot_dot=*/true);
  return std::string(p);
}

std::vector<std::string> includeRoots(const std::vector<std::string> &args,
                                      const std::string &mainFile,
                                      const std::string &directory) {
  std::vector<std::string> roots;
  auto add = [&](const std::string &dir) {
    if (dir.empty())
      return;
    std::string abs = absolutePathIn(directory, dir);
    while (abs.size() > 1 && abs.back() == '/')
      abs.pop_back();
    if (std::find(roots.begin(), roots.end(), abs) == roots.end())
      roots.push_back(abs);
  };
  for (size_t i = 0; i < args.size(); ++i) {
    llvm::StringRef a = args[i];
    bool hasNext = i + 1 < args.size();
    for (llvm::StringRef flag : {"-I", "-iquote", "--include-directory"}) {
      if (!a.starts_with(flag))
        continue;
      llvm::StringRef rest = a.drop_front(flag.size());
      if (rest.empty() && hasNext) {
        add(args[++i]);
      } else if (rest.starts_with("=")) {
        add(rest.drop_front().str());
      } else if (flag == "-I" && !rest.empty()) {
        add(rest.str());
      } else {
        continue;
      }
      break;
    }
  }
  add(llvm::sys::path::parent_path(absolutePathIn(directory, mainFile)).str());
  return roots;
}

namespace {

/// What the body of a host function holds, as far as detection cares.
enum class BodyUse {
  None,
  Launches, // spells a launch, or calls a function whose body does
  Helper,   // a short function returning an integer (a grid helper)
};

/// Whether `body` names one of `names` (identifiers, read from the text).
bool mentions(llvm::StringRef body, const llvm::StringSet<> &names) {
  if (names.empty())
    return false;
  auto isStart = [](char c) { return std::isalpha(c) || c == '_'; };
  auto isPart = [](char c) { return std::isalnum(c) || c == '_'; };
  for (size_t i = 0; i < body.size();) {
    if (!isStart(body[i])) {
      ++i;
      continue;
    }
    size_t end = i + 1;
    while (end < body.size() && isPart(body[end]))
      ++end;
    if (names.contains(body.slice(i, end)))
      return true;
    i = end;
  }
  return false;
}

} // namespace

/// The first `{...}` at or after `loc` in its file, braces balanced;
/// nullopt where there is none.
static std::optional<llvm::StringRef>
bracedTextAfter(const clang::SourceManager &sm, clang::SourceLocation loc) {
  if (loc.isInvalid())
    return std::nullopt;
  auto [fid, offset] = sm.getDecomposedLoc(loc);
  bool invalid = false;
  llvm::StringRef text = sm.getBufferData(fid, &invalid);
  if (invalid || offset >= text.size())
    return std::nullopt;
  size_t open = text.find('{', offset);
  if (open == llvm::StringRef::npos)
    return std::nullopt;
  int depth = 0;
  size_t close = open;
  for (; close < text.size(); ++close) {
    if (text[close] == '{')
      ++depth;
    else if (text[close] == '}' && --depth == 0)
      break;
  }
  return text.slice(open, close);
}

/// Whether `text` spells a kernel launch or names one of `launchers`.
static bool spellsLaunch(llvm::StringRef text,
                         const llvm::StringSet<> &launchers) {
  return text.contains("<<<") || text.contains("cudaLaunchKernel") ||
         text.contains("cudaLaunchCooperativeKernel") ||
         mentions(text, launchers);
}

/// Whether the body that follows the declaration of host function `d` (not
/// parsed yet) is worth parsing: it spells a kernel launch (`<<<` or a
/// cudaLaunch* call) or names a function of the project's headers whose body
/// does (an entry point calling a launcher: read, it leads to the launcher),
/// or it is a short function returning an integer, which may compute a
/// launch's grid (`GET_BLOCKS(n)`). Read from the text, braces balanced,
/// comments and literals not told apart: a body kept by mistake is only
/// parsed.
static BodyUse bodyUse(const clang::SourceManager &sm, const clang::Decl *d,
                       const llvm::StringSet<> &launchers) {
  std::optional<llvm::StringRef> body =
      bracedTextAfter(sm, sm.getExpansionLoc(d->getEndLoc()));
  if (!body)
    return BodyUse::None;
  if (spellsLaunch(*body, launchers))
    return BodyUse::Launches;
  const auto *fn = llvm::dyn_cast<clang::FunctionDecl>(d);
  return fn && body->size() < 400 &&
                 fn->getReturnType()->isIntegralOrEnumerationType()
             ? BodyUse::Helper
             : BodyUse::None;
}

/// Whether the body of `md`, a member written in its class, is worth parsing
/// because the class launches: Clang decides on each such body as it reaches
/// it, before the members written after it are declared, so a member calling
/// one written later that launches (nv-wavenet's `setInputs` calling
/// `setActivation`) cannot be told from the others. Every member of a class
/// whose text spells a launch or names a launcher is kept. Read from the
/// text, once per class.
bool BodySkipper::inLaunchingClass(const clang::SourceManager &sm,
                                   const clang::CXXMethodDecl *md) {
  const clang::CXXRecordDecl *cls = md->getParent();
  if (md->isOutOfLine() || cls->getLocation().isMacroID())
    return false;
  auto [it, inserted] = LaunchingClasses.try_emplace(cls, false);
  if (inserted)
    if (std::optional<llvm::StringRef> body =
            bracedTextAfter(sm, cls->getLocation()))
      it->second = spellsLaunch(*body, Launchers);
  return it->second;
}

bool BodySkipper::skip(const clang::SourceManager &sm, const clang::Decl *d) {
  clang::SourceLocation loc = sm.getExpansionLoc(d->getLocation());
  if (sm.isInMainFile(loc))
    return false;
  if (!Headers)
    return true;
  if (const auto *t = llvm::dyn_cast<clang::FunctionTemplateDecl>(d))
    d = t->getTemplatedDecl();
  // Constructors of plain classes too: their member initialisers tell what
  // a launch-parameter struct's fields hold.
  const auto *ctor = llvm::dyn_cast<clang::CXXConstructorDecl>(d);
  bool plainCtor = ctor && !ctor->getParent()->isDependentContext();
  bool kernel = d->hasAttr<clang::CUDAGlobalAttr>();
  clang::FileID fid = sm.getFileID(loc);
  auto [it, inserted] = Skip.try_emplace(fid, true);
  if (inserted) {
    clang::OptionalFileEntryRef entry = sm.getFileEntryRefForID(fid);
    if (entry && !sm.isInSystemHeader(loc)) {
      std::string name = entry->getName().str();
      it->second = !Headers->allows(name, absolutePathIn("", name));
    }
  }
  BodyUse use = kernel || d->hasAttr<clang::CUDADeviceAttr>()
                    ? BodyUse::None
                    : bodyUse(sm, d, Launchers);
  // Kept, but not a launcher by name: only its own class reads it first.
  bool inLauncherClass = false;
  if (const auto *md = llvm::dyn_cast<clang::CXXMethodDecl>(d);
      md && use == BodyUse::None && !it->second && !kernel &&
      !md->hasAttr<clang::CUDADeviceAttr>())
    inLauncherClass = inLaunchingClass(sm, md);
  if (!kernel && !plainCtor && !inLauncherClass && use == BodyUse::None)
    return true;
  // A kept launcher's callers are kept too (headers declare before use).
  if (!it->second && use == BodyUse::Launches)
    if (const auto *fn = llvm::dyn_cast<clang::FunctionDecl>(d);
        fn && fn->getDeclName().isIdentifier())
      Launchers.insert(fn->getName());
  return it->second;
}

} // namespace ktune::refactor
