//===- ktune-refactor.cpp - Stage 1 driver
//---------------------------------===//
//
// Lifts hardcoded tuning constants of CUDA kernels into template parameters.
// Options are parsed here; the work is in lib/Refactor.
//
//===----------------------------------------------------------------------===//

#include "ktune/Plan/Candidates.h"
#include "ktune/Plan/Manifest.h"
#include "ktune/Plan/Plan.h"
#include "ktune/Planner/PlanWithValidation.h"
#include "ktune/Planner/Prompt.h"
#include "ktune/Refactor/Refactorer.h"
#include "ktune/Support/FileUtil.h"
#include "ktune/Tidy/Export.h"

#include "clang/Tooling/CommonOptionsParser.h"
#include "clang/Tooling/CompilationDatabase.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <iostream>

using namespace ktune;
using namespace ktune::refactor;
namespace cl = llvm::cl;

static cl::OptionCategory Category("ktune-refactor options");

static cl::extrahelp MoreHelp(R"(
Examples:
  ktune-refactor kernel.cu -o kernel.tpl.cu           heuristic plan; writes
                                                      kernel.tpl.cu + kernel.tpl.json
  ktune-refactor kernel.cu --candidates               what could be lifted (JSON)
  ktune-refactor kernel.cu --emit-plan plan.json      the heuristic plan, to edit
  ktune-refactor kernel.cu --plan plan.json -o kernel.tpl.cu
  ktune-refactor kernel.cu -o kernel.tpl.cu --planner 'command:./my-agent --json'
  ktune-refactor kernel.cu -o kernel.tpl.cu --planner openai:http://127.0.0.1:8000/v1 --model qwen2.5-coder
  ktune-refactor kernel.cu --print-prompt             what a text planner would be sent
  ktune-refactor -p build/ src/act.cu -o act.tpl.cu   flags from compile_commands.json
  ktune-refactor kernel.cu -o out.cu -- -Iinclude -DFOO=1

Text planners' replies are validated like --plan files; a refused plan is
sent back once with the reasons, then the heuristic plan is used. Exchanges
are saved in <output>.planner/. The API key comes from KTUNE_API_KEY or
OPENAI_API_KEY only.

Documentation: docs/refactor.md, docs/llm-planners.md; JSON schemas:
docs/schemas.md.
)");

static cl::opt<std::string> Output("o",
                                   cl::desc("Write the template source here"),
                                   cl::value_desc("file"), cl::cat(Category));
static cl::opt<std::string>
    ManifestPath("manifest",
                 cl::desc("Write the manifest here (default: the output with "
                          "its extension replaced by .json)"),
                 cl::value_desc("file"), cl::cat(Category));
static cl::opt<bool> Candidates("candidates",
                                cl::desc("Print the candidates as JSON to "
                                         "stdout; write nothing"),
                                cl::cat(Category));
static cl::opt<std::string> PlanFile("plan",
                                     cl::desc("Apply this plan instead of the "
                                              "built-in heuristic one"),
                                     cl::value_desc("plan.json"),
                                     cl::cat(Category));
static cl::opt<std::string> EmitPlan("emit-plan",
                                     cl::desc("Write the plan that would be "
                                              "applied (for editing)"),
                                     cl::value_desc("plan.json"),
                                     cl::cat(Category));
static cl::opt<std::string>
    PlannerSpec("planner",
                cl::desc("Who writes the plan: heuristic (default), "
                         "command:<command line>, openai:<base URL>"),
                cl::value_desc("planner"), cl::init("heuristic"),
                cl::cat(Category));
static cl::opt<std::string> Model("model",
                                  cl::desc("Model name for an openai: planner "
                                           "(default: $KTUNE_MODEL)"),
                                  cl::value_desc("name"), cl::cat(Category));
static cl::opt<double>
    PlannerTimeout("planner-timeout",
                   cl::desc("Seconds a text planner may take per exchange "
                            "(default: $KTUNE_PLANNER_TIMEOUT or 300)"),
                   cl::value_desc("seconds"), cl::cat(Category));
static cl::opt<bool> PrintPrompt("print-prompt",
                                 cl::desc("Print the prompt a text planner "
                                          "would be sent; write nothing"),
                                 cl::cat(Category));
