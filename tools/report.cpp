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
#include "app/sweep.hpp"

namespace dlrmsim::tools {

using app::csv_split;
namespace {

using nlohmann::json;

/// One bar of a chart: a label, values (one per series) and the text shown at its end.
struct Bar {
  std::string label;
  std::vector<double> values;
  std::string note;
};

/// Series colours (colour-blind safe, Okabe-Ito).
constexpr const char* kColours[] = {"#0072B2", "#E69F00", "#009E73", "#CC79A7"};

std::string fixed(double v, int digits) {
  char text[64];
  std::snprintf(text, sizeof text, "%.*f", digits, v);
  return text;
}

std::string duration(double seconds) { return format_seconds(Seconds(seconds)); }

/// A horizontal bar chart, one group of bars per row (one bar per series), scaled to
/// `max_value` (the largest value when 0). Plain SVG 1.1: no script, no external reference.
std::string bar_chart(const std::string& title, const std::vector<std::string>& series, const std::vector<Bar>& bars,
                      double max_value = 0.0) {
  const int label_width = 190, plot_width = 460, note_width = 230, bar_height = 12, gap = 8;
  const int group_height = static_cast<int>(series.size()) * bar_height + gap;
  const int legend_height = series.size() > 1 ? 22 : 0;
  const int height = 30 + legend_height + static_cast<int>(bars.size()) * group_height + 10;
  const int width = label_width + plot_width + note_width;
  if (max_value <= 0.0) {
    for (const Bar& b : bars) {
      for (double v : b.values) max_value = std::max(max_value, v);
    }
  }
  if (max_value <= 0.0) max_value = 1.0;
  std::ostringstream s;
  s << "<svg xmlns=\"http://www.w3.org/2000/svg\" role=\"img\" width=\"" << width << "\" height=\"" << height
    << "\" viewBox=\"0 0 " << width << " " << height << "\">\n<title>" << html_escape(title) << "</title>\n"
    << "<text x=\"0\" y=\"18\" class=\"chart-title\">" << html_escape(title) << "</text>\n";
  if (series.size() > 1) {
    int x = label_width;
    for (std::size_t i = 0; i < series.size(); ++i) {
      s << "<rect x=\"" << x << "\" y=\"30\" width=\"12\" height=\"12\" fill=\"" << kColours[i % 4] << "\"/>"
        << "<text x=\"" << x + 16 << "\" y=\"40\">" << html_escape(series[i]) << "</text>\n";
      x += 40 + 8 * static_cast<int>(series[i].size());
    }
  }
  int y = 30 + legend_height;
  for (const Bar& b : bars) {
    s << "<text x=\"" << label_width - 8 << "\" y=\"" << y + bar_height * static_cast<int>(series.size()) / 2 + 4
      << "\" text-anchor=\"end\">" << html_escape(b.label) << "</text>\n";
    for (std::size_t i = 0; i < b.values.size(); ++i) {
      const double w = std::clamp(b.values[i] / max_value, 0.0, 1.0) * plot_width;
      s << "<rect x=\"" << label_width << "\" y=\"" << y + static_cast<int>(i) * bar_height << "\" width=\""
        << fixed(w, 1) << "\" height=\"" << bar_height - 2 << "\" fill=\"" << kColours[i % 4] << "\"/>\n";
    }
    s << "<text x=\"" << label_width + plot_width + 8 << "\" y=\""
      << y + bar_height * static_cast<int>(series.size()) / 2 + 4 << "\">" << html_escape(b.note) << "</text>\n";
    y += group_height;
  }
  s << "<line x1=\"" << label_width << "\" y1=\"" << 30 + legend_height << "\" x2=\"" << label_width << "\" y2=\""
    << y << "\" stroke=\"#333\"/>\n</svg>\n";
  return s.str();
}

/// The value at `key` of `object`, or a ConfigError naming the source and key.
const json& need(const json& object, const std::string& key, const std::string& source) {
  if (!object.is_object() || !object.contains(key)) {
    throw ConfigError(source + ": not a run report of `dlrmsim run --json`: missing key '" + key + "'");
  }
  return object.at(key);
}

double number(const json& object, const std::string& key, const std::string& source) {
  const json& v = need(object, key, source);
  if (!v.is_number()) throw ConfigError(source + ": key '" + key + "': expected a number, found " + v.dump());
  return v.get<double>();
}

std::string text(const json& object, const std::string& key, const std::string& source) {
  const json& v = need(object, key, source);
  return v.is_string() ? v.get<std::string>() : v.dump();
}

/// The page's head and the opening of its body: no resource may come from outside the page
/// (the Content-Security-Policy forbids it, so a mistake shows as a console error).
std::string page_head(const std::string& title) {
  return "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
         "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'; "
         "script-src 'unsafe-inline'; img-src data:\">\n<title>dlrmsim report: " +
         html_escape(title) +
         "</title>\n<style>\nbody{font-family:sans-serif;margin:2em;color:#222;max-width:1000px}\n"
         "svg text{font:12px sans-serif;fill:#222}\nsvg .chart-title{font-weight:bold;font-size:14px}\n"
         "table{border-collapse:collapse;font-size:13px}\ntd,th{border:1px solid #ccc;padding:2px 8px;text-align:left}\n"
         ".headline{font-size:1.4em}\n</style>\n</head>\n<body>\n";
}

/// The closing script (marks the page rendered: the browser test looks for it) and tags.
std::string page_end(const std::string& source) {
  return "<script>\ndocument.body.setAttribute('data-rendered', 'yes');\n</script>\n<p><small>dlrmsim report of " +
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

std::string report_html(const json& run, const std::string& source) {
  const double throughput = number(run, "throughput_samples_per_s", source);
  const double step = number(run, "step_time_s", source);

  // Step-time breakdown: busy, exposed and critical-path time per category.
  std::vector<Bar> breakdown;
  for (const auto& [category, b] : need(run, "breakdown", source).items()) {
    const double busy = b.contains("busy_s") ? number(b, "busy_s", source) : 0.0;
    const double exposed = number(b, "exposed_s", source), critical = number(b, "critical_path_s", source);
    breakdown.push_back({category, {busy, exposed, critical}, "critical " + duration(critical)});
  }
  // Utilisation per resource class.
  std::vector<Bar> utilisation;
  for (const auto& [name, u] : need(run, "utilization", source).items()) {
    const double f = number(u, "utilization", source);
    utilisation.push_back({name, {f * 100.0}, fixed(f * 100.0, 1) + " % of " + text(u, "count", source) + " " +
                                                    text(u, "kind", source) + " resources"});
  }
  // Memory per device against its capacity (devices that hold nothing are left out).
  std::vector<Bar> memory;
  for (const json& m : need(run, "memory", source)) {
    const double used = number(m, "used_bytes", source), capacity = number(m, "capacity_bytes", source);
    if (used <= 0.0) continue;
    const double percent = capacity > 0.0 ? 100.0 * used / capacity : 0.0;
    memory.push_back({text(m, "device", source), {percent},
                      format_bytes(Bytes(used)) + " of " + format_bytes(Bytes(capacity)) + " (" + fixed(percent, 1) + " %)"});
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
  h << "<h2>Where the step time goes</h2>\n"
    << "<p>busy: time some activity of the class runs; exposed: what the class alone adds to the step; critical "
       "path: the step's time spent waiting on it.</p>\n"
    << bar_chart("Per category, per step", {"busy", "exposed", "critical path"}, breakdown)
    << "<h2>Utilisation per resource class</h2>\n" << bar_chart("Busy or carrying bytes, % of capacity x time", {"utilisation"}, utilisation, 100.0)
    << "<h2>Memory per device</h2>\n" << bar_chart("Used, % of capacity", {"used"}, memory, 100.0)
    << "<h2>Placement</h2>\n";
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
  h << "</table>\n<p id=\"tiers\"></p>\n<script>\n"
       "(function () {\n"
       "  var counts = {};\n"
       "  document.querySelectorAll('#placement tr td:nth-child(2)').forEach(function (td) {\n"
       "    counts[td.textContent] = (counts[td.textContent] || 0) + 1;\n"
       "  });\n"
       "  document.getElementById('tiers').textContent = 'tables per tier: ' +\n"
       "    Object.keys(counts).map(function (k) { return k + ' ' + counts[k]; }).join(', ');\n"
       "})();\n</script>\n"
    << page_end(source);
  return h.str();
}

}  // namespace dlrmsim::tools
