// Export of a platform to the engine: one bandwidth resource per link direction, one per
// memory, one compute engine per GPU and per CPU socket.
//
//   sim::ActivityGraph graph;
//   PlatformResources res = export_platform(platform, graph);
//   sim::EngineId e   = res.engine(gpu);            // add streams / compute tasks on it
//   sim::ResourceId m = res.memory(gpu);            // HBM of a GPU, DRAM of a CPU socket
//   auto route        = res.route_resources(a, b);  // link resources from a to b, in order
//
// Resources created, with their kinds (the utilisation classes of reports):
//   each link direction   capacity = link bandwidth per direction, latency = link latency,
//                         kind = the link's resource class: "nvlink", "pcie", "upi", "nic", "network"
//   each GPU's HBM        capacity = hbm_bandwidth, latency 0, kind "hbm"
//   each socket's DRAM    capacity = dram_bandwidth, latency 0, kind "dram"
//   each GPU's SMs        a core pool of sm_count SMs (GPUs whose platform gives sm_count),
//                         kind "sms": the kernels of the GPU's streams share it (one work unit
//                         is a nanosecond of one SM)
// Routes contain link resources only; a cost model that wants memory bandwidth to be
// shared adds memory(d) to the route of its transfer itself.
//
// Link resources are created first and in directed-link order, so route_resources is the
// platform route shifted by a constant: no per-pair table, O(hops) per call.
#pragma once

#include <optional>
#include <span>
#include <vector>

#include "sim/activity_graph.hpp"
#include "topologies/platform.hpp"

namespace dlrmsim::topo {

class PlatformResources {
 public:
  PlatformResources() = default;

  [[nodiscard]] const Platform& platform() const { return platform_; }
  /// The compute engine of a GPU or CPU socket; PlatformError for another kind of device.
  [[nodiscard]] sim::EngineId engine(DeviceId d) const;
  /// The memory bandwidth resource of a GPU (HBM) or CPU socket (DRAM); PlatformError otherwise.
  [[nodiscard]] sim::ResourceId memory(DeviceId d) const;
  /// The SM pool of a GPU (nullopt: not a GPU, or its platform gives no sm_count).
  [[nodiscard]] std::optional<sim::ResourceId> sms(DeviceId d) const;
  /// The resource of one link direction.
  [[nodiscard]] sim::ResourceId link_resource(DirectedLinkId d) const {
    return sim::ResourceId{first_link_resource_ + d.index};
  }
  /// Link resources from a to b in order (empty when a == b).
  [[nodiscard]] std::vector<sim::ResourceId> route_resources(DeviceId a, DeviceId b) const;
  /// Appends the route to `out` (allocation-free bulk form).
  void append_route_resources(DeviceId a, DeviceId b, std::vector<sim::ResourceId>& out) const;

 private:
  friend PlatformResources export_platform(const Platform& platform, sim::ActivityGraph& graph);
  Platform platform_;
  std::uint32_t first_link_resource_ = 0;
  std::vector<std::uint32_t> engine_of_device_;  // kNoIndex where none
  std::vector<std::uint32_t> memory_of_device_;  // kNoIndex where none
  std::vector<std::uint32_t> sms_of_device_;     // kNoIndex where none
};

/// Adds the platform's resources and engines to `graph` and returns the mapping. The
/// mapping keeps a (shared) copy of the platform, so it stays valid on its own.
PlatformResources export_platform(const Platform& platform, sim::ActivityGraph& graph);

}  // namespace dlrmsim::topo
