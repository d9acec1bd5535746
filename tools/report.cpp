#include "tools/report.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <sstream>
#include <vector>

#include "common/config.hpp"
#include "common/text.hpp"
#include "common/files.hpp"
#include "common/units.hpp"
#include "tools/plot.hpp"
#include "tools/report_chart.hpp"
#include "tools/report_sections.hpp"
#include "tools/run_document.hpp"
#include "app/sweep.hpp"

namespace dlrmsim::tools {

using app::csv_split;
namespace {

using nlohmann::json;

std::string fixed(double v, int digits) {
  char text[64];
  std::snprintf(text, sizeof text, "%.*f", digits, v);
  return text;
}

std::string duration(double seconds) { return format_seconds(Seconds(seconds)); }

/// The page's head and the opening of its body: no resource may come from outside the page
/// (the Content-Security-Policy forbids it, so a mistake shows as a console error).
std::string page_head(const std::string& title) {
  return "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
         "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'; "
         "script-src 'unsafe-inline'; img-src data:\">\n<title>dlrmsim report: " +
         html_escape(title) +
         "</title>\n<style>\nbody{font-family:sans-serif;margin:2em;color:#222;max-width:1000px}\n"
         "svg{max-width:100%;height:auto}\nsvg text{font:12px sans-serif;fill:#222}\n"
         "svg .chart-title{font-weight:bold;font-size:14px}\n"
         "table{border-collapse:collapse;font-size:13px}\ntd,th{border:1px solid #ccc;padding:2px 8px;text-align:left}\n"
         ".headline{font-size:1.4em}\n</style>\n</head>\n<body>\n";
}

/// The closing script (marks the page rendered: the browser test looks for it) and tags.
/// It also lists the page's sections on <body>: data-sections (their ids) and
/// data-empty-sections (those without a table cell or a drawn bar), for the browser test.
std::string page_end(const std::string& source) {
  return "<script>\n(function () {\n  var all = [], empty = [];\n"
         "  document.querySelectorAll('section').forEach(function (s) {\n    all.push(s.id);\n"
         "    if (s.querySelectorAll('td, svg rect').length === 0) empty.push(s.id);\n  });\n"
         "  document.body.setAttribute('data-sections', all.join(' '));\n"
         "  document.body.setAttribute('data-empty-sections', empty.join(' '));\n})();\n"
         "document.body.setAttribute('data-rendered', 'yes');\n</script>\n<p><small>dlrmsim report of " +
         html_escape(source) + "</small></p>\n</body>\n</html>\n";
}

}  // namespace

std::string sweep_report_html(const std::string& csv_path, const std::string& x_key,
                              const std::vector<std::string>& y_keys, const std::string& group_key) {
  std::ostringstream h;
  h << page_head(csv_path) << "<h1>Sweep " << html_escape(csv_path) << "</h1>\n";
  // Points per status, from the status column (rows are read as `dlrmsim plot` reads them).
  std::map<std::string, std::size_t> statuses;
  {
    std::string text = read_input_file(csv_path);
    if (text.rfind("\xEF\xBB\xBF", 0) == 0) text.erase(0, 3);  // a byte order mark, as plot skips it
    std::istringstream lines(text);
    std::string line;
    std::getline(lines, line);
    const auto header = csv_split(line);
    const auto status_column = std::find(header.begin(), header.end(), "status") - header.begin();
    while (std::getline(lines, line)) {
      const auto fields = csv_split(line);
      if (static_cast<std::size_t>(status_column) < fields.size()) ++statuses[fields[status_column]];
    }
  }
  h << "<p class=\"headline\">";
  for (const auto& [status, n] : statuses) h << n << " " << html_escape(status) << " &nbsp; ";
  h << "</p>\n";
  for (const std::string& y : y_keys) {
    Chart chart = chart_from_csv(csv_path, x_key, y, group_key);
    h << "<h2>" << html_escape(y) << "</h2>\n" << render_svg(chart) << "\n";
    if (chart.skipped_non_finite > 0) {
      h << "<p>" << chart.skipped_non_finite << " rows with a value that is not a finite number are not drawn.</p>\n";
    }
  }
  h << page_end(csv_path);
  return h.str();
}

std::string html_escape(const std::string& in) {
  std::string out;
  out.reserve(in.size());
  for (char c : in) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default: out += c;
    }
  }
  return out;
}

