//===- HandBuiltFacts.h - Facts of a two-line CUDA file, built by hand -*- C++
//-*-===//
//
// The facts of a kernel k and its launcher go, written out field by field so
// that planRewrite and its steps can be tested without parsing, and a plan
// that lifts the block size.
//
//===----------------------------------------------------------------------===//
#ifndef KTUNE_TEST_UNIT_REFACTOR_HANDBUILTFACTS_H
#define KTUNE_TEST_UNIT_REFACTOR_HANDBUILTFACTS_H

#include "ktune/Refactor/Rewrite.h"

#include <string>

namespace ktune::testing {

using namespace ktune::refactor;

// __global__ void k(float *x) { x[threadIdx.x] = 1; }
// void go(float *x) { k<<<1, 256>>>(x); }
inline const char *const Source =
    "__global__ void k(float *x) { x[threadIdx.x] = 1; }\n"
    "void go(float *x) { k<<<1, 256>>>(x); }\n";
// The same with the block size in the kernel's code too.
inline const char *const KernelSource =
    "__global__ void k(float *x) { x[threadIdx.x % 256] = 1; }\n"
    "void go(float *x) { k<<<1, 256>>>(x); }\n";

/// Facts of `text` as collectFacts would record them: the launch's 256 only (a
/// launch parameter), or also the kernel's (KernelSource: a kernel parameter).
inline SourceFacts handBuiltFacts(const char *text = Source) {
  std::string src = text;
  SourceFacts f;
  f.file = "k.cu";
  FunctionFacts k;
  k.id = "fn@16";
  k.role = FunctionRole::Kernel;
  k.name = k.qualifiedName = "k";
  k.offset = 16;
  k.line = 1;
  k.declarations = {{0, false, false, "", true}};
  k.bodyBegin = static_cast<unsigned>(src.find('{')) + 1;
  k.rangeEnd = static_cast<unsigned>(src.find('}')) + 1;
  k.args = {{"x", "float *"}};
  f.functions[k.id] = k;
  FunctionFacts go;
  go.id = "fn@58";
  go.role = FunctionRole::Host;
  go.name = go.qualifiedName = "go";
  go.line = 2;
  unsigned goStart = static_cast<unsigned>(src.find("void go"));
  go.offset = goStart + 5;
  go.declarations = {{goStart, false, false, "", true}};
  go.bodyBegin = static_cast<unsigned>(src.find('{', goStart)) + 1;
  go.rangeBegin = goStart;
  go.rangeEnd = static_cast<unsigned>(src.size()) - 1;
  go.args = {{"x", "float *"}};
  f.functions[go.id] = go;
  CallFacts launch;
  launch.isLaunch = true;
  launch.caller = go.id;
  launch.callee = k.id;
  launch.line = 2;
  launch.insertOffset = static_cast<unsigned>(src.find("<<<"));
  unsigned block = static_cast<unsigned>(src.rfind("256"));
  launch.grid = {"1"};
  launch.block = {marker(block)};
  f.calls = {launch};
  Occurrence o;
  o.offset = block;
  o.length = 3;
  o.line = 2;
  o.col = block - goStart + 1;
  o.text = "256";
  o.function = go.id;
  o.kernel = k.id;
  o.role = SiteRole::LaunchBlock;
  o.value = o.baseValue = 256;
  o.family = Family::block();
  f.occurrences = {o};
  if (size_t use = src.find("% 256"); use != std::string::npos) {
    Occurrence k = o;
    k.offset = static_cast<unsigned>(use + 2);
    k.line = 1;
    k.col = k.offset + 1;
    k.function = "fn@16";
    k.role = SiteRole::IndexArith;
    f.occurrences.insert(f.occurrences.begin(), k);
  }
  return f;
}

/// A plan with one parameter, `name`, on the first candidate (the block
/// size 256).
inline Plan blockSizePlan(const CandidateSet &set, const std::string &name) {
  PlanParam p;
  p.name = name;
  p.kind = ParamKind::BlockSize;
  p.candidates = {set.candidates.at(0).id};
  p.defaultValue = 256;
  p.domain = Domain::ofValues({128, 256});
  PlanKernel pk;
  pk.kernel = "k";
  pk.params = {p};
  Plan plan;
  plan.kernels = {pk};
  return plan;
}

} // namespace ktune::testing

#endif
