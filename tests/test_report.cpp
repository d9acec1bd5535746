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
    "memory": [{"device": "gpu0", "kind": "gpu", "used_bytes": 4e10, "capacity_bytes": 8e10, "weights_bytes": 2e10,
                "optimizer_state_bytes": 1e10, "cache_bytes": 6e9, "activations_bytes": 4e9}],
    "placement": {"policy": "cost_greedy", "tables": [{"table": "t&<1>", "tier": "gpu_hbm", "sharding": "table_wise",
                                                        "shards": 1, "owners": ["gpu0"]}]},
    "power": {"modelled": true, "pue": 1.2, "job_average_w": 6000, "job_peak_w": 6500, "facility_average_w": 7200,
              "energy_per_step_j": 28.8, "it_energy_per_step_j": 24, "energy_per_sample_j": 0.0028125,
              "energy_per_training_run_j": 3.6e9, "training_samples": 1.28e12, "devices_without_figures": [],
              "nodes": [{"node": "node0", "template": "dgx", "average_w": 6000, "peak_w": 6500, "idle_w": 2000,
                         "max_w": 10200}],
              "kinds": {"gpu": {"count": 8, "activity": 0.5, "average_w": 400}}},
    "cost": {"available": true, "time_to_train_s": 512000, "training_samples": 1.28e12, "currency": "USD",
             "pricing": "cloud", "sources": "a price list", "per_hour": 32.8, "hardware_per_hour": 32,
             "energy_per_hour": 0.8, "per_sample": 3.6e-9, "per_million_samples": 0.0036, "per_training_run": 4665}})");
}

