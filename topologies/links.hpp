// The link catalogue: kinds of interconnect with their per-direction bandwidth and latency.
//
// Every link is full duplex: it has one bandwidth per direction and is exported to the
// engine as two independent bandwidth resources (a->b and b->a). A link may bundle several
// parallel lanes or bricks (`count`, e.g. 2 NVLinks between two V100s): its bandwidth is
// count x the per-link figure unless the platform file gives `bandwidth` explicitly.
//
// Default figures (per link, per direction) and where they come from:
//   nvlink2   25 GB/s   NVIDIA V100 datasheet: 6 links, 300 GB/s total bidirectional
//   nvlink3   25 GB/s   NVIDIA A100 datasheet: 12 links, 600 GB/s total bidirectional
//   nvlink4   25 GB/s   NVIDIA H100 datasheet: 18 links, 900 GB/s total bidirectional
//   nvlink5   50 GB/s   NVIDIA DGX B200 / GB200 NVL72 datasheets: 18 links, 1.8 TB/s total
//                       bidirectional per GPU
//   nvlink_c2c 450 GB/s NVIDIA GH200 Grace Hopper Superchip datasheet: NVLink-C2C, 900 GB/s
//                       total bidirectional between the Grace CPU and its GPU(s); a link that
//                       joins a CPU and a GPU (the loader refuses it between two GPUs)
//   pcie3x16  15.75 GB/s  PCIe 3.0: 8 GT/s x 16 lanes x 128/130 encoding / 8 bits
//   pcie4x16  31.5 GB/s   PCIe 4.0: 16 GT/s, same encoding
//   pcie5x16  63 GB/s     PCIe 5.0: 32 GT/s, same encoding
//   pcie6x16  121 GB/s    PCIe 6.0: 64 GT/s PAM4, 256-byte flits carrying 242 bytes of TLPs
//                         and DLLPs (the other 14 bytes CRC and FEC): 64 x 16 / 8 x 242 / 256
//   upi       20.8 GB/s   Intel UPI 1.0 at 10.4 GT/s x 2 bytes per transfer (Skylake-SP)
//   xgmi      36 GB/s     assumption: one AMD EPYC Rome xGMI-2 link, 16 lanes x 18 GT/s / 8
//   infinity_fabric 64 GB/s  AMD Instinct MI300X data sheet: 7 Infinity Fabric (xGMI) links per
//                       GPU, 128 GB/s bidirectional each (896 GB/s peer-to-peer in all); the
//                       GPU-to-GPU scale-up link of AMD Instinct servers (resource class
//                       "nvlink": the class of every GPU-to-GPU scale-up link)
//   ethernet, infiniband: no default; the speed is given in the file (or taken from the NIC)
// Latencies are per traversal of the link (serialisation of the first byte plus switch /
// controller pipeline). They are assumptions of the right order of magnitude, stated in
// links.cpp next to each value, and can be overridden per link in the platform file.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "common/enum_names.hpp"
#include "common/units.hpp"
#include "topologies/ids.hpp"

namespace dlrmsim::topo {

enum class LinkKind : std::uint8_t {
  nvlink2, nvlink3, nvlink4, nvlink5, nvlink_c2c, pcie3x16, pcie4x16, pcie5x16, pcie6x16, upi, xgmi, infinity_fabric,
  ethernet, infiniband
};
inline constexpr std::array<LinkKind, 14> kAllLinkKinds{
    LinkKind::nvlink2,  LinkKind::nvlink3,  LinkKind::nvlink4, LinkKind::nvlink5,         LinkKind::nvlink_c2c,
    LinkKind::pcie3x16, LinkKind::pcie4x16, LinkKind::pcie5x16, LinkKind::pcie6x16,       LinkKind::upi,
    LinkKind::xgmi,     LinkKind::infinity_fabric,             LinkKind::ethernet,       LinkKind::infiniband};

/// The YAML `kind:` values.
inline constexpr auto kLinkKindNames = enum_names<LinkKind>({{LinkKind::nvlink2, "nvlink2"},
                                                             {LinkKind::nvlink3, "nvlink3"},
                                                             {LinkKind::nvlink4, "nvlink4"},
                                                             {LinkKind::nvlink5, "nvlink5"},
                                                             {LinkKind::nvlink_c2c, "nvlink_c2c"},
                                                             {LinkKind::pcie3x16, "pcie3x16"},
                                                             {LinkKind::pcie4x16, "pcie4x16"},
                                                             {LinkKind::pcie5x16, "pcie5x16"},
                                                             {LinkKind::pcie6x16, "pcie6x16"},
                                                             {LinkKind::upi, "upi"},
                                                             {LinkKind::xgmi, "xgmi"},
                                                             {LinkKind::infinity_fabric, "infinity_fabric"},
                                                             {LinkKind::ethernet, "ethernet"},
                                                             {LinkKind::infiniband, "infiniband"}});
inline std::string_view to_string(LinkKind k) { return kLinkKindNames.name(k); }
inline std::optional<LinkKind> link_kind_from_string(std::string_view name) { return kLinkKindNames.parse(name); }

/// Catalogue entry of a link kind.
struct LinkKindInfo {
  LinkKind kind;
  std::optional<BytesPerSecond> bandwidth;        // per link, per direction; nullopt: must be given
  Seconds latency;                                // per traversal (assumption, see links.cpp)
  std::string_view resource_class;                // "nvlink", "c2c", "pcie", "upi", or "network"
  std::string_view source;                        // where the bandwidth figure comes from
};

const LinkKindInfo& link_kind_info(LinkKind k);

/// One physical, full-duplex link between two devices of a platform.
struct Link {
  LinkId id;
  DeviceId a;
  DeviceId b;
  LinkKind kind = LinkKind::pcie3x16;
  int count = 1;              // parallel lanes / bricks bundled in this link
  BytesPerSecond bandwidth;   // per direction, all `count` together
  Seconds latency;
  /// The engine resource class of both directions: "nvlink", "c2c", "pcie", "upi", "nic" (a link
  /// with a NIC at one end and a network switch at the other) or "network" (switch-switch).
  std::string resource_class;
  bool fabric = false;        // part of the cluster fabric (created by the fabric builder)
};

/// One direction of a link, as seen by routing and by the engine.
struct DirectedLink {
  DirectedLinkId id;
  LinkId link;
  DeviceId from;
  DeviceId to;
};

/// Directed link ids are 2 x link + direction (0: a->b, 1: b->a).
constexpr DirectedLinkId forward_direction(LinkId l) { return DirectedLinkId{l.index * 2}; }
constexpr DirectedLinkId reverse_direction(LinkId l) { return DirectedLinkId{l.index * 2 + 1}; }
constexpr LinkId link_of(DirectedLinkId d) { return LinkId{d.index / 2}; }

}  // namespace dlrmsim::topo
