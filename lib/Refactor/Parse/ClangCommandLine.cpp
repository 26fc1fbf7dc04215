//===- ClangCommandLine.cpp - The command line Clang parses a side with ---===//
//
// Where the CUDA toolkit, ktune's share directory (compatibility headers)
// and Clang's resource directory are, and the Clang command line of one
// compilation side built from the project's compile command.
//
//===----------------------------------------------------------------------===//

#include "ktune/Refactor/CompileCommand.h"
#include "ktune/Refactor/CudaParser.h"
#include "ktune/Refactor/HeaderFilter.h"

#include "ParseInternal.h"

#include "clang/Basic/Version.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Support/xxhash.h"

#include <cstdlib>
#include <map>

#ifndef KTUNE_CLANG_RESOURCE_DIR
#define KTUNE_CLANG_RESOURCE_DIR ""
#endif
#ifndef KTUNE_SOURCE_SHARE_DIR
#define KTUNE_SOURCE_SHARE_DIR ""
#endif
#ifndef KTUNE_DEFAULT_CUDA_PATH
#define KTUNE_DEFAULT_CUDA_PATH ""
#endif

namespace ktune::refactor {

std::string_view sideName(CudaSide side) {
  return side == CudaSide::Host ? "host" : "device";
}

static bool isDirectory(const std::string &p) {
  return !p.empty() && llvm::sys::fs::is_directory(p);
}

static bool isToolkit(const std::string &p) {
  return isDirectory(p) && llvm::sys::fs::exists(p + "/include/cuda_runtime.h");
}

std::optional<std::string> findCudaToolkit(const std::string &explicitPath) {
  if (!explicitPath.empty())
    return isToolkit(explicitPath) ? std::optional(explicitPath) : std::nullopt;
  for (const char *var : {"CUDA_PATH", "CUDA_HOME"})
    if (const char *v = std::getenv(var); v && isToolkit(v))
      return std::string(v);
  for (std::string p :
       {std::string(KTUNE_DEFAULT_CUDA_PATH), std::string("/usr/local/cuda")})
    if (isToolkit(p))
      return p;
  if (auto nvcc = llvm::sys::findProgramByName("nvcc")) {
    llvm::SmallString<256> real;
    if (!llvm::sys::fs::real_path(*nvcc, real)) {
      std::string root =
          llvm::sys::path::parent_path(llvm::sys::path::parent_path(real))
              .str();
      if (isToolkit(root))
        return root;
    }
  }
  return std::nullopt;
}

static int anchorForExecutablePath;

std::string findShareDir() {
  if (const char *v = std::getenv("KTUNE_SHARE_DIR"); v && isDirectory(v))
    return v;
  std::string exe = llvm::sys::fs::getMainExecutable(
      "ktune-refactor", static_cast<void *>(&anchorForExecutablePath));
  if (!exe.empty()) {
    llvm::SmallString<256> p(llvm::sys::path::parent_path(exe));
    llvm::sys::path::append(p, "..", "share", "ktune");
    llvm::sys::path::remove_dots(p, /*remove_dot_dot=*/true);
    if (isDirectory(std::string(p) + "/cuda-compat"))
      return std::string(p);
    // A build directory inside the source tree: <src>/build/bin/tool.
    p = llvm::sys::path::parent_path(exe);
    llvm::sys::path::append(p, "..", "..", "share", "ktune");
    llvm::sys::path::remove_dots(p, /*remove_dot_dot=*/true);
    if (isDirectory(std::string(p) + "/cuda-compat"))
      return std::string(p);
  }
  return KTUNE_SOURCE_SHARE_DIR;
}

std::string defaultCacheDir() {
  if (const char *v = std::getenv("KTUNE_CACHE_DIR"); v && *v)
    return std::string(v) + "/preamble";
  if (const char *v = std::getenv("XDG_CACHE_HOME"); v && *v)
    return std::string(v) + "/ktune/preamble";
  if (const char *v = std::getenv("HOME"); v && *v)
    return std::string(v) + "/.cache/ktune/preamble";
  return {};
}

static std::string resourceDir(const ParserOptions &options) {
  if (!options.resourceDir.empty())
    return options.resourceDir;
  // A binary carried to a machine without LLVM (KTUNE_STATIC_CLANG) finds
  // clang's builtin headers where this says.
  if (const char *v = std::getenv("KTUNE_CLANG_RESOURCE_DIR"); v && *v)
    return v;
  // Headers packaged beside the tool (scripts/package-gpu.sh) come before
  // the build machine's Clang: they are the ones the binary was made with.
  std::string exe = llvm::sys::fs::getMainExecutable(
      "ktune-refactor", static_cast<void *>(&anchorForExecutablePath));
  llvm::SmallString<256> p(llvm::sys::path::parent_path(exe));
  llvm::sys::path::append(p, "..", "lib", "clang",
                          std::to_string(CLANG_VERSION_MAJOR));
  llvm::sys::path::remove_dots(p, /*remove_dot_dot=*/true);
  if (isDirectory(std::string(p) + "/include") ||
      !isDirectory(KTUNE_CLANG_RESOURCE_DIR))
    return std::string(p);
  return KTUNE_CLANG_RESOURCE_DIR;
}

/// Arguments given after `--` go to Clang as they are, except those that
/// would change what kind of job runs.
static std::vector<std::string>
filterUserArgs(const std::vector<std::string> &args) {
  std::vector<std::string> out;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string &a = args[i];
    if (a == "-o" || a == "-x") {
      ++i;
      continue;
    }
    if (a == "-c" || a == "-S" || a == "-E" || a == "-fsyntax-only" ||
        a == "--cuda-host-only" || a == "--cuda-device-only" ||
        (a.rfind("-o", 0) == 0 && a.size() > 2))
      continue;
    out.push_back(a);
  }
  return out;
}