std::size_t count(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
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
  CHECK(page.find("40 GB of 80 GB (50 %)") != std::string::npos);
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

// System: the minimal run (step 4 ms; dense_compute busy 2 ms, exposed 2 ms, critical 1 ms;
// gpu0 holding 20 + 10 + 6 + 4 GB of 80 GB; a 6 kW node at PUE 1.2; 32.8 USD per hour).
// Expected: the step-time chart on a millisecond axis labelled with its unit, its ticks
// 0, 0.5, ... 2 (the longest bar, 2 ms, over about five steps of 0.5) and the values at the
// row's end; the memory split as four stacked parts of 25, 12.5, 7.5 and 5 % (each part
// over 80 GB); the power, energy and cost figures as the document gives them (7.2 kW
// facility = 6 kW x 1.2; 3.6e9 J = 1 MWh).
TEST_CASE("the page shows the step-time axis, the memory split, power, energy and cost") {
  const std::string page = report_html(minimal_run(), "run.json");
  CHECK(page.find(">time per step (ms)</text>") != std::string::npos);
  CHECK(page.find(">0.5</text>") != std::string::npos);
  CHECK(page.find(">2</text>") != std::string::npos);
  CHECK(page.find("busy 2 ms, exposed 2 ms, critical 1 ms") != std::string::npos);
  CHECK(page.find("gpu0, weights: 25</title>") != std::string::npos);
  CHECK(page.find("gpu0, optimiser state: 12.5</title>") != std::string::npos);
  CHECK(page.find("gpu0, cache: 7.5</title>") != std::string::npos);
  CHECK(page.find("gpu0, activations: 5</title>") != std::string::npos);
  CHECK(page.find("w 20 GB, opt 10 GB, cache 6 GB, act 4 GB") != std::string::npos);
  for (const char* id : {"step-time", "utilisation", "memory", "power", "cost", "placement-section"}) {
    CHECK(page.find(std::string("<section id=\"") + id + "\">") != std::string::npos);
  }
  CHECK(page.find("<td>7.2 kW</td>") != std::string::npos);
  CHECK(page.find("<td>1 MWh</td>") != std::string::npos);
  CHECK(page.find("<td>32.8 USD</td>") != std::string::npos);
  // No stragglers or goodput in the scenario: no such section.
  CHECK(page.find("id=\"stragglers\"") == std::string::npos);
  CHECK(page.find("id=\"goodput\"") == std::string::npos);
}

// System: 512 GPUs (64 nodes of 8), GPU k holding (1 + k mod 4) x 10 GB of weights out of
// 80 GB, and 64 nodes drawing 6000 + k W. Expected: one memory row for the kind (not 512),
// its fullest device at 50 % (40 GB: gpu3, the first with k mod 4 = 3) and emptiest at
// 12.5 % (gpu0); the power table per node template (one row) with node0 least and node63
// most drawing (6063 W).
TEST_CASE("a 512-device cluster is summarised per kind and per node template with its extremes") {
  nlohmann::json run = minimal_run();
  run["memory"] = nlohmann::json::array();
  for (int k = 0; k < 512; ++k) {
    const double w = (1 + k % 4) * 1e10;
    run["memory"].push_back({{"device", "gpu" + std::to_string(k)}, {"kind", "gpu"}, {"used_bytes", w},
                             {"capacity_bytes", 8e10}, {"weights_bytes", w}, {"optimizer_state_bytes", 0},
                             {"cache_bytes", 0}, {"activations_bytes", 0}});
  }
  run["power"]["nodes"] = nlohmann::json::array();
  for (int k = 0; k < 64; ++k) {
    run["power"]["nodes"].push_back({{"node", "node" + std::to_string(k)}, {"template", "dgx"}, {"average_w", 6000 + k},
                                     {"peak_w", 7000}, {"idle_w", 2000}, {"max_w", 10200}});
  }
  const std::string page = report_html(run, "run.json");
  CHECK(count(page, ", weights: ") == 1);
  CHECK(page.find("gpu (mean of 512)") != std::string::npos);
  CHECK(page.find("gpu3: 40 GB of 80 GB (50 %)") != std::string::npos);
  CHECK(page.find("gpu0: 10 GB of 80 GB (12.5 %)") != std::string::npos);
  CHECK(page.find("<td>node0 6 kW</td><td>node63 6.063 kW</td>") != std::string::npos);
  CHECK(count(page, "<td>node") == 2);
}

// System: a scenario with two jobs (app/run_report.hpp jobs_json). Expected: a section per
// job with its figures, and the shared-vs-alone step-time chart (job a: 10 ms shared, 8 ms
// alone: slowdown 1.25) - a page, not the refusal "missing key 'throughput_samples_per_s'".
TEST_CASE("a multi-job document gives one section per job") {
  const auto doc = nlohmann::json::parse(R"({"scenario": "two.yaml", "platform": "fat_tree", "backend": "native",
    "warmup_steps": 2, "measured_steps": 3, "activities": 100, "events": 200, "simulated_time_s": 0.05,
    "jobs": [{"name": "a", "model": "m1", "mode": "sync", "software": "s", "nodes": 2, "trainers": 16,
              "global_batch": 4096, "built_steps": 5, "step_time_s": 0.01, "throughput_samples_per_s": 409600,
              "alone_step_time_s": 0.008, "alone_throughput_samples_per_s": 512000, "slowdown": 1.25,
              "contended_throughout": true},
             {"name": "b", "model": "m2", "mode": "sync", "software": "s", "nodes": 2, "trainers": 16,
              "global_batch": 4096, "built_steps": 5, "step_time_s": 0.009, "throughput_samples_per_s": 455111,
              "alone_step_time_s": 0.009, "alone_throughput_samples_per_s": 455111, "slowdown": 1,
              "contended_throughout": false}]})");
  const std::string page = report_html(doc, "two.json");
  CHECK(page.find("<section id=\"job-0\">") != std::string::npos);
  CHECK(page.find("<section id=\"job-1\">") != std::string::npos);
  CHECK(page.find("10 ms shared, 8 ms alone (x1.25)") != std::string::npos);
  CHECK(page.find(">step time (ms)</text>") != std::string::npos);
}

