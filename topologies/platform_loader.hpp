// Reading platforms from YAML (the files of configs/platforms/).
//
// File layout (every quantity carries its unit; see configs/platforms/README.md):
//
//   name: dgx-h100
//   description: "..."
//   node_templates:
//     dgx-h100:
//       devices:
//         - {name: gpu, kind: gpu, count: 8, model: H100-SXM5-80GB, hbm_capacity: 80 GB, ...}
//         - {name: nvswitch, kind: nvswitch, ...}
//       links:
//         - {kind: nvlink4, from: gpu*, to: nvswitch, count: 18}     # every GPU to the switch
//         - {kind: pcie5x16, from: "gpu[0-7]", to: "pcie[0-3]"}       # block pattern: 2 GPUs per switch
//         - {kind: nvlink2, between: [gpu0, gpu3], count: 2}          # one explicit link
//     other: {from_file: dgx-h100.yaml, template: dgx-h100, set: ["devices.0.hbm_capacity=94 GB"]}
//   cluster:                   # optional; without it the platform is one node of the only template
//     groups:
//       - {name: trainers, template: dgx-h100, count: 512, role: trainer}
//     fabric: {kind: fat_tree, link_kind: infiniband, hosts_per_leaf: 32, oversubscription: 1, ...}
//
// Device selectors: "gpu3" (one device), "gpu*" (all devices named gpu<N>), "gpu[0-3]"
// (a range). Link patterns between the `from` and `to` lists: `block` (default; from[i] goes
// to to[i x |to| / |from|], so equal lists pair up one to one and 8 GPUs on 4 switches go
// two per switch) or `all` (every pair).
//
// Every mapping is finished (ConfigNode::finish), so a misspelt key is an error with a "did
// you mean"; an unknown device or link kind, a missing unit, a negative bandwidth and a link
// to a device that does not exist are errors naming the file, line, key path and the
// expected form.
#pragma once

#include <string>

#include "common/config.hpp"
#include "topologies/platform.hpp"

namespace dlrmsim::topo {

/// Loads a platform file. ConfigError for any problem in the file.
Platform load_platform(const std::string& path);

/// Reads a platform from a mapping (an inline `platform:` section of a scenario file, or a
/// whole platform file). Relative `from_file` paths resolve against the node's source file.
Platform load_platform(const ConfigNode& node);

/// The value of a scenario's `platform:` key: either a path (a scalar; resolved against the
/// directory of the file holding it, then against the working directory) or an inline mapping.
Platform load_platform_reference(const ConfigNode& node);

}  // namespace dlrmsim::topo
