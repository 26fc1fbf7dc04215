//===- Spec.cpp - Data types, shapes, and reading spec.json ---------------===//
//
// Every error names the JSON path of the offending value, so a person (or an
// agent) editing the spec by hand can go straight to it.
//
//===----------------------------------------------------------------------===//
#include "ktune/Tune/Spec.h"

#include "ktune/Expr/Expr.h"
#include "ktune/Support/JsonReader.h"
#include "ktune/Support/Limits.h"
#include "ktune/Support/Try.h"

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

/// An expression given as a string, or as a JSON number for convenience.
Expected<std::string> exprText(const JsonReader &j) {
  if (j.isString())
    return *j.string();
  if (j.isInteger()) {
    KTUNE_TRY_ASSIGN(int64_t v, j.integer());
    return std::to_string(v);
  }
  if (j.isNumber())
    return expr::Value::ofFloat(*j.number()).str();
  return j.fail("expected an expression (string or number), got " +
                j.brief());
}

std::unexpected<Error> parseError(const JsonReader &j, const std::string &text,
                                  const Error &error) {
  return j.fail("cannot parse expression '" + text + "': " + error.str());
}

/// An expression's text, which must parse.
Expected<std::string> readExprText(const JsonReader &j) {
  KTUNE_TRY_ASSIGN(std::string text, exprText(j));
  auto parsed = expr::Expr::parse(text);
  if (!parsed)
    return parseError(j, text, parsed.error());
  return text;
}

/// A launch expression, kept parsed.
Expected<LaunchExpr> readLaunchExpr(const JsonReader &j) {
  KTUNE_TRY_ASSIGN(std::string text, exprText(j));
  LaunchExpr e(std::move(text));
  if (!e.parsed())
    return parseError(j, e.text(), e.parsed().error());
  return e;
}

Expected<std::vector<std::string>> readExprList(const JsonReader &j) {
  return j.readArray(readExprText, "expected an array of expressions");
}

/// A string that is not empty; `message` otherwise.
Expected<std::string> nonEmptyString(const JsonReader &j, std::string message) {
  if (!j.isString() || j.string()->empty())
    return j.fail(std::move(message));
  return j.string();
}

Expected<double> readNonNegative(const JsonReader &j) {
  KTUNE_TRY_ASSIGN(double v, j.number());
  if (!std::isfinite(v) || v < 0)
    return j.fail("expected a finite number >= 0");
  return v;
}

Expected<LaunchGeometry> readLaunch(const JsonReader &j) {
  if (!j.isObject())
    return j.fail("expected {\"grid\": [...], \"block\": [...], "
                  "\"smem\": ...}");
  KTUNE_TRY(j.onlyFields({"grid", "block", "smem", "from"}));
  LaunchGeometry g;
  for (const char *key : {"grid", "block"}) {
    KTUNE_TRY_ASSIGN(JsonReader field, j.required(key));
    KTUNE_TRY_ASSIGN(auto list, field.readArray(
                                    readLaunchExpr,
                                    "expected an array of expressions"));
    if (list.empty() || list.size() > 3)
      return field.fail("needs 1 to 3 dimensions");
    (std::string(key) == "grid" ? g.grid : g.block) = std::move(list);
  }
  if (j.has("smem")) {
    KTUNE_TRY_ASSIGN(g.smem, readLaunchExpr(j["smem"]));
  }
  KTUNE_TRY_ASSIGN(g.from, j.optionalString("from"));
  return g;
}

Expected<ScalarArg> readScalar(const JsonReader &j) {
  KTUNE_TRY(j.onlyFields({"value", "type"}));
  ScalarArg s;
  KTUNE_TRY_ASSIGN(s.value, readExprText(j["value"]));
  if (j.has("type")) {
    KTUNE_TRY_ASSIGN(s.ctype,
                     nonEmptyString(j["type"], "expected a C type such as "
                                               "\"int\" or \"float\""));
  }
  return s;
}

