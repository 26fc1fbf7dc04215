//===- SpecCheck.cpp - Checking a spec against the manifest ---------------===//
//
// Every kernel argument needs an entry of the right kind, and every
// expression (extents, scalars, launch geometry, byte counts) must evaluate
// at every shape. Errors name the JSON path of the offending value.
//
//===----------------------------------------------------------------------===//
#include "ktune/Tune/Spec.h"

#include "ktune/Expr/Expr.h"
#include "ktune/Support/JsonReader.h"
#include "ktune/Support/Text.h"
#include "ktune/Support/Try.h"

#include <algorithm>
#include <set>

namespace ktune {

std::string shapeLiteral(const Shape &shape) {
  return "{" + namedValues(shape, ", ") + "}";
}

//===----------------------------------------------------------------------===//
// Checking against the manifest
//===----------------------------------------------------------------------===//

namespace {

bool isPointerType(const std::string &type) {
  return type.find('*') != std::string::npos ||
         type.find('[') != std::string::npos;
}

/// The scalar arguments' expressions, parsed once (nullopt: does not parse).
using ScalarExprs =
    std::vector<std::pair<std::string, std::optional<expr::Expr>>>;

ScalarExprs parseScalars(const Spec &spec) {
  ScalarExprs scalars;
  for (const auto &a : spec.args)
    if (const auto *sc = std::get_if<ScalarArg>(&a.arg)) {
      auto e = expr::Expr::parse(sc->value);
      scalars.emplace_back(a.name, e ? std::optional<expr::Expr>(std::move(*e))
                                     : std::nullopt);
    }
  return scalars;
}

/// Names an expression may use for one shape: the dimensions, the scalar
/// arguments that evaluate, and (for launch geometry) template parameters.
std::map<std::string, expr::Value> shapeEnv(const ScalarExprs &scalars,
                                            const Shape &shape) {
  std::map<std::string, expr::Value> env;
  for (const auto &[name, value] : shape)
    env[name] = expr::Value::ofInt(value);
  for (const auto &[name, e] : scalars) {
    if (!e)
      continue;
    auto v = e->evaluate(env);
    if (v && !env.count(name))
      env[name] = *v;
  }
  return env;
}

/// An expression of the spec checked at every shape, parsed once: a spec
/// may have tens of thousands of shapes.
struct ShapeCheck {
  expr::Expr expr;
  std::string text, where, what;
  std::optional<int64_t> atLeast;
  bool withDefaults; // launch geometry also sees the tunables' defaults
};

Expected<ShapeCheck> checkOf(const Expected<expr::Expr> &e,
                             const std::string &text, const std::string &where,
                             std::optional<int64_t> atLeast,
                             const std::string &what, bool withDefaults) {
  if (!e)
    return makeError("cannot parse '" + text + "': " + e.error().str(), where);
  return ShapeCheck{*e, text, where, what, atLeast, withDefaults};
}

Expected<ShapeCheck> parseCheck(const std::string &text,
                                const std::string &where,
                                std::optional<int64_t> atLeast,
                                const std::string &what) {
  return checkOf(expr::Expr::parse(text), text, where, atLeast, what, false);
}

/// Launch geometry, parsed when it was read; it also sees the tunables'
/// defaults.
Expected<ShapeCheck> launchCheck(const LaunchExpr &e, const std::string &where,
                                 int64_t atLeast, const std::string &what) {
  return checkOf(e.parsed(), e.text(), where, atLeast, what, true);
}

Status checkAtShape(const ShapeCheck &c,
                    const std::map<std::string, expr::Value> &env,
                    const Shape &shape) {
  auto v = c.expr.evaluate(env);
  if (!v)
    return makeError("'" + c.text + "' does not evaluate at shape " +
                         shapeLiteral(shape) + ": " + v.error().str(),
                     c.where);
  if (c.atLeast) {
    auto i = c.expr.evaluateInt(env);
    if (!i)
      return makeError(c.what + " '" + c.text +
                           "' is not an integer at shape " +
                           shapeLiteral(shape),
                       c.where);
    if (*i < *c.atLeast)
      return makeError(c.what + " '" + c.text + "' is " + std::to_string(*i) +
                           " at shape " + shapeLiteral(shape) +
                           " (must be >= " + std::to_string(*c.atLeast) + ")",
                       c.where);
  }
  return {};
}

} // namespace

LaunchGeometry effectiveLaunch(const Spec &spec, const ManifestKernel &kernel) {
  auto sizeOf = [&](const std::string &t) -> std::optional<int64_t> {
    if (auto size = templateArgSize(spec, t))
      return size;
    // A launcher's: the element size of the buffer its argument carries.
    auto arg = kernel.typeFromArg.find(t);
    if (arg == kernel.typeFromArg.end())
      return std::nullopt;
    for (const auto &a : spec.args)
      if (a.name == arg->second)
        if (const auto *b = std::get_if<BufferArg>(&a.arg))
          return static_cast<int64_t>(dtypeSize(b->dtype));
    return std::nullopt;
  };
  if (spec.launch)
    return resolveLaunchGeometry(*spec.launch, sizeOf);
  if (!kernel.launch)
    return LaunchGeometry{};
  return resolveLaunchGeometry(*kernel.launch, sizeOf);
}

Status validateSpec(const Spec &spec, const ManifestKernel &kernel) {
  if (spec.kernel != kernel.name && spec.kernel != kernel.qualifiedName)
    return makeError("spec is for kernel '" + spec.kernel +
                         "' but the manifest kernel is '" + kernel.name + "'",
                     "kernel");

  // Template arguments: exactly the non-tunable parameters.
  for (const auto &[name, value] : spec.templateArgs) {
    const TemplateParam *p = kernel.findParam(name);
    if (!p)
      return makeError("kernel '" + kernel.name +
                           "' has no template parameter '" + name + "'",
                       jsonPathKey("template_args", name));
    if (p->tunable)
      return makeError("'" + name +
                           "' is tunable: restrict it with \"domains\" instead",
                       jsonPathKey("template_args", name));
  }
  for (const auto &p : kernel.templateParams)
    if (!p.tunable && !spec.templateArgs.count(p.name))
      return makeError("missing: template parameter '" + p.name + "' (" +
                           p.type + ") is not tunable and needs a value",
                       jsonPathKey("template_args", p.name));

  // Dimensions must not shadow parameter names.
  for (const auto &[name, values] : spec.dims) {
    if (kernel.findParam(name))
      return makeError("dimension '" + name +
                           "' has the name of a template parameter",
                       jsonPathKey("dims", name));
    if (name == "maxrregcount")
      return makeError("'maxrregcount' is reserved for the register cap",
                       jsonPathKey("dims", name));
  }

  // Arguments: one entry per kernel argument, kinds matching the types.
  std::set<std::string> kernelArgs;
  for (const auto &ka : kernel.args) {
    kernelArgs.insert(ka.name);
    auto it = std::find_if(spec.args.begin(), spec.args.end(),
                           [&](const SpecArg &a) { return a.name == ka.name; });
    if (it == spec.args.end() && spec.launcherMode &&
        isStreamType(ka.effectiveType()))
      continue; // resolveSpec gives it the timing stream
    if (it == spec.args.end())
      return makeError("missing: kernel argument '" + ka.name + "' (" +
                           ka.type + ") has no entry",
                       jsonPathKey("args", ka.name));
    bool pointer = isPointerType(ka.effectiveType());
    bool buffer = std::holds_alternative<BufferArg>(it->arg);
    const auto *sc = std::get_if<ScalarArg>(&it->arg);
    if (sc && sc->stream != isStreamType(ka.effectiveType()))
      return makeError(sc->stream ? "argument '" + ka.name + "' (" + ka.type +
                                        ") is not a stream"
                                  : "argument '" + ka.name +
                                        "' is a stream: give "
                                        "{\"stream\": true}",
                       jsonPathKey("args", ka.name));
    if (sc && sc->stream)
      continue;
    if (pointer && !buffer)
      return makeError("kernel argument '" + ka.name + "' is a pointer (" +
                           ka.type + "): give {\"buffer\": dtype, ...}",
                       jsonPathKey("args", ka.name));
    if (!pointer && buffer)
      return makeError("kernel argument '" + ka.name + "' is not a pointer (" +
                           ka.type + "): give {\"value\": ...}",
                       jsonPathKey("args", ka.name));
  }
  for (const auto &a : spec.args)
    if (!kernelArgs.count(a.name))
      return makeError("kernel '" + kernel.name + "' has no argument '" +
                           a.name + "'",
                       jsonPathKey("args", a.name));

  LaunchGeometry launch = effectiveLaunch(spec, kernel);
  bool launchFromSpec = spec.launch.has_value();
  // A launcher computes its own launch: a geometry only helps pruning, and
  // one over the kernel's names may not evaluate over the launcher's.
  if (spec.launcherMode && !launchFromSpec)
    launch = LaunchGeometry{};
  const bool checkLaunch = !launch.grid.empty() || !spec.launcherMode;
  if (checkLaunch && (launch.grid.empty() || launch.block.empty()))
    return makeError("the manifest has no launch geometry for kernel '" +
                         kernel.name +
                         "': give \"launch\": {\"grid\": [...], \"block\": "
                         "[...], \"smem\": ...}",
                     "launch");
  auto launchWhere = [&](const std::string &field) {
    return launchFromSpec ? "launch." + field
                          : "launch." + field + " (from the manifest)";
  };

  // Tunable parameters, with the spec's domain overrides.
  std::map<std::string, expr::Value> defaults;
  std::set<std::string> tunable;
  for (const auto *p : kernel.tunableParams()) {
    tunable.insert(p->name);
    if (p->defaultValue)
      defaults[p->name] = expr::Value::ofInt(*p->defaultValue);
  }
  for (const auto &[name, domain] : spec.domains) {
    const TemplateParam *p = kernel.findParam(name);
    if (!p || !p->tunable)
      return makeError("'" + name + "' is not a tunable parameter of kernel '" +
                           kernel.name + "'",
                       jsonPathKey("domains", name));
    if (p->defaultValue && !domain.contains(*p->defaultValue))
      return makeError("the domain must contain the default " +
                           std::to_string(*p->defaultValue) +
                           " (the reference configuration)",
                       jsonPathKey("domains", name));
  }
  for (const auto &[name, value] : spec.templateArgs)
    if (auto e = expr::Expr::parse(value); e)
      if (auto lit = e->asIntegerLiteral())
        defaults[name] = expr::Value::ofInt(*lit);

  std::set<std::string> dimSet;
  for (const auto &[name, values] : spec.dims)
    dimSet.insert(name);
  for (size_t i = 0; i < spec.constraints.size(); ++i) {
    std::string at = jsonPathIndex("constraints", i);
    auto e = expr::Expr::parse(spec.constraints[i]);
    if (!e)
      return makeError(
          "cannot parse '" + spec.constraints[i] + "': " + e.error().str(), at);
    for (const auto &n : e->names())
      if (!tunable.count(n) && !dimSet.count(n) && n != "maxrregcount")
        return makeError(
            "'" + n + "' is neither a tunable parameter nor a dimension", at);
  }

  std::vector<ShapeCheck> checks;
  auto add = [&](Expected<ShapeCheck> check) -> Status {
    if (!check)
      return std::unexpected(check.error());
    checks.push_back(std::move(*check));
    return {};
  };
  for (const auto &a : spec.args) {
    std::string at = jsonPathKey("args", a.name);
    if (const auto *b = std::get_if<BufferArg>(&a.arg)) {
      for (size_t i = 0; i < b->shape.size(); ++i)
        KTUNE_TRY(add(parseCheck(b->shape[i],
                                 jsonPathIndex(jsonPathKey(at, "shape"), i), 1,
                                 "extent")));
    } else {
      const auto &sc = std::get<ScalarArg>(a.arg);
      KTUNE_TRY(add(parseCheck(sc.value, jsonPathKey(at, "value"), std::nullopt,
                               "value")));
    }
  }
  for (size_t i = 0; checkLaunch && i < launch.grid.size(); ++i)
    KTUNE_TRY(
        add(launchCheck(launch.grid[i], launchWhere(jsonPathIndex("grid", i)),
                        1, "grid extent")));
  for (size_t i = 0; checkLaunch && i < launch.block.size(); ++i)
    KTUNE_TRY(
        add(launchCheck(launch.block[i], launchWhere(jsonPathIndex("block", i)),
                        1, "block extent")));
  if (checkLaunch)
    KTUNE_TRY(add(launchCheck(launch.smem, launchWhere("smem"), 0,
                              "shared memory size")));
  if (!spec.bytes.empty())
    KTUNE_TRY(add(parseCheck(spec.bytes, "bytes", 0, "byte count")));

  ScalarExprs scalars = parseScalars(spec);
  for (const auto &shape : spec.allShapes()) {
    auto env = shapeEnv(scalars, shape);
    auto launchEnv = env;
    for (const auto &[name, value] : defaults)
      launchEnv[name] = value;
    for (const auto &check : checks)
      KTUNE_TRY(
          checkAtShape(check, check.withDefaults ? launchEnv : env, shape));
  }
  return {};
}

std::optional<int64_t> templateArgSize(const Spec &spec,
                                       const std::string &param) {
  auto it = spec.templateArgs.find(param);
  std::string type = it == spec.templateArgs.end() ? param : it->second;
  for (const auto &d : allDTypes())
    if (d.cudaType == type || d.name == type)
      return static_cast<int64_t>(d.size);
  static const std::map<std::string, int64_t> Integers = {
      {"char", 1},         {"int8_t", 1},   {"uint8_t", 1},  {"short", 2},
      {"int16_t", 2},      {"uint16_t", 2}, {"int", 4},      {"unsigned", 4},
      {"unsigned int", 4}, {"int32_t", 4},  {"uint32_t", 4}, {"long", 8},
      {"int64_t", 8},      {"uint64_t", 8}, {"size_t", 8},   {"double", 8},
      {"half", 2},         {"__half", 2}};
  if (auto i = Integers.find(type); i != Integers.end())
    return i->second;
  return std::nullopt;
}

bool isStreamType(const std::string &ctype) {
  std::string t;
  for (char c : ctype)
    if (c != ' ')
      t += c;
  if (t.starts_with("const"))
    t = t.substr(5);
  return t == "cudaStream_t" || t == "CUstream" || t == "CUstream_st*" ||
         t == "structCUstream_st*";
}

Expected<Spec> resolveSpec(Spec spec, const ManifestKernel &kernel) {
  KTUNE_TRY(validateSpec(spec, kernel));
  std::vector<SpecArg> ordered;
  for (const auto &ka : kernel.args) {
    auto it = std::find_if(spec.args.begin(), spec.args.end(),
                           [&](const SpecArg &a) { return a.name == ka.name; });
    if (it == spec.args.end()) { // a launcher's stream (validateSpec)
      ScalarArg stream;
      stream.value = "0";
      stream.ctype = ka.type;
      stream.stream = true;
      ordered.push_back(SpecArg{ka.name, stream});
      continue;
    }
    SpecArg a = *it;
    if (auto *sc = std::get_if<ScalarArg>(&a.arg); sc && sc->ctype.empty())
      sc->ctype = ka.effectiveType();
    ordered.push_back(std::move(a));
  }
  spec.args = std::move(ordered);
  if (spec.launch || !spec.launcherMode) {
    LaunchGeometry g = effectiveLaunch(spec, kernel);
    if (!g.grid.empty())
      spec.launch = std::move(g);
  }
  return spec;
}

std::map<std::string, expr::Value> shapeValues(const Spec &spec,
                                               const Shape &shape) {
  return shapeEnv(parseScalars(spec), shape);
}

Expected<expr::Value>
evaluateAtShape(const std::string &text,
                const std::map<std::string, expr::Value> &env,
                const std::string &where, const Shape &shape,
                std::optional<int64_t> atLeast, const std::string &what) {
  KTUNE_TRY_ASSIGN(ShapeCheck check, parseCheck(text, where, atLeast, what));
  KTUNE_TRY(checkAtShape(check, env, shape));
  if (atLeast)
    return expr::Value::ofInt(*check.expr.evaluateInt(env));
  return *check.expr.evaluate(env);
}

} // namespace ktune
