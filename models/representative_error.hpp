// The representative node's error against every node simulated, as measured: the table the
// run report quotes when one trainer node stands for all, and that `training.nodes: auto`
// reads to decide whether it may (ClusterFidelity::choose, models/fidelity.hpp).
//
// A row is one measurement: DLRM-DCNv2 (the shipped scenarios dcnv2_superpod_4096gpu and
// goodput_dcnv2_512gpu, as shipped: NCCL 2.17's latencies on) cut to `nodes` trainer nodes,
// 6 warm-up and 4 measured steps, step time with training.nodes=representative over step time
// with training.nodes=all. `tools/fidelity_errors.sh build/dlrmsim` prints the rows;
// tests/test_representative_error.cpp re-measures those of at most 64 nodes and fails when a
// row no longer holds. Error is a property of the workload as much as of the fabric: a job
// whose traffic differs from DLRM-DCNv2's is quoted the row of its fabric and size as the
// nearest measured evidence, and the report says so.
#pragma once

#include <cstddef>
#include <optional>
#include <span>
#include <string>

#include "topologies/fabric.hpp"

namespace dlrmsim::models {

struct RepresentativeErrorMeasurement {
  topo::FabricKind fabric;
  double oversubscription;  // the fabric's leaf oversubscription
  std::size_t nodes;        // trainer nodes
  double representative_step_s;
  double every_node_step_s;
  /// Representative over every node, minus one (negative: the representative is faster).
  [[nodiscard]] double error() const { return representative_step_s / every_node_step_s - 1.0; }
};

/// The measured rows, by fabric kind, oversubscription and node count.
std::span<const RepresentativeErrorMeasurement> representative_error_measurements();

/// The row that speaks for a job of `nodes` trainer nodes on `fabric`: of the rows of the same
/// fabric kind (and, where measured, the same oversubscription), the largest node count at
/// most `nodes`, else the smallest; nullptr when the fabric kind was never measured (a single
/// node's platform, a single switch).
const RepresentativeErrorMeasurement* representative_error_for(const std::optional<topo::FabricSpec>& fabric,
                                                               std::size_t nodes);

/// "-0.15 % against every node, measured on DLRM-DCNv2 at 512 nodes of a rail-optimised 1:1
/// fabric" (how the run report states it).
std::string describe(const RepresentativeErrorMeasurement& m);

}  // namespace dlrmsim::models
