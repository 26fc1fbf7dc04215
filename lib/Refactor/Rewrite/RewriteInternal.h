//===- RewriteInternal.h - The steps of planRewrite -------------*- C++ -*-===//
//
// planRewrite (Rewrite.cpp) turns a plan into edits in steps:
//
//   RewritePlan.cpp     the plan's kernels and parameters resolved to
//                       functions and sites, names checked
//   FunctionParams.cpp  which functions receive which parameters
//   Rewrite.cpp         the edits: template lists, forwarders, sites, calls,
//                       static_asserts; merged into Replacements
//   RewriteManifest.cpp the manifest entry of a rewritten kernel
//   RewriteText.cpp     reading the source text (identifiers, macros) and
//                       spelling a site's replacement
//   RewriteStructural.cpp  structural parameters: row_split's body copy and
//                       grids
//   RewriteEdits.cpp    edits that are no site: static_asserts, explicit
//                       instantiations, host-code guards; merging edits
//                       into Replacements
//   LineMarks.cpp       `#line` directives that keep the original lines
//   OutputTree.cpp      where rewritten headers go (makeTemplate)
//
// Nothing here is part of ktune's public API.
//
//===----------------------------------------------------------------------===//
#ifndef KTUNE_LIB_REFACTOR_REWRITE_REWRITEINTERNAL_H
#define KTUNE_LIB_REFACTOR_REWRITE_REWRITEINTERNAL_H

#include "ktune/Expr/Expr.h"
#include "ktune/Plan/SourceScan.h"
#include "ktune/Refactor/Rewrite.h"
#include "ktune/Refactor/SourceFacts.h"

#include "llvm/Support/Error.h"

#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

namespace ktune::refactor {

/// A candidate's site and its position (SourceFacts.h).
struct PlacedSite {
  const SourceSite *site = nullptr;
  Position position;
};

/// A plan parameter as the rewrite sees it.
struct ParamWork {
  std::string name;       // plan name: the template parameter on the host
  std::string kernelName; // name inside the kernel (an existing parameter's
                          // name when the plan sets one)
  const PlanParam *plan = nullptr;
  std::string path; // JSON path of the plan parameter
  int boundParam = -1;
  int64_t defaultValue = 0;
  /// The C++ type of the new template parameter (the constant's: "unsigned
  /// int" for `1024U`); "int" when the constant is an int.
  std::string type = "int";
  /// Its candidates are launch parameters: only the host functions holding
  /// its sites receive it, never the kernel.
  bool launchParam = false;
  /// When the shapes that reach it: its candidates' cases, joined with
  /// "||"; empty when a candidate is in no case ("unknown" if one is).
  std::string caseCondition;
  /// fixed_arg: the kernel argument it fixes (FixableArg).
  const FixableArg *fixes = nullptr;
  std::vector<PlacedSite> sites;
  std::set<std::string> functions; // ids of functions holding sites
};

/// A template parameter a function receives.
struct FnParam {
  std::string name;
  int64_t defaultValue = 0;
  std::string type = "int";
  /// The plan parameters it carries (several kernels launched from one
  /// function may share one).
  std::vector<const ParamWork *> params;
};

/// A planned kernel and its parameters.
struct KernelWork {
  const FunctionFacts *kernel = nullptr;
  const PlanKernel *plan = nullptr;
  /// Instantiated explicitly at its defaults (no launch keeps it alive).
  bool explicitInstantiation = false;
  std::string path;
  std::vector<ParamWork> params;
};

/// One edit and the plan field it came from.
struct Edit {
  Position offset;
  unsigned length = 0;
  std::string text;
  std::string path;
  int order = 0; // insertions at one offset: lower first
};

// --- source text (RewriteText.cpp) -------------------------------------------

/// Identifiers of the source (source_scan::identifierTokens), with offsets
/// in it.
std::vector<std::pair<unsigned, std::string>> identifiers(llvm::StringRef src);
/// Names of the macros the source #defines.
using source_scan::definedMacros;
/// "file:line" or "file:line:col" in file `fileIndex` of `facts`.
std::string location(const SourceFacts &facts, unsigned fileIndex,
                     unsigned line, unsigned col = 0);
/// The 1-based line of `position` in `text` (its file's text).
unsigned lineOf(llvm::StringRef text, Position position);
/// Replacement text of a site for parameter `name`: its "{P}" pattern, in
/// parentheses where a compound form would not be delimited.
std::string substitute(const SourceSite &site, const std::string &name);

// --- the manifest (RewriteManifest.cpp) --------------------------------------

/// Kernel-side names of the parameters that set an existing template
/// parameter (plan name -> the kernel's name), for the plan's constraints.
std::map<std::string, std::string>
constraintRenames(const std::vector<ParamWork> &params);

/// The name a launch parameter has in the manifest: its name in `host`, the
/// launcher it belongs to.
using LaunchParamName =
    std::function<std::string(const ParamWork &, const std::string &host)>;

/// The manifest entry of `kernel` once rewritten: its template parameters,
/// launch parameters, arguments, constraints and the first launch geometry
/// that can be expressed in them (kernel arguments, template and launch
/// parameters, the launcher's own parameters, `sizeof` of a template
/// parameter).
ManifestKernel manifestFor(const SourceFacts &facts,
                           const FunctionFacts &kernel, const PlanKernel &pk,
                           const std::vector<ParamWork> &params,
                           const LaunchParamName &launchName);

/// A launch expression checked for the manifest: markers resolved by
/// `resolve`, parsed, every name in `known` (`sizeof(X)` is kept when X is
/// in `known`); its canonical text, or nullopt.
std::optional<std::string> launchExpression(
    const std::string &text,
    const std::function<std::optional<std::string>(Position)> &resolve,
    const std::set<std::string> &known);

/// The manifest entry of a host function that received template
/// parameters: its template parameters (the new ones tunable), arguments,
/// what it launches and whether a forwarding overload keeps its symbol.
ManifestLauncher launcherFor(const SourceFacts &facts, const FunctionFacts &f,
                             const std::vector<FnParam> &params);

// --- the rewrite
// ---------------------------------------------------------------

class Rewriter {
public:
  Rewriter(const SourceFacts &facts, const CandidateSet &candidates,
           const CandidateIndex &index, const Plan &plan, llvm::StringRef src,
           RewriteOptions options = {});

