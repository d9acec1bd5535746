// NCCL's cost model (models/nccl_model.hpp) against the closed forms of NVIDIA/nccl's
// src/graph/tuning.cc at the releases modelled: latencies at zero bytes, bandwidths, and the
// sizes at which the tuner's choice switches.
#include <doctest/doctest.h>

#include <cmath>

#include "approx.hpp"

#include "models/nccl_model.hpp"

using namespace dlrmsim;
using namespace dlrmsim::models;

namespace {

const NcclTuning& version(std::string_view v) {
  const NcclTuning* t = nccl_tuning(v);
  REQUIRE(t != nullptr);
  return *t;
}

// One DGX A100 as NCCL 2.10 sees it: 8 ranks on one node over NVLink, 16 channels, 240 GB/s
// from each GPU to its ring neighbours (12 NVLink 3 links at NCCL's 20 GB/s each).
NcclSystem dgx_a100() {
  return {.ranks = 8, .nodes = 1, .nvlink = true, .amd_cpu = true, .arch = NcclArch::ampere, .channels = 16,
          .intra_gbps = 240.0, .inter_gbps = 25.0};
}

}  // namespace

TEST_CASE("every modelled release is found by its name, oldest first") {
  std::vector<std::string_view> names;
  for (const NcclTuning& t : nccl_versions()) {
    names.push_back(t.version);
    CHECK(nccl_tuning(t.version) == &t);
  }
  CHECK(names == std::vector<std::string_view>{"2.10", "2.17", "2.21"});
  CHECK(nccl_tuning("2.99") == nullptr);
}

// At zero bytes a collective's estimate is its latency: base + hops x per-hop latency.
TEST_CASE("an all-reduce at zero bytes costs NCCL's latency terms of its algorithm and protocol") {
  const NcclTuning& t = version("2.10");
  const NcclSystem s = dgx_a100();
  // Ring: base + 2 intra hops (one node: no inter-node step).
  CHECK(nccl_all_reduce_estimate(t, s, Bytes(0.0), NcclAlgorithm::ring, NcclProtocol::simple)->time_us ==
        doctest::Approx(8.4 + 14 * 3.4));
  CHECK(nccl_all_reduce_estimate(t, s, Bytes(0.0), NcclAlgorithm::ring, NcclProtocol::ll)->time_us ==
        doctest::Approx(3.6 + 14 * 0.47));
  CHECK(nccl_all_reduce_estimate(t, s, Bytes(0.0), NcclAlgorithm::ring, NcclProtocol::ll128)->time_us ==
        doctest::Approx(10.0 + 14 * 1.9));
  // Tree: base + 2 ((R/N - 1) intra + log2(N) inter).
  CHECK(nccl_all_reduce_estimate(t, s, Bytes(0.0), NcclAlgorithm::tree, NcclProtocol::ll)->time_us ==
        doctest::Approx(4.4 + 2 * 7 * 0.52));
  // The smallest is ring LL (10.18 us against tree LL's 11.68 us).
  const NcclEstimate e = nccl_all_reduce(t, s, Bytes(0.0));
  CHECK(e.algorithm == NcclAlgorithm::ring);
  CHECK(e.protocol == NcclProtocol::ll);
  CHECK(e.latency_us == doctest::Approx(10.18));
}

TEST_CASE("on several nodes the ring pays its inter-node steps at the network's hop latency") {
  // 8 nodes of 8 H100, NCCL 2.21: s = 2 N = 16 inter-node steps of 14 us (Simple), the other
  // 2 (R-1) - s = 110 steps at max(NVLink 3.4 us, 3 x the Intel CPU's 1 us post overhead).
  const NcclTuning& t = version("2.21");
  const NcclSystem s{.ranks = 64, .nodes = 8, .nvlink = true, .amd_cpu = false, .arch = NcclArch::hopper,
                     .channels = 16, .intra_gbps = 360.0, .inter_gbps = 50.0};
  const auto ring = nccl_all_reduce_estimate(t, s, Bytes(0.0), NcclAlgorithm::ring, NcclProtocol::simple);
  CHECK(ring->latency_us == doctest::Approx(8.4 + 110 * 3.4 + 16 * 14.0));
  // Tree LL: 6.8 + 2 (7 x 0.6 + log2(8) x 5.0).
  const auto tree = nccl_all_reduce_estimate(t, s, Bytes(0.0), NcclAlgorithm::tree, NcclProtocol::ll);
  CHECK(tree->latency_us == doctest::Approx(6.8 + 2 * (7 * 0.6 + 3 * 5.0)));
  // Above the plateau threshold (S / (channels R) >= 64 B) the ring Simple latency is x1.4 on Hopper.
  const auto big = nccl_all_reduce_estimate(t, s, Bytes(64.0 * 16 * 64), NcclAlgorithm::ring, NcclProtocol::simple);
  CHECK(big->latency_us == doctest::Approx(1.4 * (8.4 + 110 * 3.4 + 16 * 14.0)));
  // 2.10 counts 2 (N-1) inter-node steps and no post overhead.
  const auto old = nccl_all_reduce_estimate(version("2.10"), s, Bytes(0.0), NcclAlgorithm::ring, NcclProtocol::simple);
  CHECK(old->latency_us == doctest::Approx(8.4 + (126 - 14) * 3.4 + 14 * 9.6));
}

