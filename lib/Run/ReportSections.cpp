//===- ReportSections.cpp - The tables and rounds of report.html ----------===//
#include "ReportInternal.h"

#include <algorithm>
#include <map>
#include <vector>

namespace ktune::run::report {

std::string overview(const RunRecord &r) {
  const RoundRecord *best = bestRound(r);
  std::string s = "<div class=\"cards\">";
  auto card = [&](const std::string &big, const std::string &label) {
    s += "<div class=\"card\"><div class=\"big\">" + big +
         "</div><div class=\"label\">" + label + "</div></div>";
  };
  if (best)
    for (const auto &k : best->kernels) {
      const auto &a = k.analysis;
      if (a.compileOnly) {
        uint64_t ok = 0;
        auto it = a.statusCounts.find(EvalStatus::Ok);
        if (it != a.statusCounts.end())
          ok = it->second;
        card(std::to_string(a.evaluated),
             esc(k.kernel) + ": configuration-shape pairs compiled");
        card(std::to_string(ok), "within the hardware limits");
        continue;
      }
      card(formatDouble("%.3f", a.geomeanSpeedup) + "x",
           (best->kernels.size() > 1 ? esc(k.kernel) + ": " : "") +
               "geomean speedup over the default");
      double top = 1;
      for (const auto &sh : a.shapes)
        top = std::max(top, sh.speedup);
      card(formatDouble("%.2f", top) + "x", "largest speedup at one shape");
      if (a.rooflinePct)
        card(formatDouble("%.1f", *a.rooflinePct) + "%",
             a.anyBandwidthRelevant ? "of the roofline (best large shape)"
                                    : "of the roofline (best shape)");
      if (a.general)
        card(formatDouble("%.3f", a.general->geomeanSpeedup) + "x",
             "one general configuration");
    }
  card(std::to_string(r.rounds.size()) + " / " + std::to_string(r.roundsAsked),
       "rounds tuned / asked");
  s += "</div>\n<table class=\"meta\">";
  auto row = [&](const std::string &k, const std::string &v) {
    s += "<tr><th>" + k + "</th><td>" + v + "</td></tr>";
  };
  row("source", "<code>" + esc(r.source) + "</code>");
  // Without a GPU the device name already says the architecture.
  bool archInName =
      !r.arch.empty() && r.device.find(r.arch) != std::string::npos;
  row("device",
      esc(r.device.empty() ? "?" : r.device) +
          (archInName || r.arch.empty() ? "" : " (" + esc(r.arch) + ")") +
          ", " + esc(r.backend));
  if (r.backend != "compile-only")
    row("search", esc(r.strategy) + ", budget " +
                      (r.budget ? std::to_string(*r.budget) : "100") +
                      " per shape and round, seed " + std::to_string(r.seed));
  row("roofline",
      r.roofline.tbps
          ? formatDouble("%.2f", *r.roofline.tbps) + " TB/s (" +
                esc(r.roofline.source) + ")"
          : esc(r.roofline.source.empty() ? "unknown" : r.roofline.source));
  row("best round",
      std::to_string(r.bestRound) + " &mdash; " + esc(r.bestRoundReason));
  row("stopped", esc(r.stopReason));
  if (!r.commandLine.empty())
    row("command", "<code>" + esc(r.commandLine) + "</code>");
  row("started", esc(r.startedAt));
  s += "</table>\n";
  return s;
}

std::string summary(const RunRecord &r, const RoundRecord &best) {
  std::string s = "<h2 id=\"summary\">Default against tuned</h2>\n";
  for (const auto &k : best.kernels) {
    const auto &a = k.analysis;
    if (a.compileOnly) {
      s += "<p>No GPU was used: the kernel <code>" + esc(k.kernel) +
           "</code> was compiled in every configuration, nothing was timed. "
           "The configurations and their resources are listed below.</p>\n";
      continue;
    }
    s += "<h3><code>" + esc(k.kernel) + "</code> &mdash; round " +
         std::to_string(best.round) + "</h3>\n";
    s += "<table><tr><th>shape</th><th class=\"num\">default &micro;s</th>"
         "<th class=\"num\">tuned &micro;s</th><th class=\"num\">speedup</th>"
         "<th>roofline (default)</th><th>roofline (tuned)</th><th>tuned "
         "configuration"
         "</th><th>choice</th></tr>\n";
    for (const auto &sh : a.shapes) {
      s += "<tr><td class=\"mono\">" + esc(shapeLabel(sh.shape)) + "</td>";
      s += "<td class=\"num\">" +
           (sh.defaultUs ? us(*sh.defaultUs) : "&ndash;") + "</td>";
      s += "<td class=\"num\">" +
           (sh.bestUs ? us(*sh.bestUs) + " <span class=\"muted\">&plusmn;" +
                            us(sh.bestIqrUs / 2) + "</span>"
                      : "&ndash;") +
           "</td>";
      s += speedupCell(sh.speedup);
      s += "<td>" + bar(sh.defaultRooflinePct, false) + "</td>";
      s += "<td>" + bar(sh.rooflinePct, true) + "</td>";
      s += "<td class=\"mono\">" +
           (sh.bestConfig == sh.defaultConfig ? std::string("(default) ")
                                              : std::string()) +
           esc(configText(sh.bestConfig)) + "</td><td>" + choiceCell(sh) +
           "</td></tr>\n";
    }
    s += "</table>\n<p class=\"muted\">Times are medians of the final "
         "interleaved re-timing of the default and the finalists "
         "(&plusmn; half the interquartile range). Choice: the fastest "
         "finalist's lead over the default against the noise threshold "
         "(1% or the larger relative IQR); within it the default is kept, "
         "so the same run makes the same choice. Roofline: the shape's "
         "bytes (" +
         std::string(a.shapes.empty() || a.shapes[0].bytesFromExpression
                         ? "the spec's <code>bytes</code>"
                         : "buffer sizes: inputs read once, outputs written "
                           "once") +
         ") over the time, against " +
         (r.roofline.tbps ? formatDouble("%.2f", *r.roofline.tbps) + " TB/s"
                          : std::string("an unknown bandwidth")) +
         ".</p>\n";
    if (a.general)
      s += "<p>One configuration for every shape (the <em>general</em> "
           "configuration): <code>" +
           esc(configText(a.general->config)) + "</code>, geomean speedup " +
           formatDouble("%.3f", a.general->geomeanSpeedup) + "x over " +
           std::to_string(a.general->candidates) +
           " candidates compared.</p>\n";
  }
  return s;
}

namespace {

std::string resourcesRow(const Resources &res, int maxThreadsPerSM) {
  std::string s;
  auto cell = [&](const std::string &v) {
    s += "<td class=\"num\">" + v + "</td>";
  };
  cell(res.registers >= 0 ? std::to_string(res.registers) : "&ndash;");
  cell(std::to_string(res.spillStores) + " / " +
       std::to_string(res.spillLoads));
  cell(res.smemStatic >= 0 ? std::to_string(res.smemStatic) : "&ndash;");
  cell(std::to_string(res.smemDynamic));
  cell(res.threadsPerBlock > 0 ? std::to_string(res.threadsPerBlock)
                               : "&ndash;");
  cell(res.blocksPerSM >= 0 ? std::to_string(res.blocksPerSM) : "&ndash;");
  if (res.blocksPerSM >= 0 && res.threadsPerBlock > 0 && maxThreadsPerSM > 0)
    cell(formatDouble("%.0f", 100.0 * res.blocksPerSM * res.threadsPerBlock /
                                  maxThreadsPerSM) +
         "%");
  else
    cell("&ndash;");
  return s;
}

const char *ResourceHeader =
    "<th class=\"num\">registers</th><th class=\"num\">spills st/ld</th>"
    "<th class=\"num\">smem static B</th><th class=\"num\">smem dynamic B"
    "</th><th class=\"num\">threads/block</th><th class=\"num\">blocks/SM"
    "</th><th class=\"num\">occupancy</th>";

} // namespace

std::string configurations(const RunRecord &r, const RoundRecord &best) {
  std::string s = "<h2 id=\"configurations\">Chosen configurations and their "
                  "resources</h2>\n";
  for (const auto &k : best.kernels) {
    const auto &a = k.analysis;
    if (!a.compileOnly) {
      s += "<h3><code>" + esc(k.kernel) +
           "</code></h3>\n<table><tr><th>"
           "shape</th><th>configuration</th>" +
           std::string(ResourceHeader) + "</tr>\n";
      for (const auto &sh : a.shapes)
        s += "<tr><td class=\"mono\">" + esc(shapeLabel(sh.shape)) +
             "</td><td class=\"mono\">" + esc(configText(sh.bestConfig)) +
             "</td>" + resourcesRow(sh.bestResources, r.maxThreadsPerSM) +
             "</tr>\n";
      s += "</table>\n<p class=\"muted\">Registers, spills and static "
           "shared memory as the compiler and the driver report them; "
           "blocks/SM from the occupancy calculation; occupancy = resident "
           "threads / " +
           std::to_string(r.maxThreadsPerSM) + " per SM.</p>\n";
      continue;
    }
    // Compile-only: every configuration compiled at the first shape.
    const auto &results = k.results;
    if (results.shapes.empty())
      continue;
    const ShapeResult &first = results.shapes.front();
    std::map<std::string, size_t> reasons;
    for (const auto &sh : results.shapes)
      for (const auto &f : sh.finalists)
        if (f.result.status != EvalStatus::Ok)
          ++reasons[std::string(statusName(f.result.status)) + ": " +
                    f.result.reason];
    s += "<h3><code>" + esc(k.kernel) +
         "</code>: " + std::to_string(first.finalists.size()) +
         " configurations at " + esc(shapeLabel(first.shape)) + " (of " +
         std::to_string(results.shapes.size()) + " shapes)</h3>\n";
    if (!reasons.empty()) {
      s += "<table><tr><th class=\"num\">pairs</th><th>not runnable "
           "because</th></tr>\n";
      std::vector<std::pair<std::string, size_t>> sorted(reasons.begin(),
                                                         reasons.end());
      std::stable_sort(
          sorted.begin(), sorted.end(),
          [](const auto &x, const auto &y) { return x.second > y.second; });
      for (size_t i = 0; i < sorted.size() && i < 12; ++i)
        s += "<tr><td class=\"num\">" + std::to_string(sorted[i].second) +
             "</td><td>" + esc(sorted[i].first) + "</td></tr>\n";
      s += "</table>\n";
    }
    s += "<details" + std::string(first.finalists.size() <= 40 ? " open" : "") +
         "><summary>every configuration at this shape</summary><table><tr>"
         "<th>configuration</th><th>status</th>" +
         std::string(ResourceHeader) + "</tr>\n";
    size_t shown = 0;
    for (const auto &f : first.finalists) {
      if (++shown > 400)
        break;
      s += "<tr><td class=\"mono\">" + esc(configText(f.config)) +
           (f.config == first.defaultConfig ? " (default)" : "") + "</td><td>" +
           esc(std::string(statusName(f.result.status))) + "</td>" +
           resourcesRow(f.result.resources, r.maxThreadsPerSM) + "</tr>\n";
    }
    s += "</table></details>\n";
  }
  return s;
}
namespace {
/// Evaluations per GPU and the speedup over one (several GPUs only).
std::string gpuTable(const KernelRound &k) {
  if (k.gpus.empty())
    return "";
  std::string s = "<table><tr><th>device</th><th class=\"num\">evaluations"
                  "</th><th class=\"num\">busy (s)</th></tr>\n";
  double busy = 0;
  for (const auto &a : k.gpus) {
    s += "<tr><td>" + esc(workerLabel(a)) +
         (a.lost
              ? " <span class=\"muted\">lost: " + esc(a.lostReason) + "</span>"
              : std::string()) +
         "</td><td class=\"num\">" + std::to_string(a.evaluations) +
         "</td><td class=\"num\">" + formatDouble("%.1f", a.busySeconds) +
         "</td></tr>\n";
    busy += a.busySeconds;
  }
  s += "</table>\n<p>" + std::to_string(k.gpus.size()) + " workers, ";
  if (speedupIsMeasurable(busy, k.tuneSeconds))
    s += formatDouble("%.2f", busy / k.tuneSeconds) +
         "x the wall-clock speed of one GPU (busy " +
         formatDouble("%.1f", busy) + " s in " +
         formatDouble("%.1f", k.tuneSeconds) + " s).</p>\n";
  else
    s += "evaluations took no measurable time: no speedup to report.</p>\n";
  return s;
}
} // namespace

std::string roundsSection(const RunRecord &r) {
  std::string s = "<h2 id=\"rounds\">Rounds: plans and reasons</h2>\n";
  for (const auto &round : r.rounds) {
    bool isBest = round.round == r.bestRound;
    s += "<div class=\"round" + std::string(isBest ? " best" : "") +
         "\"><h3>Round " + std::to_string(round.round) +
         (isBest ? " <span class=\"badge lift\">best</span>" : "") +
         " &mdash; plan from " + escPlanner(round.planSource) + "</h3>\n";
    s += "<p class=\"muted\">" + formatDouble("%.1f", round.seconds) +
         " s; template <code>" + esc(round.dir + "/" + round.templateFile) +
         "</code>, plan <code>" + esc(round.dir + "/plan.json") +
         "</code>.</p>\n";
    for (const auto &pk : round.plan.kernels) {
      const KernelRound *kr = nullptr;
      for (const auto &k : round.kernels)
        if (sameKernel(pk.kernel, k.kernel))
          kr = &k;
      s += "<table><tr><th>parameter</th><th>kind</th><th>candidates</th>"
           "<th class=\"num\">default</th><th>domain</th><th>best values "
           "(shapes)</th><th class=\"num\">largest effect</th></tr>\n";
      for (const auto &p : pk.params) {
        std::string cands;
        for (const auto &c : p.candidates)
          cands += (cands.empty() ? "" : ", ") + c;
        std::string bestValues = "&ndash;", effect = "&ndash;";
        if (kr && !kr->analysis.compileOnly) {
          std::map<int64_t, size_t> counts;
          for (const auto &sh : kr->analysis.shapes)
            if (auto it = sh.bestConfig.find(p.name); it != sh.bestConfig.end())
              ++counts[it->second];
          bestValues.clear();
          for (const auto &[v, n] : counts)
            bestValues += (bestValues.empty() ? "" : ", ") + std::to_string(v) +
                          " (" + std::to_string(n) + ")";
          for (const auto &inf : kr->analysis.influence)
            if (inf.param == p.name && inf.shapesMeasured > 0)
              effect = formatDouble("%.1f", inf.maxSpreadPct) + "%" +
                       (inf.insensitive ? " <span class=\"muted\">(noise)"
                                          "</span>"
                                        : "");
        }
        s += "<tr><td class=\"mono\">" + esc(p.name) + "</td><td>" +
             esc(std::string(kindName(p.kind))) + "</td><td class=\"mono\">" +
             esc(cands) + "</td><td class=\"num\">" +
             std::to_string(p.defaultValue) + "</td><td class=\"mono\">" +
             esc(p.domain.describe()) + "</td><td class=\"mono\">" +
             bestValues + "</td><td class=\"num\">" + effect + "</td></tr>\n";
      }
      s += "</table>\n";
      if (!pk.constraints.empty()) {
        s += "<p>Constraints: ";
        for (size_t i = 0; i < pk.constraints.size(); ++i)
          s += (i ? ", " : "") + std::string("<code>") +
               esc(pk.constraints[i]) + "</code>";
        s += "</p>\n";
      }
      if (kr && !kr->analysis.compileOnly) {
        const auto &a = kr->analysis;
        s += "<p>Analysis: geomean speedup " +
             formatDouble("%.3f", a.geomeanSpeedup) + "x; timing noise " +
             formatDouble("%.2f", 100 * a.noise) + "% (threshold " +
             formatDouble("%.2f", 100 * a.threshold) + "%)";
        if (a.rooflinePct)
          s += "; " + formatDouble("%.1f", *a.rooflinePct) +
               "% of the roofline at best" +
               (a.farFromRoofline ? " (far from it)" : "");
        s += "; " + std::to_string(a.evaluated) + " evaluations.</p>\n";
        for (const auto &n : a.notes)
          s += "<p class=\"muted\">" + esc(n) + "</p>\n";
      }
      if (kr)
        s += gpuTable(*kr);
    }
    if (!round.planningMessages.empty()) {
      s += "<details><summary>planner messages</summary><ul>";
      for (const auto &m : round.planningMessages)
        s += "<li class=\"mono\">" + esc(m) + "</li>";
      s += "</ul></details>\n";
    }
    if (round.stop)
      s += "<ul class=\"reasons\"><li>" +
           badge(round.stop->stop ? "stop" : "continue") + " " +
           esc(round.stop->reason) + "</li></ul>\n";
    if (round.replan) {
      s += "<p><strong>Re-plan after round " + std::to_string(round.round) +
           "</strong> (" + escPlanner(round.replan->replanner) +
           (round.replan->outcome.empty() ? ""
                                          : ", " + esc(round.replan->outcome)) +
           "):</p>\n<ul class=\"reasons\">";
      for (const auto &reason : round.replan->reasons)
        s += "<li>" + badge(std::string(replanActionName(reason.action))) +
             " " +
             (reason.param.empty()
                  ? std::string()
                  : "<code>" + esc(reason.param) + "</code>: ") +
             escPlanner(reason.message) + "</li>\n";
      s += "</ul>\n";
    }
    if (&round == &r.rounds.back() && !r.stopReason.empty() &&
        !(round.stop && round.stop->reason == r.stopReason))
      s += "<ul class=\"reasons\"><li>" + badge("stop") + " " +
           esc(r.stopReason) + "</li></ul>\n";
    s += "</div>\n";
  }
  return s;
}

std::string notes(const RunRecord &r) {
  std::vector<std::string> all = r.notes;
  for (const auto &round : r.rounds)
    for (const auto &n : round.refactorNotes)
      all.push_back("round " + std::to_string(round.round) + ": " + n);
  if (all.empty())
    return "";
  std::string s = "<h2 id=\"notes\">Notes</h2>\n<ul>";
  for (const auto &n : all)
    s += "<li>" + esc(n) + "</li>";
  return s + "</ul>\n";
}

} // namespace ktune::run::report