  llvm::Expected<RewriteResult> run();

  // The steps, in the order run() takes them; each may fail with an error
  // at a plan path.
  std::optional<ktune::Error> prepareKernels();
  std::optional<ktune::Error> prepareKernel(const PlanKernel &pk,
                                            const std::string &path);
  void nameHostParameters();
  /// A site in a launch macro's body that launchers of several kernels
  /// expand is lifted for all of them under one name, or for none.
  std::optional<ktune::Error> checkSharedMacroSites();
  std::optional<ktune::Error> assignFunctionParams();
  /// Host functions calling a launcher that takes parameters take them too.
  std::optional<ktune::Error> passLaunchParamsToCallers();
  std::optional<ktune::Error> templateListEdits();
  void siteEdits();
  std::optional<ktune::Error> callEdits();
  /// Notes once that a call keeps its callee's defaults.
  void noteCallAtDefaults(const CallFacts &call);
  std::optional<ktune::Error> constraintEdits();
  void instantiationEdits();
  /// Structural parameters (RewriteStructural.cpp): a row_split kernel's
  /// body kept for the default and copied, split, for the other values;
  /// its launches' grids multiplied. After every other edit in the body.
  std::optional<ktune::Error> structuralEdits();
  void hostGuardEdits();
  /// Edits inside a header macro the output redefines (Facts.macroCopies)
  /// become one insertion of the edited definition in the main file.
  std::optional<ktune::Error> moveIntoMacroCopies(std::vector<Edit> &edits);
  /// The edits of every file, by file index.
  llvm::Expected<FileEdits> mergedReplacements();

  const std::vector<KernelWork> &work() const { return Work; }
  const std::vector<Edit> &edits() const { return Edits; }

private:
  ktune::Error error(const std::string &path, const std::string &message) {
    return ktune::Error{message, path};
  }
  ktune::Expected<const FunctionFacts *> findKernel(const PlanKernel &pk,
                                                    const std::string &path);
  std::optional<ktune::Error> checkParamName(const PlanParam &pp,
                                             const FunctionFacts &kernel,
                                             std::set<std::string> &names,
                                             const std::string &ppath);
  std::optional<ktune::Error> addCandidateSites(const PlanParam &pp,
                                                const FunctionFacts &kernel,
                                                ParamWork &p);
  std::optional<ktune::Error> checkListedSites(const PlanParam &pp,
                                               const ParamWork &p);
  std::string occurrenceFunction(Position position, const std::string &kernel);
  std::set<std::string> occurrenceFunctions(Position position,
                                            const std::string &kernel);
  std::optional<ktune::Error> checkName(const ParamWork &p,
                                        const FunctionFacts &f);
  std::optional<ktune::Error> addFnParam(const std::string &fn,
                                         const ParamWork &p,
                                         const std::string &name);
  std::optional<ktune::Error> assignKernelParams(const KernelWork &w);
  void leaveUnspellableLaunches(const KernelWork &w);
  std::optional<ktune::Error> rowSplitEdits(const KernelWork &w,
                                            const ParamWork &p);
  std::optional<ktune::Error> fixedArgEdits(const KernelWork &w,
                                            const ParamWork &p);
  std::optional<ktune::Error> assignLaunchParam(const KernelWork &w,
                                                const ParamWork &p);
  void forwarderEdit(const FunctionFacts &f, const std::vector<FnParam> &list,
                     const std::string &path);
  /// static_asserts at the top of `f`'s body.
  void staticAssertEdit(const FunctionFacts &f, const std::string &asserts,
                        const std::string &path);
  /// The host functions that receive launch parameter `p`.
  std::vector<std::string> launchersOf(const ParamWork &p) const;
  /// The name parameter `p` of kernel `w` has inside function `fn`.
  std::string nameIn(const std::string &fn, const KernelWork &w,
                     const ParamWork &p) const;
  /// The text of the file `position` is in.
  llvm::StringRef textAt(Position position) const {
    return Facts.textOf(filePart(position), Source);
  }

