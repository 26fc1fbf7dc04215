//===- ktune/Plan/Manifest.h - kernel.tpl.json, stage 2's input -*- C++ -*-===//
//
// The manifest describes the templates stage 1 emitted: each kernel's
// template parameters (tunable ones with kind, default and domain), the
// constraints between them, the kernel's arguments and, where it could be
// read off the host launch site, the launch geometry as expressions.
// Schema: docs/schemas.md#manifest.
//
//===----------------------------------------------------------------------===//
#ifndef KTUNE_PLAN_MANIFEST_H
#define KTUNE_PLAN_MANIFEST_H

#include "ktune/Expr/Expr.h"
#include "ktune/Plan/Domain.h"
#include "ktune/Plan/ParamKind.h"
#include "ktune/Support/Error.h"

#include <nlohmann/json.hpp>

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace ktune {

inline constexpr const char *ManifestVersion = "manifest/1";
/// The version with launch parameters, launchers and the project's compile
/// command; the reader takes both.
inline constexpr const char *ManifestVersion2 = "manifest/2";

struct TemplateParam {
  std::string name;
  /// "typename", or the C++ type of a non-type parameter ("int", "bool", ...).
  std::string type;
  bool tunable = false;
  ParamKind kind = ParamKind::Other;   // tunable: block_size, unroll, ...
  std::optional<int64_t> defaultValue; // tunable: the original constant
  std::optional<Domain> domain;        // tunable
  /// Launch parameters only: the templated launcher (`launchers[j].name`)
  /// whose parameter this is. The kernel is instantiated without it.
  std::string launcher;
  /// A constant of configuration-table cases: when they are reached, over
  /// the launcher's parameters ("(seqlen) <= (128)"), or "unknown". A shape
  /// that reaches none leaves the parameter at its default. Empty: always.
  std::string caseCondition;
  /// fixed_arg: what the kernel's argument equals, over the kernel's
  /// arguments (its name) or, for a launch parameter, over the launcher's
  /// parameters; "unknown" when the launcher passes anything else. A value
  /// other than 0 is valid only where it equals that argument.
  std::string fixes;

  bool isLaunchParam() const { return !launcher.empty(); }
};

struct KernelArg {
  std::string name;
  std::string type; // as spelled, e.g. "const __nv_bfloat16 *__restrict__"
  std::string canonicalType; // through typedefs ("uint" -> "unsigned int")
  std::string enumName;      // when the argument's type is an enum

  /// The canonical type when the manifest has one, else the spelling.
  const std::string &effectiveType() const {
    return canonicalType.empty() ? type : canonicalType;
  }
};

/// One launch expression: its text as a manifest or spec writes it, parsed
/// once when it is made. Text that does not parse keeps the reason, for the
/// check that reports it with the expression's place (validateSpec,
/// KernelBinding); `sizeof(T)` parses only once resolveLaunchGeometry has
/// replaced it by a size.
class LaunchExpr {
public:
  LaunchExpr(std::string text);
  LaunchExpr(const char *text) : LaunchExpr(std::string(text)) {}

  const std::string &text() const { return Text; }
  bool empty() const { return Text.empty(); }
  /// The expression, or why the text does not parse.
  const Expected<expr::Expr> &parsed() const { return Parsed; }
  /// The names it uses, each once; none when it does not parse.
  std::vector<std::string> names() const;

  friend bool operator==(const LaunchExpr &a, const LaunchExpr &b) {
    return a.Text == b.Text;
  }
  friend bool operator==(const LaunchExpr &a, const std::string &text) {
    return a.Text == text;
  }
  friend bool operator==(const LaunchExpr &a, const char *text) {
    return a.Text == text;
  }
  /// Written to JSON as its text.
  template <class Json> friend void to_json(Json &j, const LaunchExpr &e) {
    j = e.Text;
  }

private:
  std::string Text;
  Expected<expr::Expr> Parsed;
};

/// The same texts, in order.
bool operator==(const std::vector<LaunchExpr> &exprs,
                const std::vector<std::string> &texts);

/// Launch geometry as expressions over template parameters and kernel
/// argument names (ktune expression language).
struct LaunchGeometry {
  std::vector<LaunchExpr> grid;  // 1-3 dimensions
  std::vector<LaunchExpr> block; // 1-3 dimensions
  LaunchExpr smem = "0";         // dynamic shared memory bytes
  std::string from;              // "file:line" of the launch it was read from
  bool cooperative = false;      // cudaLaunchCooperativeKernel
};

struct ManifestKernel {
  std::string name;          // unqualified, e.g. "rmsnorm"
  std::string qualifiedName; // e.g. "ops::rmsnorm", used in name expressions
  std::vector<TemplateParam> templateParams;
  std::vector<KernelArg> args;
  std::vector<std::string> constraints;
  std::optional<LaunchGeometry> launch;
  /// Tunable parameters that shape the launch only (manifest/2); each
  /// names its launcher. Tuned like template parameters.
  std::vector<TemplateParam> launchParams;
  bool explicitInstantiation = false;
  /// A launcher's view (launcherAsKernel): for a type parameter T of the
  /// kernel it launches, a launcher argument whose kernel argument of the
  /// same name points to T (`out` for `T *out`), so that `sizeof(T)` in
  /// the launch is the element size of the buffer a spec binds to it.
  /// Not written to JSON.
  std::map<std::string, std::string> typeFromArg;

  /// A template parameter or a launch parameter.
  const TemplateParam *findParam(const std::string &name) const;
  /// The tunable template parameters, then the launch parameters: the
  /// dimensions of the search space.
  std::vector<const TemplateParam *> tunableParams() const;
};

struct ManifestFile {
  std::string path;     // relative to the manifest
  std::string original; // the file it was made from
  std::string role;     // "main" | "header"
};

/// The project's compile command for the main file (manifest/2).
struct CompileCommandInfo {
  std::string directory;
  std::vector<std::string> arguments; // without -c, -o and the input
  std::string compiler;               // "nvcc", "clang++", ...
};

/// The compiler that flags given without one (after `--`) are written for:
/// nvcc, as the docs ask, unless they are Clang's CUDA flags (--cuda-*,
/// -xcuda, --offload-arch), then "clang++".
std::string compilerForFlags(const std::vector<std::string> &arguments);

/// A host function that became a template because a launch parameter was
/// lifted in it (manifest/2).
struct ManifestLauncher {
  std::string name;
  std::string qualifiedName;
  std::vector<TemplateParam> templateParams;
  std::vector<KernelArg> args;
  std::string returns = "void";
  std::vector<std::string> kernels; // qualified names of what it launches
  std::string from;
  bool forwarder = false;
};

struct Manifest {
  std::string version = ManifestVersion; // as read
  std::string source;       // the template file, relative to the manifest
  std::string original;     // the file it was made from
  std::string sourceSha256; // of the template file's content
  std::vector<ManifestKernel> kernels;
  std::vector<ManifestFile> files;
  std::vector<std::string> includeDirs; // relative to the manifest
  /// Searched by quoted #includes only, before any -I: the rewritten
  /// copies, then the original's directory (where its `#include "x.h"`
  /// found x.h; as -I it would also serve <...> includes). Relative to the
  /// manifest.
  std::vector<std::string> quoteDirs;
  std::optional<CompileCommandInfo> compile;
  std::vector<ManifestLauncher> launchers;

  const ManifestKernel *findKernel(const std::string &name) const;
  const ManifestLauncher *findLauncher(const std::string &name) const;
};

Expected<Manifest> manifestFromJson(const nlohmann::json &json);
nlohmann::json manifestToJson(const Manifest &manifest);

/// Launcher mode: the launcher seen as the entry point to tune. Its template
/// parameters (the tunable ones are the space), its arguments, and the
/// constraints and launch geometry of the kernel it launches where it
/// launches one (geometry for pruning and reports only: the launcher decides
/// the real launch).
Expected<ManifestKernel> launcherAsKernel(const Manifest &manifest,
                                          const std::string &launcher);

/// Makes the launcher findable by its name as the entry point to tune: its
/// launcherAsKernel view goes first in `manifest.kernels` (once).
Status addLauncherEntry(Manifest &manifest, const std::string &launcher);

/// Replaces `sizeof(X)` in a launch expression by its size in bytes from
/// `sizeOf` (nullopt: left as is, so the expression fails to parse with the
/// name in the message), and `std::min`/`std::max` by `min`/`max`.
std::string resolveLaunchExpression(
    const std::string &text,
    const std::function<std::optional<int64_t>(const std::string &)> &sizeOf);
LaunchGeometry resolveLaunchGeometry(
    LaunchGeometry geometry,
    const std::function<std::optional<int64_t>(const std::string &)> &sizeOf);

} // namespace ktune

#endif
