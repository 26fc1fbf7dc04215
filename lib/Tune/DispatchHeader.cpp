//===- DispatchHeader.cpp - Generating kernel.tuned.h ---------------------===//
#include "ktune/Tune/DispatchHeader.h"
#include "ktune/Support/Try.h"

#include "ktune/Expr/Expr.h"
#include "ktune/Support/TextTemplate.h"
#include "ktune/Tune/DispatchDescription.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <set>

namespace ktune {

Expected<std::string>
fillPlaceholders(const std::string &text, const std::string &origin,
                 const std::map<std::string, std::string> &values) {
  // C++ output: a stray `{{` can only be a typo.
  return renderTextTemplate(text, values, origin,
                            {.upperCaseNames = true, .strict = true});
}

std::vector<int64_t> bucketBounds(const std::vector<int64_t> &values) {
  std::vector<int64_t> bounds;
  for (size_t i = 0; i + 1 < values.size(); ++i) {
    int64_t a = values[i], b = values[i + 1];
    int64_t mid;
    if (a > 0)
      mid = static_cast<int64_t>(
          std::floor(std::sqrt(static_cast<long double>(a) * b)));
    else
      mid = a + (b - a) / 2;
    bounds.push_back(std::clamp(mid, a, b - 1));
  }
  return bounds;
}

namespace {

std::string valueText(const std::string &type, int64_t value) {
  if (type == "bool")
    return value ? "true" : "false";
  std::string v = std::to_string(value);
  if (value > INT32_MAX || value < INT32_MIN)
    v += "LL";
  return v;
}

std::string speedupText(double s) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.3fx", s);
  return buf;
}

struct Generator {
  const DispatchHeaderInput &In;
  const ManifestKernel &K;
  const Spec &Sp;
  const TuneResults &R;
  /// Dimension name -> C++ parameter name (renamed when an argument of the
  /// same name means something else).
  std::map<std::string, std::string> DimParam;
  std::vector<std::string> DimOrder;
  std::vector<LauncherParam> Params;

  Generator(const DispatchHeaderInput &in)
      : In(in), K(*in.kernel), Sp(*in.spec), R(*in.results) {}

  Status prepareDims() {
    // The launchers' parameters come from one place, which also describes
    // them in kernel.tuned.json.
    Params = launcherParams(K, Sp);
    for (const auto &[name, values] : Sp.dims) {
      DimOrder.push_back(name);
      DimParam[name] = name;
    }
    for (const auto &p : Params)
      if (p.source == LauncherParam::Source::Dim)
        DimParam[p.of] = p.name;
      else if (!p.dim.empty())
        DimParam[p.dim] = p.name;
    return {};
  }

  /// Translates an expression over parameters, dimensions and arguments to
  /// C++ with dimensions renamed as declared.
  Expected<std::string>
  cpp(const std::string &text,
      const std::map<std::string, expr::Expr> &extra = {}) {
    return cpp(expr::Expr::parse(text), text, extra);
  }
  Expected<std::string> cpp(const LaunchExpr &e) {
    return cpp(e.parsed(), e.text(), {});
  }
  Expected<std::string> cpp(const Expected<expr::Expr> &e,
                            const std::string &text,
                            const std::map<std::string, expr::Expr> &extra) {
    if (!e)
      return makeError("cannot parse '" + text + "': " + e.error().str());
    std::map<std::string, expr::Expr> subst = extra;
    for (const auto &[dim, param] : DimParam)
      if (param != dim && !subst.count(dim)) {
        auto renamed = expr::Expr::parse(param);
        if (renamed)
          subst.emplace(dim, *renamed);
      }
    return subst.empty() ? e->toCpp() : e->substitute(subst).toCpp();
  }

  std::string signature(bool defaultStream) const {
    std::string s;
    for (const auto &p : Params)
      s += (s.empty() ? "" : ", ") + p.type + " " + p.name;
    // A default only where the stream comes last (a launcher's may not).
    if (defaultStream && !Params.empty() &&
        Params.back().source == LauncherParam::Source::Stream)
      s += " = 0";
    return s;
  }

  std::string forwardArgs() const {
    std::string s;
    for (const auto &p : Params)
      s += (s.empty() ? "" : ", ") + p.name;
    return s;
  }

  /// Template arguments of detail::launch for a configuration.
  std::string instantiation(const Configuration &c) const {
    std::string s;
    for (const auto *p : K.tunableParams()) {
      auto it = c.find(p->name);
      int64_t v = it != c.end() ? it->second : p->defaultValue.value_or(0);
      s += (s.empty() ? "" : ", ") + valueText(p->type, v);
    }
    return s;
  }

