// Failures, checkpoints and goodput over a whole training run.
//
// A synchronous training job stops when any of its components fails; it then restarts from
// its last checkpoint and redoes the work since. Given the simulated throughput, this model
// answers what a capacity planner asks of a run: how long N samples take in expectation,
// what fraction of the failure-free rate is left (goodput), and which checkpoint interval
// minimises the expected time.
//
// Model (first-order renewal model of checkpoint/restart under exponential failures):
//  - Failures of the job arrive as a Poisson process of rate
//        lambda = sum over components c of count_c x rate_c
//    (independent components, constant rates: the exponential assumption of Young 1974 and
//    Daly 2006). count_c comes from the platform: GPUs, hosts (nodes), links (the nodes'
//    NICs, each with its cable to the fabric) and switches (the fabric's leaves and spines);
//    `software` failures (framework bugs, collective time-outs) are counted per GPU (an
//    assumption: they grow with the number of ranks). Every component of the platform is
//    taken to belong to the job; any one failure stops the whole job (synchronous training,
//    as in the Llama 3 report below).
//  - The W = N / throughput seconds of failure-free work are cut into segments of length
//    tau, each followed by a checkpoint that blocks training for C = written bytes / storage
//    bandwidth (assumption: the write is not overlapped with training; Check-N-Run stalls
//    only to snapshot and writes in the background, so C here is an upper bound). The last
//    segment needs no checkpoint. After a failure the job pays R = restart + full checkpoint
//    bytes / storage bandwidth (relaunch, then read the state back) and redoes its segment.
//  - The expected time of one segment of work t followed by a checkpoint of cost c, with
//    failures possible during work, checkpoint and restart alike, is exactly
//        E(t, c) = exp(lambda R) (exp(lambda (t + c)) - 1) / lambda
//    [Bougeret, Casanova, Rabie, Robert, Vivien, "Checkpointing strategies for parallel jobs",
//    SC 2011, Proposition 1 with no downtime]; E -> t + c as lambda -> 0. The run's expected
//    time is the sum over its segments. Goodput = N / expected time; with no failures and no
//    checkpoint it equals the throughput.
//  - Best interval: for a fixed number k of segments, equal segments tau = W / k minimise the
//    sum (E is convex in t), so the search is over the integer k: a geometric scan, then a
//    ternary refinement between the scan's neighbours. Young's first-order optimum
//    tau = sqrt(2 C / lambda) [Young, "A first order approximation to the optimum checkpoint
//    interval", CACM 1974] is reported next to it; the two agree when C and R are small
//    against 1 / lambda (tests/test_goodput.cpp checks 5 %).
//
// Checkpoint size: the model's embedding weights and optimiser state (every table, every
// row) plus one replica of the dense weights (fp32 master copy) and its optimiser state, as
// the placement's memory accounting counts them (models/model_spec.hpp). Incremental
// checkpoints write only the embedding rows modified since the last one: the scenario's
// `checkpoint.embedding_fraction_written` (default 1, full checkpoints). Check-N-Run
// [Eisenman et al., NSDI 2022] reports that incremental checkpoints plus quantisation cut
// the write bandwidth of Facebook's recommendation models by 6-17x and uses a 30-minute
// default interval; a restart always reads the full state.
//
// Failure rates (preset `llama3_16k_h100`): "The Llama 3 Herd of Models" (Meta, 2024),
// section 3.3.4, table 5: 419 unexpected interruptions in a 54-day (1,296 h) snapshot of
// pre-training on 16,384 H100 GPUs in 2,048 Grand Teton servers of 8 GPUs, one 400 Gbit/s
// NIC per GPU, 16 GPUs (2 servers) per top-of-rack switch. Grouped by component:
//    gpu       268 = faulty GPU 148 + HBM3 72 + SRAM 19 + GPU system processor 17 + silent data
//                    corruption 6 + thermal interface and sensor 6, over 16,384 GPUs
//    host       46 = host maintenance (unplanned) 32 + SSD 3 + power supply 3 + chassis 2 +
//                    IO expansion board 2 + CPU 2 + system memory 2, over 2,048 hosts
//    link        7 = NIC 7, over 16,384 NICs
//    switch     35 = network switch / cable 35, over 1,024 top-of-rack switches (assumption:
//                    the cluster's and aggregation switches are not counted in the
//                    denominator, so the per-switch rate is an upper bound; cables are
//                    folded into the switch that they plug into)
//    software   63 = software bug 54 + NCCL watchdog time-outs 7 + dependency 2, per GPU
//  (268 + 46 + 7 + 35 + 63 = 419.) The 47 planned interruptions are left out.
//
// Scenario keys (section `goodput:`; the run report gains a goodput part when it is given):
//   goodput:
//     samples: 4.0e12                 # samples to train (N), > 0
//     failure_rates:                  # failures of ONE component per time: "N per TIME"
//       preset: llama3_16k_h100       # optional: start from a published set (above)
//       gpu: 1 per 80000 h            # gpu, host, link, switch, software; each overrides the preset
//     checkpoint:
//       interval: best                # `best` (default) or a time such as "30 min"
//       embedding_fraction_written: 1 # in [0, 1]: incremental checkpoints write this share of the tables
//     restart: 10 min                 # required: detection, rescheduling and relaunch before
//                                     # the checkpoint is read back (>= 0)
// and the platform's `storage: {checkpoint_bandwidth: ...}` (topologies/fabric.hpp).
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "common/config.hpp"
#include "common/units.hpp"
#include "models/model_spec.hpp"
#include "topologies/platform.hpp"

