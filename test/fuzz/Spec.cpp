//===- Spec.cpp - Fuzzes reading a spec -----------------------------------===//
//
// The input is a spec file: read, resolved against the manifest of
// test/lit/Inputs/tune/rmsnorm.tpl.json, described (as ktune-tune
// --describe does) and turned into the search space of its first shapes.
//
//===----------------------------------------------------------------------===//
#include "TuneInputs.h"
#include "ktune/Tune/Describe.h"
#include "ktune/Tune/SearchSpace.h"
#include "ktune/Tune/Tuner.h"

using namespace ktune;

constexpr size_t MaxDescribedShapes = 2048;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  std::string text = fuzz::text(data, size);
  const ManifestKernel &kernel = fuzz::embeddedManifest().kernels[0];
  auto j = parseJson(text, "fuzz");
  auto spec = j ? specFromJson(*j) : Expected<Spec>(makeError("not JSON"));
  // Describing is linear in the shapes (28,672 take 0.8 s in a release
  // build, 20 s under ASan): past a few thousand, the fuzzer only times out.
  if (!spec || spec->allShapes().size() <= MaxDescribedShapes)
    fuzz::use(describeSpec(text, "fuzz", &kernel));
  if (!spec)
    return 0;
  fuzz::use(specToJson(*spec).dump());
  auto resolved = resolveSpec(*spec, kernel);
  if (!resolved)
    return 0;
  auto shapes = resolved->allShapes();
  auto def = spaceFromManifest(kernel, *resolved);
  if (!def)
    return 0;
  for (size_t i = 0; i < shapes.size() && i < 4; ++i) {
    fuzz::use(shapeValues(*resolved, shapes[i]));
    std::map<std::string, int64_t> fixed(shapes[i].begin(), shapes[i].end());
    auto space =
        SearchSpace::create(def->params, def->constraints, def->dialect, fixed);
    if (space)
      fuzz::use(space->validCount(uint64_t(1) << 12));
  }
  return 0;
}