static cl::opt<std::string> CudaPath("cuda-path",
                                     cl::desc("CUDA toolkit to parse against "
                                              "(default: found automatically)"),
                                     cl::value_desc("dir"), cl::cat(Category));
static cl::opt<bool> NoCuda("no-cuda-toolkit",
                            cl::desc("Parse with ktune's shim header instead "
                                     "of a CUDA toolkit"),
                            cl::cat(Category));
static cl::opt<std::string> GpuArch("cuda-gpu-arch",
                                    cl::desc("Architecture of the device-side "
                                             "parse (default sm_90)"),
                                    cl::init("sm_90"), cl::cat(Category));
static cl::opt<std::string>
    CacheDir("cache-dir",
             cl::desc("Where precompiled preambles are kept (default: "
                      "$KTUNE_CACHE_DIR/preamble or ~/.cache/ktune/preamble)"),
             cl::value_desc("dir"), cl::cat(Category));
static cl::opt<bool> NoCache("no-cache",
                             cl::desc("Do not use or write precompiled "
                                      "preambles"),
                             cl::cat(Category));
enum class PreambleBuild { Foreground, Background, Never };
static cl::opt<PreambleBuild> PreambleMode(
    "preamble-build",
    cl::desc("When a file's #include block has no cached precompiled "
             "preamble (default: $KTUNE_PREAMBLE_BUILD or background)"),
    cl::values(clEnumValN(PreambleBuild::Foreground, "foreground",
                          "build it before parsing (slower first run)"),
               clEnumValN(PreambleBuild::Background, "background",
                          "parse without it, then build it in a detached "
                          "process for the next run"),
               clEnumValN(PreambleBuild::Never, "never",
                          "parse without it; use only existing ones")),
    cl::cat(Category));
static cl::opt<bool>
    BuildPreambleOnly("build-preamble-cache-only",
                      cl::desc("Only build the preamble cache (what the "
                               "background build runs)"),
                      cl::Hidden, cl::cat(Category));
static cl::opt<bool> Stats("timings", cl::desc("Print parse times to stderr"),
                           cl::cat(Category));

static cl::opt<bool> DumpFacts("dump-facts",
                               cl::desc("Print what detection read off the "
                                        "AST, as JSON (for debugging)"),
                               cl::Hidden, cl::cat(Category));

// Machine-readable findings (lib/Tidy/Export.cpp).
static cl::opt<std::string>
    ExportFixes("export-fixes",
                cl::desc("Write the findings and the plan's edits as "
                         "clang-tidy YAML, for clang-apply-replacements"),
                cl::value_desc("file.yaml"), cl::cat(Category));
static cl::opt<std::string> Sarif("sarif",
                                  cl::desc("Write the findings as SARIF 2.1.0"),
                                  cl::value_desc("file.sarif"),
                                  cl::cat(Category));
static cl::opt<bool>
    Warnings("warnings",
             cl::desc("Print each finding as 'file:line:col: warning: ... "
                      "[ktune-...]' on stderr"),
             cl::cat(Category));

static int fail(const std::string &message) {
  llvm::errs() << "ktune-refactor: error: " << message << "\n";
  return 1;
}

/// Prints an error from the library: parse errors carry Clang's
/// diagnostics, plan errors one line per problem.
static int fail(llvm::Error error) {
  std::string summary;
  llvm::handleAllErrors(
      std::move(error),
      [&](const ParseError &e) {
        llvm::errs() << e.diagnostics();
        summary = e.summary();
      },
      [&](const llvm::ErrorInfoBase &e) { summary = e.message(); });
  size_t start = 0;
  while (start <= summary.size()) {
    size_t end = summary.find('\n', start);
    if (end == std::string::npos)
      end = summary.size();
    if (end > start)
      llvm::errs() << "ktune-refactor: error: "
                   << summary.substr(start, end - start) << "\n";
    start = end + 1;
  }
  return 1;
}

static bool samePath(const std::string &a, const std::string &b) {
  if (llvm::sys::fs::equivalent(a, b))
    return true;
  llvm::SmallString<256> pa(a), pb(b);
  llvm::sys::fs::make_absolute(pa);
  llvm::sys::fs::make_absolute(pb);
  llvm::sys::path::remove_dots(pa, true);
  llvm::sys::path::remove_dots(pb, true);
  return pa == pb;
}

