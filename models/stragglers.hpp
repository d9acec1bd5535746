// Stragglers: per-node or per-GPU slowdowns, fixed or drawn per step, and the step-time
// distribution they cause.
//
// A slowdown factor s multiplies the duration of the compute tasks (GPU kernels, CPU work)
// of a member in a step: s = 2 runs that member at half speed. What it slows is chosen by
// `applies_to` (default [compute, memory]: a slow device - thermal throttling, a noisy
// neighbour, a failing HBM stack - not a slow cable):
//  - compute: the member's dense kernels and other compute tasks;
//  - memory: its embedding lookups, pooling and sparse updates (the tasks of category
//    embedding_lookup, bound by HBM or DRAM gathers in the cost models: a slow memory);
//  - links: transfers over a link with the member at one end (its NVLink, PCIe, NIC and NIC
//    to switch links; a node's factor reaches all its devices' links): such a transfer moves s
//    times its bytes, s the largest factor along its route. Exact for a transfer alone on its
//    bottleneck (it takes s times as long, as on a link of 1/s the bandwidth); under
//    contention it takes a larger fair share than a slower link would give it (an
//    approximation), and the utilisation report counts the scaled bytes.
// Factors come from
// Factors are at most 1000 (a member 1000x slower has failed: models/goodput.hpp).
//  - `slowdown`: fixed factors by node name ("dgx3": every GPU and CPU socket of the node) or
//    device name ("dgx3.gpu5"), applied in every step; a node's and its device's multiply;
//  - `random`: a factor drawn for every member (node or GPU) in every step, from
//      bernoulli  {probability p, slowdown s}: s with probability p, else 1 (rare slow steps)
//      uniform    {min, max}: uniform in [min, max]
//      lognormal  {sigma <= 2, median (default 1)}: median x exp(sigma x z), z standard
//                 normal, clamped to [1/1000, 1000]
//    with a seed. Draws are a counter-based hash (SplitMix64 of seed, step and member) turned
//    into uniforms with 53 bits and normals by Box-Muller: every run, on every platform and
//    standard library, draws the same factors, independent of the order the step graph is
//    built in.
// A synchronous job waits for its slowest member; an asynchronous part (Persia's embedding
// workers within the staleness bound) does not. With `nodes: all` every member is simulated
// with its own factor. With `nodes: representative` the simulated node stands for every
// node of its group, so each simulated device carries the largest factor, in that step, of
// the devices it stands for (the same device of every node of its group): exact for a
// synchronous compute-bound step, an upper bound otherwise.
//
// Report: the measured steps' durations (p50, p99 and max by nearest rank), and per step
// who was waited for: walking the step's critical path back from its end (as the run
// report's critical path), the member with the largest factor among the compute tasks on
// it, if that factor exceeds 1.
//
// Scenario keys (section `stragglers:`):
//   stragglers:
//     slowdown: {dgx3: 2.0, dgx5.gpu1: 1.5}     # optional; factors > 0
//     random: {per: node, distribution: bernoulli, probability: 0.01, slowdown: 2, seed: 1}
//                                              # optional; per: node | gpu; seed default 1
//     applies_to: [compute, memory, links]     # optional; default [compute, memory]
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "common/config.hpp"
#include "sim/activity_graph.hpp"
#include "topologies/platform.hpp"

namespace dlrmsim::sim {
class WaitGraph;  // sim/critical_path.hpp
}  // namespace dlrmsim::sim

namespace dlrmsim::models {

struct StragglerOptions {
  std::map<std::string, double> fixed;  // node or device name -> factor
  struct Random {
    enum class Per { node, gpu } per = Per::node;
    enum class Distribution { bernoulli, uniform, lognormal } distribution = Distribution::bernoulli;
    double probability = 0.0;  // bernoulli
    double slowdown = 1.0;     // bernoulli
    double min = 1.0, max = 1.0;  // uniform
    double sigma = 0.0, median = 1.0;  // lognormal
    std::uint64_t seed = 1;
  };
  std::optional<Random> random;
  /// What the factors slow (`applies_to`, see the top of this file).
  bool compute = true;
  bool memory = true;
  bool links = false;

  /// Reads the `stragglers:` mapping; names are checked against `platform` (did-you-mean).
  static StragglerOptions from_config(const ConfigNode& node, const topo::Platform& platform);
};

/// The slowdown of each compute device in each step (see the top of this file).
class Slowdowns {
 public:
  Slowdowns(StragglerOptions options, topo::Platform platform);

  /// The device's own factor in `step` (fixed x drawn); 1 for devices no factor names.
  [[nodiscard]] double own(int step, topo::DeviceId d) const;
  /// The largest own factor in `step` among the devices `d` stands for in representative
  /// mode (the device at d's position in every node of d's group), and which device has it.
  struct Largest {
    double factor = 1.0;
    topo::DeviceId device;
  };
  [[nodiscard]] Largest largest_stood_for(int step, topo::DeviceId d) const;
  /// The factor of a link direction in `step` (`applies_to: links`): the larger of its two
  /// ends' factors (own, or with `representative` the largest stood for).
  [[nodiscard]] double link_factor(int step, topo::DirectedLinkId link, bool representative) const;
  [[nodiscard]] const StragglerOptions& options() const { return options_; }
  /// The member a factor belongs to, for reports: the node's name (per node) or the device's.
  [[nodiscard]] std::string member_name(topo::DeviceId d) const;

 private:
  [[nodiscard]] double drawn(int step, topo::DeviceId d) const;
  StragglerOptions options_;
  topo::Platform platform_;
  std::vector<double> fixed_;        // by device index
  std::vector<bool> device_named_;   // a fixed factor names the device itself (not its node)
};

struct StragglerReport {
  std::vector<Seconds> step_times;  // measured steps, in order
  Seconds p50, p99, max, mean;
  /// Per measured step, the member waited for ("" when nobody slower than 1 was on the path).
  std::vector<std::string> waited_for;
  std::vector<double> waited_factor;
  /// Members by the number of steps they were waited for (most first), with that count.
  std::vector<std::pair<std::string, int>> waited_counts;
};

/// The report over the measured steps `first`..`first + count - 1` of a simulated graph
/// (`step_end` per built step). Engines are named after their platform devices.
StragglerReport straggler_report(const sim::ActivityGraph& g, const sim::SimResult& r,
                                 const std::vector<sim::ActivityId>& step_end, int first, int count,
                                 const Slowdowns& slowdowns, const topo::Platform& platform, bool representative);
/// The same with the graph's wait index already built (sim/critical_path.hpp).
StragglerReport straggler_report(const sim::ActivityGraph& g, const sim::SimResult& r,
                                 const std::vector<sim::ActivityId>& step_end, int first, int count,
                                 const Slowdowns& slowdowns, const topo::Platform& platform, bool representative,
                                 const sim::WaitGraph& waits);

}  // namespace dlrmsim::models
