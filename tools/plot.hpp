// Charts as SVG, and as PNG rendered in this process with librsvg and cairo (Debian:
// librsvg2-dev at build time) when asked for. No file name or text from the user ever
// reaches a shell or another program; the only file written is the one named by the user,
// through common/files.hpp's atomic writer.
//
// A line chart when every x value is a number (series sorted by x), a grouped bar chart
// otherwise; log-log scatter with a y = x diagonal for predicted-vs-published plots.
//
// Cost: building and rendering are O(n log n) in the number of points (one sort per
// series; categories are found through a hash map). Scales are computed from halves of the
// values (max/2 - min/2), so the whole finite double range (+-1.8e308) maps to the page
// without overflowing; points whose coordinates are still not finite (a value that is not
// a number, a non-positive value on a log axis) are not drawn and are counted.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace dlrmsim::tools {

struct Series {
  std::string name;
  std::vector<std::string> x;  // numbers or category names
  std::vector<double> y;
  bool points_only = false;  // markers without a line (measured or published points)
};

struct Chart {
  std::string title;
  std::string x_label;
  std::string y_label;
  std::vector<Series> series;
  bool log_log_diagonal = false;  // scatter on log axes with the y = x line (validation plots)
  bool log_axes = false;          // lines on logarithmic x and y axes (numeric x only)
  std::string legend_title = {};  // shown above the legend entries when not empty
  /// Rows of the source that had an x or y value that is a number but not a finite one
  /// ("inf", "nan", "1e999"): left out of the chart, reported by the command as a warning.
  std::size_t skipped_non_finite = 0;
};

/// The leading number of a value such as "400 Gbit/s" or "12.5"; nullopt if it has none or
/// if it is not finite.
std::optional<double> leading_number(const std::string& text);

/// The SVG text of `chart`. Points that cannot be placed on the page (see the top of this
/// file) are left out; `skipped`, when given, receives their count.
std::string render_svg(const Chart& chart, std::size_t* skipped = nullptr);

/// Whether this build can write PNG (librsvg and cairo were found when it was configured).
bool png_supported();

/// The PNG image (file content) of an SVG text, rendered with librsvg and cairo at the
/// SVG's own size. A std::invalid_argument when this build has no PNG support.
std::string render_png(const std::string& svg);

/// Writes `chart` to `path`: SVG for *.svg, PNG for *.png; anything else is a
/// std::invalid_argument naming the accepted extensions. The file is written atomically
/// (common/files.hpp write_output_file); a failed write is an OutputError naming the path.
void write_chart(const Chart& chart, const std::string& path);

/// Builds a chart from a CSV file (read through read_input_file: a regular file of at most
/// kMaxInputBytes): y against x, one series per distinct value of `group` (comma-separated
/// column names: one series per distinct combination; all rows in one series when empty).
/// Rows whose y is not a number are skipped; rows whose x or y is a number that is not
/// finite are skipped and counted (Chart::skipped_non_finite); file paths are shown by
/// their stem. Two rows with the same x in the same series (they would be drawn on one bar
/// or point) are a ConfigError naming both lines and the columns that differ between them,
/// which --group could add to separate them.
Chart chart_from_csv(const std::string& csv_path, const std::string& x_key, const std::string& y_key,
                     const std::string& group_key);

}  // namespace dlrmsim::tools
