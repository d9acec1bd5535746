// Kernels that share a device's resources (ActivityGraph::add_kernel): each is a
// stream-ordered flow over its device's HBM, SMs or DRAM, capped at the rate it reaches
// alone, so concurrent kernels, copies and DMA split those resources max-min. Every case is
// a closed form, checked on both backends (the native engine and SimGrid).
#include <doctest/doctest.h>

#include "approx.hpp"

#include <array>
#include <string>

#include "sim/backend.hpp"
#include "engine_fixtures.hpp"

using namespace dlrmsim;
using namespace dlrmsim::sim;
using dlrmsim::sim::testing::end_s;

namespace {

constexpr double kUnits = kWorkUnitsPerCoreSecond;  // work units per SM-second
// SimGrid's clock has a 1 ns event precision and its solver works to 1e-5 of a capacity.
constexpr double kEpsilon = 1e-6;

}  // namespace

// System: one GPU, HBM 3.35 TB/s; a gather kernel of 1 GB whose calibrated time alone is
// 0.5 ms (2 TB/s, 60 % of the peak: random rows).
// Expected: alone it takes its solo time, 0.5 ms, not 1 GB / 3.35 TB/s: the cap is its own.
TEST_CASE("a kernel alone runs at its solo rate") {
  for (const auto& b : backends()) {
    CAPTURE(b.name);
    ActivityGraph g;
    const auto hbm = g.add_resource("gpu0.hbm", BytesPerSecond(3.35e12), Seconds(0.0), "hbm");
    const auto s = g.add_stream(g.add_engine("gpu0", "gpu"), "gpu0.compute");
    const std::array route{hbm};
    const auto k = g.add_kernel(s, 1e9, 2e12, route);
    CHECK(end_s(b.run(g), k) == dlrmsim::rel(0.5e-3).epsilon(kEpsilon));
  }
}

// System: one GPU, HBM 3 TB/s; two bandwidth-bound kernels (each alone at the full 3 TB/s) of
// 1 GB and 3 GB on two streams, started together.
// Expected: they share HBM equally until the first ends at 2 x 1 GB / 3 TB/s = 0.667 ms; the
// second then runs alone and ends at (1 + 3) GB / 3 TB/s = 1.333 ms, (b1 + b2) / BW.
TEST_CASE("two bandwidth-bound kernels sharing HBM finish at (b1 + b2) / BW") {
  for (const auto& b : backends()) {
    CAPTURE(b.name);
    ActivityGraph g;
    const auto hbm = g.add_resource("gpu0.hbm", BytesPerSecond(3e12), Seconds(0.0), "hbm");
    const auto e = g.add_engine("gpu0", "gpu");
    const auto s1 = g.add_stream(e, "gpu0.compute");
    const auto s2 = g.add_stream(e, "gpu0.comm");
    const std::array route{hbm};
    const auto k1 = g.add_kernel(s1, 1e9, 3e12, route);
    const auto k2 = g.add_kernel(s2, 3e9, 3e12, route);
    const auto r = b.run(g);
    CHECK(end_s(r, k1) == dlrmsim::rel(2e9 / 3e12).epsilon(kEpsilon));
    CHECK(end_s(r, k2) == dlrmsim::rel(4e9 / 3e12).epsilon(kEpsilon));
  }
}

// System: one GPU of N = 132 SMs; a GEMM that takes t = 1 ms on all of them, and a
// communication kernel that holds k = 16 SMs (its channels) for d = 0.4 ms, started together.
// Expected: the communication kernel gets its 16 SMs and ends at 0.4 ms; the GEMM runs on the
// other 116 meanwhile, then on all 132: it ends at t + k d / N = 1 + 16 x 0.4 / 132 =
// 1.048485 ms.
TEST_CASE("a communication kernel and a GEMM sharing SMs") {
  for (const auto& b : backends()) {
    CAPTURE(b.name);
    ActivityGraph g;
    const double n = 132.0, k = 16.0, t = 1e-3, d = 0.4e-3;
    const auto sms = g.add_cores("gpu0.sms", n, "gpu_sms");
    const auto e = g.add_engine("gpu0", "gpu");
    const auto compute = g.add_stream(e, "gpu0.compute");
    const auto comm = g.add_stream(e, "gpu0.comm");
    const std::array route{sms};
    const auto gemm = g.add_kernel(compute, n * t * kUnits, n * kUnits, route);
    const auto nccl = g.add_kernel(comm, k * d * kUnits, k * kUnits, route);
    const auto r = b.run(g);
    CHECK(end_s(r, nccl) == dlrmsim::rel(d).epsilon(kEpsilon));
    CHECK(end_s(r, gemm) == dlrmsim::rel(t + k * d / n).epsilon(kEpsilon));
  }
}

