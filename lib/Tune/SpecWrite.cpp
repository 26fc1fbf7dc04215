//===- SpecWrite.cpp - Writing spec.json ----------------------------------===//
#include "ktune/Tune/Spec.h"

namespace ktune {

using nlohmann::json;

json specToJson(const Spec &s) {
  json j = {{"ktune", SpecVersion},
            {s.launcherMode ? "launcher" : "kernel", s.kernel}};
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
                 {"role", nameOf(RoleNames, b->role, "inout")},
                 {"init", b->init}};
      if (b->init == "uniform") {
        jb["low"] = b->low;
        jb["high"] = b->high;
      }
      args[a.name] = std::move(jb);
    } else {
      const auto &sc = std::get<ScalarArg>(a.arg);
      if (sc.stream) {
        args[a.name] = {{"stream", true}};
        continue;
      }
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
  if (s.compiler != CompilerChoice::Auto)
    j["compiler"] = std::string(nameOf(CompilerChoiceNames, s.compiler, ""));
  if (s.referenceKernel)
    j["reference_kernel"] = *s.referenceKernel;
  return j;
}

} // namespace ktune