static std::string defaultManifestPath(const std::string &output) {
  llvm::SmallString<256> p(output);
  llvm::sys::path::replace_extension(p, "json");
  return std::string(p);
}

/// Value of `-p` before `--`, if given.
static std::optional<std::string> buildPathArg(int argc, const char **argv) {
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--")
      break;
    for (const char *flag : {"-p", "--p"}) {
      std::string f = flag;
      if (a == f && i + 1 < argc)
        return std::string(argv[i + 1]);
      if (a.rfind(f + "=", 0) == 0)
        return a.substr(f.size() + 1);
    }
  }
  return std::nullopt;
}

/// Builds the preamble cache in a detached process, so this run stays fast
/// and the next one finds it (same arguments, plus the hidden flag).
static void
startBackgroundPreambleBuild(const std::vector<const char *> &args) {
  static int anchor;
  std::string exe =
      llvm::sys::fs::getMainExecutable(args[0], static_cast<void *>(&anchor));
  std::vector<llvm::StringRef> argv{exe, "--build-preamble-cache-only"};
  for (size_t i = 1; i < args.size(); ++i)
    argv.push_back(args[i]);
  std::optional<llvm::StringRef> toNull[] = {
      llvm::StringRef(), llvm::StringRef(), llvm::StringRef()};
  std::string err;
  llvm::sys::ExecuteNoWait(exe, argv, std::nullopt, toNull, 0, &err);
}