std::string jobs_report_html(const json& doc, const std::string& source) {
  const json& jobs = need(doc, "jobs", source);
  std::ostringstream h;
  h << page_head(text(doc, "scenario", source)) << "<h1>" << html_escape(text(doc, "scenario", source)) << "</h1>\n"
    << "<p class=\"headline\">" << jobs.size() << " jobs sharing " << html_escape(text(doc, "platform", source))
    << " (backend " << html_escape(text(doc, "backend", source)) << ", " << text(doc, "warmup_steps", source)
    << " warm-up + " << text(doc, "measured_steps", source) << " measured steps)</p>\n";
  // Step time shared and alone, per job, on one time axis.
  double longest = 0.0;
  for (const json& j : jobs) {
    longest = std::max({longest, number(j, "step_time_s", source), number(j, "alone_step_time_s", source)});
  }
  const auto [unit, factor] = time_unit(longest);
  BarChart chart{"Step time, sharing the platform and alone", "step time (" + unit + ")", {"shared", "alone"}, {}, 0.0,
                 false};
  for (const json& j : jobs) {
    const double shared = number(j, "step_time_s", source), alone = number(j, "alone_step_time_s", source);
    chart.bars.push_back({text(j, "name", source), {shared * factor, alone * factor},
                          duration(shared) + " shared, " + duration(alone) + " alone (x" +
                              format_number(number(j, "slowdown", source), 4) + ")"});
  }
  h << "<section id=\"jobs-step-time\">\n<h2>Step time per job</h2>\n" << bar_chart_svg(chart) << "</section>\n";
  for (std::size_t i = 0; i < jobs.size(); ++i) {
    const json& j = jobs[i];
    h << "<section id=\"job-" << i << "\">\n<h2>Job " << html_escape(text(j, "name", source)) << "</h2>\n<table>\n";
    const std::vector<std::pair<std::string, std::string>> rows = {
        {"model", text(j, "model", source)},
        {"training mode", text(j, "mode", source)},
        {"software", text(j, "software", source)},
        {"nodes", text(j, "nodes", source)},
        {"trainers", text(j, "trainers", source)},
        {"global batch", text(j, "global_batch", source)},
        {"throughput", format_number(number(j, "throughput_samples_per_s", source) / 1e6, 5) + " M samples/s (alone " +
                           format_number(number(j, "alone_throughput_samples_per_s", source) / 1e6, 5) + " M)"},
        {"step time", duration(number(j, "step_time_s", source)) + " (alone " +
                          duration(number(j, "alone_step_time_s", source)) + ")"},
        {"slowdown", "x" + format_number(number(j, "slowdown", source), 4)},
        {"contended throughout", text(j, "contended_throughout", source)}};
    for (const auto& [name, value] : rows) h << "<tr><th>" << name << "</th><td>" << html_escape(value) << "</td></tr>\n";
    h << "</table>\n</section>\n";
  }
  h << "<p>engine: " << text(doc, "activities", source) << " activities, " << text(doc, "events", source)
    << " events, simulated " << duration(number(doc, "simulated_time_s", source)) << "</p>\n"
    << page_end(source);
  return h.str();
}