TEST_CASE("the algorithm and protocol switch where NCCL's estimates cross") {
  // DGX A100, NCCL 2.10: the bus bandwidth is capped at 235 GB/s on compute capability 8.0,
  // then ring LL takes min(87.7, 235/4) = 58.75, ring LL128 235 x 0.92 = 216.2 and Simple 235,
  // each x R / (2) = 8/14; latencies 10.18, 36.6 and 56.0 us. Tree LL128 (latency
  // 4.4 + 14 x 1.25 = 21.9 us) has 235 x 0.92 x 7/9 x 1/2 GB/s times its size correction (0.6
  // from 512 KiB to 2 MiB), which beats ring LL and ring LL128 in a narrow band around 1.2 MB.
  // LL128 gives way to Simple where 36.6 + S/bw_LL128 = 56.0 + S/bw_Simple (S in bytes,
  // bw in GB/s: S / (1000 bw) us).
  const NcclTuning& t = version("2.10");
  const NcclSystem s = dgx_a100();
  const double ratio = 8.0 / 14.0;
  const double ll = 58.75 * ratio * 1000.0, ll128 = 216.2 * ratio * 1000.0, simple = 235.0 * ratio * 1000.0;
  const double tree_ll128 = 216.2 * 7.0 / 9.0 * 0.5 * 0.6 * 1000.0;
  const double ll_to_tree = (21.9 - 10.18) / (1.0 / ll - 1.0 / tree_ll128);
  const double tree_to_ll128 = (36.6 - 21.9) / (1.0 / tree_ll128 - 1.0 / ll128);
  const double ll128_to_simple = (56.0 - 36.6) / (1.0 / ll128 - 1.0 / simple);
  CHECK(ll_to_tree == doctest::Approx(1.176e6).epsilon(1e-3));
  CHECK(tree_to_ll128 == doctest::Approx(1.2534e6).epsilon(1e-3));
  CHECK(ll128_to_simple == doctest::Approx(29.96e6).epsilon(1e-3));
  auto choice = [&](double bytes) { const NcclEstimate e = nccl_all_reduce(t, s, Bytes(bytes)); return std::pair(e.algorithm, e.protocol); };
  using A = NcclAlgorithm;
  using P = NcclProtocol;
  CHECK(choice(ll_to_tree * 0.99) == std::pair(A::ring, P::ll));
  CHECK(choice(ll_to_tree * 1.01) == std::pair(A::tree, P::ll128));
  CHECK(choice(tree_to_ll128 * 0.99) == std::pair(A::tree, P::ll128));
  CHECK(choice(tree_to_ll128 * 1.01) == std::pair(A::ring, P::ll128));
  CHECK(choice(ll128_to_simple * 0.99) == std::pair(A::ring, P::ll128));
  CHECK(choice(ll128_to_simple * 1.01) == std::pair(A::ring, P::simple));
}

TEST_CASE("LL128 is offered only where NCCL enables it by default") {
  NcclSystem s = dgx_a100();
  CHECK(nccl_all_reduce_estimate(version("2.10"), s, Bytes(0.0), NcclAlgorithm::ring, NcclProtocol::ll128));
  s.nvlink = false;  // PCI only
  CHECK_FALSE(nccl_all_reduce_estimate(version("2.10"), s, Bytes(0.0), NcclAlgorithm::ring, NcclProtocol::ll128));
  s = dgx_a100();
  s.arch = NcclArch::hopper;  // 2.10 tested LL128 on compute capability 7.0 and 8.0 only
  CHECK_FALSE(nccl_all_reduce_estimate(version("2.10"), s, Bytes(0.0), NcclAlgorithm::ring, NcclProtocol::ll128));
  CHECK(nccl_all_reduce_estimate(version("2.17"), s, Bytes(0.0), NcclAlgorithm::ring, NcclProtocol::ll128));
  s.arch = NcclArch::blackwell;
  CHECK_FALSE(nccl_all_reduce_estimate(version("2.21"), s, Bytes(0.0), NcclAlgorithm::ring, NcclProtocol::ll128));
}