Expected<BufferArg> readBuffer(const JsonReader &j) {
  KTUNE_TRY(j.onlyFields({"buffer", "shape", "role", "init", "low", "high"}));
  BufferArg b;
  JsonReader buffer = j["buffer"];
  if (!buffer.isString())
    return buffer.fail("expected a dtype name (" + dtypeList() + ")");
  auto dt = parseDType(*buffer.string());
  if (!dt)
    return buffer.fail("unknown dtype \"" + *buffer.string() +
                       "\" (expected one of: " + dtypeList() + ")");
  b.dtype = *dt;
  KTUNE_TRY_ASSIGN(JsonReader shape, j.required("shape"));
  KTUNE_TRY_ASSIGN(b.shape, readExprList(shape));
  if (b.shape.empty())
    return shape.fail("a buffer needs at least one extent");
  if (j.has("role")) {
    KTUNE_TRY_ASSIGN(b.role, j["role"].enumeration(RoleNames));
  }
  if (j.has("init")) {
    JsonReader init = j["init"];
    KTUNE_TRY(init.choice({"normal", "uniform", "ones", "zeros", "arange"}));
    b.init = *init.string();
  }
  for (const char *key : {"low", "high"}) {
    if (!j.has(key))
      continue;
    JsonReader bound = j[key];
    if (!bound.isNumber() || !std::isfinite(*bound.number()))
      return bound.fail("expected a finite number");
    (std::string(key) == "low" ? b.low : b.high) = *bound.number();
  }
  if (b.high < b.low)
    return j.failAt("high", "high is below low");
  return b;
}

Expected<SpecArg> readArg(const std::string &name, const JsonReader &j) {
  if (!j.isObject())
    return j.fail("expected {\"buffer\": dtype, \"shape\": [...]} or "
                  "{\"value\": expression}");
  if (j.has("stream")) {
    KTUNE_TRY(j.onlyFields({"stream"}));
    KTUNE_TRY_ASSIGN(bool stream, j.optionalBool("stream", false));
    if (!stream)
      return j.failAt("stream", "expected true (the stream ktune times on)");
    ScalarArg s;
    s.value = "0";
    s.ctype = "cudaStream_t";
    s.stream = true;
    return SpecArg{name, s};
  }
  bool isBuffer = j.has("buffer"), isValue = j.has("value");
  if (isBuffer == isValue)
    return j.fail("give exactly one of \"buffer\" (a device array) or "
                  "\"value\" (a scalar)");
  SpecArg arg;
  arg.name = name;
  if (isValue) {
    KTUNE_TRY_ASSIGN(arg.arg, readScalar(j));
  } else {
    KTUNE_TRY_ASSIGN(arg.arg, readBuffer(j));
  }
  return arg;
}

Status readTemplateArgs(const JsonReader &ta, Spec &s) {
  if (!ta.isObject())
    return ta.fail("expected an object of template argument texts");
  for (const auto &[name, value] : ta.fields()) {
    if (value.isString() && !value.string()->empty())
      s.templateArgs[name] = *value.string();
    else if (value.isInteger() && value.integer())
      s.templateArgs[name] = std::to_string(*value.integer());
    else if (value.isBool())
      s.templateArgs[name] = *value.boolean() ? "true" : "false";
    else
      return value.fail("expected a C++ type or value as text");
  }
  return {};
}

Status readDims(const JsonReader &dims, Spec &s) {
  if (!dims.isObject())
    return dims.fail("expected an object: dimension name -> values");
  for (const auto &[name, value] : dims.fields()) {
    if (!expr::isValidIdentifier(name))
      return value.fail("a dimension name must be an identifier");
    std::vector<int64_t> values;
    if (value.isArray()) {
      if (value.size() == 0)
        return value.fail("expected at least one value");
      if (value.size() > limits::MaxShapes)
        return value.fail("too many values (" + std::to_string(value.size()) +
                          "; at most " + std::to_string(limits::MaxShapes) +
                          ")");
      KTUNE_TRY_ASSIGN(values, value.distinctIntegrals());
    } else {
      auto v = value.integral();
      if (!v)
        return value.fail("expected an integer or an array of integers");
      values.push_back(*v);
    }
    s.dims.emplace_back(name, std::move(values));
  }
  // Every combination of the dimensions is a shape to tune: bound their
  // number before anything enumerates them (Spec::allShapes).
  uint64_t count = 1;
  for (const auto &[name, values] : s.dims) {
    if (count > limits::MaxShapes / values.size())
      return dims.fail("too many shapes: the dimensions span more than " +
                       std::to_string(limits::MaxShapes) +
                       " (give the shapes to tune in \"shapes\", or fewer "
                       "values)");
    count *= values.size();
  }
  return {};
}