  const SourceFacts &Facts;
  const CandidateSet &Candidates;
  const CandidateIndex &Index;
  const Plan &ThePlan;
  llvm::StringRef Source; // the main file's
  RewriteOptions Options;
  std::set<std::string> Macros;
  std::vector<std::pair<Position, std::string>> Idents;

  std::vector<KernelWork> Work;
  /// Template parameters each function receives, in order.
  std::map<std::string, std::vector<FnParam>> FnParams;
  std::map<std::string, std::string> FnParamPath; // fn id + name -> path
  std::vector<Edit> Edits;
  std::vector<std::string> Notes;
  std::set<std::string> HostsLeftAlone;
  /// (host, kernel) where a launch cannot be given the kernel's new template
  /// arguments (one it leaves implicit cannot be spelled): the host keeps
  /// that kernel's default configuration, its other launches are lifted.
  std::set<std::pair<std::string, std::string>> LaunchesLeftAlone;
  /// Calls of a launcher that cannot be given template arguments (caller,
  /// callee): the callee runs at its defaults there.
  std::set<std::pair<std::string, std::string>> CallsAtDefaults;
  std::map<std::tuple<std::string, std::string, std::string>, std::string>
      HostNames;
  /// (caller, callee, the callee's parameter) -> the caller's parameter
  /// passed for it, where the caller already has one of that name with
  /// another default or type (another kernel's knob).
  std::map<std::tuple<std::string, std::string, std::string>, std::string>
      PassedAs;
  /// The caller's name for what it passes as the callee's parameter `name`.
  std::string passedAs(const std::string &caller, const std::string &callee,
                       const std::string &name) const;
  /// A name no identifier of the files and no parameter of `fn` has yet.
  std::string freshName(const std::string &fn, const std::string &base) const;
};

// --- Where rewritten headers go (OutputTree.cpp) ----------------------------
//
// A kernel in a project header is rewritten in a copy of the header, never
// in the original. The copy goes under the output's include directory at
// the path its #include spells (`DIR/include/flashinfer/norm.cuh` for a
// header found as "flashinfer/norm.cuh" under -I include), so that with
// `-I DIR/include` first on the include path every #include of it finds the
// copy. Moving a file changes what its quoted #includes find (they look
// beside the including file first): those that would now miss, or find
// something else, are re-spelled (to the copy's include path, to a path
// under a project include directory, or to the absolute path of the
// original). A header of the files read that includes a rewritten one
// beside itself is copied too, unchanged but for such re-spellings.

/// A header of the output tree.
struct HeaderCopy {
  unsigned fileIndex = 0;  // in SourceFacts::files, or past them: a header
                           // found on disk (its #includes only)
  std::string includePath; // relative to the output's include directory
  std::string text;
  bool rewritten = false; // false: copied for its #includes only
  std::string originalPath, originalAbsolutePath;
};

struct OutputTree {
  std::string mainText;
  std::vector<HeaderCopy> headers;
};

/// Whether a file exists (the file system by default; tests give their own).
using FileExists = std::function<bool(const std::string &absolutePath)>;

/// The path under the output's include directory where the same #include
/// finds the copy of header `fileIndex`: its spelling when it was found
/// under a project include root, else its path below the deepest root
/// holding it. An error for a header under no root.
llvm::Expected<std::string> includePathOf(const SourceFacts &facts,
                                          unsigned fileIndex);

/// One quoted #include of a text: the offset of its opening quote, the
/// length up to the closing quote included, and the spelling between them.
struct QuotedInclude {
  unsigned offset = 0, length = 0;
  std::string spelling;
};
std::vector<QuotedInclude> quotedIncludes(llvm::StringRef text);

/// The template's text and the header copies, from the edits of each file
/// (`marked`: with their #line marks, see withLineMarks).
llvm::Expected<OutputTree> buildOutputTree(const SourceFacts &facts,
                                           llvm::StringRef mainSource,
                                           const FileEdits &marked,
                                           const FileExists &exists = {});

} // namespace ktune::refactor

#endif
