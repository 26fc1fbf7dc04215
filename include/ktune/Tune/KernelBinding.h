//===- ktune/Tune/KernelBinding.h - Spec + manifest -> launches -*- C++ -*-===//
//
// Binds a manifest kernel to a spec: for a configuration and a shape it gives
// the name expression to compile (template arguments in the manifest's
// parameter order: the spec's fixed template_args and the configuration's
// values), the buffers to allocate, the kernel arguments (buffers by index,
// scalars encoded as the C type the kernel takes) and the launch geometry
// (expressions over template parameters, scalar arguments and dimensions).
//
//===----------------------------------------------------------------------===//
#ifndef KTUNE_TUNE_KERNELBINDING_H
#define KTUNE_TUNE_KERNELBINDING_H

#include "ktune/Expr/Expr.h"
#include "ktune/Plan/Manifest.h"
#include "ktune/Target/Pruning.h"
#include "ktune/Tune/Evaluator.h"
#include "ktune/Tune/ScalarType.h"
#include "ktune/Tune/Spec.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace ktune {

struct BufferPlan {
  std::string name;
  DType dtype = DType::F32;
  int64_t count = 0; // elements
  Role role = Role::In;
  std::string init; // normal | uniform | ones | zeros | arange
  double low = -1, high = 1;
  uint64_t seed = 0;
  int64_t bytes() const;
};

/// One kernel argument: a buffer (index into the buffer list) or the bytes
/// of a scalar.
struct KernelArgValue {
  /// buffer == StreamSlot: a launcher's stream parameter, given the stream
  /// the worker times on.
  static constexpr int StreamSlot = -2;
  int buffer = -1;
  std::string bytes;
};

class KernelBinding {
public:
  static Expected<KernelBinding> create(const ManifestKernel &kernel,
                                        const Spec &spec);

  const ManifestKernel &kernel() const { return Kernel; }
  /// Launcher mode: the entry point is a host function.
  bool launcherMode() const { return LauncherMode; }
  /// False in launcher mode when no grid could be read; launch() also needs
  /// the block (gridDims() does not).
  bool hasGeometry() const { return !Grid.empty(); }
  /// The configuration of the manifest's defaults (the original constants).
  const Configuration &defaultConfig() const { return Default; }

  /// Adds defaults for the parameters a configuration lacks; unknown names
  /// are errors.
  Expected<Configuration> complete(const Configuration &config) const;
  Expected<std::string> nameExpression(const Configuration &config) const;
  /// The name expression of the spec's reference kernel, if it has one.
  std::optional<std::string> referenceNameExpression() const;
  /// config["maxrregcount"], or 0.
  static int maxRegisters(const Configuration &config);

  Expected<std::vector<BufferPlan>> buffers(const Shape &shape,
                                            uint64_t seed) const;
  Expected<std::vector<KernelArgValue>> args(const Shape &shape,
                                             const Configuration &config) const;
  Expected<LaunchDims> launch(const Shape &shape,
                              const Configuration &config) const;
  /// The grid alone, where the block cannot be evaluated (a launcher's
  /// `sizeof(T)` of a type its dispatch chooses at run time).
  Expected<std::array<int64_t, 3>> gridDims(const Shape &shape,
                                            const Configuration &config) const;
  /// The first manifest or spec constraint the configuration violates at
  /// this shape. Constraints naming things outside the configuration and
  /// shape (checked by the search space) are skipped.
  std::optional<std::string>
  violatedConstraint(const Shape &shape, const Configuration &config) const;

private:
  using Env = std::map<std::string, expr::Value>;
  Expected<Env> environment(const Shape &shape, const Configuration &config,
                            bool withScalars) const;

  struct ArgBinding {
    std::string name;
    bool isBuffer = false;
    bool isStream = false;
    int bufferIndex = -1;
    BufferArg buffer;
    std::vector<expr::Expr> shape;
    ScalarType scalarType;
    std::optional<expr::Expr> scalarValue;
  };

  ManifestKernel Kernel;
  bool LauncherMode = false;
  Configuration Default;
  std::map<std::string, std::string> TemplateArgs;
  std::optional<std::string> ReferenceKernel;
  std::vector<ArgBinding> Args;
  std::vector<expr::Expr> Grid, Block;
  expr::Expr Smem = expr::Expr::integer(0);
  std::vector<expr::Expr> Constraints;
};

} // namespace ktune

#endif
