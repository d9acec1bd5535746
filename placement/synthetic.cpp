#include "placement/synthetic.hpp"

#include <algorithm>
#include <cmath>
#include <random>
#include <stdexcept>
#include <string>

namespace dlrmsim::placement {
namespace {

// A uniform double in [0, 1) from the top 53 bits: the same on every standard library
// (std::mt19937_64's sequence is fixed by the standard; its distributions are not).
double unit(std::mt19937_64& rng) { return static_cast<double>(rng() >> 11) * 0x1.0p-53; }

}  // namespace

PlacementProblem make_synthetic_problem(std::size_t tables, std::uint32_t gpus_per_node, std::uint32_t nodes,
                                        std::uint64_t seed) {
  PlacementProblem p;
  const std::uint32_t gpus = gpus_per_node * nodes;
  p.global_batch = 1024LL * std::max<std::uint32_t>(gpus, 1);
  constexpr double kSocketDram = 512.0 * 1073741824.0;
  for (std::uint32_t n = 0; n < nodes; ++n) {
    for (int s = 0; s < 2; ++s) {
      PlacementDevice d;
      d.kind = OwnerKind::cpu_socket;
      d.name = "node" + std::to_string(n) + ".cpu" + std::to_string(s);
      d.topology_id = static_cast<std::uint32_t>(p.devices.size());
      d.node = n;
      d.memory_capacity = Bytes(kSocketDram);
      d.memory_bandwidth = BytesPerSecond(204.8e9);
      d.access_granule = Bytes(64.0);
      d.cpu_rows.dram_bandwidth = d.memory_bandwidth;
      d.cpu_rows.cores = 64.0;
      d.cpu_rows.one_core = BytesPerSecond(1e9);
      d.host_link_bandwidth = BytesPerSecond(31.5e9);
      d.network_bandwidth = BytesPerSecond(gpus_per_node * 25e9 / 2);
      d.backward_factor = 2.0;
      p.devices.push_back(std::move(d));
    }
  }
  for (std::uint32_t n = 0; n < nodes; ++n) {
    for (std::uint32_t g = 0; g < gpus_per_node; ++g) {
      PlacementDevice d;
      d.kind = OwnerKind::gpu;
      d.name = "node" + std::to_string(n) + ".gpu" + std::to_string(g);
      d.topology_id = static_cast<std::uint32_t>(p.devices.size());
      d.node = n;
      d.memory_capacity = Bytes(80e9);
      d.memory_bandwidth = BytesPerSecond(2039e9);
      d.gather_efficiency = 0.5;
      d.access_granule = Bytes(32.0);
      d.host_link_bandwidth = BytesPerSecond(31.5e9);
      d.zero_copy_efficiency = 0.5;
      d.network_bandwidth = BytesPerSecond(25e9);
      d.backward_factor = 2.0;
      d.host_socket = static_cast<std::int32_t>(2 * n + (g < gpus_per_node / 2 ? 0 : 1));
      p.devices.push_back(std::move(d));
    }
  }
  std::mt19937_64 rng(seed);
  // Keep the total under half the cluster's HBM so that every policy has room.
  const double budget = 0.5 * 80e9 * gpus;
  const double per_table = budget / static_cast<double>(std::max<std::size_t>(tables, 1));
  for (std::size_t t = 0; t < tables; ++t) {
    TableDemand d;
    d.name = "t" + std::to_string(t);
    d.model_table = t;
    const int dims[] = {32, 64, 128};
    d.dim = dims[rng() % 3];
    d.element_size = Bytes(4.0);
    d.optimizer_state_per_row = Bytes(4.0);
    const double row_bytes = 4.0 * d.dim + 4.0;
    const double rows = std::pow(10.0, 3.0 + 5.0 * unit(rng));
    d.rows = static_cast<std::int64_t>(std::max(1.0, std::min(rows, per_table / row_bytes)));
    d.lookups_per_sample = 1.0 + std::floor(30.0 * unit(rng));
    d.access = AccessDistribution::zipf(1.2 * unit(rng));
    p.tables.push_back(std::move(d));
  }
  return p;
}

}  // namespace dlrmsim::placement