  std::string configInit(const Configuration &c) const {
    std::string s;
    for (const auto *p : K.tunableParams()) {
      auto it = c.find(p->name);
      s += (s.empty() ? "" : ", ") +
           valueText(p->type,
                     it != c.end() ? it->second : p->defaultValue.value_or(0));
    }
    return "{" + s + "}";
  }

  /// The C++ condition under which `c` may launch for the actual dimensions:
  /// the constraints that mention a dimension, with parameters fixed.
  Expected<std::string> runtimeCheck(const Configuration &c) {
    std::set<std::string> dims(DimOrder.begin(), DimOrder.end());
    std::map<std::string, expr::Expr> values;
    for (const auto &[name, v] : c)
      values.emplace(name, expr::Expr::integer(v));
    for (const auto *p : K.tunableParams())
      if (!values.count(p->name) && p->defaultValue)
        values.emplace(p->name, expr::Expr::integer(*p->defaultValue));
    std::string out;
    for (const auto &text : In.constraints) {
      auto e = expr::Expr::parse(text);
      if (!e)
        return makeError("cannot parse constraint '" + text +
                         "': " + e.error().str());
      auto names = e->names();
      bool mentionsDim =
          std::any_of(names.begin(), names.end(),
                      [&](const std::string &n) { return dims.count(n) != 0; });
      if (!mentionsDim)
        continue;
      // True whatever the dimensions (`0 == 0 || 0 == d`: a fixed argument
      // read at run time): nothing to check.
      auto fixed =
          e->substitute(values).evaluate(std::map<std::string, expr::Value>{});
      if (fixed && fixed->truthy())
        continue;
      KTUNE_TRY_ASSIGN(auto c2, cpp(text, values));
      out += (out.empty() ? "" : " && ") + std::string("(") + c2 + ")";
    }
    return out;
  }

  Expected<std::string> launchGuarded(const Configuration &c,
                                      const std::string &indent,
                                      const std::string &note) {
    KTUNE_TRY_ASSIGN(auto check, runtimeCheck(c));
    std::string call = "return ktune_" + K.name + "_detail::launch<" +
                       instantiation(c) + ">(" + forwardArgs() + ");";
    std::string out;
    if (!note.empty())
      out += indent + "// " + note + "\n";
    if (check.empty())
      return out + indent + call + "\n";
    out += indent + "if (" + check + ")\n" + indent + "  " + call + "\n";
    // Fixed arguments hold where the argument has their value; elsewhere
    // the same configuration reads it at run time.
    Configuration unfixed = c;
    for (const auto *p : K.tunableParams())
      if (!p->fixes.empty() && p->defaultValue && unfixed.count(p->name))
        unfixed[p->name] = *p->defaultValue;
    if (unfixed == c)
      return out;
    KTUNE_TRY_ASSIGN(auto fallback, launchGuarded(unfixed, indent, ""));
    return out + fallback;
  }

  Expected<std::map<std::string, std::string>> values() {
    std::map<std::string, std::string> v;
    KTUNE_TRY(prepareDims());
    v["kernel"] = K.name;
    v["qualified_kernel"] = K.qualifiedName;
    v["template_file"] = In.templateFile;
    v["template_include"] = In.templateInclude;
    v["template_sha256"] =
        R.templateSha256.empty() ? "unknown" : R.templateSha256;
    v["device"] = R.device;
    v["arch"] = R.arch;

    v["return_type"] = "cudaError_t";
    v["launcher_alias"] = "";
    if (Sp.launcherMode)
      return launcherValues(v);
    LaunchGeometry launch =
        Sp.launch ? *Sp.launch : K.launch.value_or(LaunchGeometry{});
    if (launch.grid.empty() || launch.block.empty())
      return makeError("no launch geometry for kernel '" + K.name +
                           "' (give \"launch\" in the spec)",
                       "launch");
    v["launch_from"] = launch.from.empty() ? "" : " (from " + launch.from + ")";

    KTUNE_TRY(signatureValues(v, "kernel"));

    // Non-tunable values the launch geometry may name.
    std::set<std::string> used;
    for (const auto *list : {&launch.grid, &launch.block})
      for (const auto &e : *list)
        for (const auto &n : e.names())
          used.insert(n);
    for (const auto &n : launch.smem.names())
      used.insert(n);
    std::string fixed;
    for (const auto &p : K.templateParams)
      if (!p.tunable && p.type != "typename" && p.type != "class" &&
          used.count(p.name) && Sp.templateArgs.count(p.name))
        fixed += "  constexpr " + p.type + " " + p.name + " = " +
                 Sp.templateArgs.at(p.name) + ";\n";
    v["fixed_params"] = fixed;

    auto dimsOf = [&](const std::vector<LaunchExpr> &list,
                      const std::string &what) -> Expected<std::string> {
      std::string s;
      for (size_t i = 0; i < list.size(); ++i) {
        auto c = cpp(list[i]);
        if (!c)
          return makeError(c.error().message,
                           "launch." + what + "[" + std::to_string(i) + "]");
        s += (s.empty() ? "" : ", ") +
             std::string("static_cast<unsigned int>(") + *c + ")";
      }
      return s;
    };
    auto grid = dimsOf(launch.grid, "grid");
    if (!grid)
      return std::unexpected(grid.error());
    auto block = dimsOf(launch.block, "block");
    if (!block)
      return std::unexpected(block.error());
    auto smem = cpp(launch.smem);
    if (!smem)
      return makeError(smem.error().message, "launch.smem");
    v["launch_comment"] =
        "// One instantiation of the kernel with its launch geometry" +
        v["launch_from"] + ".";

    std::string kernelArgs = templateArgList();
    std::string callArgs;
    for (const auto &a : K.args)
      callArgs += (callArgs.empty() ? "" : ", ") + a.name;
    // Also one by one, for header templates that spell the launch out.
    v["grid"] = *grid;
    v["block"] = *block;
    v["smem"] = *smem;
    v["kernel_call"] = K.qualifiedName + "<" + kernelArgs + ">";
    v["call_args"] = callArgs;
    v["launch_body"] = fixed + "  const dim3 grid(" + *grid +
                       ");\n  const dim3 block(" + *block +
                       ");\n  const size_t smem = static_cast<size_t>(" +
                       *smem + ");\n  " + K.qualifiedName + "<" + kernelArgs +
                       "><<<grid, block, smem, stream>>>(" + callArgs +
                       ");\n  return cudaGetLastError();\n";
    return commonValues(v);
  }