std::string report_html(const json& run, const std::string& source) {
  if (run.is_object() && run.contains("jobs")) return jobs_report_html(run, source);
  const double throughput = number(run, "throughput_samples_per_s", source);
  const double step = number(run, "step_time_s", source);
  // Utilisation per resource class.
  BarChart utilisation{"Busy or carrying bytes, % of capacity x time", "% of capacity x time", {"utilisation"}, {},
                       100.0, false};
  for (const auto& [name, u] : need(run, "utilization", source).items()) {
    const double f = number(u, "utilization", source);
    utilisation.bars.push_back({name, {f * 100.0}, fixed(f * 100.0, 1) + " % of " + text(u, "count", source) + " " +
                                                         text(u, "kind", source) + " resources"});
  }

  std::ostringstream h;
  h << page_head(text(run, "scenario", source)) << "<h1>" << html_escape(text(run, "scenario", source)) << "</h1>\n"
    << "<p class=\"headline\"><b>" << format_number(throughput / 1e6, 5) << " M samples/s</b>, step time "
    << duration(step) << "</p>\n<table>\n";
  for (const char* key : {"model", "platform", "software", "training_mode", "backend", "fidelity", "global_batch_size",
                          "trainers", "simulated_trainers", "measured_steps"}) {
    if (run.contains(key)) h << "<tr><th>" << key << "</th><td>" << html_escape(text(run, key, source)) << "</td></tr>\n";
  }
  h << "</table>\n";
  // The device profiles the costs came from, and whether they were measured (older run
  // documents have no such key).
  if (run.contains("device_profiles")) {
    h << "<h2>Device profiles</h2>\n<table>\n<tr><th>profile</th><th>status</th><th>provenance</th></tr>\n";
    for (const json& p : run["device_profiles"]) {
      h << "<tr><td>" << html_escape(text(p, "name", source)) << "</td><td>"
        << (p.value("measured", false) ? "measured" : "not measured") << "</td><td>"
        << html_escape(text(p, "provenance", source)) << "</td></tr>\n";
    }
    h << "</table>\n";
  }
  h << step_time_section(run, source) << "<section id=\"utilisation\">\n<h2>Utilisation per resource class</h2>\n"
    << bar_chart_svg(utilisation) << "</section>\n"
    << memory_section(run, source) << stragglers_section(run, source) << goodput_section(run, source)
    << power_section(run, source) << cost_section(run, source) << "<section id=\"placement-section\">\n<h2>Placement</h2>\n";
  const json& placement = need(run, "placement", source);
  h << "<p>policy " << html_escape(text(placement, "policy", source)) << "</p>\n<table id=\"placement\">\n"
    << "<tr><th>table</th><th>tier</th><th>sharding</th><th>shards</th><th>devices</th></tr>\n";
  for (const json& t : need(placement, "tables", source)) {
    std::string owners;
    for (const json& o : need(t, "owners", source)) owners += (owners.empty() ? "" : " ") + o.get<std::string>();
    h << "<tr><td>" << html_escape(text(t, "table", source)) << "</td><td>" << html_escape(text(t, "tier", source))
      << "</td><td>" << html_escape(text(t, "sharding", source)) << "</td><td>" << text(t, "shards", source)
      << "</td><td>" << html_escape(owners) << "</td></tr>\n";
  }
  // The one script: counts the tables per tier under the table (and marks the page as
  // rendered, which the browser test looks for).
  h << "</table>\n<p id=\"tiers\"></p>\n</section>\n<script>\n"
       "(function () {\n"
       "  var counts = {};\n"
       "  document.querySelectorAll('#placement tr td:nth-child(2)').forEach(function (td) {\n"
       "    counts[td.textContent] = (counts[td.textContent] || 0) + 1;\n"
       "  });\n"
       "  document.getElementById('tiers').textContent = 'tables per tier: ' +\n"
       "    Object.keys(counts).map(function (k) { return k + ' ' + counts[k]; }).join(', ');\n"
       "})();\n</script>\n"
    << planner_statistics_section(run, source) << page_end(source);
  return h.str();
}

}  // namespace dlrmsim::tools
