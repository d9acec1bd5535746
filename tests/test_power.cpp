// Tests of the power and energy model (models/power.hpp) and of the energy and power units
// (common/energy.hpp).
#include <doctest/doctest.h>

#include "approx.hpp"

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "common/energy.hpp"
#include "models/scenario.hpp"
#include "models/power.hpp"
#include "models/simulation.hpp"
#include "topologies/platform_loader.hpp"
#include "paths.hpp"

using namespace dlrmsim;
using namespace dlrmsim::models;

namespace {

using dlrmsim::testing::kRoot;

// One H200 on PCIe with one CPU socket and one NIC (the h200-server design, inline), with
// power figures on the GPU (80 W idle, 700 W max) and the NIC (10 W idle, 16 W max) only:
// the CPU socket has none and must count as 0 W. Tables in host DRAM, so that the GPU waits
// for the CPU's gathers and is busy only part of the step (a hand sum that exercises both
// the idle and the active term).
const std::string kOneGpu = R"(
name: one_gpu_power
platform:
  name: one-h200
  node_templates:
    box:
      devices:
        - {name: gpu0, kind: gpu, model: H200-141GB, hbm_capacity: 141 GB, hbm_bandwidth: 4.8 TB/s,
           peak_flops: {fp32: 67 TFLOP/s, tf32: 494.5 TFLOP/s, bf16: 989.5 TFLOP/s, fp16: 989.5 TFLOP/s},
           sm_count: 132, power: {idle: 80 W, max: 700 W}}
        - {name: cpu0, kind: cpu, model: Xeon Platinum 8480+, cores: 56, clock: 2.0 GHz, dram_capacity: 512 GB,
           dram_bandwidth: 307.2 GB/s, memory_channels: 8, gather_bandwidth_per_core: 9 GB/s,
           peak_flops: {fp32: 7.17 TFLOP/s}}
        - {name: nic0, kind: nic, bandwidth: 100 Gbit/s, power: {idle: 10 W, max: 16 W}}
      links:
        - {kind: pcie5x16, between: [gpu0, cpu0]}
        - {kind: pcie5x16, between: [nic0, cpu0]}
model: ../models/dle_dlrm_small.yaml
training: {mode: hybrid_parallel_sync}
placement: {tiers: [host_dram]}
)";

Scenario one_gpu(const std::vector<std::string>& overrides = {}) {
  return load_scenario_text(kOneGpu + "run: {warmup_steps: 1, steps: 2, calibration: " + kRoot + "/configs/calibration}\n",
                            "one-gpu.yaml", kRoot + "/configs/scenarios", overrides);
}

std::int64_t to_ps(Seconds s) { return std::llround(s.value() * 1e12); }

/// Busy picoseconds of the engine named `name` inside [w0, w1): the union of its tasks.
std::int64_t engine_busy(const RunReport& r, const std::string& name, std::int64_t w0, std::int64_t w1) {
  const auto& g = *r.graph;
  const auto& res = *r.result;
  std::vector<std::pair<std::int64_t, std::int64_t>> iv;
  for (std::size_t a = 0; a < g.activity_count(); ++a) {
    const auto& act = g.activity(sim::ActivityId{static_cast<std::uint32_t>(a)});
    if (!act.engine_work()) continue;  // compute tasks and kernels
    if (g.engine(g.stream(sim::StreamId{act.stream}).engine).name != name) continue;
    const auto s = std::max(res.start[a].ps(), w0);
    const auto e = std::min(res.end[a].ps(), w1);
    if (e > s) iv.emplace_back(s, e);
  }
  std::sort(iv.begin(), iv.end());
  std::int64_t busy = 0, end = w0;
  for (const auto& [s, e] : iv) {
    const auto from = std::max(s, end);
    if (e > from) busy += e - from;
    end = std::max(end, e);
  }
  return busy;
}

// Runs `sc` keeping its graph; the measured window (steps 1-2 of 1 warm-up + 2) and the
// GPU's busy time in it, checked to be a real fraction of the window so both terms matter.
struct MeasuredStep {
  RunReport report;
  double window = 0.0;
  double busy = 0.0;
};
MeasuredStep measure_one_gpu(const Scenario& sc) {
  RunOptions opt;
  opt.keep_graph = true;
  MeasuredStep m{run_scenario(sc, opt)};
  const std::int64_t w0 = to_ps(m.report.step_ends[0]);
  const std::int64_t w1 = to_ps(m.report.step_ends[2]);
  m.window = static_cast<double>(w1 - w0) * 1e-12;
  m.busy = static_cast<double>(engine_busy(m.report, "gpu0", w0, w1)) * 1e-12;
  REQUIRE(m.busy > 0.05 * m.window);  // the GPU works part of the time ...
  REQUIRE(m.busy < 0.95 * m.window);  // ... and waits part of it
  return m;
}

}  // namespace

