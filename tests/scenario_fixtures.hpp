// Shipped scenarios for the tests that run them: paths into the source tree.
#pragma once

#include <string>
#include <vector>

#include "models/scenario.hpp"
#include "paths.hpp"

namespace dlrmsim::models::testing {

using dlrmsim::testing::kRoot;
inline const std::string kCalibration = kRoot + "/configs/calibration";

/// configs/scenarios/NAME.yaml with `overrides` applied as --set would.
inline Scenario shipped(const std::string& name, const std::vector<std::string>& overrides = {}) {
  return load_scenario(kRoot + "/configs/scenarios/" + name + ".yaml", overrides);
}

/// The `server` node template of the tests' small clusters (a platform's `node_templates:`
/// entry, indented under it): 2 H100 joined by NVLink, one 32-core CPU socket and one NIC of
/// bandwidth `nic` (e.g. "100 Gbit/s"), all on PCIe 5 x16.
inline std::string mini_server_template(const std::string& nic) {
  return R"(    server:
      devices:
        - {name: gpu, kind: gpu, count: 2, model: H100-SXM5-80GB, hbm_capacity: 80 GB, hbm_bandwidth: 3.35 TB/s,
           peak_flops: {fp32: 67 TFLOP/s, tf32: 494.5 TFLOP/s, bf16: 989.5 TFLOP/s, fp16: 989.5 TFLOP/s}}
        - {name: cpu, kind: cpu, model: test-cpu, cores: 32, clock: 2 GHz, dram_capacity: 512 GB,
           dram_bandwidth: 300 GB/s, memory_channels: 8, gather_bandwidth_per_core: 9 GB/s, peak_flops: {fp32: 4 TFLOP/s}}
        - {name: nic, kind: nic, bandwidth: )" +
         nic + R"(}
      links:
        - {kind: pcie5x16, from: "gpu*", to: cpu, pattern: all}
        - {kind: pcie5x16, between: [nic, cpu]}
        - {kind: nvlink4, between: [gpu0, gpu1], count: 18}
)";
}

}  // namespace dlrmsim::models::testing