  /// detail::launch takes the tunable parameters as template parameters;
  /// `what` (kernel, launcher) names K in the error when it has none.
  Status signatureValues(std::map<std::string, std::string> &v,
                         const std::string &what) {
    std::string decls;
    for (const auto *p : K.tunableParams())
      decls += (decls.empty() ? "" : ", ") + p->type + " " + p->name;
    if (decls.empty())
      return makeError(what + " '" + K.name + "' has no tunable parameter");
    v["param_decls"] = decls;
    v["signature"] = signature(false);
    v["signature_with_default_stream"] = signature(true);
    return {};
  }

  /// K's template arguments: the tunable parameters by name, the others
  /// as the spec gives them.
  std::string templateArgList() const {
    std::string args;
    for (const auto &p : K.templateParams)
      args += (args.empty() ? "" : ", ") +
              (p.tunable ? p.name : Sp.templateArgs.at(p.name));
    return args;
  }

  /// Launcher mode: detail::launch calls the templated launcher with the
  /// tuned values; ktune_tuned::<launcher> has the original's signature.
  Expected<std::map<std::string, std::string>>
  launcherValues(std::map<std::string, std::string> &v) {
    v["launch_from"] = "";
    v["fixed_params"] = "";
    std::string ret = substituteIdentifiers(
        In.launcherReturns.empty() ? "void" : In.launcherReturns,
        Sp.templateArgs);
    v["return_type"] = ret;
    KTUNE_TRY(signatureValues(v, "launcher"));
    std::string templateArgs = templateArgList();
    v["launch_comment"] =
        "// One instantiation of the launcher " + K.qualifiedName + ".";
    v["launch_body"] = "  return " + K.qualifiedName + "<" + templateArgs +
                       ">(" + forwardArgs() + ");\n";
    v["launcher_alias"] =
        "\nnamespace ktune_tuned {\n/// " + K.name +
        " called as the original is, with the tuned parameters for the\n"
        "/// nearest tuned shape.\ninline " +
        ret + " " + K.name + "(" + signature(false) + ") {\n  return launch_" +
        K.name + "_tuned(" + forwardArgs() +
        ");\n}\n} // namespace "
        "ktune_tuned\n";
    return commonValues(v);
  }

  Expected<std::map<std::string, std::string>>
  commonValues(std::map<std::string, std::string> &v) {

    std::string fields;
    for (const auto *p : K.tunableParams())
      fields += "  " + p->type + " " + p->name + ";\n";
    v["config_fields"] = fields;

    Configuration defaultConfig = dispatchDefaultConfig(K, R);
    v["default_config"] = configInit(defaultConfig);
    Configuration general = R.general ? R.general->config : defaultConfig;
    v["general_config"] = configInit(general);
    v["general_note"] =
        R.general ? " (geometric-mean speedup " +
                        speedupText(R.general->geomeanSpeedup) + " over " +
                        std::to_string(R.shapes.size()) + " shape" +
                        (R.shapes.size() == 1 ? "" : "s") + ")"
                  : " (none was measured on every shape: the default)";

    v["notes"] = "";

    KTUNE_TRY_ASSIGN(auto dispatch, dispatchBody());
    v["dispatch_body"] = dispatch;
    std::string generalBody;
    if (general == defaultConfig) {
      generalBody = "  return ktune_" + K.name + "_detail::launch<" +
                    instantiation(defaultConfig) + ">(" + forwardArgs() +
                    ");\n";
    } else {
      KTUNE_TRY_ASSIGN(auto g, launchGuarded(general, "  ", ""));
      generalBody = g;
      if (g.find("if (") != std::string::npos)
        generalBody += "  return ktune_" + K.name + "_detail::launch<" +
                       instantiation(defaultConfig) + ">(" + forwardArgs() +
                       ");\n";
    }
    v["general_body"] = generalBody;
    return v;
  }

