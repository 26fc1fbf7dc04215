//===- ktune-tune - Tune a kernel template (stage 2) ----------------------===//
//
//   ktune-tune kernel.tpl.cu --spec spec.json [--strategy bayes --budget 200]
//   ktune-tune kernel.tpl.cu --spec spec.json --compile-only
//   ktune-tune --simulate space_T4.json.gz --strategy genetic --t4 run.json
//   ktune-tune kernel.tpl.cu --spec spec.json -p build/      (nvcc: the
//       project's flags from compile_commands.json; or after --)
//
// Parses options and hands them to ktune::runTuneSession (lib/Tune).
//
//===----------------------------------------------------------------------===//
#include "ktune/Cluster/Mpi.h"
#include "ktune/Driver/Console.h"
#include "ktune/Driver/TuneOptions.h"
#include "ktune/Tune/Describe.h"
#include "ktune/Tune/MergedHeader.h"
#include "ktune/Tune/Session.h"

#ifdef KTUNE_HAVE_CUDA
#include "ktune/Cuda/CudaEvaluator.h"
#endif

#include <CLI/CLI.hpp>

#include <cstdio>
#include <cstdlib>

using namespace ktune;

namespace {

Expected<std::unique_ptr<Evaluator>> makeEvaluator(const EvaluatorRequest &r) {
#ifdef KTUNE_HAVE_CUDA
  return createEvaluator(r);
#else
  return makeError("this ktune-tune was built without CUDA "
                   "(KTUNE_ENABLE_CUDA=OFF): it can replay recordings "
                   "(--simulate) and regenerate headers (--from-results), but "
                   "not compile or run kernels");
#endif
}

int fail(const Error &error) {
  std::fprintf(stderr, "ktune-tune: error: %s\n", error.str().c_str());
  return 1;
}

} // namespace