TEST_CASE("an all-to-all costs one kernel start and one hop per round of peers") {
  // One node of 8 NVLink GPUs: the 7 peers fit one round (32 p2p channels, 2 per peer).
  NcclSystem s = dgx_a100();
  CHECK(nccl_all_to_all_latency(version("2.10"), s, Bytes(1e6)).value() == doctest::Approx((8.4 + 3.4) * 1e-6));
  // From 2.17 on, peers of at most 16 KiB go by LL: 3.6 + 0.47 us.
  CHECK(nccl_all_to_all_latency(version("2.17"), s, Bytes(16384.0)).value() == doctest::Approx((3.6 + 0.47) * 1e-6));
  // 16 nodes of 8: 127 peers over the network, 32 at a time (1 channel each): 4 rounds of 9.6 us.
  s.ranks = 128;
  s.nodes = 16;
  CHECK(nccl_all_to_all_latency(version("2.10"), s, Bytes(1e6)).value() == doctest::Approx((8.4 + 4 * 9.6) * 1e-6));
  s.ranks = 1;
  CHECK(nccl_all_to_all_latency(version("2.10"), s, Bytes(1e6)).value() == 0.0);
}

TEST_CASE("a GPU's generation is read from its model name, else its NVLink generation") {
  topo::GpuSpec g;
  g.model = "A100-SXM4-40GB";
  CHECK(nccl_arch(g) == NcclArch::ampere);
  g.model = "H100-SXM5-80GB";
  CHECK(nccl_arch(g) == NcclArch::hopper);
  g.model = "B200";
  CHECK(nccl_arch(g) == NcclArch::blackwell);
  g.model = "V100-SXM2-32GB";
  CHECK(nccl_arch(g) == NcclArch::volta);
  g.model = "unnamed";
  g.nvlink_generation = 4;
  CHECK(nccl_arch(g) == NcclArch::hopper);
}

namespace {

// 16 DGX H100 as NCCL sees them for the dense all-reduce with SHARP: 128 ranks, 8 per node
// over NVLink through NVSwitch, 16 channels, 360 GB/s to a node peer, 50 GB/s NIC per GPU,
// NCCL_COLLNET_ENABLE=1.
NcclSystem dgx_h100_sharp(int nodes) {
  return {.ranks = 8 * nodes, .nodes = nodes, .nvlink = true, .amd_cpu = false, .arch = NcclArch::hopper,
          .channels = 16, .intra_gbps = 360.0, .inter_gbps = 50.0, .collnet = true, .nvswitch = true};
}

}  // namespace

// CollNet at zero bytes: base (0 for Simple) + 2 (min(1, g-1) intra + (g-1) arity) + inter for
// Direct, 2 (g-1) intra (+ inter from 2.21) for Chain, with g = 8 GPUs a node and the tables
// of tuning.cc: 2.17.1 intra 8.0, net 10.7, arity 0.5; 2.21.5 intra 3.7 / 2.8, net 31 / 30,
// arity 0.4.
TEST_CASE("CollNet Direct and Chain cost NCCL's CollNet latency terms") {
  const NcclSystem s = dgx_h100_sharp(16);
  const auto at = [&](std::string_view v, NcclAlgorithm a) {
    return nccl_all_reduce_estimate(version(v), s, Bytes(0.0), a, NcclProtocol::simple)->latency_us;
  };
  CHECK(at("2.17", NcclAlgorithm::collnet_direct) == doctest::Approx(2 * (8.0 + 7 * 0.5) + 10.7));  // 33.7
  CHECK(at("2.17", NcclAlgorithm::collnet_chain) == doctest::Approx(2 * 7 * 8.0));                  // 112
  CHECK(at("2.21", NcclAlgorithm::collnet_direct) == doctest::Approx(2 * (3.7 + 7 * 0.4) + 31.0));  // 44
  CHECK(at("2.21", NcclAlgorithm::collnet_chain) == doctest::Approx(2 * 7 * 2.8 + 30.0));           // 69.2
  // Simple only.
  CHECK_FALSE(nccl_all_reduce_estimate(version("2.21"), s, Bytes(0.0), NcclAlgorithm::collnet_direct, NcclProtocol::ll));
  CHECK_FALSE(nccl_all_reduce_estimate(version("2.21"), s, Bytes(0.0), NcclAlgorithm::collnet_chain, NcclProtocol::ll128));
}

