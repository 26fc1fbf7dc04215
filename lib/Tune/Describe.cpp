//===- Describe.cpp - ktune-tune --describe -------------------------------===//
//
// Everything here is evaluated by the same code that tuning uses (spec
// reading and checking, the expression language, the search space), so a
// script that reads this output agrees with the tuner by construction.
//
//===----------------------------------------------------------------------===//
#include "ktune/Tune/Describe.h"
#include "ktune/Support/Try.h"

#include "ktune/Expr/Expr.h"
#include "ktune/Support/FileUtil.h"
#include "ktune/Tune/KernelBinding.h"
#include "ktune/Tune/SearchSpace.h"

#include <algorithm>
#include <filesystem>

namespace ktune {

using nlohmann::json;
using nlohmann::ordered_json;
namespace fs = std::filesystem;

namespace {

/// The keys of an object member of `raw`, in the order the file writes them.
std::vector<std::string> keysOf(const ordered_json &raw, const char *member) {
  std::vector<std::string> keys;
  if (raw.is_object() && raw.contains(member) && raw[member].is_object())
    for (const auto &[key, value] : raw[member].items())
      keys.push_back(key);
  return keys;
}

ordered_json valueJson(const expr::Value &v) {
  return v.isInt() ? ordered_json(v.i) : ordered_json(v.f);
}

/// An integer expression at one shape, with validateSpec's errors.
Expected<int64_t> integerAt(const std::string &text,
                            const std::map<std::string, expr::Value> &env,
                            const Shape &shape, const std::string &where,
                            int64_t atLeast, const std::string &what) {
  KTUNE_TRY_ASSIGN(auto v,
                   evaluateAtShape(text, env, where, shape, atLeast, what));
  return v.i;
}

const SpecArg *findArg(const Spec &spec, const std::string &name) {
  auto it = std::find_if(spec.args.begin(), spec.args.end(),
                         [&](const SpecArg &a) { return a.name == name; });
  return it == spec.args.end() ? nullptr : &*it;
}

ordered_json launchJson(const LaunchGeometry &launch) {
  ordered_json out = {
      {"grid", launch.grid}, {"block", launch.block}, {"smem", launch.smem}};
  std::vector<std::string> names;
  auto collect = [&](const LaunchExpr &e) {
    for (const auto &n : e.names())
      if (std::find(names.begin(), names.end(), n) == names.end())
        names.push_back(n);
  };
  for (const auto &t : launch.grid)
    collect(t);
  for (const auto &t : launch.block)
    collect(t);
  collect(launch.smem);
  out["names"] = names;
  return out;
}

/// The launch geometry at one shape with the default configuration, as
/// the binding that tuning launches with computes it: as many extents as
/// the spec gives.
Expected<ordered_json> launchAt(const KernelBinding &binding,
                                const LaunchGeometry &launch,
                                const Shape &shape) {
  KTUNE_TRY_ASSIGN(LaunchDims dims,
                   binding.launch(shape, binding.defaultConfig()));
  auto extents = [](const std::array<int64_t, 3> &all, size_t given) {
    return ordered_json(std::vector<int64_t>(all.begin(), all.begin() + given));
  };
  return ordered_json{{"grid", extents(dims.grid, launch.grid.size())},
                      {"block", extents(dims.block, launch.block.size())},
                      {"smem", dims.smemDynamic}};
}

} // namespace

Expected<ordered_json> describeSpec(const std::string &specText,
                                    const std::string &origin,
                                    const ManifestKernel *kernel) {
  // The ordered reading keeps the file's order of dimensions and arguments;
  // the spec itself is read as tuning reads it.
  KTUNE_TRY_ASSIGN(ordered_json raw, parseOrderedJson(specText, origin));
  KTUNE_TRY_ASSIGN(auto j, parseJson(specText, origin));
  auto read = specFromJson(j);
  if (!read)
    return std::unexpected(withContext(read.error(), origin));
  Spec spec = std::move(*read);
  if (kernel) {
    auto resolved = resolveSpec(std::move(spec), *kernel);
    if (!resolved)
      return std::unexpected(withContext(resolved.error(), origin));
    spec = std::move(*resolved);
  }
  json canonical = specToJson(spec);

  std::vector<std::string> dimOrder = keysOf(raw, "dims");
  if (dimOrder.empty() && raw.contains("shapes") && raw["shapes"].is_array() &&
      !raw["shapes"].empty() && raw["shapes"][0].is_object())
    for (const auto &[key, value] : raw["shapes"][0].items())
      dimOrder.push_back(key);
  std::vector<std::string> argOrder = keysOf(raw, "args");

  ordered_json out;
  out["path"] = origin;
  out["kernel"] = spec.kernel;
  ordered_json dims = ordered_json::array();
  for (const auto &name : dimOrder)
    for (const auto &[dim, values] : spec.dims)
      if (dim == name)
        dims.push_back({{"name", name}, {"values", values}});
  out["dims"] = std::move(dims);
  out["shapes_listed"] = !spec.shapes.empty();

  ordered_json args = ordered_json::array();
  for (const auto &name : argOrder) {
    const SpecArg *a = findArg(spec, name);
    if (!a)
      continue;
    bool buffer = std::holds_alternative<BufferArg>(a->arg);
    ordered_json entry = {{"name", name},
                          {"kind", buffer ? "buffer" : "scalar"}};
    for (const auto &[key, value] : canonical["args"][name].items())
      entry[key] = value;
    if (const auto *b = std::get_if<BufferArg>(&a->arg)) {
      entry["element_bytes"] = dtypeSize(b->dtype);
    } else {
      auto e = expr::Expr::parse(std::get<ScalarArg>(a->arg).value);
      if (!e)
        return makeError(e.error().str(), origin + ": args." + name + ".value");
      entry["cpp"] = e->toCpp();
    }
    args.push_back(std::move(entry));
  }
  out["args"] = std::move(args);
  if (!spec.bytes.empty())
    out["bytes"] = spec.bytes;
  if (canonical.contains("tolerance"))
    out["tolerance"] = canonical["tolerance"];
  if (spec.launch)
    out["launch"] = launchJson(*spec.launch);

  std::optional<KernelBinding> binding;
  if (kernel && spec.launch) {
    auto bound = KernelBinding::create(*kernel, spec);
    if (!bound)
      return std::unexpected(withContext(bound.error(), origin));
    binding = std::move(*bound);
  }

  ordered_json shapes = ordered_json::array();
  for (const Shape &shape : spec.allShapes()) {
    auto env = shapeValues(spec, shape);
    ordered_json s;
    ordered_json shapeDims = ordered_json::object();
    for (const auto &name : dimOrder)
      if (shape.count(name))
        shapeDims[name] = shape.at(name);
    s["dims"] = std::move(shapeDims);
    ordered_json scalars = ordered_json::object();
    ordered_json buffers = ordered_json::object();
    int64_t total = 0;
    for (const auto &name : argOrder) {
      const SpecArg *a = findArg(spec, name);
      if (!a)
        continue;
      std::string at = origin + ": args." + name;
      if (const auto *sc = std::get_if<ScalarArg>(&a->arg)) {
        KTUNE_TRY_ASSIGN(auto v, evaluateAtShape(sc->value, env, at + ".value",
                                                 shape, std::nullopt, "value"));
        scalars[name] = valueJson(v);
        continue;
      }
      const auto &b = std::get<BufferArg>(a->arg);
      std::vector<int64_t> extents;
      int64_t elements = 1;
      for (size_t i = 0; i < b.shape.size(); ++i) {
        auto v =
            integerAt(b.shape[i], env, shape,
                      at + ".shape[" + std::to_string(i) + "]", 1, "extent");
        if (!v)
          return std::unexpected(v.error());
        extents.push_back(*v);
        elements *= *v;
      }
      int64_t bytes = elements * static_cast<int64_t>(dtypeSize(b.dtype));
      total += bytes;
      buffers[name] = {
          {"extents", extents}, {"elements", elements}, {"bytes", bytes}};
    }
    s["scalars"] = std::move(scalars);
    s["buffers"] = std::move(buffers);
    s["buffer_bytes"] = total;
    if (!spec.bytes.empty()) {
      KTUNE_TRY_ASSIGN(auto moved,
                       integerAt(spec.bytes, env, shape, origin + ": bytes", 0,
                                 "byte count"));
      s["bytes"] = moved;
    }
    if (binding) {
      auto launch = launchAt(*binding, *spec.launch, shape);
      if (!launch)
        return std::unexpected(withContext(launch.error(), origin));
      s["launch"] = std::move(*launch);
    }
    shapes.push_back(std::move(s));
  }
  out["shapes"] = std::move(shapes);
  return out;
}

Expected<ordered_json> describeManifestKernel(const ManifestKernel &kernel,
                                              uint64_t limit) {
  std::vector<SpaceParam> params;
  std::vector<std::string> names;
  ordered_json defaults = ordered_json::object();
  std::string defaultError;
  for (const auto *p : kernel.tunableParams()) {
    if (!p->domain)
      return makeError("tunable parameter '" + p->name + "' has no domain",
                       kernel.name);
    params.push_back({p->name, *p->domain, p->defaultValue});
    names.push_back(p->name);
    if (p->defaultValue)
      defaults[p->name] = *p->defaultValue;
    else if (defaultError.empty())
      defaultError = p->name + " has no default";
  }
  auto space = SearchSpace::create(params, kernel.constraints);
  if (!space)
    return std::unexpected(withContext(space.error(), kernel.name));
  if (defaultError.empty()) {
    Configuration config;
    for (const auto &p : params)
      config[p.name] = *p.defaultValue;
    auto point = space->fromConfig(config);
    if (!point) {
      for (const auto &p : params)
        if (!p.domain.contains(*p.defaultValue) && defaultError.empty())
          defaultError = "the default of " + p.name + " (" +
                         std::to_string(*p.defaultValue) +
                         ") is not in its domain";
    } else if (auto violated = space->violatedConstraint(*point)) {
      defaultError = "the default configuration violates the constraint '" +
                     *violated + "'";
    }
  }

  ordered_json configurations = ordered_json::array();
  uint64_t valid = 0;
  // Counting walks the whole space: only where it is small enough.
  bool countAll = space->cartesianSize() <= (1u << 24);
  space->forEachValid([&](const Point &point) {
    ++valid;
    if (valid <= limit) {
      ordered_json c = ordered_json::object();
      Configuration config = space->toConfig(point);
      for (const auto &n : names)
        c[n] = config.at(n);
      configurations.push_back(std::move(c));
    }
    return countAll || valid <= limit;
  });

  ordered_json out = {{"name", kernel.name},
                      {"qualified_name", kernel.qualifiedName},
                      {"params", names},
                      {"default", defaults}};
  if (!defaultError.empty())
    out["default_error"] = defaultError;
  out["cartesian"] = space->cartesianSize();
  out["valid"] = countAll ? ordered_json(valid) : ordered_json(nullptr);
  out["truncated"] = valid > limit;
  out["configurations"] = std::move(configurations);
  return out;
}

Expected<ordered_json> describeInputs(const DescribeRequest &request) {
  std::string manifestPath = request.manifestPath;
  if (manifestPath.empty() && !request.templatePath.empty()) {
    fs::path t(request.templatePath);
    manifestPath = (t.parent_path() / (t.stem().string() + ".json")).string();
  }
  if (manifestPath.empty() && request.specPath.empty())
    return makeError("nothing to describe: give --spec, a template or "
                     "--manifest");

  std::optional<Manifest> manifest;
  if (!manifestPath.empty()) {
    KTUNE_TRY_ASSIGN(manifest, readJsonFileAs(manifestPath, manifestFromJson));
  }

  ordered_json out = {{"ktune", DescribeVersion}};
  if (!request.specPath.empty()) {
    KTUNE_TRY_ASSIGN(auto text,
                     readFile(request.specPath, limits::MaxJsonFileBytes));
    const ManifestKernel *kernel = nullptr;
    if (manifest) {
      KTUNE_TRY_ASSIGN(auto sj, parseJson(text, request.specPath));
      std::string name = request.kernel;
      if (name.empty() && sj.is_object() && sj.contains("kernel") &&
          sj["kernel"].is_string())
        name = sj["kernel"].get<std::string>();
      if (name.empty() && sj.is_object() && sj.contains("launcher") &&
          sj["launcher"].is_string()) {
        name = sj["launcher"].get<std::string>();
        if (auto added = addLauncherEntry(*manifest, name); !added)
          return std::unexpected(withContext(added.error(), request.specPath));
      }
      kernel = manifest->findKernel(name);
      if (!kernel)
        return makeError("no kernel '" + name + "' in the manifest",
                         manifestPath);
    }
    auto spec = describeSpec(text, request.specPath, kernel);
    if (!spec)
      return std::unexpected(spec.error());
    out["spec"] = std::move(*spec);
  }
  if (manifest) {
    out["manifest"] = manifestPath;
    ordered_json kernels = ordered_json::array();
    for (const auto &k : manifest->kernels) {
      if (!request.kernel.empty() && k.name != request.kernel &&
          k.qualifiedName != request.kernel)
        continue;
      auto d = describeManifestKernel(k);
      if (!d)
        return std::unexpected(withContext(d.error(), manifestPath));
      kernels.push_back(std::move(*d));
    }
    out["kernels"] = std::move(kernels);
  }
  return out;
}

} // namespace ktune
