//===- ktune/Refactor/ToolSupport.h - What stage 1's tools share -*- C++
//-*-===//
//
// The pieces ktune-refactor and `ktune run` share around the refactorer:
// errors as lines, what may be asked together, writing a template, when
// precompiled preambles are built, and the parse times.
//
//===----------------------------------------------------------------------===//
#ifndef KTUNE_REFACTOR_TOOLSUPPORT_H
#define KTUNE_REFACTOR_TOOLSUPPORT_H

#include "ktune/Refactor/CudaParser.h"
#include "ktune/Refactor/Refactorer.h"
#include "ktune/Support/Error.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/Error.h"

#include <optional>
#include <string>
#include <vector>

namespace ktune::refactor {

/// An error of the refactorer as text: Clang's diagnostics for a file that
/// does not parse (empty otherwise), then the message (plan errors come one
/// per line), also as its non-empty lines.
struct ErrorText {
  std::string diagnostics;
  std::string summary;
  std::vector<std::string> lines;
};
ErrorText errorText(llvm::Error error);

/// The path made absolute, without `.` and `..` (links are kept).
std::string absolutePath(const std::string &path);

/// The same file, through links or spelled differently (`a/../b.cu`).
bool samePath(const std::string &a, const std::string &b);

/// The output's name with its extension replaced by .json.
std::string defaultManifestPath(const std::string &output);

/// What ktune-refactor is asked to do: what it prints, what it writes.
struct RefactorActions {
  std::string input;
  bool candidates = false, dumpFacts = false, printPrompt = false;
  bool buildPreambleOnly = false, reports = false;
  std::string output, manifest, emitPlan; // files; empty = not written
  std::string planFile, plannerSpec = "heuristic";
};

/// Refuses nothing to do, printing combined with writing, two sources of
/// the plan, and an output (template, manifest, --emit-plan) that would
/// overwrite the input, or a manifest that would overwrite the template.
Status checkActions(const RefactorActions &actions);

/// Where the template and its manifest go.
struct OutputPaths {
  std::string templatePath, manifestPath; // empty: nothing written
  bool outDir = false;                    // --out-dir (headers allowed)
};
/// `-o FILE` (the manifest: `manifest`, else FILE with .json), or
/// `--out-dir DIR`: DIR/<stem>.tpl.cu (.tpl.cuh for a header input) and
/// DIR/<stem>.tpl.json. Both given is an error.
Expected<OutputPaths> outputPaths(const std::string &input,
                                  const std::string &output,
                                  const std::string &outDir,
                                  const std::string &manifest);

/// -o writes one file: an error naming the headers when the result
/// rewrites headers too.
Status checkSingleFile(const TemplateOutput &made, const OutputPaths &paths);

/// "wrote DIR/k.tpl.cu, 1 header and DIR/k.tpl.json: 2 parameters in 1
/// kernel".
std::string wroteSummary(const TemplateOutput &made, const OutputPaths &paths);

/// Writes the rewritten headers, the template and its manifest (each to a
/// temporary file, then renamed).
Status writeTemplateFiles(const TemplateOutput &made,
                          const std::string &templatePath,
                          const std::string &manifestPath);

/// "3 parameters in 1 kernel": the tunable parameters of a manifest.
std::string manifestSummary(const Manifest &manifest);

/// When a file's #include block has no cached precompiled preamble.
enum class PreambleBuild {
  Foreground, // build it before parsing
  Background, // parse without it; build it in a detached process
  Never,      // parse without it; use only existing ones
};
/// The flag when given, else $KTUNE_PREAMBLE_BUILD, else Background.
PreambleBuild preambleBuildMode(std::optional<PreambleBuild> flag);

/// Runs the tool again, detached, as `argv[0] --build-preamble-cache-only
/// argv[1...]`, so that the next run finds the preamble this one missed.
void startBackgroundPreambleBuild(int argc, const char *const *argv);

/// The parsing options of a tool's command line.
struct ParserFlags {
  std::string cudaPath;
  bool noCudaToolkit = false;
  std::string gpuArch = "sm_90";
  std::string cacheDir; // empty: the default
  bool noCache = false;
  std::optional<PreambleBuild> preambleBuild; // nullopt: the environment's
  std::optional<std::string> headerFilter;    // --header-filter
};

/// The parsing options of ktune-refactor's command line, registered in a
/// category: --cuda-path, --no-cuda-toolkit, --cuda-gpu-arch, --cache-dir,
/// --no-cache, --preamble-build and --header-filter.
class ParserCommandLine {
public:
  explicit ParserCommandLine(llvm::cl::OptionCategory &category);
  ParserFlags flags() const;

private:
  llvm::cl::opt<std::string> CudaPath, GpuArch, CacheDir, HeaderFilterRegex;
  llvm::cl::opt<bool> NoCuda, NoCache;
  llvm::cl::opt<PreambleBuild> PreambleMode;
};

/// ParserOptions for `command` (the header filter included, see
/// headerFilterFor); `mode` receives the preamble build mode.
llvm::Expected<ParserOptions> parserOptionsFor(const CompileCommand &command,
                                               const ParserFlags &flags,
                                               PreambleBuild &mode);

/// "parsed host side in 1.2 s (cached preamble), device side in 3.4 s".
std::string parseTimesText(const ParseStats &stats);

} // namespace ktune::refactor

#endif
