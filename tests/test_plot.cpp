// Charts: numbers are read from values with units; a CSV becomes series per group; the
// SVG holds one point per row and one legend entry per series; PNG is rendered without a
// shell; huge inputs and extreme values are handled.
#include <doctest/doctest.h>

#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>

#include "common/config.hpp"
#include "common/files.hpp"
#include "tools/plot.hpp"
#include "file_fixtures.hpp"

using namespace dlrmsim;
using namespace dlrmsim::tools;
using dlrmsim::testing::read_text;

namespace {
std::size_t count(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (std::size_t p = text.find(what); p != std::string::npos; p = text.find(what, p + 1)) ++n;
  return n;
}

// A scratch directory that is also the working directory while it lives (a shell command
// embedded in a file name would create its marker file there).
struct ScratchCwd : dlrmsim::testing::ScratchDir {
  std::filesystem::path old;
  ScratchCwd() : ScratchDir("dlrmsim_plot"), old(std::filesystem::current_path()) { std::filesystem::current_path(dir); }
  ~ScratchCwd() { std::filesystem::current_path(old); }
};
}  // namespace

TEST_CASE("leading numbers of values with units") {
  CHECK(leading_number("400 Gbit/s") == 400.0);
  CHECK(leading_number(" 1.5e3") == 1500.0);
  CHECK_FALSE(leading_number("cost_greedy").has_value());
}

TEST_CASE("a sweep CSV becomes one series per group, one marker per row") {
  // 2 placements x 3 NIC speeds = 6 rows, one failed row without a throughput (skipped).
  const auto path = std::filesystem::temp_directory_path() / ("plot_" + std::to_string(::getpid()) + ".csv");
  std::ofstream(path) << "point,nic,policy,status,throughput\n0,100 Gbit/s,all_gpu,ok,10\n1,200 Gbit/s,all_gpu,ok,20\n"
                         "2,400 Gbit/s,all_gpu,ok,30\n3,100 Gbit/s,all_host,ok,5\n4,200 Gbit/s,all_host,error,\n"
                         "5,400 Gbit/s,all_host,ok,8\n";
  const Chart chart = chart_from_csv(path.string(), "nic", "throughput", "policy");
  REQUIRE(chart.series.size() == 2);
  CHECK(chart.series[0].name == "all_gpu");
  CHECK(chart.series[0].y == std::vector<double>{10, 20, 30});
  CHECK(chart.series[1].y == std::vector<double>{5, 8});
  const std::string svg = render_svg(chart);
  CHECK(count(svg, "<circle") == 5);
  CHECK(count(svg, "<polyline") == 2);
  CHECK_THROWS_WITH_AS(chart_from_csv(path.string(), "nic", "througput", ""), doctest::Contains("did you mean 'throughput'"),
                       ConfigError);
  CHECK_THROWS_AS(write_chart(chart, "/tmp/x.jpeg"), std::invalid_argument);
  std::filesystem::remove(path);
}

// System: a CSV saved with a UTF-8 byte order mark before its header (as spreadsheets save
// one), x column "point" (the first). Expected: the chart of its two rows; the mark was read
// as part of the first column's name ("no column 'point'").
TEST_CASE("a CSV that starts with a byte order mark is read by its column names") {
  const auto path = std::filesystem::temp_directory_path() / ("plot_bom_" + std::to_string(::getpid()) + ".csv");
  std::ofstream(path) << "\xEF\xBB\xBFpoint,y\n0,1\n1,2\n";
  const Chart chart = chart_from_csv(path.string(), "point", "y", "");
  REQUIRE(chart.series.size() == 1);
  CHECK(chart.series[0].y == std::vector<double>{1, 2});
  std::filesystem::remove(path);
}

// A chart of two predicted series (lines) and one published series drawn as open markers
// only, on logarithmic axes (plot --points, --log): 3 + 3 filled markers and 2 lines for the
// predicted series, 2 open markers and no line for the published one, and no y = x diagonal
// (that is the validation plot's).
TEST_CASE("published points are open markers without a line, on log axes without a diagonal") {
  Chart chart;
  chart.series.push_back(Series{"a", {"1", "10", "100"}, {10, 100, 1000}});
  chart.series.push_back(Series{"b", {"1", "10", "100"}, {20, 200, 2000}});
  Series published{"a (published)", {"10", "100"}, {110, 900}};
  published.points_only = true;
  chart.series.push_back(published);
  chart.log_axes = true;
  const std::string svg = render_svg(chart);
  CHECK(count(svg, "<polyline") == 2);
  CHECK(count(svg, "r=\"3.5\"") == 6);
  CHECK(count(svg, "fill=\"none\" stroke-width=\"2.5\"") == 2);
  CHECK(svg.find("stroke-dasharray") == std::string::npos);  // no y = x diagonal
}

