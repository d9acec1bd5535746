// Strong index types of the platform graph. Each is a dense index into the Platform's
// tables (devices, nodes, node groups, links, link directions), stable for the lifetime of
// the Platform and identical between two loads of the same file.
#pragma once

#include <compare>
#include <cstdint>

namespace dlrmsim::topo {

struct DeviceId {
  std::uint32_t index = 0;
  auto operator<=>(const DeviceId&) const = default;
};
struct NodeId {
  std::uint32_t index = 0;
  auto operator<=>(const NodeId&) const = default;
};
struct GroupId {
  std::uint32_t index = 0;
  auto operator<=>(const GroupId&) const = default;
};
struct LinkId {
  std::uint32_t index = 0;
  auto operator<=>(const LinkId&) const = default;
};
/// One direction of a full-duplex link: 2 x link index + (0 for a->b, 1 for b->a).
struct DirectedLinkId {
  std::uint32_t index = 0;
  auto operator<=>(const DirectedLinkId&) const = default;
};

}  // namespace dlrmsim::topo
