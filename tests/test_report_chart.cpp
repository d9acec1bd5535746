// The report's bar chart (tools/report_chart.hpp): axis ticks, the time unit, and an SVG with
// an axis, its label and values.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "tools/report_chart.hpp"

using namespace dlrmsim::tools;

// Ticks step by 1, 2 or 5 x 10^k: the smallest such step of at least max / 5, so 3 to 7
// ticks past 0, the last reaching max. 2 ms / 5 = 0.4 -> 0.5; 7 / 5 = 1.4 -> 2;
// 100 / 5 = 20 -> 20; 0.3 / 5 = 0.06 -> 0.1.
TEST_CASE("axis ticks are round steps from 0 past the maximum") {
  CHECK(axis_ticks(2.0) == std::vector<double>{0, 0.5, 1, 1.5, 2});
  CHECK(axis_ticks(7.0) == std::vector<double>{0, 2, 4, 6, 8});
  CHECK(axis_ticks(100.0) == std::vector<double>{0, 20, 40, 60, 80, 100});
  CHECK(axis_ticks(0.0) == std::vector<double>{0, 1});
  const auto small = axis_ticks(0.3);
  REQUIRE(small.size() == 4);
  CHECK(small.back() == doctest::Approx(0.3));
}

// The unit keeps the largest value between 1 and 999: 4 ms is "4 ms", 30 us is "30 us".
TEST_CASE("the time unit suits the largest value") {
  CHECK(time_unit(2.5) == std::pair<std::string, double>{"s", 1.0});
  CHECK(time_unit(0.004) == std::pair<std::string, double>{"ms", 1e3});
  CHECK(time_unit(3e-5) == std::pair<std::string, double>{"us", 1e6});
  CHECK(time_unit(5e-9) == std::pair<std::string, double>{"ns", 1e9});
}

// Two rows of two side-by-side series: 4 bars and 2 legend swatches; the axis label and
// readable tick labels (600k, not 6e+05: tools/tick_label.hpp) on a 0..1M axis. Stacked,
// the second part of a row starts where the first ends (x = 190 + 420 x 0.5 = 400).
TEST_CASE("the chart draws its axis, its label, ticks and every bar") {
  BarChart chart{"t", "throughput (samples/s)", {"a", "b"}, {{"r1", {6e5, 2e5}, "n1"}, {"r2", {1e5, 9e5}, "n2"}}, 0.0,
                 false};
  const std::string svg = bar_chart_svg(chart);
  std::size_t rects = 0;
  for (auto at = svg.find("<rect"); at != std::string::npos; at = svg.find("<rect", at + 1)) ++rects;
  CHECK(rects == 4 + 2);
  CHECK(svg.find(">throughput (samples/s)</text>") != std::string::npos);
  CHECK(svg.find(">600k</text>") != std::string::npos);
  CHECK(svg.find(">1M</text>") != std::string::npos);
  CHECK(svg.find("e+0") == std::string::npos);
  chart.stacked = true;
  chart.max_value = 100.0;
  chart.bars = {{"r", {50, 25}, ""}};
  CHECK(bar_chart_svg(chart).find("<rect x=\"400.0\"") != std::string::npos);
}

// A row's note is written right of the plot and would be cut off at the SVG's edge if it
// were wider than the room left there. Short notes keep the 300 px column: 190 + 420 + 300
// = 910 px. The step-time note "busy 2.227 ms, exposed 2.227 ms, critical 1.797 ms" is 50
// characters: at 7 px each plus 16 px of margin the column is 366 px, the SVG 976 px.
TEST_CASE("the chart is wide enough for its longest note") {
  BarChart chart{"t", "time per step (ms)", {"busy"}, {{"r", {1.0}, "short"}}, 0.0, false};
  CHECK(bar_chart_svg(chart).find("width=\"910\"") != std::string::npos);
  chart.bars.push_back({"dense_compute", {2.227}, "busy 2.227 ms, exposed 2.227 ms, critical 1.797 ms"});
  const std::string svg = bar_chart_svg(chart);
  CHECK(svg.find("width=\"976\"") != std::string::npos);
  CHECK(svg.find("viewBox=\"0 0 976 ") != std::string::npos);
}