// System: a sweep over two platforms and two policies, plotted as throughput against policy
// grouped by nothing, then by platform. Expected: without --group the two rows of policy
// all_gpu (lines 2 and 4) would be one bar: an error naming both lines and the column that
// separates them (platform; point differs too, as it does in every sweep); grouped by
// platform, each bar holds one row. A file that repeats a row exactly is an error saying
// that no column separates the rows.
TEST_CASE("two rows at one x of one series are an error naming the columns that separate them") {
  ScratchCwd scratch;
  std::ofstream("s.csv") << "point,platform,policy,throughput\n0,zion,all_gpu,10\n1,zion,all_host,20\n"
                            "2,big_basin,all_gpu,30\n3,big_basin,all_host,5\n";
  CHECK_THROWS_WITH_AS(chart_from_csv("s.csv", "policy", "throughput", ""),
                       doctest::Contains("s.csv:4: this row and line 2 have the same policy (all_gpu) and no --group"),
                       ConfigError);
  CHECK_THROWS_WITH_AS(chart_from_csv("s.csv", "policy", "throughput", ""),
                       doctest::Contains("add a column that separates them to --group: point, platform"), ConfigError);
  const Chart grouped = chart_from_csv("s.csv", "policy", "throughput", "platform");
  REQUIRE(grouped.series.size() == 2);
  CHECK(grouped.series[0].y == std::vector<double>{10, 20});
  std::ofstream("r.csv") << "nic,throughput\n100,1\n100,1\n";
  CHECK_THROWS_WITH_AS(chart_from_csv("r.csv", "nic", "throughput", ""),
                       doctest::Contains("no other column separates them"), ConfigError);
}

// plot --x-label, --y-label and --legend-title: the labels replace the column names on the
// axes and the legend has a title line above its entries (the first entry moves down one
// 18-pixel line: from y = 40 to 58 at the plot area's top).
TEST_CASE("axis labels and the legend title are drawn as given") {
  Chart chart{"t", "NIC bandwidth (Gbit/s)", "throughput (samples/s)", {Series{"zion", {"100", "200"}, {6e5, 9e5}}}, false};
  chart.legend_title = "platform";
  const std::string svg = render_svg(chart);
  CHECK(svg.find(">NIC bandwidth (Gbit/s)</text>") != std::string::npos);
  CHECK(svg.find(">throughput (samples/s)</text>") != std::string::npos);
  CHECK(svg.find("font-weight=\"bold\">platform</text>") != std::string::npos);
  CHECK(svg.find("y=\"58\" width=\"10\"") != std::string::npos);
  // Tick labels are readable (tools/tick_label.hpp): 600k, not 6e+05.
  CHECK(svg.find(">600k</text>") != std::string::npos);
  CHECK(svg.find("e+05") == std::string::npos);
}

TEST_CASE("categorical x values give a bar chart") {
  Chart chart{"t", "policy", "samples/s", {Series{"M1", {"all_gpu", "all_host"}, {3, 1}}, Series{"M3", {"all_gpu", "all_host"}, {2, 4}}}, false};
  const std::string svg = render_svg(chart);
  CHECK(count(svg, "<rect") == 1 + 4 + 2);  // the background, 4 bars, 2 legend swatches
}

TEST_CASE("a PNG whose name holds shell syntax is written as named, and nothing runs") {
  // The file name a'$(touch X)'.png once reached `sh -c "rsvg-convert -o '...'"`, which ran
  // `touch X`, and the code wrote and then deleted "<name>.svg". Expected now: the PNG exists
  // under exactly that name and starts with the 8-byte PNG signature (PNG spec 5.2), no X
  // appears, and a file called "<name>.svg" that was there before is untouched.
  ScratchCwd scratch;
  const std::string name = "a'$(touch X)'.png";
  std::ofstream(name + ".svg") << "keep me";
  const Chart chart{"t", "x", "y", {Series{"s", {"1", "2"}, {3, 4}}}, false};
  if (!png_supported()) {
    CHECK_THROWS_WITH_AS(write_chart(chart, name), doctest::Contains("librsvg2-dev"), std::invalid_argument);
    return;
  }
  write_chart(chart, name);
  CHECK_FALSE(std::filesystem::exists("X"));
  const std::string png = read_text(name);
  REQUIRE(png.size() > 8);
  CHECK(png.substr(0, 8) == std::string("\x89PNG\r\n\x1a\n", 8));
  CHECK(read_text(name + ".svg") == "keep me");
  // Only the two files: no temporary file is left behind.
  CHECK(std::distance(std::filesystem::directory_iterator("."), std::filesystem::directory_iterator()) == 2);
}

TEST_CASE("plot reads only regular files of bounded size") {
  // /dev/zero never ends (it once grew to 11.5 GB before "the file is empty"), a directory
  // is not a CSV file: both are refused at once with a ConfigError naming the path.
  CHECK_THROWS_WITH_AS(chart_from_csv("/dev/zero", "a", "b", ""), doctest::Contains("/dev/zero: a device"), ConfigError);
  CHECK_THROWS_WITH_AS(chart_from_csv("/tmp", "a", "b", ""), doctest::Contains("/tmp: a directory"), ConfigError);
}