namespace dlrmsim::models {

/// The kinds of component that fail, in report order.
enum class FailureComponent { gpu, host, link, switch_, software };
inline constexpr std::size_t kFailureComponents = 5;
inline constexpr auto kFailureComponentNames = enum_names<FailureComponent>({{FailureComponent::gpu, "gpu"},
                                                                             {FailureComponent::host, "host"},
                                                                             {FailureComponent::link, "link"},
                                                                             {FailureComponent::switch_, "switch"},
                                                                             {FailureComponent::software, "software"}});
inline std::string_view to_string(FailureComponent c) { return kFailureComponentNames.name(c); }

/// One component's failure rate: failures of one instance per second.
struct ComponentFailureRate {
  Hertz rate;
  std::string source;  // "llama3_16k_h100 preset", "scenario", or "not given"
};

/// Reads "N per TIME" ("1 per 80000 h", "2.5e-5 per h", "0 per h"): failures per time.
/// ConfigError at `node` for a value with no "per" unit, a negative count or a time that is
/// not a positive duration.
Hertz parse_failure_rate(const ConfigNode& node);

struct GoodputOptions {
  double samples = 0.0;  // N
  std::array<ComponentFailureRate, kFailureComponents> failure_rates{};
  std::optional<Seconds> checkpoint_interval;  // nullopt: the best one
  double embedding_fraction_written = 1.0;
  Seconds restart;

  /// Reads the scenario's `goodput:` mapping (see the top of this file).
  static GoodputOptions from_config(const ConfigNode& node);
};

/// The preset rates (name: "llama3_16k_h100"); nullopt for an unknown name.
std::optional<std::array<ComponentFailureRate, kFailureComponents>> failure_rate_preset(const std::string& name);

/// What the model needs besides the options.
struct GoodputInputs {
  double throughput_samples_per_s = 0.0;
  std::array<double, kFailureComponents> component_counts{};  // gpu, host, link, switch, software (= GPUs)
  Bytes checkpoint_full_bytes;     // the whole training state
  Bytes checkpoint_written_bytes;  // what one checkpoint writes
  BytesPerSecond storage_bandwidth;
};

/// Inputs for a model on a platform (counts from the platform, bytes from the model).
/// std::invalid_argument when the platform has no storage.
GoodputInputs goodput_inputs(const GoodputOptions& options, const ModelSpec& model, const topo::Platform& platform,
                             double throughput_samples_per_s);

/// The expected wall-clock time of W seconds of work cut into segments of `interval`, each
/// but the last followed by a checkpoint of cost `checkpoint`, with restarts costing
/// `restart`, under Poisson failures of rate `lambda` (per second). +inf when it overflows.
double expected_run_time(double work, double interval, double checkpoint, double restart, double lambda);

/// The interval minimising expected_run_time (W / k for the best integer k >= 1).
double best_checkpoint_interval(double work, double checkpoint, double restart, double lambda);

struct GoodputPoint {
  Seconds interval;
  Seconds expected_time;
  double goodput_samples_per_s = 0.0;
};

struct GoodputReport {
  double samples = 0.0;
  double throughput_samples_per_s = 0.0;
  Seconds failure_free_time;  // W = N / throughput
  struct Component {
    std::string name;
    double count = 0.0;
    Hertz rate;        // per instance
    Hertz job_rate;    // count x rate
    std::string source;
  };
  std::vector<Component> components;
  Hertz job_failure_rate;  // lambda
  Seconds job_mtbf;        // 1 / lambda (+inf with no failures)
  Bytes checkpoint_full_bytes;
  Bytes checkpoint_written_bytes;
  BytesPerSecond storage_bandwidth;
  Seconds checkpoint_time;   // C
  Seconds restart_time;      // R = restart + full bytes / bandwidth
  bool interval_given = false;
  GoodputPoint chosen;       // at the scenario's interval, or the best one
  GoodputPoint best;
  Seconds young_interval;    // sqrt(2 C / lambda) (+inf with no failures)
  double expected_failures = 0.0;  // lambda x expected time at the chosen interval
  std::vector<GoodputPoint> curve;  // goodput against interval around the best one
};

/// Evaluates the model (see the top of this file).
GoodputReport evaluate_goodput(const GoodputOptions& options, const GoodputInputs& inputs);

}  // namespace dlrmsim::models
