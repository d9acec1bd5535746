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
//
// Size limits, checked before anything is allocated (a located error, exit status 2): a
// platform is held in memory whole, about 1.5 kB per device for `platform` and some 10 kB
// per GPU once a step is simulated (a million GPUs took 10 GB and 48 s), and each node
// template keeps a route between every pair of its devices. The limits keep a platform
// under about 3 GB while leaving room far beyond today's largest clusters (DGX SuperPOD:
// 512 nodes of 23 devices; 100,000-GPU clusters are about 300,000 devices).
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "common/config.hpp"
#include "common/parameters.hpp"
#include "topologies/platform.hpp"

namespace dlrmsim::topo {

/// Devices of a whole platform (all nodes; the fabric's switches come on top): 2^18.
inline constexpr std::int64_t kMaxPlatformDevices = std::int64_t{1} << 18;
/// Links of a whole platform's nodes: 2^20.
inline constexpr std::int64_t kMaxPlatformLinks = std::int64_t{1} << 20;
/// Devices of one node template: its routing table has one route per pair of devices.
inline constexpr std::int64_t kMaxTemplateDevices = 256;
/// Links of one node template (a pattern `all` between 256 and 256 devices would be 65,536).
inline constexpr std::int64_t kMaxTemplateLinks = 4096;

class DeviceProfileFiles;  // topologies/device_profile.hpp

/// Loads a platform file. ConfigError for any problem in the file.
Platform load_platform(const std::string& path);

/// Reads a platform from a mapping (an inline `platform:` section of a scenario file, or a
/// whole platform file). Relative `from_file` paths resolve against the node's source file.
/// `profile_files`, if given, serves the CPU profiles the sockets name (a sweep worker's).
Platform load_platform(const ConfigNode& node, DeviceProfileFiles* profile_files = nullptr);

/// One line per node template whose GPUs and CPU sockets cannot all reach one another over
/// its links ("node template 'box': gpu1 has no path of links to gpu0, cpu0"), empty when all
/// can. A platform like that loads (it may be drawn and inspected) but a job whose trainers
/// or tables sit on such devices cannot move its data; `dlrmsim platform` prints these lines
/// as warnings.
std::vector<std::string> unreachable_devices(const Platform& platform);

/// The value of a scenario's `platform:` key: either a path (a scalar; resolved against the
/// directory of the file holding it, then against the working directory) or an inline mapping.
Platform load_platform_reference(const ConfigNode& node);

}  // namespace dlrmsim::topo

namespace dlrmsim::topo {

/// The declarations of every platform key load_platform reads (topologies/platform_parameters.cpp).
std::span<const Parameter> platform_parameters();

}  // namespace dlrmsim::topo
