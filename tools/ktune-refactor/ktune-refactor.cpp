//===- ktune-refactor.cpp - Stage 1 driver --------------------------------===//
//
// Lifts hardcoded tuning constants of CUDA kernels into template parameters.
// Options are parsed here; the work is in lib/Refactor.
//
//===----------------------------------------------------------------------===//

#include "ktune/Plan/Candidates.h"
#include "ktune/Planner/ChoosePlan.h"
#include "ktune/Planner/Prompt.h"
#include "ktune/Refactor/CompileCommand.h"
#include "ktune/Refactor/ToolSupport.h"
#include "ktune/Refactor/Verify.h"
#include "ktune/Support/FileUtil.h"
#include "ktune/Tidy/Export.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <iostream>

using namespace ktune;
using namespace ktune::refactor;
namespace cl = llvm::cl;

static cl::OptionCategory Category("ktune-refactor options");

// The sources, -p, --extra-arg(-before) and the flags after `--`.
static ToolCommandLine ClangTool(Category);
// --cuda-path, --cuda-gpu-arch, --header-filter, the preamble cache, ...
static ParserCommandLine Parsing(Category);

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
  ktune-refactor -p build/ src/act.cu --out-dir tpl/  kernels in project headers too
  ktune-refactor include/lib/norm.cuh --out-dir tpl/ -- -Iinclude   a header
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
    OutDir("out-dir",
           cl::desc("Write <stem>.tpl.cu (.tpl.cuh), <stem>.tpl.json and the "
                    "rewritten project headers (under include/) here"),
           cl::value_desc("dir"), cl::cat(Category));
static cl::opt<std::string>
    ManifestPath("manifest",
                 cl::desc("Write the manifest here (default: the output with "
                          "its extension replaced by .json)"),
                 cl::value_desc("file"), cl::cat(Category));
static cl::opt<bool> Candidates(
    "candidates",
    cl::desc("Print the candidates as JSON to stdout; write nothing"),
    cl::cat(Category));
static cl::opt<std::string>
    PlanFile("plan",
             cl::desc("Apply this plan instead of the built-in heuristic one"),
             cl::value_desc("plan.json"), cl::cat(Category));
static cl::opt<std::string>
    EmitPlan("emit-plan",
             cl::desc("Write the plan that would be applied (for editing)"),
             cl::value_desc("plan.json"), cl::cat(Category));
static cl::opt<std::string>
    PlannerSpec("planner",
                cl::desc("Who writes the plan: heuristic (default), "
                         "command:<command line>, openai:<base URL>"),
                cl::value_desc("planner"), cl::init("heuristic"),
                cl::cat(Category));
static cl::opt<std::string>
    Model("model",
          cl::desc("Model name for an openai: planner (default: $KTUNE_MODEL)"),
          cl::value_desc("name"), cl::cat(Category));
static cl::opt<double>
    PlannerTimeout("planner-timeout",
                   cl::desc("Seconds a text planner may take per exchange "
                            "(default: $KTUNE_PLANNER_TIMEOUT or 300)"),
                   cl::value_desc("seconds"), cl::cat(Category));
static cl::opt<bool> PrintPrompt(
    "print-prompt",
    cl::desc("Print the prompt a text planner would be sent; write nothing"),
    cl::cat(Category));
static cl::opt<bool> BuildPreambleOnly(
    "build-preamble-cache-only",
    cl::desc("Only build the preamble cache (what the background build runs)"),
    cl::Hidden, cl::cat(Category));
static cl::opt<bool> Verify(
    "verify",
    cl::desc("Compile the original and the output with nvcc and write "
             "nothing unless the output's defaults give the same PTX"),
    cl::cat(Category));
static cl::opt<bool> Stats("timings", cl::desc("Print parse times to stderr"),
                           cl::cat(Category));
