//===- ManifestLaunchers.cpp - A launcher as the entry point to tune ------===//
//
// Launcher mode tunes a host function: its manifest entry is viewed as a
// kernel (launcherAsKernel) whose launch is the launched kernel's, where
// that reads in the launcher's names; launch expressions lose their
// `sizeof` and `std::` spellings before they are parsed.
//
//===----------------------------------------------------------------------===//
#include "ktune/Plan/Manifest.h"

#include "ktune/Expr/Expr.h"

#include <algorithm>
#include <cctype>
#include <set>
#include <sstream>

namespace ktune {

/// `type` is a pointer to `param` ("const T *__restrict__" for T).
static bool pointsTo(const std::string &type, const std::string &param) {
  std::string words;
  for (char c : type)
    words +=
        (std::isalnum(static_cast<unsigned char>(c)) || c == '_') ? c : ' ';
  std::istringstream in(words);
  std::vector<std::string> tokens;
  for (std::string w; in >> w;)
    if (w != "const" && w != "volatile" && w != "__restrict__" &&
        w != "__restrict")
      tokens.push_back(w);
  return tokens.size() == 1 && tokens[0] == param &&
         type.find('*') != std::string::npos;
}

Expected<ManifestKernel> launcherAsKernel(const Manifest &m,
                                          const std::string &name) {
  const ManifestLauncher *l = m.findLauncher(name);
  if (!l) {
    std::string known;
    for (const auto &x : m.launchers)
      known += (known.empty() ? "" : ", ") + x.name;
    return makeError("no launcher '" + name + "' in the manifest" +
                         (known.empty() ? std::string(" (it lists none)")
                                        : " (it has: " + known + ")"),
                     "launcher");
  }
  ManifestKernel k;
  k.name = l->name;
  k.qualifiedName = l->qualifiedName;
  k.templateParams = l->templateParams;
  k.args = l->args;
  // The kernel it launches gives constraints over the launcher's parameters
  // and, where its names are the launcher's, a geometry to prune with.
  std::set<std::string> names;
  for (const auto &p : k.templateParams)
    names.insert(p.name);
  for (const auto &a : k.args)
    names.insert(a.name);
  for (const auto &qualified : l->kernels) {
    const ManifestKernel *kernel = m.findKernel(qualified);
    if (!kernel)
      continue;
    for (const auto &c : kernel->constraints) {
      auto e = expr::Expr::parse(c);
      if (!e)
        continue;
      auto used = e->names();
      if (std::all_of(used.begin(), used.end(), [&](const std::string &n) {
            return names.count(n) != 0;
          }))
        k.constraints.push_back(c);
    }
    if (!k.launch && l->kernels.size() == 1) {
      k.launch = kernel->launch;
      for (const auto &p : kernel->templateParams)
        if (p.type == "typename")
          for (const auto &a : kernel->args)
            if (pointsTo(a.type, p.name) &&
                std::any_of(
                    l->args.begin(), l->args.end(),
                    [&](const KernelArg &la) { return la.name == a.name; }))
              k.typeFromArg.emplace(p.name, a.name);
    }
  }
  return k;
}

Status addLauncherEntry(Manifest &m, const std::string &launcher) {
  auto entry = launcherAsKernel(m, launcher);
  if (!entry)
    return std::unexpected(entry.error());
  if (!m.kernels.empty() && m.kernels.front().name == entry->name &&
      m.kernels.front().qualifiedName == entry->qualifiedName)
    return {};
  m.kernels.insert(m.kernels.begin(), std::move(*entry));
  return {};
}

std::string resolveLaunchExpression(
    const std::string &text,
    const std::function<std::optional<int64_t>(const std::string &)> &sizeOf) {
  std::string out;
  size_t i = 0;
  auto isIdent = [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
  };
  while (i < text.size()) {
    bool boundary = i == 0 || !isIdent(text[i - 1]);
    if (boundary && text.compare(i, 5, "std::") == 0 &&
        (text.compare(i + 5, 3, "min") == 0 ||
         text.compare(i + 5, 3, "max") == 0)) {
      i += 5; // the expression language's min/max
      continue;
    }
    if (boundary && text.compare(i, 6, "sizeof") == 0) {
      size_t open = text.find_first_not_of(' ', i + 6);
      if (open != std::string::npos && text[open] == '(') {
        size_t close = text.find(')', open);
        if (close != std::string::npos) {
          std::string arg = text.substr(open + 1, close - open - 1);
          while (!arg.empty() && arg.front() == ' ')
            arg.erase(arg.begin());
          while (!arg.empty() && arg.back() == ' ')
            arg.pop_back();
          if (auto size = sizeOf(arg)) {
            out += std::to_string(*size);
            i = close + 1;
            continue;
          }
        }
      }
    }
    out += text[i++];
  }
  return out;
}

LaunchGeometry resolveLaunchGeometry(
    LaunchGeometry g,
    const std::function<std::optional<int64_t>(const std::string &)> &sizeOf) {
  // Only an expression whose text changes is parsed again.
  auto resolve = [&](LaunchExpr &e) {
    std::string text = resolveLaunchExpression(e.text(), sizeOf);
    if (text != e.text())
      e = LaunchExpr(std::move(text));
  };
  for (auto *list : {&g.grid, &g.block})
    for (auto &e : *list)
      resolve(e);
  resolve(g.smem);
  return g;
}

} // namespace ktune