TEST_CASE("energy of a one-GPU step is the hand sum of idle and active power x time") {
  // System: the one-GPU box above, 1 warm-up + 2 measured steps, PUE 1.25.
  // Expected, by hand from the simulated schedule: over the measured window of length W
  // (2 steps), the GPU draws 80 W all the time and 620 W more while a kernel runs (busy time
  // B, the union of its tasks), the NIC 10 W (it carries nothing: one node), the CPU 0 W (no
  // figures). IT energy per step = (80 W x W + 620 W x B + 10 W x W) / 2; facility energy =
  // x 1.25; per sample = / global batch. The model bins time, but a bin's busy time is the
  // exact overlap of the busy intervals with it, so the sums agree to rounding.
  const MeasuredStep m = measure_one_gpu(one_gpu({"cost.pue=1.25"}));
  const RunReport& r = m.report;
  const double window = m.window;
  const double busy = m.busy;
  const double it_per_step = (80.0 * window + 620.0 * busy + 10.0 * window) / 2.0;
  CHECK(r.power.it_energy_per_step.value() == dlrmsim::rel(it_per_step).epsilon(1e-9));
  CHECK(r.power.energy_per_step.value() == dlrmsim::rel(1.25 * it_per_step).epsilon(1e-9));
  CHECK(r.power.energy_per_sample.value() ==
        dlrmsim::rel(1.25 * it_per_step / static_cast<double>(r.global_batch)).epsilon(1e-9));
  CHECK(r.power.energy_per_training_run.value() ==
        dlrmsim::rel(1.25 * it_per_step / static_cast<double>(r.global_batch) * kDefaultTrainingSamples).epsilon(1e-9));
  CHECK(r.power.devices_without_figures == 1);  // cpu0
  // Average IT power: energy over time; the peak bin lies between the average and the max.
  CHECK(r.power.job_average.value() == dlrmsim::rel(it_per_step / (window / 2.0)).epsilon(1e-9));
  CHECK(r.power.job_peak >= r.power.job_average);
  CHECK(r.power.job_peak.value() <= 716.0 + 1e-9);
  REQUIRE(r.power.nodes.size() == 1);
  CHECK(r.power.nodes[0].idle.value() == dlrmsim::rel(90.0));
  CHECK(r.power.nodes[0].max.value() == dlrmsim::rel(716.0));
}

TEST_CASE("power is idle power for devices that do nothing and grows with activity") {
  // The same box with the tables in GPU HBM: the GPU is busy all the time (no host gathers
  // to wait for), so it draws close to its 700 W maximum; with host DRAM it waits, and draws
  // less. Both include the NIC's 10 W idle, which carries nothing.
  const RunReport hbm = run_scenario(one_gpu({"placement.tiers=[gpu_hbm]"}));
  const RunReport host = run_scenario(one_gpu());
  CHECK(hbm.power.job_average.value() > host.power.job_average.value());
  CHECK(hbm.power.job_average.value() <= 710.0 + 1e-9);
  CHECK(host.power.job_average.value() >= 90.0);
}

TEST_CASE("power and price texts carry their units") {
  // Watts with SI prefixes; prices with a three-letter currency and an optional per-unit.
  CHECK(parse_watts("700 W").value() == 700.0);
  CHECK(parse_watts("1.2 kW").value() == dlrmsim::rel(1200.0));
  CHECK_THROWS_AS(parse_watts("700"), UnitError);      // no unit
  CHECK_THROWS_AS(parse_watts("700 J"), UnitError);    // not a power
  const Price hourly = parse_price("98.32 USD/h");
  CHECK(hourly.unit == PriceUnit::per_hour);
  CHECK(hourly.currency == "USD");
  CHECK(parse_price("120 EUR/MWh").amount == dlrmsim::rel(0.12));  // converted to per kWh
  CHECK(parse_price("120 EUR/MWh").unit == PriceUnit::per_kilowatt_hour);
  CHECK_THROWS_AS(parse_price("98.32"), UnitError);      // no currency
  CHECK_THROWS_AS(parse_price("98.32 usd/h"), UnitError);  // not a currency code
  CHECK_THROWS_AS(parse_price("98.32 USD/day"), UnitError);  // unknown unit
  CHECK((Watts(700.0) * Seconds(2.0)).value() == 1400.0);
  CHECK(format_joules(Joules(3.6e6)) == "1 kWh");
}

TEST_CASE("a representative-node run gives every node of the template the representative's power") {
  // System: 4 DGX H100 on a fat tree (configs/platforms/dgx-cluster-plan.yaml), DCNv2,
  // training.nodes=representative: one trainer node is simulated and stands for all four.
  // Expected: the four nodes report the same average and peak power (the others take the
  // representative's activity bin by bin), above their idle power (the GPUs work); the fabric
  // is reported as its own entry whose switches draw at least their idle power (500 W each).
  const Scenario sc = load_scenario(kRoot + "/configs/scenarios/default.yaml",
                                    {"platform=../platforms/dgx-cluster-plan.yaml", "platform.cluster.groups.0.count=4",
                                     "training.nodes=representative", "run.warmup_steps=1", "run.steps=1"});
  const RunReport r = run_scenario(sc);
  REQUIRE(r.simulated_trainers < r.trainers);
  std::size_t nodes = 0, switches = 0;
  for (const auto& d : sc.platform.devices()) switches += d.kind == topo::DeviceKind::network_switch ? 1 : 0;
  const NodePowerEntry* first = nullptr;
  for (const auto& n : r.power.nodes) {
    if (n.node == "fabric") {
      CHECK(n.average.value() >= 500.0 * static_cast<double>(switches) - 1e-6);
      continue;
    }
    ++nodes;
    if (!first) first = &n;
    CHECK(n.average.value() == dlrmsim::rel(first->average.value()));
    CHECK(n.peak.value() == dlrmsim::rel(first->peak.value()));
    CHECK(n.average.value() > n.idle.value() * 1.5);
  }
  CHECK(nodes == 4);
  CHECK(switches > 0);
}

