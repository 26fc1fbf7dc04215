//===- T4Results.cpp - Fuzzes T4 recordings and results files -------------===//
//
// The input is a T4 file (ktune-tune --simulate), replayed into a search
// space, and a results file (ktune-tune --from-results), from which the
// dispatch header and its description are made with the manifest and spec
// of test/lit/Inputs/tune/rmsnorm.*.
//
//===----------------------------------------------------------------------===//
#include "TuneInputs.h"
#include "ktune/Tune/DispatchDescription.h"
#include "ktune/Tune/DispatchHeader.h"
#include "ktune/Tune/Results.h"
#include "ktune/Tune/Simulator.h"

using namespace ktune;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  auto j = fuzz::json(data, size);
  if (!j)
    return 0;
  if (auto replay = ReplayEvaluator::fromT4(*j, "fuzz")) {
    fuzz::use(spaceFromRecords(*replay));
    fuzz::use(replay->size());
  }
  auto results = resultsFromJson(*j);
  if (!results)
    return 0;
  fuzz::use(formatResultsTable(*results));
  fuzz::use(resultsToJson(*results).dump());
  // ktune-tune --from-results: the header, for the manifest's kernel.
  results->kernel = fuzz::embeddedManifest().kernels[0].name;
  DispatchHeaderInput in;
  in.kernel = &fuzz::embeddedManifest().kernels[0];
  in.spec = &fuzz::embeddedSpec();
  in.results = &*results;
  in.constraints = in.kernel->constraints;
  in.templateInclude = "rmsnorm.tpl.cu";
  in.templateFile = "rmsnorm.tpl.cu";
  fuzz::use(renderDispatchHeader(Embedded_dispatch_header, "header", in));
  fuzz::use(describeDispatch(in, "rmsnorm.tuned.h"));
  return 0;
}
