//===- Manifest.cpp - Fuzzes reading a manifest ---------------------------===//
//
// The input is a manifest: read, described (its valid configurations, as
// ktune-tune --describe lists them), and each kernel checked against the
// spec of test/lit/Inputs/tune/rmsnorm.spec.json.
//
//===----------------------------------------------------------------------===//
#include "TuneInputs.h"
#include "ktune/Tune/Describe.h"
#include "ktune/Tune/DispatchDescription.h"
#include "ktune/Tune/Results.h"
#include "ktune/Tune/Tuner.h"

using namespace ktune;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  auto m = fuzz::read(data, size, manifestFromJson);
  if (!m)
    return 0;
  fuzz::use(manifestToJson(*m).dump());
  auto specJson = parseJson(Embedded_spec, "spec");
  auto spec = specJson ? specFromJson(*specJson) : Expected<Spec>();
  for (const ManifestKernel &k : m->kernels) {
    fuzz::use(describeManifestKernel(k, 64));
    fuzz::use(dispatchDefaultConfig(k, TuneResults{}));
    if (!spec)
      continue;
    auto resolved = resolveSpec(*spec, k);
    if (!resolved)
      continue;
    fuzz::use(launcherParams(k, *resolved));
    fuzz::use(spaceFromManifest(k, *resolved));
  }
  return 0;
}
