//===- PtxCompare.h - A template's default PTX ---------------*- C++ -*-===//
//
// The text half of the self-check (Verify.cpp compiles): the functions of a
// PTX module, the explicit instantiations that make a template compile its
// default configuration, and the comparison of the two modules' functions
// once the template's mangled names are mapped back to the original's. The
// same rules as scripts/ptx-identical.py.
//
//===----------------------------------------------------------------------===//
#ifndef KTUNE_LIB_REFACTOR_PTXCOMPARE_H
#define KTUNE_LIB_REFACTOR_PTXCOMPARE_H

#include "ktune/Plan/Manifest.h"

#include <map>
#include <string>
#include <vector>

namespace ktune::refactor {

/// {mangled name: text from the header to the closing brace} of every
/// function defined in `ptx` (declarations left out).
std::map<std::string, std::string> ptxFunctions(const std::string &ptx);

/// Lines instantiating each manifest kernel the original instantiates
/// (`original` names its PTX functions) at the original's template
/// arguments and the new parameters' defaults, to append to the template.
/// `missing` receives the kernels the original never instantiates. With
/// `typed`, each through a pointer of the original's parameter types, for a
/// kernel whose name a host function shares (`&k<...>` alone then names no
/// one function).
std::string defaultInstantiations(const std::vector<ManifestKernel> &kernels,
                                  const std::vector<std::string> &original,
                                  std::vector<std::string> &missing,
                                  bool typed = false);

/// One function of the original whose PTX the template does not reproduce.
struct PtxMismatch {
  std::string function; // demangled
  std::string diff;     // the first differing lines; empty when missing
};

/// Compares every function of the original module with the template's
/// function of the same name (trailing template arguments ktune added
/// dropped), mangled names mapped back before comparing. String literals
/// compare by content; one spelling the compiled file's own name (as given
/// to the compiler: an assert's __FILE__) compares equal to the other's,
/// and so does a rewritten header's copy (`headerCopies`: copy -> the
/// header it was made from) to its header.
std::vector<PtxMismatch>
comparePtx(const std::string &originalPtx, const std::string &templatePtx,
           const std::string &originalFile = "",
           const std::string &templateFile = "",
           const std::map<std::string, std::string> &headerCopies = {});

} // namespace ktune::refactor

#endif
