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
    auto j = parseJson(Embedded_manifest, "manifest");
    auto m = j ? manifestFromJson(*j) : Expected<Manifest>();
    if (!j || !m || m->kernels.empty())
      std::abort(); // the embedded manifest must read
    return *m;
  }();
  return M;
}

/// test/lit/Inputs/tune/rmsnorm.spec.json, resolved against it.
inline const Spec &embeddedSpec() {
  static const Spec S = [] {
    auto j = parseJson(Embedded_spec, "spec");
    auto s = j ? specFromJson(*j) : Expected<Spec>();
    auto r =
        s ? resolveSpec(*s, embeddedManifest().kernels[0]) : Expected<Spec>();
    if (!j || !s || !r)
      std::abort();
    return *r;
  }();
  return S;
}

} // namespace ktune::fuzz

#endif
