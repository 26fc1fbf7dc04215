//===- ToolSupport.cpp - What stage 1's tools share
//------------------------===//
#include "ktune/Refactor/ToolSupport.h"

#include "ktune/Support/FileUtil.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdlib>

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
  if (auto s = writeFileAtomically(templatePath, made.text); !s)
    return s;
  return writeFileAtomically(manifestPath,
                             manifestToJson(made.manifest).dump(2) + "\n");
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