int main(int argc, char **argv) {
  // Arguments after `--` are the project's compile flags (for nvcc, and
  // NVRTC where it takes them).
  std::optional<std::vector<std::string>> projectFlags;
  for (int i = 1; i < argc; ++i)
    if (std::string(argv[i]) == "--") {
      projectFlags.emplace(argv + i + 1, argv + argc);
      argc = i;
      break;
    }
  CLI::App app{"ktune-tune: compile, verify, time and search the "
               "configurations of a kernel template; writes results, a "
               "journal, a T4 file and a dispatch header."};
  TuneCommand cmd;
  std::string strategyOptions, gpus;
  std::vector<std::string> mergeResults;
  bool quiet = false, describe = false;

  app.add_option("template", cmd.templatePath,
                 "The template (kernel.tpl.cu); its manifest kernel.tpl.json "
                 "is read from beside it");
  app.add_option(
      "--spec", cmd.specPath,
      "spec.json: shapes, buffers, tolerances (docs/schemas.md#spec)");
  app.add_option("--manifest", cmd.manifestPath,
                 "The manifest, when not beside the template");
  app.add_option("--kernel", cmd.kernel,
                 "The manifest kernel to tune (default: the spec's)");
  app.add_option("--simulate", cmd.simulatePath,
                 "Replay a T4 recording (plain or .gz) instead of running "
                 "kernels: for comparing strategies without a GPU");
  app.add_option("--space", cmd.spacePath,
                 "A T1 input file whose parameters and conditions are the "
                 "search space");
  app.add_option("--from-results", cmd.fromResults,
                 "Do not tune: write the dispatch header from these results");
  // --strategy, --budget, ..., --compiler: as `ktune run` takes them.
  driver::addTuningOptions(app, driver::tuningTargets(cmd, gpus),
                           driver::TuningScope::Session);
  app.add_option("--strategy-options", strategyOptions,
                 "Strategy options as a JSON object (docs/strategies.md)");
  app.add_option("--top-k", cmd.topK,
                 "Finalists re-timed against the default per shape")
      ->capture_default_str();
  app.add_option("--out", cmd.outPath,
                 "results.json (default: <kernel>.results.json beside the "
                 "template; in the working directory for --simulate)");
  app.add_option("--header", cmd.headerPath,
                 "The dispatch header (default: <kernel>.tuned.h beside the "
                 "template)");
  app.add_option("--t4", cmd.t4Path,
                 "Also write every evaluation in Kernel Tuner's T4 format");
  app.add_option("--journal", cmd.journalPath,
                 "The journal (default: beside the results); rerunning with "
                 "the same journal resumes");
  app.add_option("-p", cmd.buildPath,
                 "Build directory whose compile_commands.json has the "
                 "project's flags for the template's original file");
  app.add_option("--simulate-delay-ms", cmd.simulateDelayMs,
                 "Sleep this long per replayed evaluation (testing resume)");
  app.add_option("--merge-results", mergeResults,
                 "Tune nothing: merge results.json files of several GPU "
                 "models into one dispatch header (--header)");
  app.add_option("--devices", cmd.simulateDevices,
                 "With --simulate: N virtual devices (batches of N)")
      ->check(CLI::Range(1u, unsigned(MaxVirtualDevices)));
  // Several workers on one GPU: exercises the multi-GPU path on one device.
  app.add_option("--workers-per-gpu", cmd.workersPerGpu)
      ->check(CLI::Range(1u, 64u))
      ->group("");
  app.add_flag("-q,--quiet", quiet, "No progress output");
  app.add_flag("--print-compile-command", cmd.printCompileCommand,
               "Tune nothing: compile the default configuration as a run "
               "would and print the compiler's command line");
  app.add_flag("--describe", describe,
               "Tune nothing: print the spec and manifest as ktune reads "
               "them, every expression evaluated, as JSON "
               "(docs/schemas.md#describe)");

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError &e) {
    return app.exit(e);
  }
  auto world = cluster::startMpi(argc, argv);
  if (!world)
    return fail(world.error());

  if (describe) {
    auto d = describeInputs(
        {cmd.templatePath, cmd.manifestPath, cmd.specPath, cmd.kernel});
    if (!d)
      return fail(d.error());
    std::fputs((d->dump(1) + "\n").c_str(), stdout);
    return 0;
  }
  if (!mergeResults.empty()) {
    auto devices = writeMergedHeader(mergeResults, cmd.headerPath);
    if (!devices)
      return fail(devices.error());
    std::fprintf(stderr, "wrote %s (%zu devices)\n", cmd.headerPath.c_str(),
                 *devices);
    return 0;
  }
  if (projectFlags)
    cmd.projectCommand = CompileCommandInfo{".", *projectFlags, "nvcc"};
  if (const char *w = std::getenv("KTUNE_WORKERS_PER_GPU"); w && *w)
    cmd.workersPerGpu = static_cast<unsigned>(std::max(1, std::atoi(w)));
  if (!gpus.empty()) {
    int available = 0;
#ifdef KTUNE_HAVE_CUDA
    available = cudaDeviceCount();
#endif
    auto list = parseGpuList(gpus, available);
    if (!list)
      return fail(list.error());
    cmd.gpus = *list;
  }
  if (!strategyOptions.empty()) {
    auto options = driver::parseStrategyOptions(strategyOptions);
    if (!options)
      return fail(options.error());
    cmd.strategyOptions = *options;
  }
  if (!quiet)
    cmd.progress = driver::progressOnStderr(10);
  cmd.stopRequested = stopOnInterrupt();

  // Under mpirun the ranks other than 0 serve rank 0 and exit in there.
  auto log = [quiet](const std::string &line) {
    if (!quiet)
      std::fprintf(stderr, "ktune-tune: %s\n", line.c_str());
  };
  cluster::MpiEnd mpiEnd = cluster::MpiEnd::Finalize;
  auto report = *world ? cluster::tuneAsRank(cmd, makeEvaluator, **world, log,
                                             mpiEnd, "ktune-tune")
                       : runTuneSession(cmd, makeEvaluator);
  if (!report)
    return fail(report.error());
  if (cmd.printCompileCommand)
    std::printf("%s\n", report->compileCommand.c_str());
  else if (cmd.fromResults.empty())
    std::fputs(formatResultsTable(report->results).c_str(), stdout);

  std::fflush(stdout);
  if (!quiet)
    driver::printSessionOutputs(*report);
  cluster::finishMpi(mpiEnd);
  return report->interrupted ? 130 : 0;
}