// System: one CPU socket, DRAM 100 GB/s; an embedding gather on its cores of 8 MB whose rate
// alone is 80 GB/s, and a host-to-GPU DMA of 5 MB over a 50 GB/s PCIe link that reads the same
// DRAM, started together.
// Expected: on DRAM the two get 50 GB/s each (max-min: the DMA is also held to 50 by PCIe,
// the gather to 80 by its cap, neither below the fair share); the DMA ends at 5 MB / 50 GB/s =
// 0.1 ms, the gather has 3 MB left and runs alone at 80 GB/s: 0.1 + 3 MB / 80 GB/s = 0.1375 ms.
TEST_CASE("a CPU gather and a DMA sharing DRAM") {
  for (const auto& b : backends()) {
    CAPTURE(b.name);
    ActivityGraph g;
    const auto dram = g.add_resource("cpu0.dram", BytesPerSecond(100e9), Seconds(0.0), "dram");
    const auto pcie = g.add_resource("cpu0->gpu0", BytesPerSecond(50e9), Seconds(0.0), "pcie");
    const auto cores = g.add_stream(g.add_engine("cpu0", "cpu"), "cpu0.cores");
    const std::array gather_route{dram};
    const std::array dma_route{dram, pcie};
    const auto gather = g.add_kernel(cores, 8e6, 80e9, gather_route);
    const auto dma = g.add_transfer(Bytes(5e6), dma_route);
    const auto r = b.run(g);
    CHECK(end_s(r, dma) == dlrmsim::rel(0.1e-3).epsilon(kEpsilon));
    CHECK(end_s(r, gather) == dlrmsim::rel(0.1375e-3).epsilon(kEpsilon));
  }
}

// System: a compute task of 1 ms, then a kernel of 1 GB at 1 TB/s alone on the same stream,
// then another compute task of 1 ms.
// Expected: a kernel is stream-ordered like a compute task: 1, 2 and 3 ms; it is its engine's
// work (busy 3 ms in all) and is described by its stream, with no CPU time.
TEST_CASE("a kernel waits for its stream and the stream waits for it") {
  for (const auto& b : backends()) {
    CAPTURE(b.name);
    ActivityGraph g;
    const auto hbm = g.add_resource("gpu0.hbm", BytesPerSecond(3e12), Seconds(0.0), "hbm");
    const auto s = g.add_stream(g.add_engine("gpu0", "gpu"), "gpu0.compute");
    const std::array route{hbm};
    const auto c1 = g.add_compute(s, Seconds(1e-3));
    const auto k = g.add_kernel(s, 1e9, 1e12, route);
    const auto c2 = g.add_compute(s, Seconds(1e-3));
    const auto r = b.run(g);
    CHECK(end_s(r, c1) == dlrmsim::rel(1e-3).epsilon(kEpsilon));
    CHECK(end_s(r, k) == dlrmsim::rel(2e-3).epsilon(kEpsilon));
    CHECK(end_s(r, c2) == dlrmsim::rel(3e-3).epsilon(kEpsilon));
    CHECK(r.engines.at(0).busy.value() == dlrmsim::rel(3e-3).epsilon(kEpsilon));
    CHECK(g.activity(k).engine_work());
    CHECK(g.activity(k).cpu_time().value() == 0.0);
    CHECK(g.describe(k) == "kernel #1 on stream 'gpu0.compute' of 'gpu0'");
  }
}

