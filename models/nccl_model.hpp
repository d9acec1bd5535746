// NCCL's own cost model of a collective: the latency terms and bus bandwidths its tuner uses
// to pick an algorithm and a protocol per call (NVIDIA/nccl src/graph/tuning.cc,
// ncclTopoTuneModel and ncclTopoGetAlgoTime), at the versions a stack names.
//
// For an all-reduce of S bytes among R ranks on N nodes NCCL estimates, for each algorithm
// a in {ring, tree} and protocol p in {LL, LL128, Simple},
//   time(a, p) = latency(a, p) + S / algorithm_bandwidth(a, p)
//   latency(ring, p) = base(ring, p) + (2 (R-1) - s) intra(p) + s inter(p),
//                      s = 2 (N-1) inter-node steps (2 N from 2.18 on)
//   latency(tree, p) = base(tree, p) + 2 ((R/N - 1) intra(p) + log2(N) inter(p))
//   algorithm_bandwidth = bus_bandwidth(a, p) x (ring: R / (2 ); tree: 1/2)
// where base and the per-hop hardware latencies intra (NVLink or PCI) and inter (network)
// are the version's tables, bus_bandwidth(ring, Simple) is the GPU's bandwidth to its ring
// neighbours (inside the node for N <= 2, over the network otherwise) and the other
// combinations scale it by the version's protocol refinements (LL: 1/4 or 1/2, capped at an
// absolute per-architecture LL rate; LL128: 0.92, capped per channel; tree: 0.92, capped per
// channel, times the size correction of tree). It runs the combination of least estimated
// time; a combination NCCL disables by default (LL128 without NVLink or on an untested
// architecture) is not a candidate. The step builder adds the chosen combination's latency
// before the collective's transfers, whose bytes the engine carries over the platform's links
// (so contention still applies); the protocol's bandwidth refinement is used for the choice
// only, not to stretch the transfers, and the tree algorithm's traffic is carried as the
// engine's hierarchical all-reduce (models/collectives.hpp).
//
// All-to-all is NCCL's grouped send/receive, which the tuner does not model; here it costs
// one kernel start (base(ring, p)) and one hop latency per round of peers, the hop over the
// slowest kind of path the rank uses (NVLink or PCI inside the node, the network outside),
// with p = LL for peers of at most 16 KiB from 2.18 on (NCCL_P2P_LL_THRESHOLD, src/enqueue.cc)
// and Simple otherwise; NCCL spreads the peers over its p2p channels
// (ncclTopoComputeP2pChannels, src/graph/paths.cc: up to NCCL_MAX_P2P_NCHANNELS = 32 channels,
// 1 per network peer, 2 per NVLink peer), so a round serves 32 / channels-per-peer peers.
// The rounds are an inference from that assignment, not a formula of NCCL's.
//
// CollNet (in-network reduction: SHARP on InfiniBand, NCCL_COLLNET_ENABLE=1 with the SHARP
// plugin) adds two algorithms for an all-reduce across at least two nodes (NCCL's
// NCCL_COLLNET_NODE_THRESHOLD, 2), Simple protocol only:
//   collnet_direct (NVSwitch nodes only): every GPU reduces its 1/g of the buffer inside the
//     node, its NIC sends that part once to the switches and receives it reduced once;
//     latency = base + 2 (min(1, g-1) intra + (g-1) arity) + inter, g = R/N, with the arity
//     serialisation 0.5 us (2.17) or 0.4 us (2.21);
//     bus bandwidth = the ring's bus bandwidth inside the node / factor, factor = f - (f-1)/2,
//     f = g / channels (GPUs per CollNet channel), and x0.85 on Hopper from 2.21 on;
//   collnet_chain: a chain through the node's GPUs to one NIC and back; latency = base +
//     2 (g-1) intra (+ inter from 2.21 on); bus bandwidth x0.75 in 2.17;
//   algorithm bandwidth = bus bandwidth / 2 for both.
// The engine carries CollNet's traffic as it flows: the intra-node reduce-scatter and
// all-gather of the hierarchical all-reduce, and S/g per GPU once up and once down its NIC
// (models/collectives.hpp), against the ring's 2 (N-1)/N S/g each way. 2.10's single CollNet
// algorithm is not modelled (a stack with 2.10 and collnet on gets ring and tree). NVLS
// (NVLink SHARP) is not modelled: its 2.21 latency over several nodes (25 + 18 us) is within
// 1 us of collnet_direct's on a DGX H100 node and it moves the same bytes over the NICs.
//
// Assumptions (not read from NCCL): the ring's channel count is the SMs the stack's NCCL kernel
// holds (one CTA per channel: 16 with NVLink, 2 without, software.collectives.sms); the graph
// search's extra inter-node latency (latencyInter) is zero; the CollNet graph has the ring's
// channels (2.17's init.cc sets collNetGraph.minChannels = maxChannels = ringGraph.nChannels)
// and the ring's intra-node bandwidth per channel; LL128's placement condition on the
// NIC (PCIe switch shared with the GPU) holds wherever the GPUs have NVLink.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

