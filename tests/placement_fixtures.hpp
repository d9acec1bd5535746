// Synthetic placement problems shared by the placement tests: round numbers so that the
// expected results can be computed by hand.
#pragma once

#include <string>

#include "placement/placement.hpp"

namespace dlrmsim::placement::testing {

inline constexpr double kGiB = 1073741824.0;

/// A GPU with 1 TB/s HBM at gather efficiency 0.5, PCIe 32 GB/s at zero-copy efficiency 0.5,
/// no access granule, backward = 1x forward (so forward + backward = 2x forward).
inline PlacementDevice gpu(std::string name, double hbm_gib, std::uint32_t node, std::int32_t host_socket) {
  PlacementDevice d;
  d.kind = OwnerKind::gpu;
  d.name = std::move(name);
  d.node = node;
  d.memory_capacity = Bytes(hbm_gib * kGiB);
  d.memory_bandwidth = BytesPerSecond(1e12);
  d.gather_efficiency = 0.5;
  d.host_link_bandwidth = BytesPerSecond(32e9);
  d.zero_copy_efficiency = 0.5;
  d.network_bandwidth = BytesPerSecond(12.5e9);
  d.backward_factor = 1.0;
  d.host_socket = host_socket;
  return d;
}

/// A CPU socket: 100 GB/s DRAM, 10 cores gathering 5 GB/s each (50 GB/s), no access granule
/// (a row moves its own bytes), PCIe 32 GB/s to the GPUs.
inline PlacementDevice socket(std::string name, double dram_gib, std::uint32_t node) {
  PlacementDevice d;
  d.kind = OwnerKind::cpu_socket;
  d.name = std::move(name);
  d.node = node;
  d.memory_capacity = Bytes(dram_gib * kGiB);
  d.memory_bandwidth = BytesPerSecond(100e9);
  d.cpu_rows.dram_bandwidth = d.memory_bandwidth;
  d.cpu_rows.cores = 10.0;
  d.cpu_rows.one_core = BytesPerSecond(5e9);
  d.cpu_rows.granule = Bytes(0.0);
  d.host_link_bandwidth = BytesPerSecond(32e9);
  d.network_bandwidth = BytesPerSecond(12.5e9);
  return d;
}

/// A parameter-server node: 200 GB/s DRAM, 20 cores gathering 5 GB/s each (100 GB/s), NIC 12.5 GB/s.
inline PlacementDevice server(std::string name, double dram_gib, std::uint32_t node) {
  PlacementDevice d = socket(std::move(name), dram_gib, node);
  d.kind = OwnerKind::parameter_server;
  d.memory_bandwidth = BytesPerSecond(200e9);
  d.cpu_rows.dram_bandwidth = d.memory_bandwidth;
  d.cpu_rows.cores = 20.0;
  d.cpu_rows.keyed = true;
  d.host_link_bandwidth = BytesPerSecond(0.0);
  return d;
}

/// A table of fp32 rows with row-wise Adagrad state (4 bytes per row), uniform access.
inline TableDemand table(std::string name, std::int64_t rows, int dim, double lookups) {
  TableDemand t;
  t.name = std::move(name);
  t.rows = rows;
  t.dim = dim;
  t.element_size = Bytes(4.0);
  t.lookups_per_sample = lookups;
  t.optimizer_state_per_row = Bytes(4.0);
  return t;
}

/// One node: `gpus` GPUs of `hbm_gib` each and one socket of `dram_gib`, plus `servers`
/// parameter servers of `server_gib` each on nodes 1.. .
inline PlacementProblem one_node(int gpus, double hbm_gib, double dram_gib, int servers = 0,
                                 double server_gib = 1024) {
  PlacementProblem p;
  p.global_batch = 65536;
  p.devices.push_back(socket("socket0", dram_gib, 0));
  for (int g = 0; g < gpus; ++g) p.devices.push_back(gpu("gpu" + std::to_string(g), hbm_gib, 0, 0));
  for (int s = 0; s < servers; ++s) {
    p.devices.push_back(server("ps" + std::to_string(s), server_gib, static_cast<std::uint32_t>(1 + s)));
  }
  return p;
}

}  // namespace dlrmsim::placement::testing
