// Charts as SVG (and PNG through rsvg-convert from Debian's librsvg2-bin when asked for).
//
// A line chart when every x value is a number (series sorted by x), a grouped bar chart
// otherwise; log-log scatter with a y = x diagonal for predicted-vs-published plots.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace dlrmsim::tools {

struct Series {
  std::string name;
  std::vector<std::string> x;  // numbers or category names
  std::vector<double> y;
};

struct Chart {
  std::string title;
  std::string x_label;
  std::string y_label;
  std::vector<Series> series;
  bool log_log_diagonal = false;  // scatter on log axes with the y = x line (validation plots)
};

/// The leading number of a value such as "400 Gbit/s" or "12.5"; nullopt if it has none.
std::optional<double> leading_number(const std::string& text);

std::string render_svg(const Chart& chart);

/// Writes `chart` to `path`: SVG for *.svg, PNG for *.png (needs rsvg-convert); anything
/// else is a std::invalid_argument naming the accepted extensions.
void write_chart(const Chart& chart, const std::string& path);

/// Builds a chart from a CSV file: y against x, one series per distinct value of `group`
/// (comma-separated column names: one series per distinct combination; all rows in one
/// series when empty). Rows whose y is not a number are skipped; file paths are shown by
/// their stem.
Chart chart_from_csv(const std::string& csv_path, const std::string& x_key, const std::string& y_key,
                     const std::string& group_key);

}  // namespace dlrmsim::tools