Status readShapes(const JsonReader &shapes, Spec &s) {
  if (!shapes.isArray() || shapes.size() == 0)
    return shapes.fail("expected a non-empty array of {dimension: value}");
  if (shapes.size() > limits::MaxShapes)
    return shapes.fail("too many shapes (" + std::to_string(shapes.size()) +
                       "; at most " + std::to_string(limits::MaxShapes) + ")");
  std::set<std::string> dimNames;
  for (const auto &[name, values] : s.dims)
    dimNames.insert(name);
  std::set<std::string> keys;
  std::set<Shape> seen;
  for (const JsonReader &at : shapes.elements()) {
    if (!at.isObject())
      return at.fail("expected an object {dimension: value}");
    Shape shape;
    for (const auto &[name, value] : at.fields()) {
      if (!expr::isValidIdentifier(name))
        return value.fail("a dimension name must be an identifier");
      KTUNE_TRY_ASSIGN(shape[name], value.integral());
    }
    std::set<std::string> these;
    for (const auto &kv : shape)
      these.insert(kv.first);
    if (s.shapes.empty()) // the first shape
      keys = these;
    const std::set<std::string> &expected = dimNames.empty() ? keys : dimNames;
    for (const auto &name : expected)
      if (!these.count(name))
        return at.fail("missing dimension '" + name + "'");
    for (const auto &name : these)
      if (!expected.count(name))
        return at.failAt(name, "'" + name + "' is not a dimension" +
                                   (dimNames.empty() ? " of shapes[0]"
                                                     : " declared in dims"));
    if (!seen.insert(shape).second)
      return at.fail("duplicate shape");
    s.shapes.push_back(std::move(shape));
  }
  // Dimensions given only through shapes: list their values, so tools
  // that bucket by dimension (the dispatch header) see them.
  if (s.dims.empty())
    for (const auto &name : keys) {
      std::set<int64_t> distinct;
      for (const auto &shape : s.shapes)
        distinct.insert(shape.at(name));
      std::vector<int64_t> values(distinct.begin(), distinct.end());
      s.dims.emplace_back(name, std::move(values));
    }
  return {};
}

Status readTolerance(const JsonReader &tol, Spec &s) {
  if (!tol.isObject())
    return tol.fail("expected an object: dtype -> {\"rtol\", \"atol\"}");
  for (const auto &[name, value] : tol.fields()) {
    auto dt = parseDType(name);
    if (!dt)
      return value.fail("unknown dtype (expected one of: " + dtypeList() + ")");
    if (!value.isObject())
      return value.fail("expected {\"rtol\": r, \"atol\": a}");
    KTUNE_TRY(value.onlyFields({"rtol", "atol"}));
    Tolerance t;
    if (value.has("rtol")) {
      KTUNE_TRY_ASSIGN(t.rtol, readNonNegative(value["rtol"]));
    }
    if (value.has("atol")) {
      KTUNE_TRY_ASSIGN(t.atol, readNonNegative(value["atol"]));
    }
    s.tolerance[*dt] = t;
  }
  return {};
}

Status readDomains(const JsonReader &domains, Spec &s) {
  if (!domains.isObject())
    return domains.fail("expected an object: parameter name -> "
                        "{\"values\": [...]} or {\"range\": {...}}");
  for (const auto &[name, value] : domains.fields()) {
    if (!value.isObject())
      return value.fail("expected {\"values\": [...]} or {\"range\": {...}}");
    KTUNE_TRY(value.onlyFields({"values", "range"}));
    KTUNE_TRY_ASSIGN(s.domains[name], domainFromJson(value));
  }
  return {};
}