// System: one GPU of 132 SMs and HBM of 1 TB/s. A GEMM that takes 1 ms alone on all SMs and
// moves B_g of HBM (a part over each, capped at B_g / 1 ms), beside a gather of 1 GB that
// takes 1 ms alone (cap 1 TB/s) on another stream; then the stream's next kernel.
// Expected, B_g = 0.4 GB: HBM max-min gives the GEMM its 0.4 TB/s cap and the gather the other
// 0.6 TB/s, so the GEMM ends at 1 ms as alone; the gather has 0.4 GB left and ends at
// 1 + 0.4 / 1 = 1.4 ms. B_g = 0.8 GB: they split HBM 0.5 / 0.5, so the GEMM's traffic ends at
// 0.8 / 0.5 = 1.6 ms (its SM part at 1 ms) and the GEMM with it; the gather, 0.8 GB done,
// ends at 1.6 + 0.2 / 1 = 1.8 ms. The next kernel on the GEMM's stream (1 ms on the SMs)
// starts when the GEMM has ended, both parts: at 1 ms and 1.6 ms.
TEST_CASE("a kernel that loads SMs and HBM ends when its most slowed part has") {
  for (const double gemm_bytes : {0.4e9, 0.8e9}) {
    for (const auto& b : backends()) {
      CAPTURE(b.name);
      CAPTURE(gemm_bytes);
      ActivityGraph g;
      const double n = 132.0;
      const auto sms = g.add_cores("gpu0.sms", n, "gpu_sms");
      const auto hbm = g.add_resource("gpu0.hbm", BytesPerSecond(1e12), Seconds(0.0), "hbm");
      const auto e = g.add_engine("gpu0", "gpu");
      const auto compute = g.add_stream(e, "gpu0.compute");
      const auto side = g.add_stream(e, "gpu0.embeddings");
      const std::array on_sms{sms};
      const std::array on_hbm{hbm};
      const std::array parts{ActivityGraph::KernelPart{n * 1e-3 * kUnits, on_sms},
                             ActivityGraph::KernelPart{gemm_bytes, on_hbm}};
      const auto gemm = g.add_kernel(compute, Seconds(1e-3), parts, {});
      const auto gather = g.add_kernel(side, 1e9, 1e12, on_hbm);
      const auto next = g.add_kernel(compute, n * 1e-3 * kUnits, n * kUnits, on_sms);
      const auto r = b.run(g);
      const bool slowed = gemm_bytes > 0.5e9;
      CHECK(end_s(r, gemm) == dlrmsim::rel(slowed ? 1.6e-3 : 1e-3).epsilon(kEpsilon));
      CHECK(end_s(r, gather) == dlrmsim::rel(slowed ? 1.8e-3 : 1.4e-3).epsilon(kEpsilon));
      CHECK(r.start[next.index].seconds().value() == dlrmsim::rel(slowed ? 1.6e-3 : 1e-3).epsilon(kEpsilon));
      CHECK(end_s(r, next) == dlrmsim::rel(slowed ? 2.6e-3 : 2e-3).epsilon(kEpsilon));
      CHECK(r.resources.at(hbm.index).bytes.value() == dlrmsim::rel(1e9 + gemm_bytes).epsilon(kEpsilon));
    }
  }
}

// Bad use names the stream and what was expected.
TEST_CASE("add_kernel refuses a non-positive solo rate, a negative amount and an empty route") {
  ActivityGraph g;
  const auto hbm = g.add_resource("gpu0.hbm", BytesPerSecond(3e12), Seconds(0.0), "hbm");
  const auto s = g.add_stream(g.add_engine("gpu0", "gpu"), "gpu0.compute");
  const std::array route{hbm};
  CHECK_THROWS_WITH_AS(g.add_kernel(s, 1e9, 0.0, route),
                       "add_kernel on stream 'gpu0.compute': the solo rate must be positive, got 0.000000", GraphError);
  CHECK_THROWS_AS(g.add_kernel(s, -1.0, 1e12, route), GraphError);
  CHECK_THROWS_AS(g.add_kernel(s, 1.0, 1e12, {}), GraphError);
  const std::array parts{ActivityGraph::KernelPart{1e9, route}, ActivityGraph::KernelPart{0.0, route}};
  CHECK_THROWS_WITH_AS(g.add_kernel(s, Seconds(1e-3), parts),
                       "add_kernel on stream 'gpu0.compute': each part's amount must be positive, got 0.000000", GraphError);
  CHECK_THROWS_WITH_AS(g.add_kernel(s, Seconds(0.0), parts),
                       "add_kernel on stream 'gpu0.compute': the time alone must be positive, got 0.000000 s", GraphError);
}