static cl::opt<bool> DumpFacts(
    "dump-facts",
    cl::desc("Print what detection read off the AST, as JSON (for debugging)"),
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
static cl::opt<bool> Warnings("warnings",
                              cl::desc("Print each finding as 'file:line:col: "
                                       "warning: ... [ktune-...]' on stderr"),
                              cl::cat(Category));

static int fail(const std::string &message) {
  llvm::errs() << "ktune-refactor: error: " << message << "\n";
  return 1;
}

/// Parse errors carry Clang's diagnostics; plan errors are one per line.
static int fail(llvm::Error error) {
  ErrorText text = errorText(std::move(error));
  llvm::errs() << text.diagnostics;
  for (const auto &line : text.lines)
    fail(line);
  return 1;
}

static void note(const std::string &line) {
  llvm::errs() << "ktune-refactor: note: " << line << "\n";
}

int main(int argc, const char **argv) {
  cl::HideUnrelatedOptions(Category);
  if (auto err = ClangTool.parse(
          argc, argv,
          "ktune-refactor: lift hardcoded tuning constants of CUDA kernels "
          "into template parameters\n"))
    return fail(std::move(err));
  if (ClangTool.sources().size() != 1)
    return fail("give exactly one CUDA source file");
  const std::string &input = ClangTool.sources().front();
  if (!llvm::sys::fs::exists(input))
    return fail(input + ": no such file");
  auto paths = outputPaths(input, Output, OutDir, ManifestPath);
  if (!paths)
    return fail(paths.error().str());
  const std::string &output = paths->templatePath;
  bool reports = !ExportFixes.empty() || !Sarif.empty() || Warnings;
  if (auto s =
          checkActions({input, Candidates, DumpFacts, PrintPrompt,
                        BuildPreambleOnly, reports, output, paths->manifestPath,
                        EmitPlan, PlanFile, PlannerSpec});
      !s)
    return fail(s.error().str());

  // The planner is set up before parsing so that a bad --planner is reported
  // at once.
  planner::PlannerFlags flags;
  flags.spec = PlannerSpec;
  flags.model = Model;
  if (PlannerTimeout.getNumOccurrences())
    flags.timeoutSeconds = PlannerTimeout;
  auto chosenPlanner = planner::configurePlanner(flags);
  if (!chosenPlanner)
    return fail(chosenPlanner.error().str());

  // The compile command, found as `ktune run` finds it.
  std::vector<std::string> notes;
  auto command = ClangTool.compileCommand(input, &notes);
  if (!command)
    return fail(command.error().message); // it names -p's directory
  std::for_each(notes.begin(), notes.end(), note);

  PreambleBuild mode;
  auto parserOptions = parserOptionsFor(*command, Parsing.flags(), mode);
  if (!parserOptions)
    return fail(parserOptions.takeError());
  const ParserOptions &options = *parserOptions;
  if (BuildPreambleOnly) {
    if (auto err = buildPreambles(*command, options))
      return fail(std::move(err));
    return 0;
  }

  auto analysis = analyzeFile(*command, options);
  if (!analysis)
    return fail(analysis.takeError());
  const ParseStats &stats = analysis->stats;
  if (mode == PreambleBuild::Background && !options.cacheDir.empty() &&
      (stats.preambleMissed[0] || stats.preambleMissed[1]))
    startBackgroundPreambleBuild(argc, argv);
  if (Stats)
    llvm::errs() << "ktune-refactor: " << parseTimesText(stats) << "\n";
  // What detection saw but could not use (stderr: stdout may be JSON).
  std::for_each(analysis->facts.notes.begin(), analysis->facts.notes.end(),
                note);
  if (DumpFacts || Candidates) {
    std::cout << (DumpFacts ? factsToJson(analysis->facts)
                            : candidatesToJson(analysis->candidates))
                     .dump(2)
              << "\n";
    return 0;
  }
  planner::PlannerRequest request;
  request.file = analysis->file;
  request.sources = analysis->sources();
  request.candidates = analysis->candidates;
  request.device.arch = options.gpuArch;
  if (PrintPrompt) {
    auto prompt = renderPrompt(request, chosenPlanner->options.prompt);
    if (!prompt)
      return fail(prompt.error().str());
    std::cout << *prompt;
    return 0;
  }

  // --plan, --planner or the heuristic: chosen as `ktune run` chooses.
  planner::PlanChoice choice;
  choice.planPath = PlanFile;
  choice.planner = chosenPlanner->planner.get();
  choice.planning.auditDir = (output.empty() ? EmitPlan : output) + ".planner";
  choice.planning.log = [](const std::string &line) {
    llvm::errs() << "ktune-refactor: planner: " << line << "\n";
  };
  auto chosen = planner::choosePlan(request, choice);
  if (!chosen) {
    for (const Error &e : chosen.error())
      fail(e.str());
    return 1;
  }
  const Plan &plan = chosen->plan;
  if (!EmitPlan.empty())
    if (auto s = writeFileAtomically(EmitPlan, planToJson(plan).dump(2) + "\n");
        !s)
      return fail(s.error().str());
  if (reports)
    if (auto err = tidy::writeReports(*analysis, plan,
                                      {ExportFixes, Sarif, Warnings, "0.1.0"}))
      return fail(std::move(err));
  if (output.empty())
    return 0;

  // Plan errors name where the plan came from.
  std::string planOrigin = !PlanFile.empty() ? std::string(PlanFile)
                           : chosen->planning
                               ? "planner " + chosen->planning->planner
                               : "plan";
  auto out =
      makeTemplate(*analysis, plan, output, paths->manifestPath, planOrigin);
  if (!out)
    return fail(out.takeError());
  std::for_each(out->notes.begin(), out->notes.end(), note);
  if (auto s = checkSingleFile(*out, *paths); !s)
    return fail(s.error().str());
  if (Verify) {
    auto checked = selfCheck(*analysis, *out, output, options);
    if (!checked)
      return fail("self-check failed, nothing written: " +
                  llvm::toString(checked.takeError()));
    note("self-check: " + *checked);
  }
  if (auto s = writeTemplateFiles(*out, output, paths->manifestPath); !s)
    return fail(s.error().str());
  llvm::errs() << "ktune-refactor: " << wroteSummary(*out, *paths) << "\n";
  return 0;
}