TEST_CASE("100,000 rows plot in linear-logarithmic time with one marker each") {
  // 100k rows: numeric x (a line chart, 1 polyline of 100k points) and then the same rows
  // with categorical x over 100k distinct names (a bar chart: 100k bars). A category
  // search per value made this quadratic (24 s); now it is a hash lookup. Expected: every
  // row drawn (the counts) - and a time far below a second, reported but not asserted.
  ScratchCwd scratch;
  std::string numeric = "x,y\n", categorical = "x,y\n";
  for (int i = 0; i < 100000; ++i) {
    numeric += std::to_string(i) + "," + std::to_string((i * 7919) % 1000) + "\n";
    categorical += "name" + std::to_string(i) + "," + std::to_string(i % 1000) + "\n";
  }
  std::ofstream("n.csv") << numeric;
  std::ofstream("c.csv") << categorical;
  const auto t0 = std::chrono::steady_clock::now();
  const std::string line_svg = render_svg(chart_from_csv("n.csv", "x", "y", ""));
  const std::string bar_svg = render_svg(chart_from_csv("c.csv", "x", "y", ""));
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  MESSAGE("two 100k-row charts built and rendered in " << seconds << " s");
  CHECK(count(line_svg, "<circle") == 100000);
  CHECK(count(line_svg, "<polyline") == 1);
  // The line keeps at most 4 vertices per quarter-pixel column of the 530-pixel plot area.
  const auto line_begin = line_svg.find("points=\""), line_end = line_svg.find('"', line_begin + 8);
  const std::size_t vertices = count(line_svg.substr(line_begin, line_end - line_begin), ",");
  CHECK(vertices > 1000);
  CHECK(vertices <= 4 * 4 * 531);
  CHECK(count(bar_svg, "<rect") == 1 + 100000 + 1);  // background, bars, legend swatch
}

TEST_CASE("values at the ends of the double range are drawn without nan or inf") {
  // y = +-1e308: the span 2e308 overflows a double, and scaling by it gave cy="-nan".
  // Scales are now computed from halves of the values: both points are drawn, at the
  // bottom and top of the plot area (y = 380 and y = 40 on the 440-pixel page, within the
  // 5 % padding), and no number in the SVG is nan or inf. A y of "inf" or "1e999" in a CSV
  // is not drawn and is counted.
  const Chart chart{"t", "x", "y", {Series{"s", {"1", "2", "3"}, {-1e308, 1e308, 1.7976931348623157e308}}}, false};
  std::size_t skipped = 99;
  const std::string svg = render_svg(chart, &skipped);
  CHECK(skipped == 0);
  CHECK(count(svg, "<circle") == 3);
  CHECK(svg.find("nan") == std::string::npos);
  CHECK(svg.find("inf") == std::string::npos);
  const Chart bars{"t", "x", "y", {Series{"s", {"a", "b"}, {-1e308, 1e308}}}, false};
  const std::string bar_svg = render_svg(bars);
  CHECK(bar_svg.find("nan") == std::string::npos);
  CHECK(bar_svg.find("inf") == std::string::npos);

  ScratchCwd scratch;
  std::ofstream("r.csv") << "x,y\n1,1e308\n2,-1e308\n3,inf\n4,1e999\n5,nan\n1e999,3\n6,error\n";
  const Chart from_csv = chart_from_csv("r.csv", "x", "y", "");
  REQUIRE(from_csv.series.size() == 1);
  CHECK(from_csv.series[0].y == std::vector<double>{1e308, -1e308});
  CHECK(from_csv.skipped_non_finite == 4);  // inf, 1e999, nan as y; 1e999 as x ("error" is not a number)
  CHECK(render_svg(from_csv).find("nan") == std::string::npos);
}

TEST_CASE("a tiny span at a large magnitude gets a bounded number of ticks") {
  // 1e15 and 1e15 + 1: a tick step of 0.2 cannot be added to 1e15 (it is below its
  // precision), so stepping by addition never advanced. Ticks are counted now: at most 12.
  const Chart chart{"t", "x", "y", {Series{"s", {"1", "2"}, {1e15, 1e15 + 1}}}, false};
  const std::string svg = render_svg(chart);
  CHECK(count(svg, "stroke=\"#ddd\"") <= 12);
}

TEST_CASE("text that XML cannot hold is replaced, so the SVG always parses") {
  // A series name with a control character and a byte that is not UTF-8 (0xFF): both
  // become U+FFFD; markup characters are escaped.
  const Chart chart{"a<b", "x", "y", {Series{std::string("bad\x01\xff<>&\"", 9), {"1"}, {1}}}, false};
  const std::string svg = render_svg(chart);
  CHECK(svg.find("a&lt;b") != std::string::npos);
  CHECK(svg.find("bad\xEF\xBF\xBD\xEF\xBF\xBD&lt;&gt;&amp;&quot;") != std::string::npos);
  if (png_supported()) CHECK(render_png(svg).substr(1, 3) == "PNG");
}