static bool hasPrefixArg(const std::vector<std::string> &args,
                         std::string_view prefix) {
  for (const auto &a : args)
    if (a.rfind(prefix, 0) == 0)
      return true;
  return false;
}

/// The headers Clang's CUDA wrapper includes by quoted name ("cuda.h", ...).
static std::vector<std::string> wrapperQuotedIncludes(const std::string &res) {
  std::vector<std::string> names;
  auto buffer = llvm::MemoryBuffer::getFile(
      res + "/include/__clang_cuda_runtime_wrapper.h");
  if (!buffer)
    return names;
  llvm::SmallVector<llvm::StringRef> lines;
  (*buffer)->getBuffer().split(lines, '\n');
  for (llvm::StringRef line : lines) {
    line = line.trim();
    if (!line.consume_front("#include \""))
      continue;
    names.push_back(line.take_until([](char c) { return c == '"'; }).str());
  }
  return names;
}

/// The wrapper's headers a project include directory also has (a
/// project's own "cuda.h"). nvcc never includes those names itself;
/// Clang's wrapper would get the project's.
static std::vector<std::string>
shadowedWrapperHeaders(const std::vector<std::string> &user,
                       const CompileCommand &command,
                       const std::string &resource, const std::string &cuda) {
  std::vector<std::string> dirs =
      includeRoots(user, command.file, command.directory);
  std::vector<std::string> shadowed;
  for (const std::string &name : wrapperQuotedIncludes(resource))
    if (llvm::sys::fs::exists(cuda + "/include/" + name))
      for (const std::string &dir : dirs)
        if (llvm::sys::fs::exists(dir + "/" + name)) {
          shadowed.push_back(name);
          break;
        }
  return shadowed;
}

/// Writes `text` once under the temporary directory, named by its hash.
static llvm::Expected<std::string> temporaryFile(llvm::StringRef stem,
                                                 llvm::StringRef extension,
                                                 const std::string &text) {
  llvm::SmallString<256> path;
  llvm::sys::path::system_temp_directory(/*ErasedOnReboot=*/true, path);
  llvm::sys::path::append(path, stem + llvm::utohexstr(llvm::xxh3_64bits(text)) +
                                    extension);
  if (llvm::sys::fs::exists(path))
    return std::string(path);
  std::error_code ec;
  llvm::raw_fd_ostream out(path, ec);
  if (ec)
    return llvm::createStringError("cannot write " + std::string(path) +
                                   ": " + ec.message());
  out << text;
  return std::string(path);
}

/// The names the project's command line defines as macros (`-DN=64`),
/// reserved ones (`_FORCE_INLINES`) aside.
static std::vector<std::string>
commandLineMacros(const std::vector<std::string> &user) {
  std::vector<std::string> names;
  for (size_t i = 0; i < user.size(); ++i) {
    llvm::StringRef a = user[i];
    if (a == "-D" && i + 1 < user.size())
      a = user[++i];
    else if (!a.consume_front("-D"))
      continue;
    llvm::StringRef name = a.take_until([](char c) { return c == '='; });
    if (!name.empty() && name.front() != '_' &&
        llvm::all_of(name, [](char c) { return llvm::isAlnum(c) || c == '_'; }))
      names.push_back(name.str());
  }
  return names;
}

