#include "tools/report_chart.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>

#include "tools/report.hpp"
#include "tools/tick_label.hpp"

namespace dlrmsim::tools {
namespace {

/// Series colours (colour-blind safe: Okabe & Ito, "Color Universal Design", 2002).
constexpr const char* kColours[] = {"#0072B2", "#E69F00", "#009E73", "#CC79A7", "#D55E00", "#56B4E9"};
constexpr std::size_t kColourCount = sizeof(kColours) / sizeof(kColours[0]);

std::string fixed1(double v) {
  char text[64];
  std::snprintf(text, sizeof text, "%.1f", v);
  return text;
}

double drawn(double v) { return std::isfinite(v) && v > 0.0 ? v : 0.0; }

/// The longest bar (stacked: the longest stack) of the chart.
double longest(const BarChart& chart) {
  double m = 0.0;
  for (const Bar& b : chart.bars) {
    double sum = 0.0;
    for (double v : b.values) {
      sum += drawn(v);
      m = std::max(m, drawn(v));
    }
    if (chart.stacked) m = std::max(m, sum);
  }
  return m;
}

}  // namespace

std::vector<double> axis_ticks(double max) {
  if (!(max > 0.0) || !std::isfinite(max)) return {0.0, 1.0};
  const double raw = max / 5.0;
  const double mag = std::pow(10.0, std::floor(std::log10(raw)));
  const double step = raw / mag <= 1.0 ? mag : raw / mag <= 2.0 ? 2 * mag : raw / mag <= 5.0 ? 5 * mag : 10 * mag;
  std::vector<double> t{0.0};
  for (int k = 1; k <= 8 && t.back() < max * (1 - 1e-12); ++k) t.push_back(step * k);
  return t;
}

std::pair<std::string, double> time_unit(double max_seconds) {
  if (max_seconds >= 1.0 || !(max_seconds > 0.0)) return {"s", 1.0};
  if (max_seconds >= 1e-3) return {"ms", 1e3};
  if (max_seconds >= 1e-6) return {"us", 1e6};
  return {"ns", 1e9};
}

std::string bar_chart_svg(const BarChart& chart) {
  // Each row's note is written right of the plot: wide enough for the longest at 12 px
  // sans-serif (about 7 px a character), so that a long note is not cut off at the edge.
  std::size_t longest_note = 0;
  for (const Bar& b : chart.bars) longest_note = std::max(longest_note, b.note.size());
  const int label_width = 190, plot_width = 420, gap = 8, axis_height = 44;
  const int note_width = std::max(300, 7 * static_cast<int>(longest_note) + 16);
  const int bar_height = 12;
  const int rows_per_bar = chart.stacked ? 1 : std::max<int>(1, static_cast<int>(chart.series.size()));
  const int group_height = rows_per_bar * bar_height + gap;
  const int legend_height = chart.series.size() > 1 ? 22 : 0;
  const int top = 30 + legend_height;
  const int axis_y = top + static_cast<int>(chart.bars.size()) * group_height;
  const int height = axis_y + axis_height;
  const int width = label_width + plot_width + note_width;
  const std::vector<double> ticks = axis_ticks(chart.max_value > 0.0 ? chart.max_value : longest(chart));
  const double end = chart.max_value > 0.0 ? chart.max_value : ticks.back();
  auto x_of = [&](double v) { return label_width + std::clamp(v / end, 0.0, 1.0) * plot_width; };
  std::ostringstream s;
  s << "<svg xmlns=\"http://www.w3.org/2000/svg\" role=\"img\" width=\"" << width << "\" height=\"" << height
    << "\" viewBox=\"0 0 " << width << " " << height << "\">\n<title>" << html_escape(chart.title) << "</title>\n"
    << "<text x=\"0\" y=\"18\" class=\"chart-title\">" << html_escape(chart.title) << "</text>\n";
  if (chart.series.size() > 1) {
    int x = label_width;
    for (std::size_t i = 0; i < chart.series.size(); ++i) {
      s << "<rect x=\"" << x << "\" y=\"30\" width=\"12\" height=\"12\" fill=\"" << kColours[i % kColourCount] << "\"/>"
        << "<text x=\"" << x + 16 << "\" y=\"40\">" << html_escape(chart.series[i]) << "</text>\n";
      x += 40 + 7 * static_cast<int>(chart.series[i].size());
    }
  }
  for (double t : ticks) {
    if (t > end * (1 + 1e-12)) break;
    const std::string x = fixed1(x_of(t));
    s << "<line x1=\"" << x << "\" y1=\"" << top << "\" x2=\"" << x << "\" y2=\"" << axis_y + 4
      << "\" stroke=\"#ddd\"/><text x=\"" << x << "\" y=\"" << axis_y + 16 << "\" text-anchor=\"middle\">"
      << tick_label(t) << "</text>\n";
  }
  int y = top;
  for (const Bar& b : chart.bars) {
    s << "<text x=\"" << label_width - 8 << "\" y=\"" << y + bar_height * rows_per_bar / 2 + 4
      << "\" text-anchor=\"end\">" << html_escape(b.label) << "</text>\n";
    double start = 0.0;
    for (std::size_t i = 0; i < b.values.size(); ++i) {
      const double v = drawn(b.values[i]);
      const double from = chart.stacked ? start : 0.0;
      const int row = chart.stacked ? 0 : static_cast<int>(i);
      s << "<rect x=\"" << fixed1(x_of(from)) << "\" y=\"" << y + row * bar_height << "\" width=\""
        << fixed1(x_of(from + v) - x_of(from)) << "\" height=\"" << bar_height - 2 << "\" fill=\""
        << kColours[i % kColourCount] << "\"><title>" << html_escape(b.label)
        << (i < chart.series.size() ? ", " + html_escape(chart.series[i]) : "") << ": " << tick_label(b.values[i])
        << "</title></rect>\n";
      start += v;
    }
    s << "<text x=\"" << label_width + plot_width + 8 << "\" y=\"" << y + bar_height * rows_per_bar / 2 + 4 << "\">"
      << html_escape(b.note) << "</text>\n";
    y += group_height;
  }
  s << "<line x1=\"" << label_width << "\" y1=\"" << top << "\" x2=\"" << label_width << "\" y2=\"" << axis_y
    << "\" stroke=\"#333\"/>\n<line x1=\"" << label_width << "\" y1=\"" << axis_y << "\" x2=\""
    << label_width + plot_width << "\" y2=\"" << axis_y << "\" stroke=\"#333\"/>\n<text x=\""
    << label_width + plot_width / 2 << "\" y=\"" << axis_y + 36 << "\" text-anchor=\"middle\" class=\"axis-label\">"
    << html_escape(chart.axis_label) << "</text>\n</svg>\n";
  return s.str();
}

}  // namespace dlrmsim::tools
