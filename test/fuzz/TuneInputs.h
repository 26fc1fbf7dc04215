//===- TuneInputs.h - The manifest and spec the Tune harnesses use -*- C++ -*-//
#ifndef KTUNE_TEST_FUZZ_TUNEINPUTS_H
#define KTUNE_TEST_FUZZ_TUNEINPUTS_H

#include "FuzzEmbedded.inc"
#include "FuzzSupport.h"
#include "ktune/Plan/Manifest.h"
#include "ktune/Tune/Spec.h"

#include <cstdlib>

namespace ktune::fuzz {

/// test/lit/Inputs/tune/rmsnorm.tpl.json, read once.
inline const Manifest &embeddedManifest() {
  static const Manifest M = [] {
    Manifest m = readEmbedded(Embedded_manifest, "manifest", manifestFromJson);
    if (m.kernels.empty())
      std::abort(); // the spec is resolved against its first kernel
    return m;
  }();
  return M;
}

/// test/lit/Inputs/tune/rmsnorm.spec.json, resolved against it.
inline const Spec &embeddedSpec() {
  static const Spec S = [] {
    Spec s = readEmbedded(Embedded_spec, "spec", specFromJson);
    auto r = resolveSpec(s, embeddedManifest().kernels[0]);
    if (!r)
      std::abort();
    return *r;
  }();
  return S;
}

} // namespace ktune::fuzz

#endif
