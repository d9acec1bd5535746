// The platform as JSON (app/platform_report.hpp), as `dlrmsim platform --json` and the
// Python module's platform() write it.
#include <doctest/doctest.h>

#include "approx.hpp"

#include <nlohmann/json.hpp>

#include "app/platform_report.hpp"
#include "topologies/platform_loader.hpp"
#include "paths.hpp"

using namespace dlrmsim;

namespace {
using dlrmsim::testing::kRoot;
}

// System: the DGX H100 file (one node: 8 H100 of 80 GB at 3.35 TB/s, 2 CPU sockets, 8 NICs
// of 400 Gbit/s). Expected: its counts and per-node figures as the file states them, the
// sums over the 8 GPUs (640 GB of HBM), and one entry per device of its template.
TEST_CASE("the DGX H100 as JSON: counts, devices and per-node figures") {
  const topo::Platform p = topo::load_platform(kRoot + "/configs/platforms/dgx-h100.yaml");
  const auto doc = nlohmann::json::parse(app::platform_json(p));
  CHECK(doc["name"] == "dgx-h100");
  CHECK(doc["nodes"] == 1);
  CHECK(doc["gpus"] == 8);
  CHECK(doc["cpu_sockets"] == 2);
  const auto& t = doc["node_templates"]["dgx-h100"];
  CHECK(t["devices"].size() == p.devices().size());
  CHECK(t["per_node"]["gpus"] == 8);
  CHECK(t["per_node"]["hbm_bytes"].get<double>() == dlrmsim::rel(8 * 80e9));
  CHECK(t["per_node"]["nics"] == 8);
  CHECK(t["per_node"]["nic_bandwidth_bytes_per_s"].get<double>() == dlrmsim::rel(8 * 400e9 / 8));
  CHECK(t["devices"][0]["description"].get<std::string>().rfind("H100-SXM5-80GB", 0) == 0);
}