Status readMaxRegisters(const JsonReader &regs, Spec &s) {
  if (!regs.isArray() || regs.size() == 0)
    return regs.fail("expected a non-empty array of register caps "
                     "(0 = no cap)");
  for (const JsonReader &at : regs.elements()) {
    KTUNE_TRY_ASSIGN(int64_t v, at.integral());
    if (v != 0 && (v < 16 || v > 255))
      return at.fail("a register cap is 0 (none) or between 16 and 255");
    if (std::find(s.maxRegisters.begin(), s.maxRegisters.end(), v) !=
        s.maxRegisters.end())
      return at.fail("duplicate value " + std::to_string(v));
    s.maxRegisters.push_back(v);
  }
  return {};
}

} // namespace

Expected<Spec> specFromJson(const json &json) {
  JsonReader j(json);
  KTUNE_TRY(j.expectVersion("a spec", SpecVersion));
  KTUNE_TRY(
      j.onlyFields({"ktune", "kernel", "launcher", "template_args", "dims",
                    "shapes", "args", "launch", "bytes", "tolerance", "domains",
                    "constraints", "max_registers", "compile_options",
                    "compiler", "reference_kernel", "comment", "$schema"}));

  Spec s;
  if (j.has("kernel") == j.has("launcher"))
    return j.failAt("kernel", "give exactly one of \"kernel\" (a kernel to "
                              "launch) and \"launcher\" (a host function to "
                              "call)");
  s.launcherMode = j.has("launcher");
  JsonReader kernel = j[s.launcherMode ? "launcher" : "kernel"];
  KTUNE_TRY_ASSIGN(s.kernel,
                   nonEmptyString(kernel, s.launcherMode
                                              ? "expected the launcher's name"
                                              : "expected the kernel's name"));

  if (j.has("template_args"))
    KTUNE_TRY(readTemplateArgs(j["template_args"], s));
  if (j.has("dims"))
    KTUNE_TRY(readDims(j["dims"], s));
  if (j.has("shapes"))
    KTUNE_TRY(readShapes(j["shapes"], s));

  if (!j.has("args"))
    return j.failAt("args",
                    "missing required field (one entry per kernel argument)");
  JsonReader args = j["args"];
  if (!args.isObject())
    return args.fail("expected an object: argument name -> buffer or value");
  for (const auto &[name, value] : args.fields()) {
    KTUNE_TRY_ASSIGN(auto arg, readArg(name, value));
    s.args.push_back(std::move(arg));
  }

  if (j.hasValue("launch")) {
    KTUNE_TRY_ASSIGN(s.launch, readLaunch(j["launch"]));
  }
  if (j.hasValue("bytes")) {
    KTUNE_TRY_ASSIGN(s.bytes, readExprText(j["bytes"]));
  }
  if (j.has("tolerance"))
    KTUNE_TRY(readTolerance(j["tolerance"], s));
  if (j.has("domains"))
    KTUNE_TRY(readDomains(j["domains"], s));
  if (j.has("constraints")) {
    KTUNE_TRY_ASSIGN(s.constraints, readExprList(j["constraints"]));
  }
  if (j.has("max_registers"))
    KTUNE_TRY(readMaxRegisters(j["max_registers"], s));
  if (j.has("compile_options")) {
    KTUNE_TRY_ASSIGN(s.compileOptions, j["compile_options"].strings());
  }
  if (j.hasValue("compiler")) {
    KTUNE_TRY_ASSIGN(s.compiler,
                     j["compiler"].enumeration(CompilerChoiceNames));
  }
  if (j.hasValue("reference_kernel")) {
    KTUNE_TRY_ASSIGN(
        s.referenceKernel,
        nonEmptyString(j["reference_kernel"], "expected a kernel name"));
  }
  return s;
}

std::optional<std::string> withdrawRegisterCaps(Spec &spec) {
  if (spec.maxRegisters.empty())
    return std::nullopt;
  std::string caps;
  for (int64_t c : spec.maxRegisters)
    caps += (caps.empty() ? "" : ", ") + std::to_string(c);
  spec.maxRegisters.clear();
  return "max_registers [" + caps +
         "] not searched: a dispatch header cannot apply a --maxrregcount "
         "cap (a compile option of the whole translation unit); "
         "--compile-only shows registers and spills under each cap, and a "
         "kernel's min-blocks parameter (__launch_bounds__(BLOCK, "
         "MIN_BLOCKS)) is tuned and applied instead";
}

} // namespace ktune
