//===- ktune-refactor.cpp - Stage 1 driver --------------------------------===//
//
// Lifts hardcoded tuning constants of CUDA kernels into template parameters.
// Options are parsed here (groups shared from lib/Driver); the work is in
// lib/Refactor, lib/Planner and lib/Tidy.
//
//===----------------------------------------------------------------------===//
#include "ktune/Driver/RefactorCommandLine.h"
#include "ktune/Plan/Candidates.h"
#include "ktune/Planner/Prompt.h"
#include "ktune/Refactor/CompileCommand.h"

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

Documentation: docs/refactor.md, docs/llm-planners.md, docs/schemas.md.
)");

// -o, --out-dir, --manifest, --verify.
static driver::OutputCommandLine Outputs(Category);
static cl::opt<bool> Candidates(
    "candidates",
    cl::desc("Print the candidates as JSON to stdout; write nothing"),
    cl::cat(Category));
static cl::opt<bool> RegisterCaps(
    "register-caps",
    cl::desc("Also offer each kernel a register cap (a min_blocks parameter "
             "in its __launch_bounds__, 0 by default), as `ktune run` does "
             "where registers limit occupancy"),
    cl::cat(Category));
static cl::opt<bool> FixedArgs(
    "fixed-args",
    cl::desc("Also offer each integer argument a kernel reads and never "
             "writes as a fixed_arg parameter (the argument's value fixed at "
             "compile time, 0 by default: read at run time), as `ktune run` "
             "does where a kernel is latency-bound"),
    cl::cat(Category));
static cl::opt<std::string>
    PlanFile("plan",
             cl::desc("Apply this plan instead of the built-in heuristic one"),
             cl::value_desc("plan.json"), cl::cat(Category));
static cl::opt<std::string>
    EmitPlan("emit-plan",
             cl::desc("Write the plan that would be applied (for editing)"),
             cl::value_desc("plan.json"), cl::cat(Category));
// --planner, --model, --planner-timeout.
static driver::PlannerCommandLine Planning(Category);
static cl::opt<bool> PrintPrompt(
    "print-prompt",
    cl::desc("Print the prompt a text planner would be sent; write nothing"),
    cl::cat(Category));
static cl::opt<bool> BuildPreambleOnly(
    "build-preamble-cache-only",
    cl::desc("Only build the preamble cache (what the background build runs)"),
    cl::Hidden, cl::cat(Category));
static cl::opt<bool> Stats("timings", cl::desc("Print parse times to stderr"),
                           cl::cat(Category));
static cl::opt<bool> DumpFacts(
    "dump-facts",
    cl::desc("Print what detection read off the AST, as JSON (for debugging)"),
    cl::Hidden, cl::cat(Category));
// --export-fixes, --sarif, --warnings (lib/Tidy/Export.cpp).
static driver::ReportCommandLine Reports(Category);

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
  auto paths = Outputs.paths(input);
  if (!paths)
    return fail(paths.error().str());
  const std::string &output = paths->templatePath;
  planner::PlannerFlags flags = Planning.flags();
  if (auto s =
          checkActions({input, Candidates, DumpFacts, PrintPrompt,
                        BuildPreambleOnly, Reports.any(), output,
                        paths->manifestPath, EmitPlan, PlanFile, flags.spec});
      !s)
    return fail(s.error().str());

  // The planner is set up before parsing so that a bad --planner is reported
  // at once.
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

  auto analysis = analyzeFile(*command, options, {RegisterCaps, FixedArgs});
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
  auto request = driver::plannerRequestFor(*analysis, options.gpuArch);
  if (PrintPrompt) {
    auto prompt = renderPrompt(request, chosenPlanner->options.prompt);
    if (!prompt)
      return fail(prompt.error().str());
    std::cout << *prompt;
    return 0;
  }

  auto chosen = driver::choosePlanFor(
      request, PlanFile, chosenPlanner->planner.get(),
      (output.empty() ? EmitPlan : output) + ".planner",
      [](const std::string &line) {
        llvm::errs() << "ktune-refactor: planner: " << line << "\n";
      });
  if (!chosen) {
    bool namesCap = false, namesFixed = false;
    for (const Error &e : chosen.error()) {
      fail(e.str());
      namesCap |= e.str().find("unknown candidate 'c_mb_") != std::string::npos;
      namesFixed |=
          e.str().find("unknown candidate 'c_fa_") != std::string::npos;
    }
    if (namesCap && !RegisterCaps)
      note("register caps (kind min_blocks, candidates c_mb_...) are "
           "offered with --register-caps");
    if (namesFixed && !FixedArgs)
      note("fixed arguments (kind fixed_arg, candidates c_fa_...) are "
           "offered with --fixed-args");
    return 1;
  }
  const ParserOptions *verify = Outputs.verify() ? &options : nullptr;
  auto wrote = driver::writeRefactorOutputs(
      *analysis, *chosen,
      {PlanFile, EmitPlan, Reports.options("0.1.0"), *paths, verify}, note);
  if (!wrote)
    return fail(wrote.takeError());
  if (!wrote->empty())
    llvm::errs() << "ktune-refactor: " << *wrote << "\n";
  return 0;
}