TEST_CASE("a node's chassis power follows its devices' load, from its idle figure to its maximum") {
  // Closed form of models/power.hpp: P_chassis = idle + (max - idle) x u, u = the devices'
  // power above idle over their most. DGX H100's chassis (configs/platforms/dgx-h100.yaml):
  // idle 467 W, max 2776 W; its devices' dynamic range 7424 - 1248 = 6176 W.
  topo::DevicePower chassis;
  chassis.given = true;
  chassis.idle = Watts(467.0);
  chassis.max = Watts(2776.0);
  CHECK(chassis_power_at(chassis, Watts(0.0), Watts(6176.0)).value() == dlrmsim::rel(467.0));
  CHECK(chassis_power_at(chassis, Watts(6176.0), Watts(6176.0)).value() == dlrmsim::rel(2776.0));
  CHECK(chassis_power_at(chassis, Watts(3088.0), Watts(6176.0)).value() == dlrmsim::rel(467.0 + 0.5 * 2309.0));
  CHECK(chassis_power_at(chassis, Watts(10.0), Watts(0.0)).value() == dlrmsim::rel(467.0));  // no device range
  CHECK(chassis_power_at(topo::DevicePower{}, Watts(1.0), Watts(2.0)).value() == 0.0);          // not given
}

TEST_CASE("a shipped DGX at full activity draws its datasheet's maximum system power") {
  // Each DGX template's chassis_max is the datasheet maximum minus the sum of its device
  // maxima, so every device and the chassis at full activity (node_power_limits().max, the
  // report's "max") is the datasheet figure: DGX H100 and DGX H200 10.2 kW, DGX A100 6.5 kW
  // (NVIDIA datasheets). Idle stays the sum of the devices' idle figures plus chassis_idle,
  // summed here independently from the device list.
  const std::vector<std::pair<std::string, double>> shipped{
      {"dgx-h100.yaml", 10200.0}, {"dgx-h200.yaml", 10200.0}, {"dgx-a100.yaml", 6500.0}};
  for (const auto& [file, datasheet_max] : shipped) {
    CAPTURE(file);
    const topo::Platform p = topo::load_platform(kRoot + "/configs/platforms/" + file);
    REQUIRE(p.nodes().size() == 1);
    const topo::Node& node = p.nodes()[0];
    REQUIRE(node.chassis_power.given);
    double device_idle = 0.0;
    for (const auto& d : p.devices()) device_idle += d.power.idle.value() + d.power.dram_idle.value();
    const NodePowerLimits limits = node_power_limits(p, node);
    CHECK(limits.max.value() == dlrmsim::rel(datasheet_max));
    CHECK(limits.idle.value() == dlrmsim::rel(device_idle + node.chassis_power.idle.value()));
  }
}

TEST_CASE("energy of a one-GPU step with a chassis adds the chassis' idle and load-following power") {
  // System: the one-GPU box above with chassis_power {idle: 20 W, max: 100 W}. The devices'
  // dynamic range is the GPU's 620 W plus the NIC's 6 W (the CPU has no figures); the NIC
  // carries nothing (one node), so u(t) = 620 W x busy(t) / 626 W. Expected, by hand: IT
  // energy per step = ((80 + 10 + 20) W x W + 620 W x B + 80 W x 620 / 626 x B) / 2, with W
  // the 2-step window and B the GPU's busy time in it; idle 110 W and max 816 W.
  const MeasuredStep m = measure_one_gpu(one_gpu({"platform.node_templates.box.chassis_power={idle: 20 W, max: 100 W}"}));
  const RunReport& r = m.report;
  const double window = m.window;
  const double busy = m.busy;
  const double it_per_step = (110.0 * window + 620.0 * busy + 80.0 * 620.0 / 626.0 * busy) / 2.0;
  CHECK(r.power.it_energy_per_step.value() == dlrmsim::rel(it_per_step).epsilon(1e-9));
  REQUIRE(r.power.nodes.size() == 1);
  CHECK(r.power.nodes[0].idle.value() == dlrmsim::rel(110.0));
  CHECK(r.power.nodes[0].max.value() == dlrmsim::rel(816.0));
  bool chassis_kind = false;
  for (const auto& k : r.power.kinds) {
    if (k.kind != "chassis") continue;
    chassis_kind = true;
    CHECK(k.count == 1);
    CHECK(k.activity == dlrmsim::rel(620.0 / 626.0 * busy / window).epsilon(1e-9));
  }
  CHECK(chassis_kind);
}