// Bandwidth: the intra-node bus bandwidth (capped at 370 GB/s on Hopper in 2.17), Direct
// divided by f - (f-1)/2 with f = 8 GPUs / 16 channels = 0.5 (so x 4/3), x 0.85 on Hopper in
// 2.21; Chain x 0.75 in 2.17; the algorithm bandwidth is half the bus bandwidth.
TEST_CASE("CollNet's bandwidth follows tuning.cc's refinements per release") {
  const NcclSystem s = dgx_h100_sharp(16);
  const auto bw = [&](std::string_view v, NcclAlgorithm a) {
    return nccl_all_reduce_estimate(version(v), s, Bytes(0.0), a, NcclProtocol::simple)->bandwidth_gbps;
  };
  CHECK(bw("2.17", NcclAlgorithm::collnet_direct) == doctest::Approx(360.0 / 0.75 * 0.5));         // 240
  CHECK(bw("2.17", NcclAlgorithm::collnet_chain) == doctest::Approx(360.0 * 0.75 * 0.5));          // 135
  CHECK(bw("2.21", NcclAlgorithm::collnet_direct) == doctest::Approx(360.0 / 0.75 * 0.85 * 0.5));  // 204
  CHECK(bw("2.21", NcclAlgorithm::collnet_chain) == doctest::Approx(360.0 * 0.5));                 // 180
  // 2.17's Hopper cap applies before the refinements: 400 GB/s to a peer counts as 370.
  NcclSystem fast = s;
  fast.intra_gbps = 400.0;
  CHECK(nccl_all_reduce_estimate(version("2.17"), fast, Bytes(0.0), NcclAlgorithm::collnet_direct, NcclProtocol::simple)
            ->bandwidth_gbps == doctest::Approx(370.0 / 0.75 * 0.5));
}

// NCCL's conditions: CollNet needs NCCL_COLLNET_ENABLE=1, at least two nodes
// (NCCL_COLLNET_NODE_THRESHOLD), at most 8 GPUs a node (NCCL_MAX_DIRECT_ARITY + 1); Direct also
// an NVSwitch; 2.10's older CollNet is not modelled.
TEST_CASE("CollNet is a candidate only where NCCL enables it") {
  const auto direct = [](std::string_view v, const NcclSystem& s) {
    return nccl_all_reduce_estimate(version(v), s, Bytes(0.0), NcclAlgorithm::collnet_direct, NcclProtocol::simple)
        .has_value();
  };
  const auto chain = [](std::string_view v, const NcclSystem& s) {
    return nccl_all_reduce_estimate(version(v), s, Bytes(0.0), NcclAlgorithm::collnet_chain, NcclProtocol::simple)
        .has_value();
  };
  NcclSystem s = dgx_h100_sharp(16);
  CHECK(direct("2.21", s));
  CHECK(chain("2.21", s));
  CHECK_FALSE(direct("2.10", s));
  CHECK_FALSE(chain("2.10", s));
  NcclSystem off = s;
  off.collnet = false;
  CHECK_FALSE(direct("2.21", off));
  CHECK_FALSE(chain("2.21", off));
  CHECK_FALSE(direct("2.21", dgx_h100_sharp(1)));
  NcclSystem no_switch = s;
  no_switch.nvswitch = false;
  CHECK_FALSE(direct("2.21", no_switch));
  CHECK(chain("2.21", no_switch));
  NcclSystem wide = s;
  wide.ranks = 16 * 16;
  CHECK_FALSE(direct("2.21", wide));
}

// The choice with SHARP on 16 DGX H100 under 2.21, for the dense gradients of MLPerf
// DLRM-DCNv2 (about 40 MB): CollNet Direct, 44 + 40e6 / (1000 x 204) = 240 us, beats the
// ring and the tree, which pay per-hop latencies over 16 nodes and the NIC's 50 GB/s; without
// SHARP the tuner falls back to one of those.
TEST_CASE("with SHARP the tuner runs a large all-reduce across nodes as CollNet Direct") {
  const NcclTuning& t = version("2.21");
  NcclSystem s = dgx_h100_sharp(16);
  const NcclEstimate e = nccl_all_reduce(t, s, Bytes(40e6));
  CHECK(e.algorithm == NcclAlgorithm::collnet_direct);
  CHECK(e.time_us == doctest::Approx(44.0 + 40e6 / (1000.0 * 204.0)));
  s.collnet = false;
  const NcclEstimate without = nccl_all_reduce(t, s, Bytes(40e6));
  CHECK(without.algorithm != NcclAlgorithm::collnet_direct);
  CHECK(without.algorithm != NcclAlgorithm::collnet_chain);
  CHECK(without.time_us > e.time_us);
}
