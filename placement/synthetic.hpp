// A synthetic placement problem of any size: the workload of the planning-speed benchmark
// (`place_5000_tables_s` in dlrmsim-bench) and of the scaling tests.
//
// `nodes` nodes of `gpus_per_node` GPUs and two CPU sockets each. Device figures are those
// of a DGX A100 from public datasheets: A100-SXM4-80GB HBM 80 GB at 2039 GB/s; PCIe 4.0 x16
// 31.5 GB/s; 2x AMD EPYC 7742 with 1 TB DRAM per node (512 GiB and 204.8 GB/s per socket,
// 8 channels of DDR4-3200) and 64 cores; one 200 Gbit/s NIC per GPU. Gather, zero-copy and
// per-core gather figures are assumptions of the right order (0.5, 0.5, 1 GB/s per core),
// backward = 2x forward is TorchRec's planner constant; none of this is a calibrated
// profile, only a realistic workload for planning speed.
// Tables: rows log-uniform in [1e3, 1e8] (capped so that everything fits in the
// cluster's HBM), dim 32, 64 or 128, 1 to 30 lookups per sample, Zipf exponents in
// [0, 1.2] — drawn from std::mt19937_64 with a fixed seed, so every call returns the same.
#pragma once

#include <cstdint>

#include "placement/placement.hpp"

namespace dlrmsim::placement {

PlacementProblem make_synthetic_problem(std::size_t tables, std::uint32_t gpus_per_node, std::uint32_t nodes,
                                        std::uint64_t seed = 1);

}  // namespace dlrmsim::placement
