//===- KernelBinding.cpp - Spec + manifest -> launches --------------------===//
#include "ktune/Tune/KernelBinding.h"
#include "ktune/Support/Try.h"

#include "ktune/Support/DType.h"

#include <algorithm>
#include <limits>

namespace ktune {

using expr::Expr;
using expr::Value;

int64_t BufferPlan::bytes() const {
  return count * static_cast<int64_t>(dtypeInfo(dtype).size);
}

static Expected<Expr> parseAt(const std::string &text,
                              const std::string &where) {
  auto e = Expr::parse(text);
  if (!e)
    return std::unexpected(withContext(e.error(), where));
  return *e;
}

/// A launch expression as it was parsed when read.
static Expected<Expr> parsedAt(const LaunchExpr &e, const std::string &where) {
  return withContext(e.parsed(), where);
}

static std::optional<Value> templateArgValue(const std::string &text) {
  if (text == "true")
    return Value::ofInt(1);
  if (text == "false")
    return Value::ofInt(0);
  auto e = Expr::parse(text);
  if (!e)
    return std::nullopt;
  if (auto i = e->asIntegerLiteral())
    return Value::ofInt(*i);
  return std::nullopt;
}

Expected<KernelBinding> KernelBinding::create(const ManifestKernel &kernel,
                                              const Spec &spec) {
  KernelBinding b;
  b.Kernel = kernel;
  b.TemplateArgs = spec.templateArgs;
  b.ReferenceKernel = spec.referenceKernel;
  const std::string kernelWhere = "kernel '" + kernel.name + "'";

  for (const auto &p : kernel.templateParams) {
    if (p.tunable) {
      if (!p.defaultValue)
        return makeError("tunable parameter '" + p.name +
                             "' has no default: the default instantiation is "
                             "the reference",
                         kernelWhere);
      b.Default[p.name] = *p.defaultValue;
      if (spec.templateArgs.count(p.name))
        return makeError("template_args fixes tunable parameter '" + p.name +
                             "': restrict its domain to one value instead",
                         "template_args." + p.name);
    } else if (!spec.templateArgs.count(p.name)) {
      return makeError("template parameter '" + p.name +
                           "' is not tunable and the spec gives no value "
                           "for it",
                       "template_args");
    }
  }
  for (const auto &p : kernel.launchParams) {
    if (!p.defaultValue)
      return makeError("launch parameter '" + p.name + "' has no default",
                       kernelWhere);
    b.Default[p.name] = *p.defaultValue;
  }
  b.LauncherMode = spec.launcherMode;
  for (const auto &[name, value] : spec.templateArgs)
    if (!kernel.findParam(name))
      return makeError("kernel '" + kernel.name +
                           "' has no template parameter '" + name + "'",
                       "template_args." + name);

  // Arguments, matched by name, in the kernel's order.
  for (const auto &arg : spec.args)
    if (std::none_of(kernel.args.begin(), kernel.args.end(),
                     [&](const KernelArg &k) { return k.name == arg.name; }))
      return makeError("kernel '" + kernel.name + "' has no argument '" +
                           arg.name + "'",
                       "args." + arg.name);
  int bufferCount = 0;
  for (const auto &karg : kernel.args) {
    std::string where = "args." + karg.name;
    auto it =
        std::find_if(spec.args.begin(), spec.args.end(),
                     [&](const SpecArg &a) { return a.name == karg.name; });
    if (it == spec.args.end())
      return makeError("the spec does not describe kernel argument '" +
                           karg.name + "' (" + karg.type + ")",
                       "args");
    ArgBinding ab;
    ab.name = karg.name;
    if (const auto *sc = std::get_if<ScalarArg>(&it->arg); sc && sc->stream) {
      ab.isStream = true;
      b.Args.push_back(std::move(ab));
      continue;
    }
    bool isPointer = karg.effectiveType().find('*') != std::string::npos;
    if (const auto *buf = std::get_if<BufferArg>(&it->arg)) {
      if (!isPointer)
        return makeError("argument has type '" + karg.type +
                             "', not a pointer, but the spec gives a buffer",
                         where);
      ab.isBuffer = true;
      ab.bufferIndex = bufferCount++;
      ab.buffer = *buf;
      if (buf->shape.empty())
        return makeError("buffer has no shape", where + ".shape");
      for (size_t i = 0; i < buf->shape.size(); ++i) {
        auto e =
            parseAt(buf->shape[i], where + ".shape[" + std::to_string(i) + "]");
        if (!e)
          return std::unexpected(e.error());
        ab.shape.push_back(*e);
      }
      static const char *Inits[] = {"normal", "uniform", "ones", "zeros",
                                    "arange"};
      if (std::find(std::begin(Inits), std::end(Inits), buf->init) ==
          std::end(Inits))
        return makeError("unknown init '" + buf->init +
                             "' (normal, uniform, ones, zeros, arange)",
                         where + ".init");
    } else {
      const auto &scalar = std::get<ScalarArg>(it->arg);
      if (isPointer)
        return makeError("argument has pointer type '" + karg.type +
                             "' but the spec gives a scalar value",
                         where);
      std::string ctype =
          scalar.ctype.empty() ? karg.effectiveType() : scalar.ctype;
      // A scalar whose type is a template parameter (`T eps`) takes the
      // spec's template argument.
      std::string bare = normaliseType(ctype);
      if (auto t = spec.templateArgs.find(bare); t != spec.templateArgs.end())
        ctype = t->second;
      auto type = parseScalarType(ctype);
      // The spec's own type, or the manifest's (resolveSpec copies it).
      bool manifestType = scalar.ctype.empty() ||
                          scalar.ctype == karg.effectiveType() ||
                          scalar.ctype == karg.type;
      if (!type && manifestType && !karg.enumName.empty()) {
        // An enum whose underlying type the manifest does not give. A
        // launcher reads its parameter as the enum itself from a slot of 16
        // zeroed bytes: eight little-endian bytes hold any enumerator. A
        // kernel's parameter must have its exact size.
        if (!spec.launcherMode)
          return makeError("argument '" + karg.name + "' is of enum type '" +
                               karg.enumName +
                               "' and the manifest gives no underlying "
                               "type: give the spec's \"type\" (e.g. "
                               "\"int\")",
                           where);
        type = ScalarType{ScalarType::Kind::SignedInt, 8, karg.enumName};
      }
      if (!type)
        return std::unexpected(withContext(type.error(), where));
      ab.scalarType = *type;
      KTUNE_TRY_ASSIGN(auto e, parseAt(scalar.value, where + ".value"));
      ab.scalarValue = e;
    }
    b.Args.push_back(std::move(ab));
  }

  // Launch geometry. A launcher computes its own: the kernel's geometry,
  // where it parses, only prunes and describes.
  std::optional<LaunchGeometry> geometry;
  if (spec.launch || kernel.launch)
    geometry = effectiveLaunch(spec, kernel);
  bool launcherGridOnly = false;
  if (spec.launcherMode && !spec.launch) {
    geometry.reset();
    LaunchGeometry g = effectiveLaunch(spec, kernel);
    auto parses = [](const std::vector<LaunchExpr> &list) {
      return !list.empty() &&
             std::all_of(list.begin(), list.end(), [](const LaunchExpr &e) {
               return e.parsed().has_value();
             });
    };
    if (parses(g.grid) && parses(g.block) &&
        (g.smem.empty() || g.smem.parsed()))
      geometry = g;
    else if (parses(g.grid)) {
      // The grid alone (a block of `sizeof(T)`, T chosen at run time):
      // enough to say how much of the GPU the grid fills.
      g.block.clear();
      g.smem = LaunchExpr("0");
      geometry = g;
      launcherGridOnly = true;
    }
  }
  if (!geometry && !spec.launcherMode)
    return makeError("no launch geometry: the manifest has none for kernel '" +
                         kernel.name + "', so the spec must give one",
                     "launch");
  if (geometry) {
    auto parsedDims = [&](const std::vector<LaunchExpr> &dims,
                          const std::string &where,
                          std::vector<Expr> &out) -> Status {
      if (dims.empty() || dims.size() > 3)
        return makeError("expected 1 to 3 expressions", where);
      for (size_t i = 0; i < dims.size(); ++i) {
        KTUNE_TRY_ASSIGN(
            auto e, parsedAt(dims[i], where + "[" + std::to_string(i) + "]"));
        out.push_back(e);
      }
      return {};
    };
    KTUNE_TRY(parsedDims(geometry->grid, "launch.grid", b.Grid));
    if (!launcherGridOnly)
      KTUNE_TRY(parsedDims(geometry->block, "launch.block", b.Block));
    if (!geometry->smem.empty()) {
      KTUNE_TRY_ASSIGN(b.Smem, parsedAt(geometry->smem, "launch.smem"));
    }
  }

  std::vector<std::string> constraints = kernel.constraints;
  constraints.insert(constraints.end(), spec.constraints.begin(),
                     spec.constraints.end());
  for (size_t i = 0; i < constraints.size(); ++i) {
    KTUNE_TRY_ASSIGN(auto e, parseAt(constraints[i],
                                     "constraints[" + std::to_string(i) + "]"));
    b.Constraints.push_back(e);
  }
  return b;
}

Expected<Configuration>
KernelBinding::complete(const Configuration &config) const {
  Configuration out = Default;
  for (const auto &[name, value] : config) {
    if (name == "maxrregcount") {
      if (value < 0 || value > 255)
        return makeError("maxrregcount " + std::to_string(value) +
                         " is outside 0..255");
      out[name] = value;
      continue;
    }
    const TemplateParam *p = Kernel.findParam(name);
    if (!p || !p->tunable)
      return makeError("the configuration names '" + name +
                       "', which is not a tunable parameter of kernel '" +
                       Kernel.name + "'");
    out[name] = value;
  }
  return out;
}

int KernelBinding::maxRegisters(const Configuration &config) {
  auto it = config.find("maxrregcount");
  return it == config.end() ? 0 : static_cast<int>(it->second);
}

Expected<std::string>
KernelBinding::nameExpression(const Configuration &config) const {
  std::string name =
      Kernel.qualifiedName.empty() ? Kernel.name : Kernel.qualifiedName;
  if (Kernel.templateParams.empty())
    return name;
  std::string args;
  for (const auto &p : Kernel.templateParams) {
    std::string text;
    if (p.tunable) {
      auto it = config.find(p.name);
      if (it == config.end())
        return makeError("the configuration has no value for '" + p.name + "'");
      text = normaliseType(p.type) == "bool" ? (it->second ? "true" : "false")
                                             : std::to_string(it->second);
    } else {
      text = TemplateArgs.at(p.name);
    }
    args += (args.empty() ? "" : ", ") + text;
  }
  // "a<b<c>>" needs no space in C++11 and later.
  return name + "<" + args + ">";
}

std::optional<std::string> KernelBinding::referenceNameExpression() const {
  return ReferenceKernel;
}

Expected<KernelBinding::Env>
KernelBinding::environment(const Shape &shape, const Configuration &config,
                           bool withScalars) const {
  Env env;
  for (const auto &[name, value] : shape)
    env[name] = Value::ofInt(value);
  for (const auto &[name, text] : TemplateArgs)
    if (auto v = templateArgValue(text))
      env[name] = *v;
  for (const auto &[name, value] : config)
    env[name] = Value::ofInt(value);
  if (!withScalars)
    return env;
  Env scalars;
  for (const auto &a : Args) {
    if (a.isBuffer || a.isStream)
      continue;
    auto v = a.scalarValue->evaluate(env);
    if (!v)
      return std::unexpected(
          withContext(v.error(), "args." + a.name + ".value"));
    scalars[a.name] = *v;
  }
  for (const auto &[name, v] : scalars)
    env[name] = v;
  // Template parameters win over scalar arguments of the same name.
  for (const auto &[name, value] : config)
    env[name] = Value::ofInt(value);
  return env;
}

static uint64_t mixSeed(uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

Expected<std::vector<BufferPlan>> KernelBinding::buffers(const Shape &shape,
                                                         uint64_t seed) const {
  KTUNE_TRY_ASSIGN(auto env, environment(shape, Default, false));
  std::vector<BufferPlan> out;
  for (const auto &a : Args) {
    if (!a.isBuffer)
      continue;
    BufferPlan p;
    p.name = a.name;
    p.dtype = a.buffer.dtype;
    p.role = a.buffer.role;
    p.init = a.buffer.init;
    p.low = a.buffer.low;
    p.high = a.buffer.high;
    p.seed = mixSeed(seed ^ mixSeed(static_cast<uint64_t>(a.bufferIndex) + 1));
    int64_t count = 1;
    for (size_t i = 0; i < a.shape.size(); ++i) {
      auto v = a.shape[i].evaluateInt(env);
      std::string where =
          "args." + a.name + ".shape[" + std::to_string(i) + "]";
      if (!v)
        return std::unexpected(withContext(v.error(), where));
      if (*v < 0)
        return makeError("dimension " + std::to_string(*v) + " is negative",
                         where);
      if (*v != 0 && count > std::numeric_limits<int64_t>::max() / 16 / *v)
        return makeError("buffer size overflows", where);
      count *= *v;
    }
    p.count = count;
    out.push_back(std::move(p));
  }
  return out;
}

Expected<std::vector<KernelArgValue>>
KernelBinding::args(const Shape &shape, const Configuration &config) const {
  KTUNE_TRY_ASSIGN(auto env, environment(shape, config, false));
  std::vector<KernelArgValue> out;
  for (const auto &a : Args) {
    KernelArgValue v;
    if (a.isStream) {
      v.buffer = KernelArgValue::StreamSlot;
    } else if (a.isBuffer) {
      v.buffer = a.bufferIndex;
    } else {
      auto value = a.scalarValue->evaluate(env);
      if (!value)
        return std::unexpected(
            withContext(value.error(), "args." + a.name + ".value"));
      auto bytes = encodeScalar(a.scalarType, *value);
      if (!bytes)
        return std::unexpected(withContext(bytes.error(), "args." + a.name));
      v.bytes = std::move(*bytes);
    }
    out.push_back(std::move(v));
  }
  return out;
}

Expected<LaunchDims> KernelBinding::launch(const Shape &shape,
                                           const Configuration &config) const {
  if (Grid.empty() || Block.empty())
    return makeError("the launcher computes its launch geometry");
  KTUNE_TRY_ASSIGN(auto env, environment(shape, config, true));
  LaunchDims d;
  // Dimensions not given stay 1.
  auto evaluateDims = [&](const std::vector<expr::Expr> &exprs,
                          std::array<int64_t, 3> &dims,
                          const std::string &what) -> Status {
    for (size_t i = 0; i < exprs.size(); ++i) {
      KTUNE_TRY_ASSIGN(dims[i], withContext(exprs[i].evaluateInt(env),
                                            "launch." + what + "[" +
                                                std::to_string(i) + "]"));
    }
    return {};
  };
  KTUNE_TRY(evaluateDims(Grid, d.grid, "grid"));
  KTUNE_TRY(evaluateDims(Block, d.block, "block"));
  auto smem = Smem.evaluateInt(env);
  if (!smem)
    return std::unexpected(withContext(smem.error(), "launch.smem"));
  d.smemDynamic = *smem;
  return d;
}

Expected<std::array<int64_t, 3>>
KernelBinding::gridDims(const Shape &shape, const Configuration &config) const {
  if (Grid.empty())
    return makeError("the launcher computes its launch geometry");
  KTUNE_TRY_ASSIGN(auto env, environment(shape, config, true));
  std::array<int64_t, 3> grid{1, 1, 1};
  for (size_t i = 0; i < Grid.size(); ++i) {
    KTUNE_TRY_ASSIGN(grid[i],
                     withContext(Grid[i].evaluateInt(env),
                                 "launch.grid[" + std::to_string(i) + "]"));
  }
  return grid;
}

std::optional<std::string>
KernelBinding::violatedConstraint(const Shape &shape,
                                  const Configuration &config) const {
  auto env = environment(shape, config, true);
  if (!env)
    return std::nullopt;
  for (const auto &c : Constraints) {
    bool known = true;
    for (const auto &n : c.names())
      if (!env->count(n))
        known = false;
    if (!known)
      continue;
    auto v = c.evaluate(*env);
    if (v && !v->truthy())
      return c.text();
  }
  return std::nullopt;
}

} // namespace ktune
