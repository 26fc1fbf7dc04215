#include "ktune/Plan/Manifest.h"

#include "ktune/Expr/Expr.h"
#include "ktune/Support/JsonReader.h"
#include "ktune/Support/Try.h"

#include <algorithm>
#include <cctype>
#include <set>
#include <sstream>

namespace ktune {

using nlohmann::json;

const TemplateParam *ManifestKernel::findParam(const std::string &n) const {
  for (const auto &p : templateParams)
    if (p.name == n)
      return &p;
  for (const auto &p : launchParams)
    if (p.name == n)
      return &p;
  return nullptr;
}

std::vector<const TemplateParam *> ManifestKernel::tunableParams() const {
  std::vector<const TemplateParam *> out;
  for (const auto &p : templateParams)
    if (p.tunable)
      out.push_back(&p);
  for (const auto &p : launchParams)
    out.push_back(&p);
  return out;
}

std::string compilerForFlags(const std::vector<std::string> &arguments) {
  for (const auto &a : arguments)
    if (a.starts_with("--cuda-") || a == "-xcuda" ||
        a.starts_with("--offload-arch"))
      return "clang++";
  return "nvcc";
}

const ManifestLauncher *Manifest::findLauncher(const std::string &n) const {
  for (const auto &l : launchers)
    if (l.name == n || l.qualifiedName == n)
      return &l;
  return nullptr;
}

const ManifestKernel *Manifest::findKernel(const std::string &n) const {
  for (const auto &k : kernels)
    if (k.name == n || k.qualifiedName == n)
      return &k;
  return nullptr;
}

LaunchExpr::LaunchExpr(std::string text)
    : Text(std::move(text)), Parsed(expr::Expr::parse(Text)) {}

std::vector<std::string> LaunchExpr::names() const {
  return Parsed ? Parsed->names() : std::vector<std::string>{};
}

bool operator==(const std::vector<LaunchExpr> &exprs,
                const std::vector<std::string> &texts) {
  return std::equal(
      exprs.begin(), exprs.end(), texts.begin(), texts.end(),
      [](const LaunchExpr &e, const std::string &t) { return e.text() == t; });
}

/// An expression as a manifest writes it: a string, or an integer.
static Expected<std::string> readExpr(const JsonReader &j) {
  if (j.isString())
    return j.string();
  if (j.isInteger()) {
    KTUNE_TRY_ASSIGN(int64_t v, j.integer());
    return std::to_string(v);
  }
  return j.fail("expected an expression string");
}

static Expected<std::vector<std::string>> readExprList(const JsonReader &j) {
  return j.readArray(readExpr, "expected an array of expressions");
}

static Expected<TemplateParam> readParam(const JsonReader &j) {
  TemplateParam p;
  if (!j.isObject())
    return j.fail("expected an object");
  KTUNE_TRY_ASSIGN(p.name, j.requiredString("name"));
  KTUNE_TRY_ASSIGN(p.type, j.requiredString("type"));
  KTUNE_TRY_ASSIGN(p.tunable, j.optionalBool("tunable", false));
  KTUNE_TRY_ASSIGN(p.launcher, j.optionalString("launcher"));
  if (p.isLaunchParam())
    p.tunable = true; // a launch parameter exists to be tuned
  if (!p.tunable)
    return p;
  KTUNE_TRY_ASSIGN(p.kind, kindFromJson(j));
  KTUNE_TRY_ASSIGN(p.caseCondition, j.optionalString("case"));
  KTUNE_TRY_ASSIGN(p.fixes, j.optionalString("fixes"));
  KTUNE_TRY_ASSIGN(int64_t def, j.requiredInteger("default"));
  p.defaultValue = def;
  KTUNE_TRY_ASSIGN(Domain domain, domainFromJson(j));
  if (!domain.contains(def))
    return j.failAt("default", "default " + std::to_string(def) +
                                   " is not in the parameter's domain");
  p.domain = std::move(domain);
  return p;
}

/// Launch expressions, parsed here once for every later use; text that does
/// not parse is reported where the geometry is checked against a spec.
static Expected<std::vector<LaunchExpr>> readLaunchExprs(const JsonReader &j) {
  KTUNE_TRY_ASSIGN(auto texts, readExprList(j));
  return std::vector<LaunchExpr>(texts.begin(), texts.end());
}

static Expected<LaunchGeometry> readLaunch(const JsonReader &l) {
  LaunchGeometry g;
  if (!l.isObject() || !l.has("grid") || !l.has("block"))
    return l.fail("expected {\"grid\": [...], \"block\": [...]}");
  KTUNE_TRY_ASSIGN(g.grid, readLaunchExprs(l["grid"]));
  KTUNE_TRY_ASSIGN(g.block, readLaunchExprs(l["block"]));
  if (g.grid.empty() || g.grid.size() > 3)
    return l.failAt("grid", "grid needs 1 to 3 dimensions");
  if (g.block.empty() || g.block.size() > 3)
    return l.failAt("block", "block needs 1 to 3 dimensions");
  if (l.has("smem")) {
    KTUNE_TRY_ASSIGN(g.smem, readExpr(l["smem"]));
  }
  KTUNE_TRY_ASSIGN(g.from, l.optionalString("from"));
  KTUNE_TRY_ASSIGN(g.cooperative, l.optionalBool("cooperative", false));
  return g;
}

static Expected<std::vector<TemplateParam>> readParams(const JsonReader &ps,
                                                       bool launchParams) {
  if (!ps.isArray())
    return ps.fail("expected an array");
  std::vector<TemplateParam> out;
  for (const JsonReader &param : ps.elements()) {
    KTUNE_TRY_ASSIGN(auto p, readParam(param));
    if (launchParams && !p.isLaunchParam())
      return param.fail("a launch parameter names its \"launcher\"");
    for (const auto &q : out)
      if (q.name == p.name)
        return param.fail("duplicate template parameter '" + p.name + "'");
    out.push_back(std::move(p));
  }
  return out;
}

static Expected<std::vector<KernelArg>> readArgs(const JsonReader &as) {
  if (!as.isArray())
    return as.fail("expected an array");
  std::vector<KernelArg> out;
  for (const JsonReader &arg : as.elements()) {
    KernelArg a;
    KTUNE_TRY_ASSIGN(a.name, arg.requiredString("name"));
    KTUNE_TRY_ASSIGN(a.type, arg.requiredString("type"));
    KTUNE_TRY_ASSIGN(a.canonicalType, arg.optionalString("canonical_type"));
    KTUNE_TRY_ASSIGN(a.enumName, arg.optionalString("enum"));
    out.push_back(std::move(a));
  }
  return out;
}

/// What a kernel and a launcher begin with: the name, the qualified name
/// (the name when not given) and the template parameters.
template <class Entry>
static Status readNameAndParams(const JsonReader &j, Entry &e) {
  if (!j.isObject())
    return j.fail("expected an object");
  KTUNE_TRY_ASSIGN(e.name, j.requiredString("name"));
  KTUNE_TRY_ASSIGN(e.qualifiedName, j.optionalString("qualified_name", e.name));
  if (j.has("template_params")) {
    KTUNE_TRY_ASSIGN(e.templateParams, readParams(j["template_params"], false));
  }
  return {};
}

static Expected<ManifestLauncher> readLauncher(const JsonReader &j) {
  ManifestLauncher l;
  KTUNE_TRY(readNameAndParams(j, l));
  if (j.has("args")) {
    KTUNE_TRY_ASSIGN(l.args, readArgs(j["args"]));
  }
  KTUNE_TRY_ASSIGN(l.returns, j.optionalString("returns", "void"));
  if (j.has("kernels")) {
    KTUNE_TRY_ASSIGN(l.kernels, j["kernels"].strings());
  }
  KTUNE_TRY_ASSIGN(l.from, j.optionalString("from"));
  KTUNE_TRY_ASSIGN(l.forwarder, j.optionalBool("forwarder", false));
  return l;
}

static Expected<ManifestKernel> readKernel(const JsonReader &j) {
  ManifestKernel k;
  KTUNE_TRY(readNameAndParams(j, k));
  if (j.has("launch_params")) {
    KTUNE_TRY_ASSIGN(k.launchParams, readParams(j["launch_params"], true));
    for (const auto &p : k.launchParams)
      for (const auto &q : k.templateParams)
        if (p.name == q.name)
          return j["launch_params"].fail("launch parameter '" + p.name +
                                         "' is also a template parameter");
  }
  if (j.has("args")) {
    KTUNE_TRY_ASSIGN(k.args, readArgs(j["args"]));
  }
  KTUNE_TRY_ASSIGN(k.explicitInstantiation,
                   j.optionalBool("explicit_instantiation", false));
  if (j.has("constraints")) {
    KTUNE_TRY_ASSIGN(k.constraints, readExprList(j["constraints"]));
  }
  if (j.hasValue("launch")) {
    KTUNE_TRY_ASSIGN(k.launch, readLaunch(j["launch"]));
  }
  return k;
}

Expected<Manifest> manifestFromJson(const json &json) {
  JsonReader j(json);
  if (!j.isObject())
    return makeError("a manifest is a JSON object", "$");
  std::string version = j["ktune"].isString() ? *j["ktune"].string() : "";
  if (version != ManifestVersion && version != ManifestVersion2)
    return j.failAt("ktune", "unsupported manifest version \"" + version +
                                 "\" (this ktune reads \"" + ManifestVersion +
                                 "\" and \"" + ManifestVersion2 + "\")");
  Manifest m;
  m.version = version;
  KTUNE_TRY_ASSIGN(m.source, j.requiredString("source"));
  KTUNE_TRY_ASSIGN(m.original, j.optionalString("original"));
  KTUNE_TRY_ASSIGN(m.sourceSha256, j.optionalString("source_sha256"));
  KTUNE_TRY_ASSIGN(m.kernels, j["kernels"].readArray(
                                  readKernel, "expected an array of kernels"));
  if (j.has("files")) {
    JsonReader files = j["files"];
    if (!files.isArray())
      return files.fail("expected an array of files");
    for (const JsonReader &f : files.elements()) {
      ManifestFile mf;
      KTUNE_TRY_ASSIGN(mf.path, f.requiredString("path"));
      KTUNE_TRY_ASSIGN(mf.original, f.optionalString("original"));
      KTUNE_TRY_ASSIGN(mf.role, f.optionalString("role", "header"));
      m.files.push_back(std::move(mf));
    }
  }
  if (j.has("include_dirs")) {
    KTUNE_TRY_ASSIGN(m.includeDirs, j["include_dirs"].strings());
  }
  if (j.has("quote_dirs")) {
    KTUNE_TRY_ASSIGN(m.quoteDirs, j["quote_dirs"].strings());
  }
  if (j.hasValue("compile")) {
    JsonReader c = j["compile"];
    if (!c.isObject())
      return c.fail("expected {\"directory\", \"arguments\", \"compiler\"}");
    CompileCommandInfo info;
    KTUNE_TRY_ASSIGN(info.directory, c.optionalString("directory"));
    if (c.has("arguments")) {
      KTUNE_TRY_ASSIGN(info.arguments, c["arguments"].strings());
    }
    KTUNE_TRY_ASSIGN(info.compiler, c.optionalString("compiler"));
    m.compile = std::move(info);
  }
  if (j.has("launchers")) {
    JsonReader ls = j["launchers"];
    if (!ls.isArray())
      return ls.fail("expected an array of launchers");
    for (const JsonReader &l : ls.elements()) {
      KTUNE_TRY_ASSIGN(auto launcher, readLauncher(l));
      m.launchers.push_back(std::move(launcher));
    }
  }
  for (size_t i = 0; i < m.kernels.size(); ++i)
    for (const auto &p : m.kernels[i].launchParams)
      if (!m.launchers.empty() && !m.findLauncher(p.launcher))
        return j["kernels"][i]["launch_params"].fail(
            "launch parameter '" + p.name + "' names launcher '" + p.launcher +
            "', which the manifest does not list");
  return m;
}

static json paramToJson(const TemplateParam &p) {
  json jp = {{"name", p.name}, {"type", p.type}, {"tunable", p.tunable}};
  if (p.tunable) {
    jp["kind"] = std::string(kindName(p.kind));
    if (p.defaultValue)
      jp["default"] = *p.defaultValue;
    if (p.domain)
      domainToJson(*p.domain, jp);
    if (!p.caseCondition.empty())
      jp["case"] = p.caseCondition;
    if (!p.fixes.empty())
      jp["fixes"] = p.fixes;
  }
  if (p.isLaunchParam())
    jp["launcher"] = p.launcher;
  return jp;
}

static json argsToJson(const std::vector<KernelArg> &as) {
  json args = json::array();
  for (const auto &a : as) {
    json ja = {{"name", a.name}, {"type", a.type}};
    if (!a.canonicalType.empty())
      ja["canonical_type"] = a.canonicalType;
    if (!a.enumName.empty())
      ja["enum"] = a.enumName;
    args.push_back(std::move(ja));
  }
  return args;
}

json manifestToJson(const Manifest &m) {
  bool v2 = m.version == ManifestVersion2 || !m.launchers.empty() ||
            !m.files.empty() || !m.includeDirs.empty() ||
            !m.quoteDirs.empty() || m.compile;
  for (const auto &k : m.kernels)
    v2 = v2 || !k.launchParams.empty();
  json j = {{"ktune", v2 ? ManifestVersion2 : ManifestVersion},
            {"source", m.source},
            {"original", m.original},
            {"source_sha256", m.sourceSha256}};
  json kernels = json::array();
  for (const auto &k : m.kernels) {
    json jk = {{"name", k.name}, {"qualified_name", k.qualifiedName}};
    json params = json::array();
    for (const auto &p : k.templateParams)
      params.push_back(paramToJson(p));
    jk["template_params"] = std::move(params);
    if (!k.launchParams.empty()) {
      json lps = json::array();
      for (const auto &p : k.launchParams)
        lps.push_back(paramToJson(p));
      jk["launch_params"] = std::move(lps);
    }
    jk["args"] = argsToJson(k.args);
    jk["constraints"] = k.constraints;
    if (k.launch) {
      jk["launch"] = {{"grid", k.launch->grid},
                      {"block", k.launch->block},
                      {"smem", k.launch->smem},
                      {"from", k.launch->from}};
      if (k.launch->cooperative)
        jk["launch"]["cooperative"] = true;
    }
    if (k.explicitInstantiation)
      jk["explicit_instantiation"] = true;
    kernels.push_back(std::move(jk));
  }
  j["kernels"] = std::move(kernels);
  if (!m.files.empty()) {
    json files = json::array();
    for (const auto &f : m.files)
      files.push_back(
          {{"path", f.path}, {"original", f.original}, {"role", f.role}});
    j["files"] = std::move(files);
  }
  if (!m.includeDirs.empty())
    j["include_dirs"] = m.includeDirs;
  if (!m.quoteDirs.empty())
    j["quote_dirs"] = m.quoteDirs;
  if (m.compile)
    j["compile"] = {{"directory", m.compile->directory},
                    {"arguments", m.compile->arguments},
                    {"compiler", m.compile->compiler}};
  if (!m.launchers.empty()) {
    json ls = json::array();
    for (const auto &l : m.launchers) {
      json params = json::array();
      for (const auto &p : l.templateParams)
        params.push_back(paramToJson(p));
      ls.push_back({{"name", l.name},
                    {"qualified_name", l.qualifiedName},
                    {"template_params", std::move(params)},
                    {"args", argsToJson(l.args)},
                    {"returns", l.returns},
                    {"kernels", l.kernels},
                    {"from", l.from},
                    {"forwarder", l.forwarder}});
    }
    j["launchers"] = std::move(ls);
  }
  return j;
}

} // namespace ktune
