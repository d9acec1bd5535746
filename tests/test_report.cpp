// Tests of the HTML report (tools/report.hpp): escaping, charts present, located refusal of a
// document that is not a run report.
#include <doctest/doctest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include "common/config.hpp"
#include "tools/report.hpp"

using namespace dlrmsim;
using namespace dlrmsim::tools;

namespace {
/// A minimal run document with the keys the page reads: one category, one resource class,
/// one device (used 40 of 80 GB) and one table whose name is markup.
nlohmann::json minimal_run() {
  return nlohmann::json::parse(R"({
    "scenario": "<script>alert(1)</script>", "throughput_samples_per_s": 2.5e6, "step_time_s": 0.004,
    "breakdown": {"dense_compute": {"busy_s": 0.002, "exposed_s": 0.002, "critical_path_s": 0.001},
                  "idle": {"exposed_s": 0.0, "critical_path_s": 0.0}},
    "utilization": {"gpu": {"kind": "compute", "count": 8, "utilization": 0.5}},
    "memory": [{"device": "gpu0", "used_bytes": 4e10, "capacity_bytes": 8e10}],
    "placement": {"policy": "cost_greedy", "tables": [{"table": "t&<1>", "tier": "gpu_hbm", "sharding": "table_wise",
                                                        "shards": 1, "owners": ["gpu0"]}]}})");
}
}  // namespace

// The five characters that can end a text or an attribute value become entities.
TEST_CASE("text from the input is escaped for HTML") {
  CHECK(html_escape(R"(<a href="x">'&'</a>)") == "&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;");
}

// System: the minimal run above. Expected: three inline SVG charts (breakdown, utilisation,
// memory), the headline "2.5 M samples/s", gpu0 at 50.0 % of its capacity (40 / 80 GB), the
// markup in the scenario and table names escaped (so the only <script> is the page's own),
// and no src or href that could load anything from outside the page.
TEST_CASE("the page holds the charts, the figures and only escaped input") {
  const std::string page = report_html(minimal_run(), "run.json");
  std::size_t svgs = 0;
  for (auto at = page.find("<svg"); at != std::string::npos; at = page.find("<svg", at + 1)) ++svgs;
  CHECK(svgs == 3);
  CHECK(page.find("2.5 M samples/s") != std::string::npos);
  CHECK(page.find("(50.0 %)") != std::string::npos);
  CHECK(page.find("&lt;script&gt;alert(1)&lt;/script&gt;") != std::string::npos);
  CHECK(page.find("t&amp;&lt;1&gt;") != std::string::npos);
  CHECK(page.find("<script>alert") == std::string::npos);
  // (the SVG namespace URI is a name, not a resource: only src and href can load one)
  CHECK(page.find("src=") == std::string::npos);
  CHECK(page.find("href=") == std::string::npos);
}

// A document without the throughput (not a run report), or with a string where a number
// belongs, is refused with a message naming the source and the key.
TEST_CASE("a document that is not a run report is refused naming the key") {
  nlohmann::json run = minimal_run();
  run.erase("throughput_samples_per_s");
  CHECK_THROWS_WITH_AS(report_html(run, "saved.json"),
                       "saved.json: not a run report of `dlrmsim run --json`: missing key 'throughput_samples_per_s'",
                       ConfigError);
  run = minimal_run();
  run["step_time_s"] = "fast";
  CHECK_THROWS_WITH_AS(report_html(run, "saved.json"), "saved.json: key 'step_time_s': expected a number, found \"fast\"",
                       ConfigError);
}

// System: a sweep result file of 3 points (2 ok, 1 error) with columns x, y1, y2. Expected:
// one inline SVG chart per asked-for column (2), and the status counts "2 ok" and "1 error"
// in the headline (std::map order: error first).
TEST_CASE("a sweep's page has one chart per chosen column and the points per status") {
  const auto path = std::filesystem::temp_directory_path() / "dlrmsim_test_report_sweep.csv";
  std::ofstream(path) << "point,label,x,status,error,y1,y2\n0,a,1,ok,,10,5\n1,b,2,ok,,20,4\n2,c,3,error,bad,,\n";
  const std::string page = sweep_report_html(path.string(), "x", {"y1", "y2"}, "");
  std::filesystem::remove(path);
  std::size_t svgs = 0;
  for (auto at = page.find("<svg"); at != std::string::npos; at = page.find("<svg", at + 1)) ++svgs;
  CHECK(svgs == 2);
  CHECK(page.find("1 error &nbsp; 2 ok") != std::string::npos);
}