namespace {
/// placement.statistics (app/plan_report.hpp) of `n` GPUs, GPU k with a total estimate of
/// (k + 1) us (all forward compute), (k + 1) GB of HBM and (k + 1) MiB received, and one table.
nlohmann::json planner_statistics(int n) {
  nlohmann::json st = {{"global_batch", 65536}, {"owners", nlohmann::json::array()}, {"tables", nlohmann::json::array()}};
  const char* figures[] = {"hbm_bytes",          "dram_bytes", "forward_compute_s", "forward_comms_s", "backward_compute_s",
                           "backward_comms_s",   "total_s",    "sent_bytes",        "received_bytes"};
  for (int k = 0; k < n; ++k) {
    const double x = k + 1.0;
    st["owners"].push_back({{"name", "gpu" + std::to_string(k)}, {"kind", "gpu"}, {"hbm_bytes", x * 1e9},
                            {"dram_bytes", 0}, {"forward_compute_s", x * 1e-6}, {"forward_comms_s", 0},
                            {"backward_compute_s", 0}, {"backward_comms_s", 0}, {"total_s", x * 1e-6},
                            {"sent_bytes", 0}, {"received_bytes", x * 1048576.0}, {"shards", {{"TW", 1}}}});
  }
  // max / mean = n / ((n + 1) / 2) for every figure that varies with k.
  const double mean = (n + 1) / 2.0, ratio = n / mean;
  nlohmann::json im = {{"kind", "gpu"}, {"devices", n}};
  for (const char* f : figures) {
    const std::string key = f;
    const bool varies = key == "hbm_bytes" || key == "forward_compute_s" || key == "total_s" || key == "received_bytes";
    const double scale = key == "hbm_bytes" ? 1e9 : key == "received_bytes" ? 1048576.0 : 1e-6;
    im["max_over_mean"][key] = varies ? ratio : 0.0;
    im["mean"][key] = varies ? mean * scale : 0.0;
    im["max_device"][key] = "gpu" + std::to_string(n - 1);
    im["min_device"][key] = "gpu0";
  }
  st["imbalance"] = nlohmann::json::array({im});
  st["tables"].push_back({{"name", "t_0"}, {"pooling_factor", 2.5}, {"compute_kernel", "fused_uvm_caching"},
                          {"shard_type", "TW"}, {"tier", "uvm"}, {"shards", 1}, {"owners", 1}, {"estimated_time_s", 3e-6}});
  return st;
}
}  // namespace

// System: the minimal run with planner statistics of 2 GPUs (totals 1 and 2 us: imbalance
// 2 / 1.5 = 1.33), then of 40 GPUs (totals 1..40 us: imbalance 40 / 20.5 = 1.95).
// Expected: with 2, a row per GPU, the imbalance row and the table's pooling factor, kernel
// and shard type; with 40 (beyond kListedRows), three rows for the kind: its mean (20.5 us),
// the largest (gpu39, 40 us) and the smallest (gpu0, 1 us), not 40.
TEST_CASE("the planner statistics section lists a few owners and summarises many with their extremes") {
  nlohmann::json run = minimal_run();
  run["placement"]["statistics"] = planner_statistics(2);
  std::string page = report_html(run, "run.json");
  CHECK(page.find("<section id=\"planner-statistics\">") != std::string::npos);
  CHECK(page.find("<tr><td>gpu0</td><td>1 GB</td>") != std::string::npos);
  CHECK(page.find("<tr><td>gpu1</td><td>2 GB</td>") != std::string::npos);
  CHECK(page.find("<tr><td>2 gpu</td><td>1.33</td>") != std::string::npos);
  CHECK(page.find("<td>t_0</td><td>2.5</td><td>fused_uvm_caching</td><td>TW</td>") != std::string::npos);

  run["placement"]["statistics"] = planner_statistics(40);
  page = report_html(run, "run.json");
  CHECK(page.find("<tr><td>gpu (mean of 40)</td><td>20.5 GB</td>") != std::string::npos);
  CHECK(page.find("<tr><td>largest: gpu39</td><td>40 GB</td>") != std::string::npos);
  CHECK(page.find("<tr><td>smallest: gpu0</td><td>1 GB</td>") != std::string::npos);
  CHECK(page.find("<tr><td>40 gpu</td><td>1.95</td>") != std::string::npos);
  CHECK(count(page, "<tr><td>gpu1</td>") == 0);  // no row per GPU
  // Without statistics (a run saved before they existed): no section.
  run["placement"].erase("statistics");
  CHECK(report_html(run, "run.json").find("planner-statistics") == std::string::npos);
}
