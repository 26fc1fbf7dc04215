#include "ktune/Plan/Manifest.h"

#include "ktune/Support/JsonReader.h"
#include "ktune/Support/Try.h"

namespace ktune {

using nlohmann::json;

const TemplateParam *ManifestKernel::findParam(const std::string &n) const {
  for (const auto &p : templateParams)
    if (p.name == n)
      return &p;
  return nullptr;
}

std::vector<const TemplateParam *> ManifestKernel::tunableParams() const {
  std::vector<const TemplateParam *> out;
  for (const auto &p : templateParams)
    if (p.tunable)
      out.push_back(&p);
  return out;
}

const ManifestKernel *Manifest::findKernel(const std::string &n) const {
  for (const auto &k : kernels)
    if (k.name == n || k.qualifiedName == n)
      return &k;
  return nullptr;
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
  if (!p.tunable)
    return p;
  KTUNE_TRY_ASSIGN(p.kind, j.requiredString("kind"));
  KTUNE_TRY_ASSIGN(int64_t def, j.requiredInteger("default"));
  p.defaultValue = def;
  KTUNE_TRY_ASSIGN(Domain domain, domainFromJson(j));
  if (!domain.contains(def))
    return j.failAt("default", "default " + std::to_string(def) +
                                   " is not in the parameter's domain");
  p.domain = std::move(domain);
  return p;
}

static Expected<LaunchGeometry> readLaunch(const JsonReader &l) {
  LaunchGeometry g;
  if (!l.isObject() || !l.has("grid") || !l.has("block"))
    return l.fail("expected {\"grid\": [...], \"block\": [...]}");
  KTUNE_TRY_ASSIGN(g.grid, readExprList(l["grid"]));
  KTUNE_TRY_ASSIGN(g.block, readExprList(l["block"]));
  if (g.grid.empty() || g.grid.size() > 3)
    return l.failAt("grid", "grid needs 1 to 3 dimensions");
  if (g.block.empty() || g.block.size() > 3)
    return l.failAt("block", "block needs 1 to 3 dimensions");
  if (l.has("smem")) {
    KTUNE_TRY_ASSIGN(g.smem, readExpr(l["smem"]));
  }
  KTUNE_TRY_ASSIGN(g.from, l.optionalString("from"));
  return g;
}

static Expected<KernelArg> readArg(const JsonReader &j) {
  KernelArg a;
  KTUNE_TRY_ASSIGN(a.name, j.requiredString("name"));
  KTUNE_TRY_ASSIGN(a.type, j.requiredString("type"));
  return a;
}

static Expected<ManifestKernel> readKernel(const JsonReader &j) {
  ManifestKernel k;
  if (!j.isObject())
    return j.fail("expected an object");
  KTUNE_TRY_ASSIGN(k.name, j.requiredString("name"));
  KTUNE_TRY_ASSIGN(k.qualifiedName, j.optionalString("qualified_name", k.name));
  if (j.has("template_params")) {
    JsonReader ps = j["template_params"];
    if (!ps.isArray())
      return ps.fail("expected an array");
    for (const JsonReader &param : ps.elements()) {
      KTUNE_TRY_ASSIGN(auto p, readParam(param));
      if (k.findParam(p.name))
        return param.fail("duplicate template parameter '" + p.name + "'");
      k.templateParams.push_back(std::move(p));
    }
  }
  KTUNE_TRY_ASSIGN(k.args, j.optionalArray("args", readArg));
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
  KTUNE_TRY(j.expectVersion("a manifest", ManifestVersion));
  Manifest m;
  KTUNE_TRY_ASSIGN(m.source, j.requiredString("source"));
  KTUNE_TRY_ASSIGN(m.original, j.optionalString("original"));
  KTUNE_TRY_ASSIGN(m.sourceSha256, j.optionalString("source_sha256"));
  KTUNE_TRY_ASSIGN(m.kernels, j["kernels"].readArray(
                                  readKernel, "expected an array of kernels"));
  return m;
}

json manifestToJson(const Manifest &m) {
  json j = {{"ktune", ManifestVersion},
            {"source", m.source},
            {"original", m.original},
            {"source_sha256", m.sourceSha256}};
  json kernels = json::array();
  for (const auto &k : m.kernels) {
    json jk = {{"name", k.name}, {"qualified_name", k.qualifiedName}};
    json params = json::array();
    for (const auto &p : k.templateParams) {
      json jp = {{"name", p.name}, {"type", p.type}, {"tunable", p.tunable}};
      if (p.tunable) {
        jp["kind"] = p.kind;
        if (p.defaultValue)
          jp["default"] = *p.defaultValue;
        if (p.domain)
          domainToJson(*p.domain, jp);
      }
      params.push_back(std::move(jp));
    }
    jk["template_params"] = std::move(params);
    json args = json::array();
    for (const auto &a : k.args)
      args.push_back({{"name", a.name}, {"type", a.type}});
    jk["args"] = std::move(args);
    jk["constraints"] = k.constraints;
    if (k.launch)
      jk["launch"] = {{"grid", k.launch->grid},
                      {"block", k.launch->block},
                      {"smem", k.launch->smem},
                      {"from", k.launch->from}};
    kernels.push_back(std::move(jk));
  }
  j["kernels"] = std::move(kernels);
  return j;
}

} // namespace ktune
