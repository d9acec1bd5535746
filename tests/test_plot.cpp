// Charts: numbers are read from values with units; a CSV becomes series per group; the
// SVG holds one point per row and one legend entry per series.
#include <doctest/doctest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "common/config.hpp"
#include "tools/plot.hpp"

using namespace dlrmsim;
using namespace dlrmsim::tools;

namespace {
std::size_t count(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (std::size_t p = text.find(what); p != std::string::npos; p = text.find(what, p + 1)) ++n;
  return n;
}
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

TEST_CASE("categorical x values give a bar chart") {
  Chart chart{"t", "policy", "samples/s", {Series{"M1", {"all_gpu", "all_host"}, {3, 1}}, Series{"M3", {"all_gpu", "all_host"}, {2, 4}}}, false};
  const std::string svg = render_svg(chart);
  CHECK(count(svg, "<rect") == 1 + 4 + 2);  // the background, 4 bars, 2 legend swatches
}
