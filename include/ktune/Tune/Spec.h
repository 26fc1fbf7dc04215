//===- ktune/Tune/Spec.h - What stage 2 needs beyond a manifest -*- C++ -*-===//
//
// A spec gives the problem dimensions and shapes to tune for, each kernel
// argument (buffers with dtype, shape, role and initial values; scalars as
// expressions), the launch geometry, tolerances, and overrides of the
// manifest's parameter domains and constraints. Schema: docs/schemas.md#spec.
//
//===----------------------------------------------------------------------===//
#ifndef KTUNE_TUNE_SPEC_H
#define KTUNE_TUNE_SPEC_H

#include "ktune/Expr/Expr.h"
#include "ktune/Plan/Domain.h"
#include "ktune/Plan/Manifest.h"
#include "ktune/Support/DType.h"
#include "ktune/Support/EnumNames.h"
#include "ktune/Support/Error.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <variant>
#include <vector>

namespace ktune {

inline constexpr const char *SpecVersion = "spec/1";

enum class Role { In, Out, InOut };
/// A buffer's role as spec files and the worker protocol spell it.
inline constexpr EnumName<Role> RoleNames[] = {
    {Role::In, "in"}, {Role::Out, "out"}, {Role::InOut, "inout"}};

/// Who compiles the template's configurations: NVRTC when it compiles the
/// default configuration, else nvcc (auto); or one of them, forced.
enum class CompilerChoice { Auto, Nvrtc, Nvcc };
inline constexpr EnumName<CompilerChoice> CompilerChoiceNames[] = {
    {CompilerChoice::Auto, "auto"},
    {CompilerChoice::Nvrtc, "nvrtc"},
    {CompilerChoice::Nvcc, "nvcc"}};

struct BufferArg {
  DType dtype = DType::F32;
  std::vector<std::string> shape; // expressions over dims
  Role role = Role::In;
  /// normal | uniform | ones | zeros | arange (zeros never for outputs'
  /// checks: outputs are poisoned before every run anyway)
  std::string init = "normal";
  double low = -1.0, high = 1.0; // uniform bounds; normal: mean 0, stddev 1
};

struct ScalarArg {
  std::string value; // expression over dims ("hidden", "1e-6")
  std::string ctype; // C type the kernel takes ("int", "float", "int64_t"),
                     // from the manifest's argument list when not given
  /// Launcher mode: a `cudaStream_t` parameter, given the stream ktune times
  /// on (spec: {"stream": true}; the value is unused).
  bool stream = false;
};

struct SpecArg {
  std::string name;
  std::variant<BufferArg, ScalarArg> arg;
};

/// One point of the problem: a value per dimension.
using Shape = std::map<std::string, int64_t>;

/// A shape as messages write it: "{n=4096, d=128}".
std::string shapeLiteral(const Shape &shape);

struct Spec {
  std::string
      kernel; // manifest kernel name, or the launcher's in launcher mode
  /// Launcher mode ("launcher": name instead of "kernel"): the host function
  /// is the entry point; args are its parameters.
  bool launcherMode = false;
  std::map<std::string, std::string> templateArgs; // non-tunable, e.g. T
  std::vector<std::pair<std::string, std::vector<int64_t>>> dims;
  /// Explicit shapes; when empty, the cartesian product of dims.
  std::vector<Shape> shapes;
  std::vector<SpecArg> args;            // in kernel-argument order
  std::optional<LaunchGeometry> launch; // overrides the manifest's
  std::string bytes; // optional: least bytes moved, for the roofline
  std::map<DType, Tolerance> tolerance;
  /// Overrides of the manifest: domains by parameter name, extra constraints.
  std::map<std::string, Domain> domains;
  std::vector<std::string> constraints;
  /// Candidate --maxrregcount values searched like a parameter; 0 = no cap.
  std::vector<int64_t> maxRegisters;
  /// Extra compiler options, in NVRTC's or nvcc's spelling (each backend
  /// gets its own).
  std::vector<std::string> compileOptions;
  CompilerChoice compiler = CompilerChoice::Auto;
  std::optional<std::string> referenceKernel; // optional user reference

  std::vector<Shape> allShapes() const;
};

/// Reads a spec; errors name the JSON path. Cross-checks against the
/// manifest kernel happen in validateSpec.
Expected<Spec> specFromJson(const nlohmann::json &json);
nlohmann::json specToJson(const Spec &spec);

/// Checks the spec against the manifest kernel: every kernel argument has a
/// spec entry, shapes and scalars evaluate for every shape, launch geometry
/// is known, overridden parameters exist and domains contain the default.
Status validateSpec(const Spec &spec, const ManifestKernel &kernel);

/// validateSpec, then puts the arguments in kernel-argument order, fills each
/// scalar's C type from the manifest where the spec gives none, and copies
/// the manifest's launch geometry when the spec has none.
Expected<Spec> resolveSpec(Spec spec, const ManifestKernel &kernel);

/// The spec's launch geometry, else the manifest's (empty when neither),
/// with `sizeof(T)` of the spec's template arguments resolved.
LaunchGeometry effectiveLaunch(const Spec &spec, const ManifestKernel &kernel);

/// sizeof of a template argument's type (a dtype's C type or an integer
/// type), by the spec's template_args; nullopt when unknown.
std::optional<int64_t> templateArgSize(const Spec &spec,
                                       const std::string &param);

/// A tuning run that writes a dispatch header does not search register caps:
/// --maxrregcount is a compile option of the whole translation unit, so no
/// header could apply a cap it found (a kernel's min-blocks parameter,
/// `__launch_bounds__(BLOCK, MIN_BLOCKS)`, is tuned instead). Clears the
/// spec's max_registers and returns the note that says so; nullopt when
/// there were none. Compile-only runs keep them (registers and spills under
/// each cap).
std::optional<std::string> withdrawRegisterCaps(Spec &spec);

/// True for the spellings of a CUDA stream type.
bool isStreamType(const std::string &ctype);

/// The names an expression may use at one shape, as validateSpec evaluates
/// them: the dimensions, then each scalar argument that evaluates.
std::map<std::string, expr::Value> shapeValues(const Spec &spec,
                                               const Shape &shape);

/// Evaluates a spec expression at one shape (`env` from shapeValues) with
/// validateSpec's errors: `where` is the JSON path, `what` names the value
/// ("extent"), and `atLeast` requires an integer no smaller.
Expected<expr::Value>
evaluateAtShape(const std::string &text,
                const std::map<std::string, expr::Value> &env,
                const std::string &where, const Shape &shape,
                std::optional<int64_t> atLeast, const std::string &what);

} // namespace ktune

#endif