int main(int argc, const char **argv) {
  // Without -p or `--`, look for compile_commands.json above the source
  // like clang-tidy does, and fall back to no flags silently.
  std::vector<const char *> args(argv, argv + argc);
  bool hasDashDash = false;
  for (int i = 1; i < argc; ++i)
    hasDashDash |= std::strcmp(argv[i], "--") == 0;
  auto buildPath = buildPathArg(argc, argv);
  bool fromDatabase = false;
  if (buildPath) {
    std::string err;
    // The database must be in that directory (not found in a parent).
    if (!clang::tooling::CompilationDatabase::loadFromDirectory(*buildPath,
                                                                err))
      return fail("cannot load a compilation database from '" + *buildPath +
                  "': " + err);
    fromDatabase = true;
  } else if (!hasDashDash) {
    std::string source;
    for (int i = 1; i < argc; ++i)
      if (argv[i][0] != '-' &&
          !(i > 1 && (std::strcmp(argv[i - 1], "-o") == 0 ||
                      std::strcmp(argv[i - 1], "--plan") == 0 ||
                      std::strcmp(argv[i - 1], "--emit-plan") == 0 ||
                      std::strcmp(argv[i - 1], "--manifest") == 0 ||
                      std::strcmp(argv[i - 1], "--planner") == 0 ||
                      std::strcmp(argv[i - 1], "--model") == 0 ||
                      std::strcmp(argv[i - 1], "--planner-timeout") == 0 ||
                      std::strcmp(argv[i - 1], "--cuda-path") == 0 ||
                      std::strcmp(argv[i - 1], "--cache-dir") == 0 ||
                      std::strcmp(argv[i - 1], "--export-fixes") == 0 ||
                      std::strcmp(argv[i - 1], "--sarif") == 0))) {
        source = argv[i];
        break;
      }
    std::string err;
    if (!source.empty() &&
        clang::tooling::CompilationDatabase::autoDetectFromSource(source, err))
      fromDatabase = true;
    else
      args.push_back("--");
  }
  int n = static_cast<int>(args.size());
  auto parser = clang::tooling::CommonOptionsParser::create(
      n, args.data(), Category, cl::Required,
      "ktune-refactor: lift hardcoded tuning constants of CUDA kernels into "
      "template parameters\n");
  if (!parser)
    return fail(parser.takeError());
  const auto &sources = parser->getSourcePathList();
  if (sources.size() != 1)
    return fail("give exactly one CUDA source file");
  const std::string &input = sources.front();
  if (!llvm::sys::fs::exists(input))
    return fail(input + ": no such file");

  bool reports = !ExportFixes.empty() || !Sarif.empty() || Warnings;
  if (!Candidates && !DumpFacts && !BuildPreambleOnly && !PrintPrompt &&
      Output.empty() && EmitPlan.empty() && !reports)
    return fail("nothing to do: give -o <file>, --candidates, --print-prompt "
                "or --emit-plan <file> (see --help)");
  if (Candidates && (!Output.empty() || !EmitPlan.empty() ||
                     !PlanFile.empty() || PrintPrompt))
    return fail("--candidates only prints; it cannot be combined with -o, "
                "--plan, --emit-plan or --print-prompt");
  if (PrintPrompt && (!Output.empty() || !EmitPlan.empty() || !PlanFile.empty()))
    return fail("--print-prompt only prints; it cannot be combined with -o, "
                "--plan or --emit-plan");
  bool textPlanner = PlannerSpec != "heuristic";
  if (textPlanner && !PlanFile.empty())
    return fail("--plan and --planner " + PlannerSpec +
                " both say where the plan comes from; give one");

  // The planner is set up before parsing so that a bad --planner is reported
  // at once.
  auto plannerOptions = planner::plannerOptionsFromEnvironment();
  if (!plannerOptions)
    return fail(plannerOptions.error().str());
  if (!Model.empty())
    plannerOptions->model = Model;
  if (PlannerTimeout.getNumOccurrences()) {
    if (!(PlannerTimeout > 0))
      return fail("--planner-timeout must be a positive number of seconds");
    plannerOptions->timeoutSeconds = PlannerTimeout;
  }
  auto chosenPlanner = planner::parsePlannerSpec(PlannerSpec, *plannerOptions);
  if (!chosenPlanner)
    return fail("--planner: " + chosenPlanner.error().str());
  std::string manifestPath =
      ManifestPath.empty() ? defaultManifestPath(Output) : ManifestPath;
  if (!Output.empty()) {
    if (samePath(Output, input))
      return fail("-o " + Output +
                  " is the input file; refusing to overwrite it");
    if (samePath(manifestPath, input) || samePath(manifestPath, Output))
      return fail("the manifest path " + manifestPath +
                  " collides with the input or the output");
  }
  if (!EmitPlan.empty() && samePath(EmitPlan, input))
    return fail("--emit-plan " + EmitPlan + " is the input file");

  // The compile command.
  auto commands = parser->getCompilations().getCompileCommands(input);
  if (commands.empty())
    return fail("no compile command for " + input +
                " in the compilation database");
  if (fromDatabase) {
    llvm::SmallString<256> abs(input);
    llvm::sys::fs::make_absolute(abs);
    llvm::sys::path::remove_dots(abs, true);
    auto files = parser->getCompilations().getAllFiles();
    if (std::find(files.begin(), files.end(), std::string(abs)) == files.end())
      llvm::errs() << "ktune-refactor: note: " << input
                   << " is not in the compilation database; its flags are "
                      "taken from a similar file's command\n";
  }
  CompileCommand command;
  command.file = input;
  command.directory = commands.front().Directory;
  command.fromDatabase = fromDatabase;
  const auto &line = commands.front().CommandLine;
  for (size_t i = 1; i < line.size(); ++i) {
    if (line[i] == commands.front().Filename || samePath(line[i], input))
      continue;
    command.args.push_back(line[i]);
  }

  ParserOptions options;
  options.cudaPath = CudaPath;
  options.noCudaToolkit = NoCuda;
  options.gpuArch = GpuArch;
  if (!NoCache)
    options.cacheDir = CacheDir.empty() ? defaultCacheDir() : CacheDir;
  PreambleBuild mode = PreambleBuild::Background;
  if (PreambleMode.getNumOccurrences())
    mode = PreambleMode;
  else if (const char *env = std::getenv("KTUNE_PREAMBLE_BUILD"))
    mode = std::string(env) == "foreground" ? PreambleBuild::Foreground
           : std::string(env) == "never"    ? PreambleBuild::Never
                                            : PreambleBuild::Background;
  options.buildPreambleOnMiss = mode == PreambleBuild::Foreground;

  if (BuildPreambleOnly) {
    if (auto err = buildPreambles(command, options))
      return fail(std::move(err));
    return 0;
  }

  auto analysis = analyzeFile(command, options);
  if (!analysis)
    return fail(analysis.takeError());
  if (mode == PreambleBuild::Background && !options.cacheDir.empty() &&
      (analysis->stats.preambleMissed[0] || analysis->stats.preambleMissed[1]))
    startBackgroundPreambleBuild(args);
  if (Stats)
    llvm::errs() << "ktune-refactor: parsed host side in "
                 << analysis->stats.seconds[0] << " s"
                 << (analysis->stats.preambleReused[0] ? " (cached preamble)"
                                                       : "")
                 << ", device side in " << analysis->stats.seconds[1] << " s"
                 << (analysis->stats.preambleReused[1] ? " (cached preamble)"
                                                       : "")
                 << "\n";

  // What detection saw but could not use (stderr: stdout may be JSON).
  for (const auto &note : analysis->facts.notes)
    llvm::errs() << "ktune-refactor: note: " << note << "\n";
  if (DumpFacts) {
    std::cout << factsToJson(analysis->facts).dump(2) << "\n";
    return 0;
  }
  if (Candidates) {
    std::cout << candidatesToJson(analysis->candidates).dump(2) << "\n";
    return 0;
  }

  planner::PlannerRequest request;
  request.file = analysis->file;
  request.sources = {{analysis->file, analysis->source}};
  request.candidates = analysis->candidates;
  request.device.arch = GpuArch;
  if (PrintPrompt) {
    auto prompt = planner::renderPrompt(request, plannerOptions->prompt);
    if (!prompt)
      return fail(prompt.error().str());
    std::cout << *prompt;
    return 0;
  }

  Plan plan;
  std::string planOrigin = "plan";
  if (!PlanFile.empty()) {
    planOrigin = PlanFile;
    auto json = readJsonFile(PlanFile);
    if (!json)
      return fail(json.error().str());
    auto parsed = planFromJson(*json);
    if (!parsed)
      return fail(PlanFile + ": " + parsed.error().str());
    plan = std::move(*parsed);
  } else if (textPlanner) {
    // The planner's reply is untrusted: planWithValidation returns a plan
    // that passes validatePlan, the heuristic one if the planner's fails.
    planner::PlanningOptions planning;
    planning.auditDir = (Output.empty() ? EmitPlan : Output) + ".planner";
    planning.log = [](const std::string &line) {
      llvm::errs() << "ktune-refactor: planner: " << line << "\n";
    };
    auto planned = planner::planWithValidation(**chosenPlanner, request,
                                               planning);
    if (!planned)
      return fail(planned.error().str());
    plan = std::move(planned->plan);
    planOrigin = "planner " + planned->planner;
  } else {
    plan = defaultPlan(*analysis);
  }
  if (!EmitPlan.empty()) {
    if (auto s = writeFileAtomically(EmitPlan, planToJson(plan).dump(2) + "\n");
        !s)
      return fail(s.error().str());
  }
  if (reports)
    if (auto err = tidy::writeReports(*analysis, plan,
                                      {ExportFixes, Sarif, Warnings, "0.1.0"}))
      return fail(std::move(err));
  if (Output.empty())
    return 0;

  auto out = makeTemplate(*analysis, plan, Output, manifestPath, planOrigin);
  if (!out)
    return fail(out.takeError());
  for (const auto &note : out->notes)
    llvm::errs() << "ktune-refactor: note: " << note << "\n";
  if (auto s = writeFileAtomically(Output, out->text); !s)
    return fail(s.error().str());
  if (auto s = writeFileAtomically(
          manifestPath, manifestToJson(out->manifest).dump(2) + "\n");
      !s)
    return fail(s.error().str());
  size_t params = 0;
  for (const auto &k : out->manifest.kernels)
    params += k.tunableParams().size();
  llvm::errs() << "ktune-refactor: wrote " << Output << " and " << manifestPath
               << ": " << params << " parameter" << (params == 1 ? "" : "s")
               << " in " << out->manifest.kernels.size() << " kernel"
               << (out->manifest.kernels.size() == 1 ? "" : "s") << "\n";
  return 0;
}
