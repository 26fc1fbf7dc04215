//===- Spec.cpp - Reading, writing and checking spec.json -----------------===//
//
// Every error names the JSON path of the offending value, so a person (or an
// agent) editing the spec by hand can go straight to it.
//
//===----------------------------------------------------------------------===//
#include "ktune/Tune/Spec.h"

#include "ktune/Expr/Expr.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <set>

namespace ktune {

using nlohmann::json;

//===----------------------------------------------------------------------===//
// Data types
//===----------------------------------------------------------------------===//

namespace {
std::string dtypeList() {
  std::string out;
  for (const auto &d : allDTypes())
    out += (out.empty() ? "" : ", ") + std::string(d.name);
  return out;
}
} // namespace

//===----------------------------------------------------------------------===//
// Shapes
//===----------------------------------------------------------------------===//

std::vector<Shape> Spec::allShapes() const {
  if (!shapes.empty())
    return shapes;
  std::vector<Shape> out{Shape{}};
  for (const auto &[name, values] : dims) {
    std::vector<Shape> next;
    next.reserve(out.size() * values.size());
    for (const auto &partial : out)
      for (int64_t v : values) {
        Shape s = partial;
        s[name] = v;
        next.push_back(std::move(s));
      }
    out = std::move(next);
  }
  return out;
}

//===----------------------------------------------------------------------===//
// Reading
//===----------------------------------------------------------------------===//

namespace {

std::string join(const std::string &where, const std::string &key) {
  return where.empty() ? key : where + "." + key;
}
std::string index(const std::string &where, size_t i) {
  return where + "[" + std::to_string(i) + "]";
}

/// Checks that an object holds only the given keys (catches typos that would
/// otherwise be silently ignored).
Status onlyKeys(const json &j, std::initializer_list<const char *> keys,
                const std::string &where) {
  for (const auto &[key, value] : j.items()) {
    bool known = std::any_of(keys.begin(), keys.end(),
                             [&](const char *k) { return key == k; });
    if (!known) {
      std::string allowed;
      for (const char *k : keys)
        allowed += (allowed.empty() ? "" : ", ") + std::string(k);
      return makeError("unknown field (expected one of: " + allowed + ")",
                       join(where, key));
    }
  }
  return {};
}

Expected<int64_t> readInt(const json &j, const std::string &where) {
  if (j.is_number_integer())
    return j.get<int64_t>();
  if (j.is_number_float()) {
    double d = j.get<double>();
    if (std::isfinite(d) && d == std::trunc(d) && std::fabs(d) < 9.2e18)
      return static_cast<int64_t>(d);
  }
  return makeError("expected an integer, got " + j.dump(), where);
}

/// An expression given as a string, or as a JSON number for convenience.
Expected<std::string> readExprText(const json &j, const std::string &where) {
  std::string text;
  if (j.is_string())
    text = j.get<std::string>();
  else if (j.is_number_integer())
    text = std::to_string(j.get<int64_t>());
  else if (j.is_number_float())
    text = expr::Value::ofFloat(j.get<double>()).str();
  else
    return makeError(
        "expected an expression (string or number), got " + j.dump(), where);
  auto parsed = expr::Expr::parse(text);
  if (!parsed)
    return makeError("cannot parse expression '" + text +
                         "': " + parsed.error().str(),
                     where);
  return text;
}

Expected<std::vector<std::string>> readExprList(const json &j,
                                                const std::string &where) {
  if (!j.is_array())
    return makeError("expected an array of expressions", where);
  std::vector<std::string> out;
  for (size_t i = 0; i < j.size(); ++i) {
    auto text = readExprText(j[i], index(where, i));
    if (!text)
      return std::unexpected(text.error());
    out.push_back(std::move(*text));
  }
  return out;
}

Expected<std::vector<std::string>> readStringList(const json &j,
                                                  const std::string &where) {
  if (!j.is_array())
    return makeError("expected an array of strings", where);
  std::vector<std::string> out;
  for (size_t i = 0; i < j.size(); ++i) {
    if (!j[i].is_string())
      return makeError("expected a string", index(where, i));
    out.push_back(j[i].get<std::string>());
  }
  return out;
}

Expected<double> readNonNegative(const json &j, const std::string &where) {
  if (!j.is_number())
    return makeError("expected a number", where);
  double v = j.get<double>();
  if (!std::isfinite(v) || v < 0)
    return makeError("expected a finite number >= 0", where);
  return v;
}

Expected<LaunchGeometry> readLaunch(const json &j, const std::string &where) {
  if (!j.is_object())
    return makeError("expected {\"grid\": [...], \"block\": [...], "
                     "\"smem\": ...}",
                     where);
  if (auto ok = onlyKeys(j, {"grid", "block", "smem", "from"}, where); !ok)
    return std::unexpected(ok.error());
  LaunchGeometry g;
  for (const char *key : {"grid", "block"}) {
    if (!j.contains(key))
      return makeError("missing required field", join(where, key));
    auto list = readExprList(j[key], join(where, key));
    if (!list)
      return std::unexpected(list.error());
    if (list->empty() || list->size() > 3)
      return makeError("needs 1 to 3 dimensions", join(where, key));
    (std::string(key) == "grid" ? g.grid : g.block) = std::move(*list);
  }
  if (j.contains("smem")) {
    auto smem = readExprText(j["smem"], join(where, "smem"));
    if (!smem)
      return std::unexpected(smem.error());
    g.smem = *smem;
  }
  if (j.contains("from")) {
    if (!j["from"].is_string())
      return makeError("expected a string", join(where, "from"));
    g.from = j["from"].get<std::string>();
  }
  return g;
}

Expected<SpecArg> readArg(const std::string &name, const json &j,
                          const std::string &where) {
  SpecArg arg;
  arg.name = name;
  if (!j.is_object())
    return makeError("expected {\"buffer\": dtype, \"shape\": [...]} or "
                     "{\"value\": expression}",
                     where);
  bool isBuffer = j.contains("buffer"), isValue = j.contains("value");
  if (isBuffer == isValue)
    return makeError("give exactly one of \"buffer\" (a device array) or "
                     "\"value\" (a scalar)",
                     where);
  if (isValue) {
    if (auto ok = onlyKeys(j, {"value", "type"}, where); !ok)
      return std::unexpected(ok.error());
    ScalarArg s;
    auto text = readExprText(j["value"], join(where, "value"));
    if (!text)
      return std::unexpected(text.error());
    s.value = *text;
    if (j.contains("type")) {
      if (!j["type"].is_string() || j["type"].get<std::string>().empty())
        return makeError("expected a C type such as \"int\" or \"float\"",
                         join(where, "type"));
      s.ctype = j["type"].get<std::string>();
    }
    arg.arg = std::move(s);
    return arg;
  }
  if (auto ok = onlyKeys(j, {"buffer", "shape", "role", "init", "low", "high"},
                         where);
      !ok)
    return std::unexpected(ok.error());
  BufferArg b;
  std::string at = join(where, "buffer");
  if (!j["buffer"].is_string())
    return makeError("expected a dtype name (" + dtypeList() + ")", at);
  auto dt = parseDType(j["buffer"].get<std::string>());
  if (!dt)
    return makeError("unknown dtype \"" + j["buffer"].get<std::string>() +
                         "\" (expected one of: " + dtypeList() + ")",
                     at);
  b.dtype = *dt;
  if (!j.contains("shape"))
    return makeError("missing required field", join(where, "shape"));
  auto shape = readExprList(j["shape"], join(where, "shape"));
  if (!shape)
    return std::unexpected(shape.error());
  if (shape->empty())
    return makeError("a buffer needs at least one extent",
                     join(where, "shape"));
  b.shape = std::move(*shape);
  if (j.contains("role")) {
    std::string r = j["role"].is_string() ? j["role"].get<std::string>() : "";
    if (r == "in")
      b.role = Role::In;
    else if (r == "out")
      b.role = Role::Out;
    else if (r == "inout")
      b.role = Role::InOut;
    else
      return makeError("expected \"in\", \"out\" or \"inout\"",
                       join(where, "role"));
  }
  if (j.contains("init")) {
    static const std::set<std::string> inits = {"normal", "uniform", "ones",
                                                "zeros", "arange"};
    std::string i = j["init"].is_string() ? j["init"].get<std::string>() : "";
    if (!inits.count(i))
      return makeError("expected one of: normal, uniform, ones, zeros, arange",
                       join(where, "init"));
    b.init = i;
  }
  for (const char *key : {"low", "high"}) {
    if (!j.contains(key))
      continue;
    if (!j[key].is_number() || !std::isfinite(j[key].get<double>()))
      return makeError("expected a finite number", join(where, key));
    (std::string(key) == "low" ? b.low : b.high) = j[key].get<double>();
  }
  if (b.high < b.low)
    return makeError("high is below low", join(where, "high"));
  arg.arg = std::move(b);
  return arg;
}

} // namespace

Expected<Spec> specFromJson(const json &j) {
  if (!j.is_object())
    return makeError("a spec is a JSON object", "$");
  if (!j.contains("ktune") || !j["ktune"].is_string())
    return makeError(std::string("missing version field (expected \"") +
                         SpecVersion + "\")",
                     "ktune");
  if (j["ktune"] != SpecVersion)
    return makeError("unsupported spec version \"" +
                         j["ktune"].get<std::string>() +
                         "\" (this ktune reads \"" + SpecVersion + "\")",
                     "ktune");
  if (auto ok = onlyKeys(j,
                         {"ktune", "kernel", "template_args", "dims", "shapes",
                          "args", "launch", "bytes", "tolerance", "domains",
                          "constraints", "max_registers", "compile_options",
                          "reference_kernel", "comment", "$schema"},
                         "");
      !ok)
    return std::unexpected(ok.error());

  Spec s;
  if (!j.contains("kernel"))
    return makeError("missing required field", "kernel");
  if (!j["kernel"].is_string() || j["kernel"].get<std::string>().empty())
    return makeError("expected the kernel's name", "kernel");
  s.kernel = j["kernel"].get<std::string>();

  if (j.contains("template_args")) {
    const json &ta = j["template_args"];
    if (!ta.is_object())
      return makeError("expected an object of template argument texts",
                       "template_args");
    for (const auto &[name, value] : ta.items()) {
      std::string at = join("template_args", name);
      if (value.is_string() && !value.get<std::string>().empty())
        s.templateArgs[name] = value.get<std::string>();
      else if (value.is_number_integer())
        s.templateArgs[name] = std::to_string(value.get<int64_t>());
      else if (value.is_boolean())
        s.templateArgs[name] = value.get<bool>() ? "true" : "false";
      else
        return makeError("expected a C++ type or value as text", at);
    }
  }

  std::set<std::string> dimNames;
  if (j.contains("dims")) {
    const json &dims = j["dims"];
    if (!dims.is_object())
      return makeError("expected an object: dimension name -> values", "dims");
    for (const auto &[name, value] : dims.items()) {
      std::string at = join("dims", name);
      if (!expr::isValidIdentifier(name))
        return makeError("a dimension name must be an identifier", at);
      std::vector<int64_t> values;
      if (value.is_array()) {
        if (value.empty())
          return makeError("expected at least one value", at);
        for (size_t i = 0; i < value.size(); ++i) {
          auto v = readInt(value[i], index(at, i));
          if (!v)
            return std::unexpected(v.error());
          if (std::find(values.begin(), values.end(), *v) != values.end())
            return makeError("duplicate value " + std::to_string(*v),
                             index(at, i));
          values.push_back(*v);
        }
      } else {
        auto v = readInt(value, at);
        if (!v)
          return makeError("expected an integer or an array of integers", at);
        values.push_back(*v);
      }
      dimNames.insert(name);
      s.dims.emplace_back(name, std::move(values));
    }
  }

  if (j.contains("shapes")) {
    const json &shapes = j["shapes"];
    if (!shapes.is_array() || shapes.empty())
      return makeError("expected a non-empty array of {dimension: value}",
                       "shapes");
    std::set<std::string> keys;
    for (size_t i = 0; i < shapes.size(); ++i) {
      std::string at = index("shapes", i);
      if (!shapes[i].is_object())
        return makeError("expected an object {dimension: value}", at);
      Shape shape;
      for (const auto &[name, value] : shapes[i].items()) {
        if (!expr::isValidIdentifier(name))
          return makeError("a dimension name must be an identifier",
                           join(at, name));
        auto v = readInt(value, join(at, name));
        if (!v)
          return std::unexpected(v.error());
        shape[name] = *v;
      }
      std::set<std::string> these;
      for (const auto &kv : shape)
        these.insert(kv.first);
      if (i == 0)
        keys = these;
      const std::set<std::string> &expected =
          dimNames.empty() ? keys : dimNames;
      for (const auto &name : expected)
        if (!these.count(name))
          return makeError("missing dimension '" + name + "'", at);
      for (const auto &name : these)
        if (!expected.count(name))
          return makeError(
              "'" + name + "' is not a dimension" +
                  (dimNames.empty() ? " of shapes[0]" : " declared in dims"),
              join(at, name));
      if (std::find(s.shapes.begin(), s.shapes.end(), shape) != s.shapes.end())
        return makeError("duplicate shape", at);
      s.shapes.push_back(std::move(shape));
    }
    // Dimensions given only through shapes: list their values, so tools
    // that bucket by dimension (the dispatch header) see them.
    if (s.dims.empty())
      for (const auto &name : keys) {
        std::vector<int64_t> values;
        for (const auto &shape : s.shapes)
          if (std::find(values.begin(), values.end(), shape.at(name)) ==
              values.end())
            values.push_back(shape.at(name));
        std::sort(values.begin(), values.end());
        s.dims.emplace_back(name, std::move(values));
      }
  }

  if (!j.contains("args"))
    return makeError("missing required field (one entry per kernel argument)",
                     "args");
  if (!j["args"].is_object())
    return makeError("expected an object: argument name -> buffer or value",
                     "args");
  for (const auto &[name, value] : j["args"].items()) {
    auto arg = readArg(name, value, join("args", name));
    if (!arg)
      return std::unexpected(arg.error());
    s.args.push_back(std::move(*arg));
  }

  if (j.contains("launch") && !j["launch"].is_null()) {
    auto launch = readLaunch(j["launch"], "launch");
    if (!launch)
      return std::unexpected(launch.error());
    s.launch = std::move(*launch);
  }

  if (j.contains("bytes") && !j["bytes"].is_null()) {
    auto bytes = readExprText(j["bytes"], "bytes");
    if (!bytes)
      return std::unexpected(bytes.error());
    s.bytes = *bytes;
  }

  if (j.contains("tolerance")) {
    const json &tol = j["tolerance"];
    if (!tol.is_object())
      return makeError("expected an object: dtype -> {\"rtol\", \"atol\"}",
                       "tolerance");
    for (const auto &[name, value] : tol.items()) {
      std::string at = join("tolerance", name);
      auto dt = parseDType(name);
      if (!dt)
        return makeError("unknown dtype (expected one of: " + dtypeList() + ")",
                         at);
      if (!value.is_object())
        return makeError("expected {\"rtol\": r, \"atol\": a}", at);
      if (auto ok = onlyKeys(value, {"rtol", "atol"}, at); !ok)
        return std::unexpected(ok.error());
      Tolerance t;
      for (const char *key : {"rtol", "atol"}) {
        if (!value.contains(key))
          continue;
        auto v = readNonNegative(value[key], join(at, key));
        if (!v)
          return std::unexpected(v.error());
        (std::string(key) == "rtol" ? t.rtol : t.atol) = *v;
      }
      s.tolerance[*dt] = t;
    }
  }

  if (j.contains("domains")) {
    const json &domains = j["domains"];
    if (!domains.is_object())
      return makeError("expected an object: parameter name -> "
                       "{\"values\": [...]} or {\"range\": {...}}",
                       "domains");
    for (const auto &[name, value] : domains.items()) {
      std::string at = join("domains", name);
      if (!value.is_object())
        return makeError("expected {\"values\": [...]} or {\"range\": {...}}",
                         at);
      if (auto ok = onlyKeys(value, {"values", "range"}, at); !ok)
        return std::unexpected(ok.error());
      auto domain = domainFromJson(value, at);
      if (!domain)
        return std::unexpected(domain.error());
      s.domains[name] = std::move(*domain);
    }
  }

  if (j.contains("constraints")) {
    auto list = readExprList(j["constraints"], "constraints");
    if (!list)
      return std::unexpected(list.error());
    s.constraints = std::move(*list);
  }

  if (j.contains("max_registers")) {
    const json &regs = j["max_registers"];
    if (!regs.is_array() || regs.empty())
      return makeError("expected a non-empty array of register caps "
                       "(0 = no cap)",
                       "max_registers");
    for (size_t i = 0; i < regs.size(); ++i) {
      std::string at = index("max_registers", i);
      auto v = readInt(regs[i], at);
      if (!v)
        return std::unexpected(v.error());
      if (*v != 0 && (*v < 16 || *v > 255))
        return makeError("a register cap is 0 (none) or between 16 and 255",
                         at);
      if (std::find(s.maxRegisters.begin(), s.maxRegisters.end(), *v) !=
          s.maxRegisters.end())
        return makeError("duplicate value " + std::to_string(*v), at);
      s.maxRegisters.push_back(*v);
    }
  }

  if (j.contains("compile_options")) {
    auto list = readStringList(j["compile_options"], "compile_options");
    if (!list)
      return std::unexpected(list.error());
    s.compileOptions = std::move(*list);
  }

  if (j.contains("reference_kernel") && !j["reference_kernel"].is_null()) {
    if (!j["reference_kernel"].is_string() ||
        j["reference_kernel"].get<std::string>().empty())
      return makeError("expected a kernel name", "reference_kernel");
    s.referenceKernel = j["reference_kernel"].get<std::string>();
  }
  return s;
}

//===----------------------------------------------------------------------===//
// Writing
//===----------------------------------------------------------------------===//

json specToJson(const Spec &s) {
  json j = {{"ktune", SpecVersion}, {"kernel", s.kernel}};
  if (!s.templateArgs.empty())
    j["template_args"] = s.templateArgs;
  json dims = json::object();
  for (const auto &[name, values] : s.dims)
    dims[name] = values;
  j["dims"] = std::move(dims);
  if (!s.shapes.empty()) {
    json shapes = json::array();
    for (const auto &shape : s.shapes)
      shapes.push_back(shape);
    j["shapes"] = std::move(shapes);
  }
  json args = json::object();
  for (const auto &a : s.args) {
    if (const auto *b = std::get_if<BufferArg>(&a.arg)) {
      json jb = {{"buffer", dtypeName(b->dtype)},
                 {"shape", b->shape},
                 {"role", b->role == Role::In    ? "in"
                          : b->role == Role::Out ? "out"
                                                 : "inout"},
                 {"init", b->init}};
      if (b->init == "uniform") {
        jb["low"] = b->low;
        jb["high"] = b->high;
      }
      args[a.name] = std::move(jb);
    } else {
      const auto &sc = std::get<ScalarArg>(a.arg);
      json js = {{"value", sc.value}};
      if (!sc.ctype.empty())
        js["type"] = sc.ctype;
      args[a.name] = std::move(js);
    }
  }
  j["args"] = std::move(args);
  if (s.launch) {
    j["launch"] = {{"grid", s.launch->grid},
                   {"block", s.launch->block},
                   {"smem", s.launch->smem}};
    if (!s.launch->from.empty())
      j["launch"]["from"] = s.launch->from;
  }
  if (!s.bytes.empty())
    j["bytes"] = s.bytes;
  if (!s.tolerance.empty()) {
    json tol = json::object();
    for (const auto &[dt, t] : s.tolerance)
      tol[std::string(dtypeName(dt))] = {{"rtol", t.rtol}, {"atol", t.atol}};
    j["tolerance"] = std::move(tol);
  }
  if (!s.domains.empty()) {
    json domains = json::object();
    for (const auto &[name, d] : s.domains) {
      json holder = json::object();
      domainToJson(d, holder);
      domains[name] = std::move(holder);
    }
    j["domains"] = std::move(domains);
  }
  if (!s.constraints.empty())
    j["constraints"] = s.constraints;
  if (!s.maxRegisters.empty())
    j["max_registers"] = s.maxRegisters;
  if (!s.compileOptions.empty())
    j["compile_options"] = s.compileOptions;
  if (s.referenceKernel)
    j["reference_kernel"] = *s.referenceKernel;
  return j;
}

//===----------------------------------------------------------------------===//
// Checking against the manifest
//===----------------------------------------------------------------------===//

namespace {

std::string shapeText(const Shape &shape) {
  std::string out;
  for (const auto &[name, value] : shape)
    out += (out.empty() ? "" : ", ") + name + "=" + std::to_string(value);
  return "{" + out + "}";
}

bool isPointerType(const std::string &type) {
  return type.find('*') != std::string::npos ||
         type.find('[') != std::string::npos;
}

/// Names an expression may use for one shape: the dimensions, the scalar
/// arguments that evaluate, and (for launch geometry) template parameters.
std::map<std::string, expr::Value> shapeEnv(const Spec &spec,
                                            const Shape &shape) {
  std::map<std::string, expr::Value> env;
  for (const auto &[name, value] : shape)
    env[name] = expr::Value::ofInt(value);
  for (const auto &a : spec.args)
    if (const auto *sc = std::get_if<ScalarArg>(&a.arg)) {
      auto e = expr::Expr::parse(sc->value);
      if (!e)
        continue;
      auto v = e->evaluate(env);
      if (v && !env.count(a.name))
        env[a.name] = *v;
    }
  return env;
}

Status checkExpr(const std::string &text,
                 const std::map<std::string, expr::Value> &env,
                 const std::string &where, const Shape &shape,
                 std::optional<int64_t> atLeast, const std::string &what) {
  auto e = expr::Expr::parse(text);
  if (!e)
    return makeError("cannot parse '" + text + "': " + e.error().str(), where);
  auto v = e->evaluate(env);
  if (!v)
    return makeError("'" + text + "' does not evaluate at shape " +
                         shapeText(shape) + ": " + v.error().str(),
                     where);
  if (atLeast) {
    auto i = e->evaluateInt(env);
    if (!i)
      return makeError(what + " '" + text + "' is not an integer at shape " +
                           shapeText(shape),
                       where);
    if (*i < *atLeast)
      return makeError(what + " '" + text + "' is " + std::to_string(*i) +
                           " at shape " + shapeText(shape) +
                           " (must be >= " + std::to_string(*atLeast) + ")",
                       where);
  }
  return {};
}

} // namespace

LaunchGeometry effectiveLaunch(const Spec &spec, const ManifestKernel &kernel) {
  if (spec.launch)
    return *spec.launch;
  return kernel.launch.value_or(LaunchGeometry{});
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
                       join("template_args", name));
    if (p->tunable)
      return makeError("'" + name +
                           "' is tunable: restrict it with \"domains\" instead",
                       join("template_args", name));
  }
  for (const auto &p : kernel.templateParams)
    if (!p.tunable && !spec.templateArgs.count(p.name))
      return makeError("missing: template parameter '" + p.name + "' (" +
                           p.type + ") is not tunable and needs a value",
                       join("template_args", p.name));

  // Dimensions must not shadow parameter names.
  for (const auto &[name, values] : spec.dims) {
    if (kernel.findParam(name))
      return makeError("dimension '" + name +
                           "' has the name of a template parameter",
                       join("dims", name));
    if (name == "maxrregcount")
      return makeError("'maxrregcount' is reserved for the register cap",
                       join("dims", name));
  }

  // Arguments: one entry per kernel argument, kinds matching the types.
  std::set<std::string> kernelArgs;
  for (const auto &ka : kernel.args) {
    kernelArgs.insert(ka.name);
    auto it = std::find_if(spec.args.begin(), spec.args.end(),
                           [&](const SpecArg &a) { return a.name == ka.name; });
    if (it == spec.args.end())
      return makeError("missing: kernel argument '" + ka.name + "' (" +
                           ka.type + ") has no entry",
                       join("args", ka.name));
    bool pointer = isPointerType(ka.type);
    bool buffer = std::holds_alternative<BufferArg>(it->arg);
    if (pointer && !buffer)
      return makeError("kernel argument '" + ka.name + "' is a pointer (" +
                           ka.type + "): give {\"buffer\": dtype, ...}",
                       join("args", ka.name));
    if (!pointer && buffer)
      return makeError("kernel argument '" + ka.name + "' is not a pointer (" +
                           ka.type + "): give {\"value\": ...}",
                       join("args", ka.name));
  }
  for (const auto &a : spec.args)
    if (!kernelArgs.count(a.name))
      return makeError("kernel '" + kernel.name + "' has no argument '" +
                           a.name + "'",
                       join("args", a.name));

  LaunchGeometry launch = effectiveLaunch(spec, kernel);
  bool launchFromSpec = spec.launch.has_value();
  if (launch.grid.empty() || launch.block.empty())
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
                       join("domains", name));
    if (p->defaultValue && !domain.contains(*p->defaultValue))
      return makeError("the domain must contain the default " +
                           std::to_string(*p->defaultValue) +
                           " (the reference configuration)",
                       join("domains", name));
  }
  for (const auto &[name, value] : spec.templateArgs)
    if (auto e = expr::Expr::parse(value); e)
      if (auto lit = e->asIntegerLiteral())
        defaults[name] = expr::Value::ofInt(*lit);

  std::set<std::string> dimSet;
  for (const auto &[name, values] : spec.dims)
    dimSet.insert(name);
  for (size_t i = 0; i < spec.constraints.size(); ++i) {
    std::string at = index("constraints", i);
    auto e = expr::Expr::parse(spec.constraints[i]);
    if (!e)
      return makeError(
          "cannot parse '" + spec.constraints[i] + "': " + e.error().str(), at);
    for (const auto &n : e->names())
      if (!tunable.count(n) && !dimSet.count(n) && n != "maxrregcount")
        return makeError(
            "'" + n + "' is neither a tunable parameter nor a dimension", at);
  }

  std::vector<Shape> shapes = spec.allShapes();
  for (const auto &shape : shapes) {
    auto env = shapeEnv(spec, shape);
    for (const auto &a : spec.args) {
      std::string at = join("args", a.name);
      if (const auto *b = std::get_if<BufferArg>(&a.arg)) {
        for (size_t i = 0; i < b->shape.size(); ++i)
          if (auto ok = checkExpr(b->shape[i], env, index(join(at, "shape"), i),
                                  shape, 1, "extent");
              !ok)
            return ok;
      } else {
        const auto &sc = std::get<ScalarArg>(a.arg);
        if (auto ok = checkExpr(sc.value, env, join(at, "value"), shape,
                                std::nullopt, "value");
            !ok)
          return ok;
      }
    }
    auto launchEnv = env;
    for (const auto &[name, value] : defaults)
      launchEnv[name] = value;
    for (size_t i = 0; i < launch.grid.size(); ++i)
      if (auto ok =
              checkExpr(launch.grid[i], launchEnv,
                        launchWhere(index("grid", i)), shape, 1, "grid extent");
          !ok)
        return ok;
    for (size_t i = 0; i < launch.block.size(); ++i)
      if (auto ok = checkExpr(launch.block[i], launchEnv,
                              launchWhere(index("block", i)), shape, 1,
                              "block extent");
          !ok)
        return ok;
    if (auto ok = checkExpr(launch.smem, launchEnv, launchWhere("smem"), shape,
                            0, "shared memory size");
        !ok)
      return ok;
    if (!spec.bytes.empty())
      if (auto ok = checkExpr(spec.bytes, env, "bytes", shape, 0, "byte count");
          !ok)
        return ok;
  }
  return {};
}