/// Of `macros`, those `header` spells as a plain identifier (a parameter
/// name, `size_t N`) and never tests or defines.
static std::vector<std::string>
macrosClashingWith(const std::vector<std::string> &macros,
                   const std::string &header) {
  auto buffer = llvm::MemoryBuffer::getFile(header);
  if (!buffer)
    return {};
  llvm::StringSet<> inCode, inDirectives;
  llvm::SmallVector<llvm::StringRef> lines;
  (*buffer)->getBuffer().split(lines, '\n');
  bool directive = false; // a directive continues after a backslash
  for (llvm::StringRef line : lines) {
    directive = directive || line.ltrim().starts_with("#");
    llvm::StringSet<> &into = directive ? inDirectives : inCode;
    for (size_t at = 0; at < line.size();) {
      if (!llvm::isAlpha(line[at]) && line[at] != '_') {
        ++at;
        continue;
      }
      size_t end = at;
      while (end < line.size() &&
             (llvm::isAlnum(line[end]) || line[end] == '_'))
        ++end;
      into.insert(line.slice(at, end));
      at = end;
    }
    directive = directive && line.rtrim().ends_with("\\");
  }
  std::vector<std::string> clash;
  for (const std::string &m : macros)
    if (inCode.contains(m) && !inDirectives.contains(m))
      clash.push_back(m);
  return clash;
}

/// `header` (included by its absolute path `original`) without `macros`.
static llvm::Expected<std::string>
guardedHeader(const std::vector<std::string> &macros,
              const std::string &original) {
  std::string text = "// ktune: " + original +
                     " without the project's command-line macros it would "
                     "misread\n// (Clang's CUDA wrapper includes it; nvcc "
                     "does not).\n";
  for (const std::string &m : macros)
    text += "#pragma push_macro(\"" + m + "\")\n#undef " + m + "\n";
  text += "#include \"" + original + "\"\n";
  for (const std::string &m : macros)
    text += "#pragma pop_macro(\"" + m + "\")\n";
  return temporaryFile("ktune-guarded-header-", ".h", text);
}

/// Clang's CUDA wrapper includes headers nvcc's compilation never reads:
/// the toolkit's cuda.h (for CUDA_VERSION) and Clang's own __clang_cuda_*
/// headers. A project macro defined on the command line (`-DN=64`, RWKV's
/// kernels) that one of them spells as an identifier would break it; each
/// such header is read through a copy that keeps those macros out. Fills
/// `beside` (the overlay's entries).
static llvm::Error
guardWrapperHeaders(const std::vector<std::string> &user,
                    const std::string &resource, const std::string &cuda,
                    std::map<std::string, std::string> &beside) {
  std::vector<std::string> macros = commandLineMacros(user);
  if (macros.empty())
    return llvm::Error::success();
  std::vector<std::pair<std::string, std::string>> headers = {
      {"cuda.h", cuda + "/include/cuda.h"}};
  std::error_code ec;
  for (llvm::sys::fs::directory_iterator it(resource + "/include", ec), end;
       it != end && !ec; it.increment(ec)) {
    std::string name = llvm::sys::path::filename(it->path()).str();
    if (llvm::StringRef(name).starts_with("__clang_cuda_"))
      headers.emplace_back(name, it->path());
  }
  for (const auto &[name, path] : headers) {
    std::vector<std::string> clash = macrosClashingWith(macros, path);
    if (clash.empty())
      continue;
    // Clang's own header is overlaid where it is: read through a copy.
    std::string original = path;
    if (name != "cuda.h") {
      auto text = llvm::MemoryBuffer::getFile(path);
      if (!text)
        continue;
      auto copy = temporaryFile("ktune-original-" + name + "-", ".h",
                                (*text)->getBuffer().str());
      if (!copy)
        return copy.takeError();
      original = *copy;
    }
    auto guarded = guardedHeader(clash, original);
    if (!guarded)
      return guarded.takeError();
    beside[name] = *guarded;
  }
  return llvm::Error::success();
}

/// A VFS overlay that puts a header beside Clang's wrapper, where the
/// wrapper's quoted include looks first (the project's own includes never
/// look there): the toolkit's copy of each shadowed header, or a guarded
/// cuda.h. Written once per content, in the temporary directory.
static llvm::Expected<std::string>
wrapperOverlay(const std::map<std::string, std::string> &files,
               const std::string &resource) {
  std::string yaml = "{'version': 0, 'roots': [{'name': '" + resource +
                     "/include', 'type': 'directory', 'contents': [";
  bool first = true;
  for (const auto &[name, external] : files) {
    yaml += std::string(first ? "" : ", ") + "{'name': '" + name +
            "', 'type': 'file', 'external-contents': '" + external + "'}";
    first = false;
  }
  yaml += "]}]}\n";
  return temporaryFile("ktune-wrapper-overlay-", ".yaml", yaml);
}

