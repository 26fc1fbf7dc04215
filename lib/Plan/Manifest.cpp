#include "ktune/Plan/Manifest.h"

#include "JsonRead.h"

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

static Expected<std::vector<std::string>>
readExprList(const json &j, const std::string &where) {
  if (!j.is_array())
    return makeError("expected an array of expressions", where);
  std::vector<std::string> out;
  for (size_t i = 0; i < j.size(); ++i) {
    std::string at = where + "[" + std::to_string(i) + "]";
    if (j[i].is_string())
      out.push_back(j[i].get<std::string>());
    else if (j[i].is_number_integer())
      out.push_back(std::to_string(j[i].get<int64_t>()));
    else
      return makeError("expected an expression string", at);
  }
  return out;
}

static Expected<TemplateParam> readParam(const json &j,
                                         const std::string &where) {
  TemplateParam p;
  if (!j.is_object())
    return makeError("expected an object", where);
  KTUNE_TRY_ASSIGN(p.name, json_read::string(j, "name", where));
  KTUNE_TRY_ASSIGN(p.type, json_read::string(j, "type", where));
  p.tunable = j.value("tunable", false);
  if (!p.tunable)
    return p;
  KTUNE_TRY_ASSIGN(p.kind, json_read::string(j, "kind", where));
  int64_t def = 0;
  KTUNE_TRY_ASSIGN(def, json_read::integer(j, "default", where));
  p.defaultValue = def;
  auto domain = domainFromJson(j, where);
  if (!domain)
    return std::unexpected(domain.error());
  if (!domain->contains(def))
    return makeError("default " + std::to_string(def) +
                         " is not in the parameter's domain",
                     where + ".default");
  p.domain = std::move(*domain);
  return p;
}

static Expected<ManifestKernel> readKernel(const json &j,
                                           const std::string &where) {
  ManifestKernel k;
  if (!j.is_object())
    return makeError("expected an object", where);
  KTUNE_TRY_ASSIGN(k.name, json_read::string(j, "name", where));
  k.qualifiedName = j.value("qualified_name", k.name);
  if (j.contains("template_params")) {
    const auto &ps = j["template_params"];
    if (!ps.is_array())
      return makeError("expected an array", where + ".template_params");
    for (size_t i = 0; i < ps.size(); ++i) {
      auto p = readParam(ps[i], where + ".template_params[" +
                                    std::to_string(i) + "]");
      if (!p)
        return std::unexpected(p.error());
      if (k.findParam(p->name))
        return makeError("duplicate template parameter '" + p->name + "'",
                         where + ".template_params[" + std::to_string(i) +
                             "]");
      k.templateParams.push_back(std::move(*p));
    }
  }
  if (j.contains("args")) {
    const auto &as = j["args"];
    if (!as.is_array())
      return makeError("expected an array", where + ".args");
    for (size_t i = 0; i < as.size(); ++i) {
      std::string at = where + ".args[" + std::to_string(i) + "]";
      KernelArg a;
      KTUNE_TRY_ASSIGN(a.name, json_read::string(as[i], "name", at));
      KTUNE_TRY_ASSIGN(a.type, json_read::string(as[i], "type", at));
      k.args.push_back(std::move(a));
    }
  }
  if (j.contains("constraints")) {
    KTUNE_TRY_ASSIGN(k.constraints,
                     readExprList(j["constraints"], where + ".constraints"));
  }
  if (j.contains("launch") && !j["launch"].is_null()) {
    const auto &l = j["launch"];
    std::string at = where + ".launch";
    LaunchGeometry g;
    if (!l.is_object() || !l.contains("grid") || !l.contains("block"))
      return makeError("expected {\"grid\": [...], \"block\": [...]}", at);
    KTUNE_TRY_ASSIGN(g.grid, readExprList(l["grid"], at + ".grid"));
    KTUNE_TRY_ASSIGN(g.block, readExprList(l["block"], at + ".block"));
    if (g.grid.empty() || g.grid.size() > 3)
      return makeError("grid needs 1 to 3 dimensions", at + ".grid");
    if (g.block.empty() || g.block.size() > 3)
      return makeError("block needs 1 to 3 dimensions", at + ".block");
    if (l.contains("smem")) {
      if (l["smem"].is_string())
        g.smem = l["smem"].get<std::string>();
      else if (l["smem"].is_number_integer())
        g.smem = std::to_string(l["smem"].get<int64_t>());
      else
        return makeError("expected an expression string", at + ".smem");
    }
    g.from = l.value("from", "");
    k.launch = std::move(g);
  }
  return k;
}

Expected<Manifest> manifestFromJson(const json &j) {
  if (!j.is_object())
    return makeError("a manifest is a JSON object", "$");
  auto version = j.value("ktune", "");
  if (version != ManifestVersion)
    return makeError("unsupported manifest version \"" + version +
                         "\" (this ktune reads \"" + ManifestVersion + "\")",
                     "ktune");
  Manifest m;
  KTUNE_TRY_ASSIGN(m.source, json_read::string(j, "source", ""));
  m.original = j.value("original", "");
  m.sourceSha256 = j.value("source_sha256", "");
  if (!j.contains("kernels") || !j["kernels"].is_array())
    return makeError("expected an array of kernels", "kernels");
  for (size_t i = 0; i < j["kernels"].size(); ++i) {
    auto k = readKernel(j["kernels"][i], "kernels[" + std::to_string(i) + "]");
    if (!k)
      return std::unexpected(k.error());
    m.kernels.push_back(std::move(*k));
  }
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
