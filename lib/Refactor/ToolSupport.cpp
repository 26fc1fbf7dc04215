//===- ToolSupport.cpp - What stage 1's tools share -----------------------===//
//
// What the ktune-refactor and ktune drivers share (ToolSupport.h): the
// parser's options, the output paths, writing the template files, and one
// error text per failure.
//
//===----------------------------------------------------------------------===//

#include "ktune/Refactor/ToolSupport.h"

#include "ktune/Support/FileUtil.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdlib>
#include <filesystem>

namespace ktune::refactor {

ErrorText errorText(llvm::Error error) {
  ErrorText text;
  llvm::handleAllErrors(
      std::move(error),
      [&](const ParseError &e) {
        text.diagnostics = e.diagnostics();
        text.summary = e.summary();
      },
      [&](const llvm::ErrorInfoBase &e) { text.summary = e.message(); });
  llvm::StringRef rest(text.summary);
  while (!rest.empty()) {
    auto [line, next] = rest.split('\n');
    if (!line.empty())
      text.lines.push_back(line.str());
    rest = next;
  }
  return text;
}

std::string absolutePath(const std::string &path) {
  llvm::SmallString<256> p(path);
  llvm::sys::fs::make_absolute(p);
  llvm::sys::path::remove_dots(p, /*remove_dot_dot=*/true);
  return std::string(p);
}

bool samePath(const std::string &a, const std::string &b) {
  return llvm::sys::fs::equivalent(a, b) || absolutePath(a) == absolutePath(b);
}

std::string defaultManifestPath(const std::string &output) {
  llvm::SmallString<256> p(output);
  llvm::sys::path::replace_extension(p, "json");
  return std::string(p);
}

Status checkActions(const RefactorActions &a) {
  bool writes = !a.output.empty() || !a.emitPlan.empty();
  if (!a.candidates && !a.dumpFacts && !a.buildPreambleOnly && !a.printPrompt &&
      !writes && !a.reports)
    return makeError("nothing to do: give -o <file>, --candidates, "
                     "--print-prompt or --emit-plan <file> (see --help)");
  if (a.candidates && (writes || !a.planFile.empty() || a.printPrompt))
    return makeError("--candidates only prints; it cannot be combined with "
                     "-o, --plan, --emit-plan or --print-prompt");
  if (a.printPrompt && (writes || !a.planFile.empty()))
    return makeError("--print-prompt only prints; it cannot be combined with "
                     "-o, --plan or --emit-plan");
  if (a.plannerSpec != "heuristic" && !a.planFile.empty())
    return makeError("--plan and --planner " + a.plannerSpec +
                     " both say where the plan comes from; give one");
  if (!a.output.empty()) {
    if (samePath(a.output, a.input))
      return makeError("-o " + a.output +
                       " is the input file; refusing to overwrite it");
    if (samePath(a.manifest, a.input) || samePath(a.manifest, a.output))
      return makeError("the manifest path " + a.manifest +
                       " collides with the input or the output");
  }
  if (!a.emitPlan.empty() && samePath(a.emitPlan, a.input))
    return makeError("--emit-plan " + a.emitPlan + " is the input file");
  return {};
}

Status writeTemplateFiles(const TemplateOutput &made,
                          const std::string &templatePath,
                          const std::string &manifestPath) {
  auto write = [](const std::string &path, const std::string &text) {
    std::error_code ec;
    std::filesystem::path dir = std::filesystem::path(path).parent_path();
    if (!dir.empty())
      std::filesystem::create_directories(dir, ec);
    if (ec)
      return Status(
          makeError("cannot create its directory: " + ec.message(), path));
    return writeFileAtomically(path, text);
  };
  // The headers first: the manifest, written last, lists them.
  for (const auto &h : made.headers)
    if (auto s = write(h.path, h.text); !s)
      return s;
  if (auto s = write(templatePath, made.text); !s)
    return s;
  return write(manifestPath, manifestToJson(made.manifest).dump(2) + "\n");
}

static bool isHeaderName(llvm::StringRef path) {
  llvm::StringRef ext = llvm::sys::path::extension(path);
  for (llvm::StringRef h :
       {".cuh", ".h", ".hh", ".hpp", ".hxx", ".inl", ".inc"})
    if (ext.equals_insensitive(h))
      return true;
  return false;
}

Expected<OutputPaths> outputPaths(const std::string &input,
                                  const std::string &output,
                                  const std::string &outDir,
                                  const std::string &manifest) {
  OutputPaths paths;
  if (!output.empty() && !outDir.empty())
    return makeError("-o and --out-dir both say where the template goes; give "
                     "one");
  if (!outDir.empty()) {
    llvm::SmallString<256> base(outDir);
    llvm::sys::path::append(base, llvm::sys::path::stem(input));
    paths.templatePath =
        std::string(base) + (isHeaderName(input) ? ".tpl.cuh" : ".tpl.cu");
    paths.manifestPath = std::string(base) + ".tpl.json";
    paths.outDir = true;
  } else if (!output.empty()) {
    paths.templatePath = output;
    paths.manifestPath = defaultManifestPath(output);
  }
  if (!manifest.empty() && !paths.templatePath.empty())
    paths.manifestPath = manifest;
  return paths;
}

Status checkSingleFile(const TemplateOutput &made, const OutputPaths &paths) {
  if (paths.outDir || made.headers.empty())
    return {};
  std::string names;
  for (const auto &h : made.headers)
    names += (names.empty() ? "" : ", ") + h.original;
  return makeError(
      "the plan rewrites " +
      std::string(made.headers.size() == 1 ? "a header" : "headers") +
      " too (" + names + "): -o writes one file; use --out-dir DIR");
}

std::string wroteSummary(const TemplateOutput &made, const OutputPaths &paths) {
  size_t n = made.headers.size();
  std::string headers = n == 0
                            ? " and "
                            : ", " + std::to_string(n) +
                                  (n == 1 ? " header" : " headers") + " and ";
  return "wrote " + paths.templatePath + headers + paths.manifestPath + ": " +
         manifestSummary(made.manifest);
}

std::string manifestSummary(const Manifest &manifest) {
  size_t params = 0, kernels = manifest.kernels.size();
  for (const auto &k : manifest.kernels)
    params += k.tunableParams().size();
  return std::to_string(params) + " parameter" + (params == 1 ? "" : "s") +
         " in " + std::to_string(kernels) + " kernel" +
         (kernels == 1 ? "" : "s");
}

PreambleBuild preambleBuildMode(std::optional<PreambleBuild> flag) {
  if (flag)
    return *flag;
  const char *env = std::getenv("KTUNE_PREAMBLE_BUILD");
  std::string value = env ? env : "";
  return value == "foreground" ? PreambleBuild::Foreground
         : value == "never"    ? PreambleBuild::Never
                               : PreambleBuild::Background;
}

void startBackgroundPreambleBuild(int argc, const char *const *argv) {
  static int anchor;
  std::string exe =
      llvm::sys::fs::getMainExecutable(argv[0], static_cast<void *>(&anchor));
  std::vector<llvm::StringRef> args{exe, "--build-preamble-cache-only"};
  args.insert(args.end(), argv + 1, argv + argc);
  std::optional<llvm::StringRef> toNull[] = {
      llvm::StringRef(), llvm::StringRef(), llvm::StringRef()};
  std::string error;
  llvm::sys::ExecuteNoWait(exe, args, std::nullopt, toNull, 0, &error);
}

namespace cl = llvm::cl;

ParserCommandLine::ParserCommandLine(cl::OptionCategory &category)
    : CudaPath("cuda-path",
               cl::desc("CUDA toolkit to parse against (default: found "
                        "automatically)"),
               cl::value_desc("dir"), cl::cat(category)),
      GpuArch("cuda-gpu-arch",
              cl::desc("Architecture of the device-side parse (default sm_90)"),
              cl::init("sm_90"), cl::cat(category)),
      CacheDir("cache-dir",
               cl::desc("Where precompiled preambles are kept (default: "
                        "$KTUNE_CACHE_DIR/preamble or "
                        "~/.cache/ktune/preamble)"),
               cl::value_desc("dir"), cl::cat(category)),
      HeaderFilterRegex(
          "header-filter",
          cl::desc("Headers a kernel may be followed into and rewritten in "
                   "(a regular expression, as clang-tidy's; default: those "
                   "under the project's -I directories and the main file's)"),
          cl::value_desc("regex"), cl::cat(category)),
      NoCuda("no-cuda-toolkit",
             cl::desc("Parse with ktune's shim header instead of a CUDA "
                      "toolkit"),
             cl::cat(category)),
      NoCache("no-cache", cl::desc("Do not use or write precompiled preambles"),
              cl::cat(category)),
      PreambleMode(
          "preamble-build",
          cl::desc("When a file's #include block has no cached precompiled "
                   "preamble (default: $KTUNE_PREAMBLE_BUILD or background)"),
          cl::values(clEnumValN(PreambleBuild::Foreground, "foreground",
                                "build it before parsing (slower first run)"),
                     clEnumValN(PreambleBuild::Background, "background",
                                "parse without it, then build it in a "
                                "detached process for the next run"),
                     clEnumValN(PreambleBuild::Never, "never",
                                "parse without it; use only existing ones")),
          cl::cat(category)) {}

ParserFlags ParserCommandLine::flags() const {
  ParserFlags f;
  f.cudaPath = CudaPath;
  f.noCudaToolkit = NoCuda;
  f.gpuArch = GpuArch;
  f.cacheDir = CacheDir;
  f.noCache = NoCache;
  if (PreambleMode.getNumOccurrences())
    f.preambleBuild = PreambleMode.getValue();
  if (HeaderFilterRegex.getNumOccurrences())
    f.headerFilter = HeaderFilterRegex;
  return f;
}

llvm::Expected<ParserOptions> parserOptionsFor(const CompileCommand &command,
                                               const ParserFlags &flags,
                                               PreambleBuild &mode) {
  ParserOptions options;
  options.cudaPath = flags.cudaPath;
  options.noCudaToolkit = flags.noCudaToolkit;
  options.gpuArch = flags.gpuArch;
  if (!flags.noCache)
    options.cacheDir =
        flags.cacheDir.empty() ? defaultCacheDir() : flags.cacheDir;
  mode = preambleBuildMode(flags.preambleBuild);
  options.buildPreambleOnMiss = mode == PreambleBuild::Foreground;
  auto headers = headerFilterFor(command, options, flags.headerFilter);
  if (!headers)
    return headers.takeError();
  options.headers = std::move(*headers);
  return options;
}

std::string parseTimesText(const ParseStats &stats) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << "parsed host side in " << stats.seconds[0] << " s"
     << (stats.preambleReused[0] ? " (cached preamble)" : "")
     << ", device side in " << stats.seconds[1] << " s"
     << (stats.preambleReused[1] ? " (cached preamble)" : "");
  return os.str();
}

} // namespace ktune::refactor
