//===- SourceFactsJson.cpp - The facts as --dump-facts writes them --------===//

#include "ktune/Refactor/SourceFacts.h"

namespace ktune::refactor {

nlohmann::json factsToJson(const SourceFacts &facts) {
  using nlohmann::json;
  json out = {{"file", facts.file}};
  for (const auto &f : facts.files)
    out["files"].push_back({{"path", f.path},
                            {"included_as", f.includedAs},
                            {"found_under", f.foundUnder}});
  static const char *roles[] = {"kernel", "device_helper", "host"};
  for (const auto &[id, f] : facts.functions) {
    json j = {{"id", id},
              {"role", roles[static_cast<int>(f.role)]},
              {"name", f.qualifiedName},
              {"line", f.line},
              {"template", f.isTemplate},
              {"warp_level", f.usesWarpLevelOps},
              {"grid_stride", f.gridStride},
              {"kept_constants", f.keptConstants},
              {"callees", f.callees}};
    if (!f.cannotTemplate.empty())
      j["cannot_template"] = f.cannotTemplate;
    if (f.rowSplit.analysed)
      j["row_split"] = f.rowSplit.refusal.empty()
                           ? json{{"uses", f.rowSplit.uses.size()},
                                  {"opaque_callees", f.rowSplit.opaqueCallees}}
                           : json{{"refusal", f.rowSplit.refusal}};
    if (f.registerCap.analysed)
      j["register_cap"] =
          f.registerCap.refusal.empty()
              ? json{{"extends_bounds", f.registerCap.extendsBounds},
                     {"max_threads", f.registerCap.maxThreads}}
              : json{{"refusal", f.registerCap.refusal}};
    out["functions"].push_back(j);
  }
  for (const auto &c : facts.calls) {
    json j = {{"line", c.line},
              {"col", c.col},
              {"caller", c.caller},
              {"callee", c.callee},
              {"launch", c.isLaunch},
              {"implicit_args", c.implicitArgs},
              {"explicit_args", c.explicitArgs}};
    if (!c.implicitArgsError.empty())
      j["implicit_args_error"] = c.implicitArgsError;
    j["form"] = std::string(callFormName(c.form));
    if (!c.macro.empty())
      j["macro"] = c.macro;
    if (!c.launcher.empty())
      j["launcher"] = c.launcher;
    if (c.setByCallers)
      j["set_by_callers"] = true;
    if (c.kernelArgsInPicker)
      j["kernel_args_in_picker"] = true;
    if (c.caseTable)
      j["case"] = {{"table", unsigned(*c.caseTable)},
                   {"index", c.caseIndex},
                   {"condition", c.caseCondition}};
    if (c.isLaunch) {
      j["host_names"] = c.hostNames;
      j["grid"] = c.grid;
      j["block"] = c.block;
      j["smem"] = c.smem;
      if (!c.geometryError.empty())
        j["geometry_error"] = c.geometryError;
    }
    out["calls"].push_back(j);
  }
  static const char *spellings[] = {"literal", "macro", "variable",
                                    "enumerator"};
  for (const auto &o : facts.occurrences)
    out["occurrences"].push_back(
        {{"offset", o.offset},
         {"file", facts.pathOf(filePart(o.offset))},
         {"at", std::to_string(o.line) + ":" + std::to_string(o.col)},
         {"text", o.text},
         {"function", o.function},
         {"kernel", o.kernel},
         {"role", std::string(siteRoleName(o.role))},
         {"use_role", o.useRole ? std::string(siteRoleName(*o.useRole)) : ""},
         {"value", o.value},
         {"spelling", spellings[static_cast<int>(o.spelling)]},
         {"constant", o.constant},
         {"family", o.family.str()},
         {"dim", o.dim},
         {"top", o.top},
         {"bound_param", o.boundParam},
         {"cast", o.castType},
         {"value_type", o.valueType}});
  for (const auto &a : facts.sharedArrays)
    out["shared_arrays"].push_back({{"function", a.function},
                                    {"name", a.name},
                                    {"element_size", a.elementSize},
                                    {"extents", a.extents}});
  for (const auto &[k, v] : facts.launchBounds)
    out["launch_bounds"][k] = v;
  for (const auto &[name, m] : facts.macroCopies)
    out["macro_copies"][name] = {
        {"begin", m.begin}, {"end", m.end}, {"insert_at", m.insertAt}};
  out["notes"] = facts.notes;
  return out;
}

} // namespace ktune::refactor
