#include "models/nccl_model.hpp"

#include <algorithm>
#include <cmath>

namespace dlrmsim::models {
namespace {

// The tables as each release's src/graph/tuning.cc states them (microseconds, GB/s), rows in
// NcclTuning's order. Where a release indexes a table by fewer GPU generations the missing
// rows repeat the row it falls back to (2.10 reads Hopper as Volta: `compCap80`). Left out:
// 2.21's tree LL128 per-channel cap where it differs from the ring's (Hopper on more than two
// nodes: 29 against 36.7 GB/s; the ring's is used) and its 0.85 for the tree pattern
// (NCCL_TOPO_PATTERN_TREE, a property of the graph search's result).
constexpr NcclTuning kV2_10{
    .version = "2.10",
    .source = "NVIDIA/nccl@v2.10.3-1 (7e51592) src/graph/tuning.cc, src/enqueue.cc",
    .base_latency = {{{4.4, 4.4, 0.0}, {3.6, 10.0, 8.4}}},
    .hop_latency = {{{{{.52, 1.25, 28.0}, {.47, 1.9, 3.4}}},
                     {{{1.0, 1.9, 28.0}, {1.0, 2.5, 5.7}}},
                     {{{5.0, 8.5, 28.0}, {2.7, 4.0, 9.6}}}}},
    .ll_max_bandwidth = {{{39.0, 39.0, 20.4}, {87.7, 22.5, 19.0}, {39.0, 39.0, 20.4}}},
    .tree_max_bandwidth_per_channel = {{{26.5, 18.5, 10.0}, {24.0, 23.6, 17.8}, {26.5, 18.5, 10.0}}},
    .ll128_max_bandwidth_per_channel = {20.0, 20.0, 20.0},
    .bus_bandwidth_cap = {0.0, 235.0, 0.0, 0.0},
    .ring_ll_factor = 0.25,
    .inter_steps_per_node = false,
    .ll_multi_node_penalty = true,
    .net_overhead = false,
    .plateau_per_channel = false,
    .plateau = {1.9, 1.9, 1.9, 1.9},
    .ll128_on_hopper = false,
    .p2p_ll = false,
    .collnet = false,
};
constexpr NcclTuning kV2_17{
    .version = "2.17",
    .source = "NVIDIA/nccl@v2.17.1-1 src/graph/tuning.cc, src/enqueue.cc",
    .base_latency = kV2_10.base_latency,
    .hop_latency = kV2_10.hop_latency,
    .ll_max_bandwidth = {{{39.0, 39.0, 20.4}, {87.7, 22.5, 19.0}, {87.7, 22.5, 19.0}}},
    .tree_max_bandwidth_per_channel = {{{26.5, 18.5, 10.0}, {24.0, 23.6, 17.8}, {38.7, 41.4, 33.0}}},
    .ll128_max_bandwidth_per_channel = {20.0, 20.0, 36.7},
    .bus_bandwidth_cap = {0.0, 235.0, 370.0, 370.0},
    .ring_ll_factor = 0.25,
    .inter_steps_per_node = true,
    .ll_multi_node_penalty = true,
    .net_overhead = false,
    .plateau_per_channel = false,
    .plateau = {1.9, 1.9, 1.5, 1.5},
    .ll128_on_hopper = true,
    .p2p_ll = true,
    // baseLat[CollNetDirect|Chain][Simple] = 0; hwLat[NVLINK|PCI][CollNet*][Simple] = 8.0,
    // hwLat[NET][CollNet*][Simple] = 10.7; arity 0.5 us; chain without the network hop, x.75.
    .collnet = true,
    .collnet_base_latency = {0.0, 0.0},
    .collnet_intra_latency = {8.0, 8.0},
    .collnet_inter_latency = {10.7, 10.7},
    .collnet_arity_latency = 0.5,
    .collnet_chain_inter = false,
    .collnet_direct_hopper_factor = 1.0,
    .collnet_chain_factor = 0.75,
};
constexpr NcclTuning kV2_21{
    .version = "2.21",
    .source = "NVIDIA/nccl@v2.21.5-1 (ab2b89c) src/graph/tuning.cc, src/enqueue.cc (the tables and lines modelled are the same at v2.22.3-1)",
    .base_latency = {{{6.8, 14.0, 0.0}, {6.6, 14.0, 8.4}}},
    .hop_latency = {{{{{.6, 1.25, 28.0}, {.6, 1.9, 3.4}}},
                     {{{1.0, 1.9, 28.0}, {1.0, 2.5, 5.7}}},
                     {{{5.0, 8.5, 28.0}, {2.7, 4.0, 14.0}}}}},
    .ll_max_bandwidth = {{{39.0, 39.0, 20.4}, {87.7, 22.5, 19.0}, {141.0, 45.0, 35.0}}},
    .tree_max_bandwidth_per_channel = {{{26.5, 18.5, 10.0}, {24.0, 23.6, 17.8}, {38.7, 41.4, 36.0}}},
    .ll128_max_bandwidth_per_channel = {20.0, 20.0, 36.7},
    .bus_bandwidth_cap = {0.0, 0.0, 0.0, 0.0},
    .ring_ll_factor = 0.5,
    .inter_steps_per_node = true,
    .ll_multi_node_penalty = false,
    .net_overhead = true,
    .plateau_per_channel = true,
    .plateau = {1.9, 1.4, 1.4, 1.4},
    .ll128_on_hopper = true,
    .p2p_ll = true,
    // hwLat[NVLINK|PCI][CollNetDirect, Chain][Simple] = 3.7, 2.8; [NET] = 31, 30; arity 0.4 us;
    // chain with the network hop; direct x.85 when minCompCap >= 90.
    .collnet = true,
    .collnet_base_latency = {0.0, 0.0},
    .collnet_intra_latency = {3.7, 2.8},
    .collnet_inter_latency = {31.0, 30.0},
    .collnet_arity_latency = 0.4,
    .collnet_chain_inter = true,
    .collnet_direct_hopper_factor = 0.85,
    .collnet_chain_factor = 1.0,
};
constexpr std::array kVersions{kV2_10, kV2_17, kV2_21};

// Tree's size correction, powers of two from 64 B to 256 MiB, per protocol (the same table in
// the three releases: ncclTopoGetAlgoTime's treeCorrectionFactor).
constexpr double kTreeCorrection[3][23] = {
    {1.0, 1.0, 1.0, 1.0, .9, .8, .7, .7, .7, .7, .6, .5, .4, .4, .5, .6, .7, .8, .9, 1.0, 1.0, 1.0, 1.0},
    {1.0, 1.0, 1.0, 1.0, 1.0, .9, .8, .8, .8, .7, .6, .6, .6, .6, .6, .6, .8, .9, .9, .9, .9, 1.0, 1.0},
    {.9, .9, .9, .9, .9, .9, .9, .8, .7, .6, .6, .5, .5, .5, .5, .6, .7, .8, .7, .7, .8, .9, .9}};

constexpr int kNvlink = 0, kPci = 1, kNet = 2;

int log2i(long long n) {
  int l = 0;
  while (n >>= 1) ++l;
  return l;
}

std::size_t index_of(NcclAlgorithm a) { return a == NcclAlgorithm::tree ? 0 : 1; }
std::size_t index_of(NcclProtocol p) { return static_cast<std::size_t>(p); }
std::size_t arch_row(NcclArch a) { return std::min<std::size_t>(static_cast<std::size_t>(a), 2); }

bool ll128_enabled(const NcclTuning& t, const NcclSystem& s) {
  if (!s.nvlink) return false;
  switch (s.arch) {
    case NcclArch::volta:
    case NcclArch::ampere: return true;
    case NcclArch::hopper: return t.ll128_on_hopper;
    case NcclArch::blackwell: return false;
  }
  return false;
}

}  // namespace

NcclArch nccl_arch(const topo::GpuSpec& gpu) {
  const std::string_view m = gpu.model;
  const auto has = [&](std::string_view w) { return m.find(w) != std::string_view::npos; };
  if (has("B100") || has("B200") || has("B300")) return NcclArch::blackwell;
  if (has("H100") || has("H200")) return NcclArch::hopper;
  if (has("A100") || has("A30") || has("A10") || has("A40")) return NcclArch::ampere;
  if (has("V100")) return NcclArch::volta;
  switch (gpu.nvlink_generation) {
    case 3: return NcclArch::ampere;
    case 4: return NcclArch::hopper;
    case 5: return NcclArch::blackwell;
    default: return NcclArch::volta;
  }
}

std::span<const NcclTuning> nccl_versions() { return kVersions; }

const NcclTuning* nccl_tuning(std::string_view version) {
  for (const NcclTuning& t : kVersions) {
    if (t.version == version) return &t;
  }
  return nullptr;
}

namespace {

// CollNet Direct and Chain (ncclTopoTuneModel's CollNet lines; see the header).
std::optional<NcclEstimate> collnet_estimate(const NcclTuning& t, const NcclSystem& s, Bytes bytes, NcclAlgorithm a,
                                             NcclProtocol p) {
  const int nodes = std::max(1, s.nodes);
  // collNetSupport: NCCL_COLLNET_ENABLE=1, at least NCCL_COLLNET_NODE_THRESHOLD (2) nodes, at
  // most NCCL_MAX_DIRECT_ARITY + 1 (8) GPUs a node; Direct only on NVSwitch nodes; Simple only.
  const int per_node = s.ranks / nodes;
  if (!t.collnet || !s.collnet || nodes < 2 || per_node > 8 || p != NcclProtocol::simple) return std::nullopt;
  const bool direct = a == NcclAlgorithm::collnet_direct;
  if (direct && !s.nvswitch) return std::nullopt;
  const std::size_t k = direct ? 0 : 1;
  // bw = graphs[a]->bwIntra for CollNet at any node count; busBw = nChannels x bw.
  double bus = s.intra_gbps;
  if (const double cap = t.bus_bandwidth_cap[static_cast<std::size_t>(s.arch)]; cap > 0.0) bus = std::min(bus, cap);
  if (direct) {
    double factor = per_node / static_cast<double>(std::max(1, s.channels));  // GPU/NIC ratio
    factor -= (factor - 1.0) / 2.0;
    bus /= factor;
    if (s.arch == NcclArch::hopper || s.arch == NcclArch::blackwell) bus *= t.collnet_direct_hopper_factor;
  } else {
    bus *= t.collnet_chain_factor;
  }
  const double bandwidth = bus * 0.5;
  if (bandwidth <= 0.0) return std::nullopt;
  const double intra = t.collnet_intra_latency[k], inter = t.collnet_inter_latency[k];
  double latency = t.collnet_base_latency[k];
  if (direct)
    latency += 2.0 * (std::min(1, per_node - 1) * intra + (per_node - 1) * t.collnet_arity_latency) + inter;
  else
    latency += 2.0 * (per_node - 1) * intra + (t.collnet_chain_inter ? inter : 0.0);
  return NcclEstimate{.algorithm = a,
                      .protocol = p,
                      .latency_us = latency,
                      .bandwidth_gbps = bandwidth,
                      .time_us = latency + bytes.value() / (1000.0 * bandwidth)};
}

}  // namespace

std::optional<NcclEstimate> nccl_all_reduce_estimate(const NcclTuning& t, const NcclSystem& s, Bytes bytes,
                                                     NcclAlgorithm a, NcclProtocol p) {
  if (s.ranks <= 1) return std::nullopt;
  if (a == NcclAlgorithm::collnet_direct || a == NcclAlgorithm::collnet_chain) return collnet_estimate(t, s, bytes, a, p);
  if (p == NcclProtocol::ll128 && !ll128_enabled(t, s)) return std::nullopt;
  const int ranks = s.ranks, nodes = std::max(1, s.nodes);
  const std::size_t ai = index_of(a), pi = index_of(p), row = arch_row(s.arch);
  const std::size_t nodes_index = static_cast<std::size_t>(std::min(nodes, 3) - 1);
  const double per_node = static_cast<double>(ranks) / nodes;

  // ncclTopoTuneModel: the bus bandwidth. Every factor below is tuning.cc's, in its order.
  double bus = (nodes <= 2 ? s.intra_gbps : s.inter_gbps);
  if (const double cap = t.bus_bandwidth_cap[static_cast<std::size_t>(s.arch)]; cap > 0.0) bus = std::min(bus, cap);
  const double ll_max = t.ll_max_bandwidth[nodes == 1 ? row : (s.amd_cpu ? 1 : 0)][nodes_index];
  const double channels = s.channels;
  if (a == NcclAlgorithm::ring && p == NcclProtocol::ll) bus = std::min(ll_max, bus * t.ring_ll_factor);
  if (a == NcclAlgorithm::ring && p == NcclProtocol::ll128)
    bus = std::min(bus * (per_node < 2 ? 0.7 : 0.92), t.ll128_max_bandwidth_per_channel[row] * channels);
  if (a == NcclAlgorithm::tree) bus = std::min(bus * .92, channels * t.tree_max_bandwidth_per_channel[row][nodes_index]);
  if (a == NcclAlgorithm::tree && p == NcclProtocol::ll) bus = std::min(bus / 3.8, ll_max);
  if (a == NcclAlgorithm::tree && p == NcclProtocol::ll128)
    bus = std::min(bus * (nodes == 1 ? 7.0 / 9.0 : 120.0 / 128.0), t.ll128_max_bandwidth_per_channel[row] * channels);
  const int steps = 2 * (ranks - 1);
  double bandwidth = bus * (a == NcclAlgorithm::ring ? static_cast<double>(ranks) / steps : 0.5);
  if (bandwidth <= 0.0) return std::nullopt;

  // The latency.
  const int hw_intra = s.nvlink ? kNvlink : kPci;
  double intra = t.hop_latency[static_cast<std::size_t>(hw_intra)][ai][pi];
  const double inter = t.hop_latency[kNet][ai][pi];
  if (t.ll_multi_node_penalty && nodes > 1 && p == NcclProtocol::ll) intra *= 1.8;
  double latency = t.base_latency[ai][pi];
  if (a == NcclAlgorithm::ring) {
    const int inter_steps = t.inter_steps_per_node ? (nodes > 1 ? 2 * nodes : 0) : 2 * (nodes - 1);
    // getNetOverhead: 1 us on Intel, 2 us on AMD hosts, x3 for Simple.
    if (t.net_overhead && nodes > 1) intra = std::max(intra, (s.amd_cpu ? 2.0 : 1.0) * (p == NcclProtocol::simple ? 3.0 : 1.0));
    latency += (steps - inter_steps) * intra + inter_steps * inter;
  } else {
    latency += 2.0 * ((ranks / nodes - 1) * intra + log2i(nodes) * inter);
  }

  // ncclTopoGetAlgoTime: tree's size correction and ring's plateau.
  const double b = bytes.value();
  if (const int log_size = log2i(static_cast<long long>(b) >> 6); a == NcclAlgorithm::tree && log_size < 23)
    bandwidth *= kTreeCorrection[pi][log_size];
  if (a == NcclAlgorithm::ring && p == NcclProtocol::simple && nodes > 1) {
    const bool plateau = t.plateau_per_channel ? b / (channels * ranks) >= 64.0 : b >= ranks / 16.0 * 65536.0;
    if (plateau) latency *= t.plateau[static_cast<std::size_t>(s.arch)];
  }
  return NcclEstimate{.algorithm = a,
                      .protocol = p,
                      .latency_us = latency,
                      .bandwidth_gbps = bandwidth,
                      .time_us = latency + b / (1000.0 * bandwidth)};
}

NcclEstimate nccl_all_reduce(const NcclTuning& t, const NcclSystem& s, Bytes bytes) {
  std::optional<NcclEstimate> best;
  for (const NcclAlgorithm a :
       {NcclAlgorithm::tree, NcclAlgorithm::ring, NcclAlgorithm::collnet_direct, NcclAlgorithm::collnet_chain}) {
    for (const NcclProtocol p : {NcclProtocol::ll, NcclProtocol::ll128, NcclProtocol::simple}) {
      const auto e = nccl_all_reduce_estimate(t, s, bytes, a, p);
      if (e && (!best || e->time_us < best->time_us)) best = e;  // NCCL keeps the first of equal times
    }
  }
  return best.value_or(NcclEstimate{});
}

Seconds nccl_all_to_all_latency(const NcclTuning& t, const NcclSystem& s, Bytes bytes_per_peer) {
  if (s.ranks <= 1) return Seconds(0.0);
  const NcclProtocol p = t.p2p_ll && bytes_per_peer.value() <= 16384.0 ? NcclProtocol::ll : NcclProtocol::simple;
  const std::size_t ring = index_of(NcclAlgorithm::ring), pi = index_of(p);
  const int hw = s.nodes > 1 ? kNet : (s.nvlink ? kNvlink : kPci);
  const int per_peer = s.nodes > 1 ? 1 : 2;
  const int rounds = (s.ranks - 1 + 32 / per_peer - 1) / (32 / per_peer);
  return Seconds((t.base_latency[ring][pi] + rounds * t.hop_latency[static_cast<std::size_t>(hw)][ring][pi]) * 1e-6);
}

}  // namespace dlrmsim::models
