//===- DispatchDescription.cpp - kernel.tuned.json ------------------------===//
#include "ktune/Tune/DispatchDescription.h"

#include "ktune/Expr/Expr.h"
#include "ktune/Tune/Tuner.h"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <set>

namespace ktune {

using nlohmann::ordered_json;
namespace fs = std::filesystem;

std::string
substituteIdentifiers(const std::string &text,
                      const std::map<std::string, std::string> &map) {
  std::string out;
  size_t i = 0;
  auto isIdent = [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
  };
  while (i < text.size()) {
    if (isIdent(text[i]) &&
        !std::isdigit(static_cast<unsigned char>(text[i]))) {
      size_t j = i;
      while (j < text.size() && isIdent(text[j]))
        ++j;
      std::string word = text.substr(i, j - i);
      auto it = map.find(word);
      out += it == map.end() ? word : it->second;
      i = j;
    } else {
      out += text[i++];
    }
  }
  return out;
}

std::vector<LauncherParam> launcherParams(const ManifestKernel &kernel,
                                          const Spec &spec) {
  using Source = LauncherParam::Source;
  std::vector<LauncherParam> params;
  std::set<std::string> argNames;
  if (spec.launcherMode) {
    // The tuned launcher is called as the original: its parameters only.
    std::set<std::string> carried;
    for (const auto &a : kernel.args) {
      auto it =
          std::find_if(spec.args.begin(), spec.args.end(),
                       [&](const SpecArg &s) { return s.name == a.name; });
      const auto *sc =
          it == spec.args.end() ? nullptr : std::get_if<ScalarArg>(&it->arg);
      LauncherParam p{a.name, substituteIdentifiers(a.type, spec.templateArgs),
                      Source::Scalar, a.name};
      if (sc && sc->stream) {
        p.source = Source::Stream;
        p.of = "";
      } else if (!sc) {
        p.source = Source::Buffer;
      } else if (auto e = expr::Expr::parse(sc->value);
                 e && e->names().size() == 1 && e->str() == e->names()[0]) {
        p.dim = e->names()[0];
        carried.insert(p.dim);
      }
      params.push_back(std::move(p));
    }
    for (const auto &[dim, values] : spec.dims)
      if (!carried.count(dim))
        params.push_back({"dim_" + dim, "int64_t", Source::Dim, dim});
    return params;
  }
  for (const auto &a : kernel.args) {
    argNames.insert(a.name);
    auto it = std::find_if(spec.args.begin(), spec.args.end(),
                           [&](const SpecArg &s) { return s.name == a.name; });
    bool buffer =
        it != spec.args.end() && std::holds_alternative<BufferArg>(it->arg);
    params.push_back({a.name, substituteIdentifiers(a.type, spec.templateArgs),
                      buffer ? Source::Buffer : Source::Scalar, a.name});
  }
  for (const auto &[dim, values] : spec.dims) {
    if (!argNames.count(dim)) {
      params.push_back({dim, "int64_t", Source::Dim, dim});
      continue;
    }
    // An argument of the same name carries the dimension when the spec sets
    // it to the dimension itself; otherwise the dimension gets its own name.
    auto it = std::find_if(spec.args.begin(), spec.args.end(),
                           [&](const SpecArg &a) { return a.name == dim; });
    const auto *sc =
        it == spec.args.end() ? nullptr : std::get_if<ScalarArg>(&it->arg);
    bool same = false;
    if (sc)
      if (auto e = expr::Expr::parse(sc->value))
        same =
            e->names().size() == 1 && e->names()[0] == dim && e->str() == dim;
    if (!same)
      params.push_back({"dim_" + dim, "int64_t", Source::Dim, dim});
  }
  params.push_back({"stream", "cudaStream_t", Source::Stream, ""});
  return params;
}

Status checkNoRegisterCap(const TuneResults &r) {
  auto capped = [](const Configuration &c) {
    auto it = c.find(MaxRegistersParam);
    return it != c.end() && it->second != 0;
  };
  auto refuse = [](const Configuration &c, const std::string &where) {
    return makeError(
        "the results choose a register cap (" + configText(c) + " " + where +
            ") that a dispatch header cannot apply: --maxrregcount is a "
            "compile option of the whole translation unit. Tune without "
            "max_registers, or give the kernel a min-blocks parameter "
            "(__launch_bounds__(BLOCK, MIN_BLOCKS)), which the header "
            "applies",
        "results");
  };
  for (const auto &s : r.shapes)
    if (capped(s.bestConfig))
      return refuse(s.bestConfig, "at " + shapeText(s.shape));
  if (r.general && capped(r.general->config))
    return refuse(r.general->config, "as the general configuration");
  return {};
}

Configuration dispatchDefaultConfig(const ManifestKernel &kernel,
                                    const TuneResults &results) {
  if (!results.shapes.empty())
    return results.shapes.front().defaultConfig;
  Configuration config;
  for (const auto *p : kernel.tunableParams())
    if (p->defaultValue)
      config[p->name] = *p->defaultValue;
  return config;
}

std::string dispatchDescriptionPath(const std::string &headerPath) {
  fs::path p(headerPath);
  fs::path json = fs::path(p).replace_extension(".json");
  return json == p ? headerPath + ".json" : json.string();
}

namespace {

const char *sourceName(LauncherParam::Source s) {
  switch (s) {
  case LauncherParam::Source::Buffer:
    return "buffer";
  case LauncherParam::Source::Scalar:
    return "scalar";
  case LauncherParam::Source::Dim:
    return "dim";
  case LauncherParam::Source::Stream:
    return "stream";
  }
  return "";
}

} // namespace

Expected<ordered_json> describeDispatch(const DispatchHeaderInput &input,
                                        const std::string &headerPath) {
  if (!input.kernel || !input.spec || !input.results)
    return makeError("dispatch description: kernel, spec and results are "
                     "required");
  const ManifestKernel &k = *input.kernel;
  const Spec &spec = *input.spec;
  const TuneResults &r = *input.results;

  KTUNE_TRY(checkNoRegisterCap(r));
  // A configuration as the header's config struct holds it.
  auto configJson = [&](const Configuration &c) {
    ordered_json out = ordered_json::object();
    for (const auto *p : k.tunableParams()) {
      auto it = c.find(p->name);
      out[p->name] = it != c.end() ? it->second : p->defaultValue.value_or(0);
    }
    return out;
  };
  auto shapeJson = [&](const Shape &shape) {
    ordered_json out = ordered_json::object();
    for (const auto &[dim, values] : spec.dims)
      if (shape.count(dim))
        out[dim] = shape.at(dim);
    return out;
  };

  ordered_json out = {{"ktune", DispatchVersion},
                      {"kernel", k.name},
                      {"qualified_kernel", k.qualifiedName},
                      {"header", fs::path(headerPath).filename().string()},
                      {"template_include", input.templateInclude},
                      {"template_sha256", r.templateSha256},
                      {"device", r.device},
                      {"arch", r.arch}};

  ordered_json entryPoints = ordered_json::array();
  entryPoints.push_back(
      {{"name", "launch_" + k.name + "_tuned"},
       {"launches", "the configuration tuned for the nearest tuned shape"}});
  entryPoints.push_back({{"name", "launch_" + k.name + "_general"},
                         {"launches", "the general configuration"}});
  out["entry_points"] = std::move(entryPoints);

  ordered_json params = ordered_json::array();
  for (const auto &p : launcherParams(k, spec)) {
    ordered_json entry = {
        {"name", p.name}, {"type", p.type}, {"from", sourceName(p.source)}};
    if (p.source == LauncherParam::Source::Dim)
      entry["dim"] = p.of;
    else if (p.source != LauncherParam::Source::Stream)
      entry["arg"] = p.of;
    else
      entry["default"] = "0";
    if (!p.dim.empty())
      entry["dim"] = p.dim; // the argument carries a dimension
    params.push_back(std::move(entry));
  }
  out["params"] = std::move(params);

  Configuration defaultConfig = dispatchDefaultConfig(k, r);
  out["default_config"] = configJson(defaultConfig);
  out["general_config"] =
      configJson(r.general ? r.general->config : defaultConfig);
  out["general_geomean_speedup"] = r.general
                                       ? ordered_json(r.general->geomeanSpeedup)
                                       : ordered_json(nullptr);

  // Dimensions tuned at several values are matched by bucket; the others
  // must match exactly.
  ordered_json tunedDims = ordered_json::array();
  for (const auto &[dim, declared] : spec.dims) {
    std::vector<int64_t> values;
    for (const auto &s : r.shapes)
      if (auto it = s.shape.find(dim);
          it != s.shape.end() &&
          std::find(values.begin(), values.end(), it->second) == values.end())
        values.push_back(it->second);
    std::sort(values.begin(), values.end());
    ordered_json entry = {{"dim", dim}, {"values", values}};
    if (values.size() >= 2)
      entry["bucket_bounds"] = bucketBounds(values);
    tunedDims.push_back(std::move(entry));
  }
  out["tuned_dims"] = std::move(tunedDims);

  ordered_json checked = ordered_json::array();
  for (const auto &text : input.constraints)
    if (auto e = expr::Expr::parse(text)) {
      auto names = e->names();
      if (std::any_of(names.begin(), names.end(), [&](const std::string &n) {
            return std::any_of(spec.dims.begin(), spec.dims.end(),
                               [&](const auto &d) { return d.first == n; });
          }))
        checked.push_back(text);
    }
  out["runtime_constraints"] = std::move(checked);

  ordered_json shapes = ordered_json::array();
  for (const auto &s : r.shapes) {
    bool tuned = s.bestConfig != s.defaultConfig;
    shapes.push_back(
        {{"shape", shapeJson(s.shape)},
         {"launches", tuned ? "tuned" : "default"},
         {"config", configJson(tuned ? s.bestConfig : s.defaultConfig)},
         {"speedup", s.speedup},
         {"retimed", s.retimed}});
  }
  out["shapes"] = std::move(shapes);
  return out;
}

} // namespace ktune
