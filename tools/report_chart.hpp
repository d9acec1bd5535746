// The report page's horizontal bar chart, as inline SVG 1.1 (no script, no external
// reference): one row per bar, the series side by side (one thin bar each) or stacked in one
// bar, a value axis along the bottom with ticks, readable tick labels (tools/tick_label.hpp)
// and a label that names the quantity and its unit, a legend when there are several series,
// and each row's values written in words at its end.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace dlrmsim::tools {

/// One row: its label, one value per series (in the axis unit) and the text at its end.
struct Bar {
  std::string label;
  std::vector<double> values;
  std::string note;
};

struct BarChart {
  std::string title;
  std::string axis_label;  // the quantity and its unit, as the axis shows it: "time per step (ms)"
  std::vector<std::string> series;
  std::vector<Bar> bars;
  double max_value = 0.0;  // the axis end; when 0, the longest bar (or stack), rounded up to a tick
  bool stacked = false;    // the series of a row stacked in one bar (parts of a whole)
};

/// The SVG text of `chart`. Values below 0 or not finite are drawn as 0 long; a bar longer
/// than max_value stops at the axis end (its note still says its value).
std::string bar_chart_svg(const BarChart& chart);

/// The axis ticks from 0 to `max`: multiples of a step of 1, 2 or 5 times a power of ten,
/// from 3 to 7 of them past 0, the last at or above `max`. {0, 1} when max is not above 0 or
/// not finite.
std::vector<double> axis_ticks(double max);

/// A unit of time that shows `max_seconds` as a number from 1 to 999 where it can: {"s", 1},
/// {"ms", 1e3}, {"us", 1e6} or {"ns", 1e9}; multiply seconds by the factor.
std::pair<std::string, double> time_unit(double max_seconds);

}  // namespace dlrmsim::tools
