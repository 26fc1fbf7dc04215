//===- ReportLaunch.cpp - How the kernels use the GPU, in report.html -----===//
#include "ReportInternal.h"

namespace ktune::run::report {

namespace {

std::string cell(const std::string &v) {
  return "<td class=\"num\">" + v + "</td>";
}

std::string dash() { return cell("&ndash;"); }

std::string dashes(int n) {
  std::string s;
  for (int i = 0; i < n; ++i)
    s += dash();
  return s;
}

/// A shape's rows: one when the tuned configuration is the default, else
/// the default's and the tuned one's, the shape's cell spanning both.
std::string shapeRows(const std::string &label, bool same,
                      const std::string &defaultCells,
                      const std::string &tunedCells) {
  std::string s = "<tr><td class=\"mono\"" +
                  std::string(same ? "" : " rowspan=\"2\"") + ">" + label +
                  "</td><td>" + (same ? "default = tuned" : "default") +
                  "</td>" + defaultCells + "</tr>\n";
  if (!same)
    s += "<tr><td>tuned</td>" + tunedCells + "</tr>\n";
  return s;
}

/// One configuration's facts: threads, registers, resident blocks and what
/// limits them, occupancy, grid blocks, waves, the last wave's fill, SMs
/// busy.
std::string factsCells(const std::optional<LaunchFacts> &f) {
  if (!f)
    return dashes(8);
  std::string s = cell(std::to_string(f->threadsPerBlock));
  s += f->registers >= 0 ? cell(std::to_string(f->registers)) : dash();
  if (f->occupancy)
    s += cell(std::to_string(f->occupancy->blocksPerSM) +
              " <span class=\"muted\">(" + esc(f->occupancy->limiter) +
              ")</span>") +
         cell(formatDouble("%.0f", 100 * f->occupancy->warpOccupancy) + "%");
  else
    s += dash() + dash();
  s += f->blocks ? cell(std::to_string(*f->blocks)) : dash();
  s += f->waves ? cell(formatDouble("%.3g", *f->waves)) : dash();
  s += f->tailFill ? cell(*f->tailFill < 0.01
                              ? std::string("&lt;1%")
                              : formatDouble("%.0f", 100 * *f->tailFill) + "%")
                   : dash();
  s += f->blocks ? cell(std::to_string(f->smsBusy) + " / " +
                        std::to_string(f->smCount))
                 : dash();
  return s;
}

std::string rooflineCell(const std::optional<double> &pct) {
  return pct ? cell(formatDouble("%.1f", *pct) + "%") : dash();
}

std::string countersCells(const std::optional<HardwareCounters> &c) {
  if (!c)
    return dashes(6);
  auto megabytes = [](double bytes) {
    return bytes < 0 ? dash() : cell(formatDouble("%.3g", bytes / 1e6));
  };
  auto pct = [](double v) {
    return v < 0 ? dash() : cell(formatDouble("%.1f", v) + "%");
  };
  std::string s = megabytes(c->dramReadBytes) + megabytes(c->dramWriteBytes);
  s += pct(c->dramThroughputPct);
  s += c->achievedOccupancyPct < 0
           ? dash()
           : cell(formatDouble("%.1f", c->achievedOccupancyPct) + "%" +
                  (c->theoreticalOccupancyPct < 0
                       ? std::string()
                       : " <span class=\"muted\">of " +
                             formatDouble("%.0f", c->theoreticalOccupancyPct) +
                             "%</span>"));
  s += c->durationUs < 0 ? dash() : cell(formatDouble("%.3g", c->durationUs));
  s += cell(std::to_string(c->launches));
  return s;
}

/// Nsight Compute's counters per shape (--profile), default and tuned.
std::string countersTable(const KernelAnalysis &a) {
  bool any = false;
  for (const auto &sh : a.shapes)
    any |= sh.profiled;
  if (!any)
    return "";
  std::string s =
      "<table><tr><th>shape</th><th>configuration</th><th class=\"num\">DRAM "
      "read MB</th><th class=\"num\">DRAM written MB</th><th class=\"num\">"
      "DRAM throughput</th><th class=\"num\">achieved occupancy</th><th "
      "class=\"num\">duration &micro;s</th><th class=\"num\">launches</th>"
      "</tr>\n";
  for (const auto &sh : a.shapes) {
    std::string label = esc(shapeLabel(sh.shape));
    if (!sh.defaultCounters && !sh.bestCounters) {
      s += "<tr><td class=\"mono\">" + label +
           "</td><td colspan=\"7\" class=\"muted\">no counters: " +
           esc(sh.countersError) + "</td></tr>\n";
      continue;
    }
    s += shapeRows(label, sh.bestConfig == sh.defaultConfig,
                   countersCells(sh.defaultCounters),
                   countersCells(sh.bestCounters));
  }
  return s +
         "</table>\n<p class=\"muted\">Hardware counters from Nsight "
         "Compute (<code>--profile</code>): one launch of each configuration "
         "after the search, caches flushed, at the clocks the tuner timed "
         "with; achieved occupancy = warps active per cycle / the SM's "
         "maximum, beside what the launch allows.</p>\n";
}

} // namespace

std::string launches(const RunRecord &, const RoundRecord &best) {
  std::string s;
  for (const auto &k : best.kernels) {
    const KernelAnalysis &a = k.analysis;
    bool any = false;
    for (const auto &sh : a.shapes)
      any |= sh.defaultLaunch || sh.bestLaunch || sh.profiled;
    if (!any)
      continue;
    s += "<h3><code>" + esc(k.kernel) + "</code></h3>\n";
    s += "<table><tr><th>shape</th><th>configuration</th>"
         "<th class=\"num\">threads/block</th><th class=\"num\">registers"
         "</th><th class=\"num\">blocks/SM (limiter)</th><th class=\"num\">"
         "occupancy</th><th class=\"num\">grid blocks</th><th class=\"num\">"
         "waves</th><th class=\"num\">last wave</th><th class=\"num\">SMs "
         "busy</th><th class=\"num\">roofline</th></tr>\n";
    for (const auto &sh : a.shapes) {
      bool same = sh.bestConfig == sh.defaultConfig;
      std::string label =
          esc(shapeLabel(sh.shape)) +
          (sh.latencyTrivial ? " <span class=\"muted\">(latency)</span>" : "");
      s += shapeRows(
          label, same,
          factsCells(sh.defaultLaunch) +
              rooflineCell(same ? sh.rooflinePct : sh.defaultRooflinePct),
          factsCells(sh.bestLaunch) + rooflineCell(sh.rooflinePct));
    }
    s += "</table>\n";
    s += countersTable(a);
    if (!a.diagnoses.empty()) {
      s += "<ul class=\"reasons\">";
      for (const auto &d : a.diagnoses)
        s += "<li>" + badge("diagnosis") + " " + esc(d.message) + "</li>";
      s += "</ul>\n";
    }
  }
  if (s.empty())
    return "";
  std::string limits;
  for (const auto &k : best.kernels)
    if (!k.analysis.limitsName.empty())
      limits = k.analysis.limitsName + ", " +
               std::to_string(k.analysis.smCount) + " SMs";
  return "<h2 id=\"launches\">How the kernels use the GPU</h2>\n" + s +
         "<p class=\"muted\">Blocks per SM from the occupancy calculation "
         "(registers, shared memory, threads and block slots against the "
         "limits of " +
         esc(limits) +
         "; the limiter in brackets); occupancy = resident warps / warp "
         "slots; grid blocks from the launch geometry at the shape; waves = "
         "grid blocks / (SMs &times; blocks per SM); last wave = how full "
         "the last wave is; SMs busy = SMs given at least one block. "
         "(latency): the default is so fast that launch latency dominates; "
         "the grid diagnosis leaves the shape alone.</p>\n";
}

} // namespace ktune::run::report