Expected<Spec> resolveSpec(Spec spec, const ManifestKernel &kernel) {
  if (auto ok = validateSpec(spec, kernel); !ok)
    return std::unexpected(ok.error());
  std::vector<SpecArg> ordered;
  for (const auto &ka : kernel.args) {
    auto it = std::find_if(spec.args.begin(), spec.args.end(),
                           [&](const SpecArg &a) { return a.name == ka.name; });
    SpecArg a = *it;
    if (auto *sc = std::get_if<ScalarArg>(&a.arg); sc && sc->ctype.empty())
      sc->ctype = ka.type;
    ordered.push_back(std::move(a));
  }
  spec.args = std::move(ordered);
  if (!spec.launch)
    spec.launch = kernel.launch;
  return spec;
}

std::map<std::string, expr::Value> shapeValues(const Spec &spec,
                                               const Shape &shape) {
  return shapeEnv(spec, shape);
}

Expected<expr::Value>
evaluateAtShape(const std::string &text,
                const std::map<std::string, expr::Value> &env,
                const std::string &where, const Shape &shape,
                std::optional<int64_t> atLeast, const std::string &what) {
  if (auto ok = checkExpr(text, env, where, shape, atLeast, what); !ok)
    return std::unexpected(ok.error());
  auto e = expr::Expr::parse(text);
  if (atLeast)
    return expr::Value::ofInt(*e->evaluateInt(env));
  return *e->evaluate(env);
}

} // namespace ktune
