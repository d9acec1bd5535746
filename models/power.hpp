// Power and energy of a simulated training step: each device's power from what it did in
// the simulation, summed per node and for the job, and the energy of a step, a sample and a
// training run.
//
//   PowerReport p = estimate_power(platform, resources, graph, result, window);
//   p.job_average, p.job_peak, p.nodes[i].average, p.energy_per_sample, ...
//
// Model (linear in activity, the standard first-order server power model: Fan, Weber and
// Barroso, "Power provisioning for a warehouse-sized computer", ISCA 2007, whose measured
// servers track idle + (max - idle) x utilisation within a few per cent):
//
//   P_device(t) = idle + (max - idle) x a(t)
//
// with `idle` and `max` from the device's `power:` in the platform file (datasheet TDP or
// a published measurement; topologies/devices.hpp DevicePower) and the activity a(t) in
// [0, 1] from the simulation:
//   GPU            fraction of time its compute engine runs a kernel (compute and embedding
//                  kernels alike; HBM power is part of the board power a GPU's TDP covers);
//   CPU socket     fraction of time its engine runs host work (an upper bound: a task may use
//                  fewer than all cores), plus its DRAM: dram_idle + (dram_max - dram_idle) x
//                  bytes moved / (DRAM bandwidth x time);
//   NIC, PCIe switch, NVSwitch, fabric switch
//                  bytes through its links (both directions) / (their capacity x time).
// Devices without power figures draw 0 W and are counted in `devices_without_figures`.
//
// Chassis: what a node draws besides the devices above (fans, power-supply conversion
// losses, baseboard, storage, management) is a node template's `chassis_power: {idle, max}`
// (topologies/platform.hpp Node::chassis_power). It follows the load of the node's devices:
//
//   P_chassis(t) = chassis_idle + (chassis_max - chassis_idle) x u(t),
//   u(t) = sum over the node's devices of (P_device(t) - idle) / sum of (max - idle)
//
// so a node whose devices all run flat out draws sum(device max) + chassis_max, which the
// shipped templates set to the datasheet's maximum system power (chassis_max = datasheet
// maximum - the sum of the template's device maxima, derived in each platform file), and an
// idle node draws sum(device idle) + chassis_idle. Linear in the device load because PSU
// losses grow with the power converted (80 PLUS Titanium supplies hold 94-96 % efficiency
// from 20 % to 100 % load) and fan speed follows the heat to remove; both are assumptions of
// the first-order model, not measurements. A node whose devices have no power range (no
// figures) draws chassis_idle. The report lists the chassis as kind "chassis", its activity
// being the mean u.
//
// Time resolution: the measured window (the measured steps) is cut into kBinsPerStep bins per
// step; a(t) is averaged within each bin. Compute engines count the union of their tasks'
// intervals (concurrent kernels are not counted twice); a transfer's bytes are spread evenly
// over its duration (its rate varies with sharing; within a bin the error is the bin's
// share of that variation). Average power is the mean over the window; peak power is the
// highest bin, per node and for the job (the job's peak is at most the sum of the nodes').
//
// Representative-node runs (models/simulation.hpp, fidelity) simulate one trainer node of a
// symmetric cluster: every other node of that node template is given the representative's
// activity, bin by bin, and the fabric switches the representative's mean NIC activity
// (symmetric traffic crosses leaf and spine ports at the rate it leaves the NICs; an
// assumption that holds for the balanced collectives of the synchronous modes).
//
// Energy: step energy = job average power x step time; per sample = step energy / global
// batch; per training run = per sample x the run's samples. Facility figures multiply IT
// figures by the PUE (power usage effectiveness: facility power / IT power; The Green Grid,
// "PUE: a comprehensive examination of the metric", 2012).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/energy.hpp"
#include "sim/activity_graph.hpp"
#include "topologies/engine_export.hpp"
#include "topologies/platform.hpp"

namespace dlrmsim::models {

/// Power of one node (or of the fabric's switches, reported as node "fabric").
struct NodePowerEntry {
  std::string node;
  std::string template_name;  // "" for the fabric
  Watts average;
  Watts peak;
  Watts idle;  // every device of the node idle
  Watts max;   // every device of the node at its maximum
};

/// Power per device kind over the job (all nodes and the fabric).
struct KindPowerEntry {
  std::string kind;  // gpu, cpu (sockets, DRAM included), nic, pcie_switch, nvswitch, network_switch, chassis
  std::size_t count = 0;
  double activity = 0.0;  // mean activity over the window and the devices of that kind
  Watts average;
};

struct PowerReport {
  bool modelled = false;  // some device has power figures
  std::vector<NodePowerEntry> nodes;
  std::vector<KindPowerEntry> kinds;
  Watts job_average;  // IT power: all devices of the platform
  Watts job_peak;
  double pue = 1.0;
  Watts facility_average;        // job_average x pue
  Joules energy_per_step;        // facility energy (x pue)
  Joules energy_per_sample;      // facility energy (x pue)
  Joules energy_per_training_run;  // facility energy (x pue) for training_samples samples
  Joules it_energy_per_step;     // without the PUE
  double training_samples = 0.0;
  std::size_t devices_without_figures = 0;
};

/// What estimate_power needs besides the graph and its result.
struct PowerWindow {
  std::int64_t begin_ps = 0;   // the measured window: end of the last warm-up step
  std::int64_t end_ps = 0;     // end of the last measured step
  int measured_steps = 1;
  std::int64_t global_batch = 1;  // samples per step
  bool representative = false;    // one trainer node stands for its template's nodes
  double pue = 1.0;
  double training_samples = 0.0;  // samples of one training run
};

/// Resolution of the power profile: bins per measured step (peak power is per bin).
inline constexpr int kBinsPerStep = 50;

/// A node's power with every device (and its chassis) idle, and with all of them at their
/// maximum: the `idle` and `max` of its NodePowerEntry.
struct NodePowerLimits {
  Watts idle;
  Watts max;
};
NodePowerLimits node_power_limits(const topo::Platform& platform, const topo::Node& node);

/// The chassis' draw (see the top of this file) when the node's devices draw `device_dynamic`
/// above their idle power, out of at most `device_dynamic_max`.
Watts chassis_power_at(const topo::DevicePower& chassis, Watts device_dynamic, Watts device_dynamic_max);

/// The power report of a run. `graph` must have been built on `platform`, whose ids in it
/// are `resources` (topo::export_platform's; the step builder's resources()).
PowerReport estimate_power(const topo::Platform& platform, const topo::PlatformResources& resources,
                           const sim::ActivityGraph& graph, const sim::SimResult& result, const PowerWindow& window);

}  // namespace dlrmsim::models