#include "common/enum_names.hpp"
#include "common/units.hpp"
#include "topologies/devices.hpp"

namespace dlrmsim::models {

enum class NcclAlgorithm { tree, ring, collnet_direct, collnet_chain };
inline constexpr auto kNcclAlgorithmNames = enum_names<NcclAlgorithm>({{NcclAlgorithm::tree, "tree"},
                                                                       {NcclAlgorithm::ring, "ring"},
                                                                       {NcclAlgorithm::collnet_direct, "collnet_direct"},
                                                                       {NcclAlgorithm::collnet_chain, "collnet_chain"}});
inline std::string_view to_string(NcclAlgorithm a) { return kNcclAlgorithmNames.name(a); }

enum class NcclProtocol { ll, ll128, simple };
inline constexpr auto kNcclProtocolNames = enum_names<NcclProtocol>(
    {{NcclProtocol::ll, "LL"}, {NcclProtocol::ll128, "LL128"}, {NcclProtocol::simple, "Simple"}});
inline std::string_view to_string(NcclProtocol p) { return kNcclProtocolNames.name(p); }

/// The GPU generations NCCL's tables distinguish (by compute capability).
enum class NcclArch { volta, ampere, hopper, blackwell };
inline constexpr auto kNcclArchNames = enum_names<NcclArch>({{NcclArch::volta, "volta"},
                                                             {NcclArch::ampere, "ampere"},
                                                             {NcclArch::hopper, "hopper"},
                                                             {NcclArch::blackwell, "blackwell"}});
inline std::string_view to_string(NcclArch a) { return kNcclArchNames.name(a); }

/// The generation of a GPU as NCCL's tables index it: by its model name's family (V100:
/// volta; A100, A30, A10, A40: ampere; H100, H200, GH200: hopper; B100, B200, GB200, B300:
/// blackwell), else by its NVLink generation (2, 3, 4, 5), else volta.
NcclArch nccl_arch(const topo::GpuSpec& gpu);

/// One NCCL release's tuning tables and the formula details that changed between releases
/// (models/nccl_model.cpp gives each at its tag).
struct NcclTuning {
  std::string_view version;  // "2.10", ...
  std::string_view source;   // NVIDIA/nccl@tag src/graph/tuning.cc
  // Latencies in microseconds: [tree, ring][LL, LL128, Simple]; hardware [NVLink, PCI, network].
  std::array<std::array<double, 3>, 2> base_latency{};
  std::array<std::array<std::array<double, 3>, 2>, 3> hop_latency{};
  // GB/s. [architecture or CPU row][1 node, 2 nodes, more]: LL's absolute cap
  // (single node: by GPU row volta/ampere/hopper; several nodes: row 0 Intel, row 1 AMD).
  std::array<std::array<double, 3>, 3> ll_max_bandwidth{};
  std::array<std::array<double, 3>, 3> tree_max_bandwidth_per_channel{};  // [arch][nodes]
  std::array<double, 3> ll128_max_bandwidth_per_channel{};                // [arch]
  std::array<double, 4> bus_bandwidth_cap{};   // [arch], 0: none
  double ring_ll_factor = 0.25;                // ring LL bus bandwidth over Simple's
  bool inter_steps_per_node = false;           // s = 2 N (true) or 2 (N-1) inter-node steps
  bool ll_multi_node_penalty = true;           // intra-node LL hop x1.8 on several nodes
  bool net_overhead = false;                   // intra hop >= the CPU's network post overhead
  bool plateau_per_channel = false;            // plateau threshold S/(channels R) >= 64 (else S >= R/16 x 64 KiB)
  std::array<double, 4> plateau{};             // ring Simple multi-node latency factor per arch
  bool ll128_on_hopper = true;                 // LL128 enabled by default on compute capability 9.0
  bool p2p_ll = false;                         // send/receive of <= 16 KiB use LL
  // CollNet (Simple only; see the header). Latencies in microseconds, [direct, chain].
  bool collnet = false;                        // CollNet Direct and Chain modelled for this release
  std::array<double, 2> collnet_base_latency{};
  std::array<double, 2> collnet_intra_latency{};  // NVLink and PCI rows are equal in every release
  std::array<double, 2> collnet_inter_latency{};
  double collnet_arity_latency = 0.0;          // per GPU of the node, direct
  bool collnet_chain_inter = false;            // chain's latency counts one network hop
  double collnet_direct_hopper_factor = 1.0;   // direct's bus bandwidth on compute capability >= 9.0
  double collnet_chain_factor = 1.0;           // chain's bus bandwidth
};

/// The NCCL releases modelled, oldest first.
std::span<const NcclTuning> nccl_versions();
/// The release named `version` ("2.10", ...), or nullptr.
const NcclTuning* nccl_tuning(std::string_view version);

/// What NCCL knows of the communicator.
struct NcclSystem {
  int ranks = 1;
  int nodes = 1;
  bool nvlink = false;      // the ranks of a node reach each other over NVLink (else PCI)
  bool amd_cpu = false;     // the hosts' CPUs are AMD's (LL's cap on several nodes)
  NcclArch arch = NcclArch::volta;
  int channels = 16;        // ring channels (see the header's assumptions)
  double intra_gbps = 0.0;  // GB/s a GPU moves to its node peers (ring neighbours)
  double inter_gbps = 0.0;  // GB/s a GPU moves over the network
  bool collnet = false;     // NCCL_COLLNET_ENABLE=1 on a SHARP fabric (software.collectives.collnet)
  bool nvswitch = false;    // the node's GPUs meet at an NVSwitch (CollNet Direct's condition)
};

/// One algorithm and protocol and NCCL's estimate for it.
struct NcclEstimate {
  NcclAlgorithm algorithm = NcclAlgorithm::ring;
  NcclProtocol protocol = NcclProtocol::simple;
  double latency_us = 0.0;    // with the ring plateau factor where it applies
  double bandwidth_gbps = 0.0;  // algorithm bandwidth
  double time_us = 0.0;         // latency_us + bytes / bandwidth
};

/// NCCL's estimate of an all-reduce of `bytes` by algorithm a and protocol p, or std::nullopt
/// where NCCL disables that combination (or has no bandwidth for it).
std::optional<NcclEstimate> nccl_all_reduce_estimate(const NcclTuning& t, const NcclSystem& s, Bytes bytes,
                                                     NcclAlgorithm a, NcclProtocol p);
/// The combination NCCL runs for an all-reduce of `bytes`: the least estimated time.
NcclEstimate nccl_all_reduce(const NcclTuning& t, const NcclSystem& s, Bytes bytes);
/// The latency of an all-to-all (grouped send/receive) in which each rank sends each peer
/// `bytes_per_peer` (see the header).
Seconds nccl_all_to_all_latency(const NcclTuning& t, const NcclSystem& s, Bytes bytes_per_peer);

}  // namespace dlrmsim::models
