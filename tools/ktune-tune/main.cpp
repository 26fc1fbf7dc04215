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
#include "ktune/Support/FileUtil.h"
#include "ktune/Tune/Describe.h"
#include "ktune/Tune/MergedHeader.h"
#include "ktune/Tune/Session.h"
#include "ktune/Tune/Strategy.h"

#ifdef KTUNE_HAVE_CUDA
#include "ktune/Cuda/CudaEvaluator.h"
#endif

#include <CLI/CLI.hpp>

#include <cstdio>
#include <cstdlib>
#include <unistd.h>

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

/// Under mpirun: rank 0 tunes with every rank's GPUs and returns its
/// report; the other ranks serve it and exit here. `mpiEnd`: how rank 0
/// ends MPI once it has written its outputs.
Expected<SessionReport> tuneOnRank(const TuneCommand &cmd,
                                   const cluster::ClusterWorld &world,
                                   bool quiet, cluster::MpiEnd &mpiEnd) {
  auto log = [quiet](const std::string &line) {
    if (!quiet)
      std::fprintf(stderr, "ktune-tune: %s\n", line.c_str());
  };
  if (std::string w = cluster::mpiRecoveryWarning();
      world.rank == 0 && !w.empty())
    log("warning: " + w);
  auto outcome =
      cluster::runAcrossHosts(cmd, makeEvaluator, world,
                              cluster::ClusterOptions::fromEnvironment(), log);
  // All ranks finalize together only when none was lost: otherwise each
  // leaves (the others were told so).
  mpiEnd = outcome && outcome->finalizeTogether ? cluster::MpiEnd::Finalize
                                                : cluster::MpiEnd::Leave;
  if (world.rank == 0) {
    if (!outcome)
      return std::unexpected(outcome.error());
    return std::move(*outcome->report);
  }
  if (!outcome)
    std::fprintf(stderr, "ktune-tune: rank %d: error: %s\n", world.rank,
                 outcome.error().str().c_str());
  cluster::finishMpi(mpiEnd);
  std::exit(outcome ? 0 : 1);
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
  uint64_t budget = 0;
  std::string strategyOptions;
  bool quiet = false;
  bool describe = false;

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
  std::string strategyHelp = "Search strategy:";
  for (const auto &n : strategyNames())
    strategyHelp += " " + n;
  app.add_option("--strategy", cmd.strategy, strategyHelp)
      ->capture_default_str();
  app.add_option("--strategy-options", strategyOptions,
                 "Strategy options as a JSON object (docs/strategies.md)");
  auto *budgetOpt = app.add_option(
      "--budget", budget,
      "Evaluations per shape, the default and failures included (default "
      "100; compile-only: the whole space)");
  app.add_option("--time-limit", cmd.timeLimitSeconds,
                 "Seconds for the whole run, compilation included (0 = none)");
  app.add_option("--seed", cmd.seed, "Random seed")->capture_default_str();
  app.add_option("--top-k", cmd.topK,
                 "Finalists re-timed against the default per shape")
      ->capture_default_str();
  app.add_flag("--compile-only", cmd.compileOnly,
               "Compile and prune every configuration, report resources; no "
               "GPU needed");
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
  app.add_option("--cache-dir", cmd.cacheDir,
                 "Compile cache (default: $KTUNE_CACHE_DIR or ~/.cache/ktune)");
  app.add_option("--jobs", cmd.jobs, "Compile threads (0 = all cores)");
  app.add_option("--arch", cmd.arch,
                 "Target architecture, e.g. sm_90 (default: the device's)");
  std::string compiler;
  app.add_option("--compiler", compiler,
                 "Who compiles the configurations: nvrtc, nvcc, or auto "
                 "(NVRTC when it compiles the default configuration, else "
                 "nvcc; default: the spec's \"compiler\", else auto)")
      ->check(CLI::IsMember({"auto", "nvrtc", "nvcc"}));
  app.add_option("-p", cmd.buildPath,
                 "Build directory whose compile_commands.json has the "
                 "project's flags for the template's original file");
  app.add_option("--simulate-delay-ms", cmd.simulateDelayMs,
                 "Sleep this long per replayed evaluation (testing resume)");
  std::string gpus;
  std::vector<std::string> mergeResults;
  app.add_option("--merge-results", mergeResults,
                 "Tune nothing: merge results.json files of several GPU "
                 "models into one dispatch header (--header)");
  app.add_option("--gpus", gpus,
                 "Tune on several GPUs at once, one worker each: \"all\" "
                 "or ordinals such as 0,2,3 (identical models share one "
                 "search)");
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
  if (!world) {
    std::fprintf(stderr, "ktune-tune: error: %s\n",
                 world.error().str().c_str());
    return 1;
  }

  if (describe) {
    auto d = describeInputs(
        {cmd.templatePath, cmd.manifestPath, cmd.specPath, cmd.kernel});
    if (!d) {
      std::fprintf(stderr, "ktune-tune: error: %s\n", d.error().str().c_str());
      return 1;
    }
    std::fputs((d->dump(1) + "\n").c_str(), stdout);
    return 0;
  }
  if (!mergeResults.empty()) {
    // One header for every GPU model: each device's results kept whole.
    std::vector<TuneResults> all;
    Status status;
    for (const auto &path : mergeResults) {
      auto j = readJsonFile(path);
      auto r = j ? resultsFromJson(*j) : std::unexpected(j.error());
      if (!r) {
        status = std::unexpected(withContext(r.error(), path));
        break;
      }
      all.push_back(std::move(*r));
    }
    if (status && cmd.headerPath.empty())
      status = makeError("--merge-results needs --header (the file to write)");
    if (status) {
      auto header = renderMergedHeader(all);
      status = header ? writeFileAtomically(cmd.headerPath, *header)
                      : Status(std::unexpected(header.error()));
    }
    if (!status) {
      std::fprintf(stderr, "ktune-tune: error: %s\n",
                   status.error().str().c_str());
      return 1;
    }
    std::fprintf(stderr, "wrote %s (%zu devices)\n", cmd.headerPath.c_str(),
                 all.size());
    return 0;
  }
  if (budgetOpt->count())
    cmd.budget = budget;
  if (!compiler.empty())
    cmd.compiler = parseName(CompilerChoiceNames, compiler);
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
    if (!list) {
      std::fprintf(stderr, "ktune-tune: error: %s\n",
                   list.error().str().c_str());
      return 1;
    }
    cmd.gpus = *list;
  }
  if (!strategyOptions.empty()) {
    auto j = parseJson(strategyOptions, "--strategy-options");
    if (!j || !j->is_object()) {
      std::fprintf(stderr, "ktune-tune: error: --strategy-options: expected a "
                           "JSON object\n");
      return 1;
    }
    cmd.strategyOptions = *j;
  }
  if (!quiet) {
    cmd.progress.out = stderr;
    cmd.progress.tty = ::isatty(::fileno(stderr));
    cmd.progress.every = 10;
  }
  cmd.stopRequested = stopOnInterrupt();

  cluster::MpiEnd mpiEnd = cluster::MpiEnd::Finalize;
  auto report = *world ? tuneOnRank(cmd, **world, quiet, mpiEnd)
                       : runTuneSession(cmd, makeEvaluator);
  if (!report) {
    std::fprintf(stderr, "ktune-tune: error: %s\n",
                 report.error().str().c_str());
    return 1;
  }
  if (cmd.printCompileCommand)
    std::printf("%s\n", report->compileCommand.c_str());
  else if (cmd.fromResults.empty())
    std::fputs(formatResultsTable(report->results).c_str(), stdout);

  std::fflush(stdout);
  if (!quiet && !report->gpuActivity.empty())
    std::fputs(
        formatGpuActivity(report->gpuActivity, report->wallSeconds).c_str(),
        stderr);
  if (!quiet) {
    if (!report->resultsPath.empty())
      std::fprintf(stderr, "wrote %s\n", report->resultsPath.c_str());
    if (!report->journalPath.empty())
      std::fprintf(stderr, "journal %s\n", report->journalPath.c_str());
    if (!report->t4Path.empty())
      std::fprintf(stderr, "wrote %s\n", report->t4Path.c_str());
    if (!report->headerPath.empty())
      std::fprintf(stderr, "wrote %s\n", report->headerPath.c_str());
  }
  cluster::finishMpi(mpiEnd);
  return report->interrupted ? 130 : 0;
}
