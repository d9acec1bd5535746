// Cluster fabrics: how the NICs of the nodes of a cluster are joined.
//
//   single_switch   every NIC port on one switch (a non-blocking network; also the model of
//                   a cloud VPC whose internal bisection is not published).
//   fat_tree        a two-level folded Clos (leaf/spine). NICs fill leaves in order
//                   (hosts_per_leaf per leaf). Each leaf has hosts_per_leaf / oversubscription
//                   uplinks spread evenly over the spines. Inter-leaf traffic is routed by
//                   destination-mod-k: the spine is (the destination NIC's port on its leaf)
//                   mod spine count, the usual deterministic fat-tree routing, which balances a
//                   permutation or all-to-all evenly over the spines.
//   rail_optimized  NIC r of every node (rail r) goes to a rail leaf: the leaf of (node,
//                   rail) is (node / nodes_per_leaf) x rails + r, as in NVIDIA DGX SuperPOD
//                   scalable units; leaves join through spines exactly as in fat_tree (a rail
//                   leaf's port of a node is its position in the leaf group, so a rail's traffic
//                   spreads over every spine). Traffic between same-rail NICs of nodes under one
//                   leaf group stays on the leaf.
//
// Bisection bandwidth (Platform::bisection_bandwidth) is computed as a maximum flow across
// the fabric from the NICs of the first half of the nodes to those of the second half, so it
// can be checked against the closed form N x B / (2 x oversubscription) of a full two-level
// fat tree with N host ports of bandwidth B.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "common/units.hpp"
#include "topologies/devices.hpp"
#include "topologies/links.hpp"

namespace dlrmsim::topo {

enum class FabricKind : std::uint8_t { single_switch, fat_tree, rail_optimized };
inline constexpr auto kFabricKindNames = enum_names<FabricKind>({{FabricKind::single_switch, "single_switch"},
                                                                 {FabricKind::fat_tree, "fat_tree"},
                                                                 {FabricKind::rail_optimized, "rail_optimized"}});
inline std::string_view to_string(FabricKind k) { return kFabricKindNames.name(k); }
inline std::optional<FabricKind> fabric_kind_from_string(std::string_view name) { return kFabricKindNames.parse(name); }

struct FabricSpec {
  FabricKind kind = FabricKind::single_switch;
  /// Link kind of every fabric link (ethernet or infiniband).
  LinkKind link_kind = LinkKind::ethernet;
  /// Bandwidth of the link from a NIC to its leaf, per direction; nullopt: the NIC's bandwidth.
  std::optional<BytesPerSecond> host_link_bandwidth;
  /// Bandwidth of one leaf-spine uplink, per direction; nullopt: the switch port bandwidth,
  /// else the largest host link bandwidth.
  std::optional<BytesPerSecond> uplink_bandwidth;
  /// Latency of one fabric link traversal (cable + switch pipeline).
  std::optional<Seconds> link_latency;
  /// The switches used for leaves and spines.
  NetworkSwitchSpec switch_spec;
  DevicePower switch_power;  // per switch (leaf or spine): `switch: {power: {idle, max}}`

  // fat_tree and rail_optimized:
  int hosts_per_leaf = 0;          // fat_tree: NIC ports per leaf; rail_optimized: nodes per rail leaf
  double oversubscription = 1.0;   // downlink : uplink bandwidth of a leaf (>= 1)
  int spines = 0;                  // 0: one spine per uplink of a leaf
  // rail_optimized:
  int rails = 0;                   // 0: the NIC count of the nodes (which must all be equal)
};

/// The platform's storage (platform key `storage`): where checkpoints are written and restarts
/// read (the goodput model, models/goodput.hpp) and where the training data is read from (the
/// step's input reader, models/host_model.hpp).
struct StorageSpec {
  /// Sustained bandwidth of the whole job to its checkpoint storage, per direction (writes
  /// for checkpoints, reads for restarts); nullopt: none given (goodput is refused).
  std::optional<BytesPerSecond> checkpoint_bandwidth;
  /// Time from a node's reader asking for one batch of training data to having it, whatever
  /// its size (0: reads take no time). With the stack's software.host.loader.batches_in_flight,
  /// it bounds the batches a node can read a second.
  Seconds dataset_read_latency{0.0};
  std::string description;  // free text: what the storage is and where its figures come from
};

}  // namespace dlrmsim::topo
