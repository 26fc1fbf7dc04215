//===- ktune - Make a CUDA kernel tunable and tune it, in rounds ----------===//
//
//   ktune run kernel.cu --spec kernel.spec.json --out-dir tuned/
//   ktune run kernel.cu --spec s.json --out-dir tuned/ --planner command:./a
//   ktune run kernel.cu --spec s.json --out-dir tuned/ -p build/
//       (flags from compile_commands.json)
//   ktune run kernel.cu --spec s.json --out-dir tuned/ -- -Iinclude -DX=1
//
// Parses options and calls ktune::run::runKtune (lib/Run). Guide: docs/run.md.
//
//===----------------------------------------------------------------------===//
#include "ktune/Driver/Console.h"
#include "ktune/Driver/TuneOptions.h"
#include "ktune/Refactor/CompileCommand.h"
#include "ktune/Run/Run.h"

#include <CLI/CLI.hpp>

#include <cstdio>

using namespace ktune;

namespace {

int fail(const std::string &message) {
  std::fprintf(stderr, "ktune run: error: %s\n", message.c_str());
  return 1;
}

} // namespace

int main(int argc, char **argv) {
  // Arguments after `--` are compile flags for parsing the source, as for
  // ktune-refactor and Clang's tools.
  int ownArgc = argc;
  auto extraArgs = refactor::takeArgsAfterDashDash(ownArgc, argv);
  if (!extraArgs)
    return fail(extraArgs.error().str());
  std::string commandLine;
  for (int i = 0; i < argc; ++i)
    commandLine += (i ? " " : "") + std::string(i == 0 ? "ktune" : argv[i]);

  CLI::App app{"ktune: make the hard-coded tuning constants of CUDA kernels "
               "tunable and tune them (docs/run.md)"};
  app.require_subcommand(1);
  CLI::App *runCmd = app.add_subcommand(
      "run", "Refactor, tune, analyse and re-plan in rounds; writes the "
             "template, manifest, plans, journals, results, the dispatch "
             "header and report.html to --out-dir");

  run::RunOptions o;
  std::string buildPath, cudaPath, gpuArch = "sm_90";
  double roofline = 0;
  bool noCudaToolkit = false, quiet = false;
  runCmd->add_option("source", o.source, "The CUDA source file (.cu)")
      ->required();
  runCmd
      ->add_option("--spec", o.specs,
                   "spec.json: shapes, buffers, tolerances "
                   "(docs/schemas.md#spec); one per kernel to tune")
      ->required();
  runCmd->add_option("--out-dir", o.outDir, "Where everything is written")
      ->required();
  runCmd
      ->add_option("--kernel", o.kernels,
                   "Kernels to lift and tune, when the file has several "
                   "(default: the specs' kernels)")
      ->delimiter(',');
  runCmd->add_option("--plan", o.planPath,
                     "Round 1's plan (plan.json) instead of a planner's");
  runCmd
      ->add_option("--planner", o.plannerSpec,
                   "Who writes the plans: heuristic (rules re-plan) | "
                   "command:<cmdline> | openai:<base_url> "
                   "(docs/llm-planners.md)")
      ->capture_default_str();
  runCmd->add_option("--model", o.model, "Model for an openai: planner");
  runCmd->add_flag("--strict-planner", o.strictPlanner,
                   "A planner that cannot answer in round 1, or whose "
                   "plan is refused twice, is an error instead of a "
                   "fallback to the heuristic plan");
  runCmd->add_option("--rounds", o.rounds, "Most rounds to tune")
      ->capture_default_str();
  // --strategy, --budget, ..., --compiler: as ktune-tune takes them.
  driver::addTuningOptions(*runCmd, driver::tuningTargets(o, o.gpus),
                           driver::TuningScope::Rounds);
  auto *rooflineOpt = runCmd->add_option(
      "--roofline-tbps", roofline,
      "The device's memory bandwidth in TB/s, measured by a device-to-device "
      "copy (default: ktune's table: 4.25 for an H200)");
  runCmd->add_flag("--profile", o.profile,
                   "Measure each shape's default and best configurations "
                   "under Nsight Compute (ncu) after tuning: DRAM bytes and "
                   "throughput, achieved occupancy, in the analysis and the "
                   "report");
  runCmd->add_option("-p", buildPath,
                     "Build directory holding compile_commands.json, for the "
                     "flags to parse the source with");
  runCmd->add_option("--cuda-path", cudaPath,
                     "CUDA toolkit to parse the source against (default: "
                     "found automatically)");
  runCmd->add_flag("--no-cuda-toolkit", noCudaToolkit,
                   "Parse the source with ktune's shim header instead of a "
                   "CUDA toolkit");
  runCmd
      ->add_option("--cuda-gpu-arch", gpuArch,
                   "Architecture of the device-side parse")
      ->capture_default_str();
  runCmd->add_flag("-q,--quiet", quiet, "No progress output");
  // A testing aid (docs/run.md#testing-without-a-gpu): times from formulas.
  runCmd
      ->add_option("--synthetic-times", o.syntheticTimes,
                   "Testing: a synthetic/1 file whose formulas stand in "
                   "for the GPU")
      ->group("");

  try {
    app.parse(ownArgc, argv);
  } catch (const CLI::ParseError &e) {
    return app.exit(e);
  }
  if (rooflineOpt->count()) {
    if (!(roofline > 0))
      return fail("--roofline-tbps: expected a positive number of TB/s");
    o.rooflineTBps = roofline;
  }

  std::vector<std::string> notes;
  auto command =
      refactor::compileCommandFor(o.source, buildPath, *extraArgs, &notes);
  if (!command)
    return fail(command.error().str());
  o.compile = std::move(*command);
  for (const auto &n : notes)
    std::fprintf(stderr, "ktune run: note: %s\n", n.c_str());
  o.parser.cudaPath = cudaPath;
  o.parser.noCudaToolkit = noCudaToolkit;
  o.parser.gpuArch = gpuArch;
  o.commandLine = commandLine;
  o.log = [](const std::string &line) {
    std::fprintf(stderr, "ktune run: %s\n", line.c_str());
  };
  if (!quiet)
    o.progress = driver::progressOnStderr(25);
  else
    o.log = nullptr;
  o.stopRequested = stopOnInterrupt();

  auto outcome = run::runKtune(o);
  if (!outcome)
    return fail(outcome.error().str());
  std::fputs(outcome->table.c_str(), stdout);
  std::fflush(stdout);
  std::fprintf(stderr, "ktune run: %s\n", outcome->stopReason.c_str());
  if (outcome->compileOnly)
    std::fprintf(stderr,
                 "ktune run: compile-only: no kernel was run; tune on a "
                 "machine with a GPU for times, speedups and the dispatch "
                 "header\n");
  if (!outcome->headerPath.empty())
    std::fprintf(stderr, "ktune run: wrote %s\n", outcome->headerPath.c_str());
  std::fprintf(stderr, "ktune run: wrote %s (best: round %d of %d)\n",
               outcome->reportPath.c_str(), outcome->bestRound,
               outcome->rounds);
  return outcome->interrupted ? 130 : 0;
}