llvm::Expected<std::vector<std::string>>
clangCommandLine(const CompileCommand &command, const ParserOptions &options,
                 CudaSide side) {
  TranslatedFlags flags =
      command.fromDatabase
          ? translateCompileFlags(command.args, command.directory)
          : translateCompileFlags(filterUserArgs(command.args),
                                  command.directory, /*keepUnknown=*/true);
  const std::vector<std::string> &user = flags.args;
  std::string share =
      options.shareDir.empty() ? findShareDir() : options.shareDir;
  if (!isDirectory(share + "/cuda-compat"))
    return llvm::createStringError(
        "cannot find ktune's share/ktune/cuda-compat directory (looked in '" +
        share + "'); set KTUNE_SHARE_DIR");

  std::vector<std::string> cl{"clang-tool", "-x", "cuda"};
  if (!hasPrefixArg(user, "-std="))
    cl.push_back("-std=c++17");
  cl.push_back("-fsyntax-only");
  cl.push_back("-Wno-unknown-cuda-version");
  // A header given as the input file (its #pragma once is no mistake).
  cl.push_back("-Wno-pragma-once-outside-header");
  // `register` is gone from C++17; nvcc still takes it (HPC codes use it).
  cl.push_back("-Wno-register");
  cl.push_back("-resource-dir");
  cl.push_back(resourceDir(options));

  bool userChoseToolkit =
      hasPrefixArg(user, "--cuda-path") || hasPrefixArg(user, "-nocudainc");
  if (!userChoseToolkit) {
    std::optional<std::string> cuda;
    if (!options.noCudaToolkit) {
      cuda = findCudaToolkit(options.cudaPath);
      if (!cuda && !options.cudaPath.empty())
        return llvm::createStringError("no CUDA toolkit at --cuda-path '" +
                                       options.cudaPath + "'");
    }
    if (cuda) {
      cl.push_back("--cuda-path=" + *cuda);
      std::string resource = resourceDir(options);
      std::map<std::string, std::string> beside;
      for (const std::string &name :
           shadowedWrapperHeaders(user, command, resource, *cuda))
        beside[name] = *cuda + "/include/" + name;
      if (llvm::Error e = guardWrapperHeaders(user, resource, *cuda, beside))
        return std::move(e);
      if (!beside.empty()) {
        auto overlay = wrapperOverlay(beside, resource);
        if (!overlay)
          return overlay.takeError();
        cl.push_back("-ivfsoverlay");
        cl.push_back(*overlay);
      }
      cl.push_back("-isystem");
      cl.push_back(share + "/cuda-compat");
      if (isDirectory(*cuda + "/include/cccl")) {
        cl.push_back("-isystem");
        cl.push_back(*cuda + "/include/cccl");
      }
    } else {
      cl.push_back("-nocudainc");
      cl.push_back("-nocudalib");
      cl.push_back("-include");
      cl.push_back(share + "/cuda-shim/ktune_cuda_shim.h");
    }
    // What nvcc's implicit includes declare and Clang's CUDA headers do
    // not; headers nvcc's host compiler finds on its own path (omp.h) are
    // looked for last.
    cl.push_back("-include");
    cl.push_back(share + "/cuda-compat/ktune_clang_cuda_intrinsics.h");
    cl.push_back("-include");
    cl.push_back(share + "/cuda-compat/ktune_nvcc_implicit.h");
    cl.push_back("-idirafter");
    cl.push_back(share + "/cuda-compat/host-fallback");
  }
  if (side == CudaSide::Host) {
    cl.push_back("--cuda-host-only");
  } else {
    cl.push_back("--cuda-device-only");
    // nvcc preprocesses the device side with the host compiler's -fopenmp
    // too; Clang's device side ignores it: the macro, as the host side has
    // it.
    if (flags.openmp)
      cl.push_back("-D_OPENMP=202011");
    cl.push_back("--cuda-gpu-arch=" +
                 chooseGpuArch(flags.gpuArchs, options.gpuArch)
                     .value_or(options.gpuArch));
  }
  cl.insert(cl.end(), user.begin(), user.end());
  cl.push_back(command.file);
  return cl;
}

} // namespace ktune::refactor