  Expected<std::string> dispatchBody() {
    // Tuned values of each dimension, from the shapes actually tuned.
    std::map<std::string, std::vector<int64_t>> tuned;
    for (const auto &s : R.shapes)
      for (const auto &[dim, value] : s.shape)
        if (DimParam.count(dim)) {
          auto &list = tuned[dim];
          if (std::find(list.begin(), list.end(), value) == list.end())
            list.push_back(value);
        }
    std::string body, tunedNames;
    std::map<std::string, std::vector<int64_t>> bounds;
    for (const auto &dim : DimOrder) {
      auto it = tuned.find(dim);
      if (it == tuned.end() || it->second.size() < 2)
        continue;
      std::sort(it->second.begin(), it->second.end());
      bounds[dim] = bucketBounds(it->second);
      const std::string &param = DimParam.at(dim);
      std::string values;
      for (int64_t x : it->second)
        values += (values.empty() ? "" : ", ") + std::to_string(x);
      tunedNames += (tunedNames.empty() ? "" : ", ") + dim;
      body += "  // " + dim + " tuned at " + values +
              "; bucket bounds between them.\n";
      body += "  const int bucket_" + param + " =";
      const auto &b = bounds[dim];
      for (size_t i = 0; i < b.size(); ++i)
        body += " " + param + " <= " + std::to_string(b[i]) + "LL ? " +
                std::to_string(i) + " :";
      body += " " + std::to_string(b.size()) + ";\n";
    }
    Values["tuned_dims"] = tunedNames.empty() ? "none" : tunedNames;

    Configuration defaultConfig =
        R.shapes.empty() ? Configuration{} : R.shapes.front().defaultConfig;
    std::set<std::string> bucketsUsed;
    for (const auto &s : R.shapes) {
      if (s.bestConfig == s.defaultConfig)
        continue;
      std::string cond;
      for (const auto &dim : DimOrder) {
        auto sv = s.shape.find(dim);
        if (sv == s.shape.end())
          continue;
        const std::string &param = DimParam.at(dim);
        std::string term;
        if (auto b = bounds.find(dim); b != bounds.end()) {
          const auto &values = tuned[dim];
          size_t idx = std::find(values.begin(), values.end(), sv->second) -
                       values.begin();
          term = "bucket_" + param + " == " + std::to_string(idx);
          bucketsUsed.insert(param);
        } else {
          term = param + " == " + std::to_string(sv->second) + "LL";
        }
        cond += (cond.empty() ? "" : " && ") + term;
      }
      std::string note = "tuned at " + shapeText(s.shape) + ": " +
                         speedupText(s.speedup) + " over the default" +
                         (s.retimed ? " (interleaved re-timing)" : "") + "; " +
                         configText(s.bestConfig);
      auto launch =
          launchGuarded(s.bestConfig, cond.empty() ? "  " : "    ", "");
      if (!launch)
        return std::unexpected(launch.error());
      body += "  // " + note + "\n";
      if (cond.empty())
        body += *launch;
      else
        body += "  if (" + cond + ") {\n" + *launch + "  }\n";
    }
    for (const auto &[dim, b] : bounds)
      if (!bucketsUsed.count(DimParam.at(dim)))
        body += "  (void)bucket_" + DimParam.at(dim) + ";\n";
    body += "  // Untuned shapes, and the shapes where the default was best.\n";
    body += "  return ktune_" + K.name + "_detail::launch<" +
            instantiation(defaultConfig) + ">(" + forwardArgs() + ");\n";
    return body;
  }

  std::map<std::string, std::string> Values;
};

} // namespace

Expected<std::string> renderDispatchHeader(const std::string &templateText,
                                           const std::string &templateOrigin,
                                           const DispatchHeaderInput &input) {
  if (!input.kernel || !input.spec || !input.results)
    return makeError("dispatch header: kernel, spec and results are required");
  KTUNE_TRY(checkNoRegisterCap(*input.results));
  Generator g(input);
  KTUNE_TRY_ASSIGN(auto values, g.values());
  for (auto &[k, v] : g.Values)
    values[k] = v;
  return fillPlaceholders(templateText, templateOrigin, values);
}

} // namespace ktune
