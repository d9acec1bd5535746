// Several jobs on one platform: their steps built in one activity graph on the same platform
// resources, so their traffic shares the links, switches and fabric in the engine; and each
// job run alone on the same nodes, for its slowdown.
//
//   Scenario s = load_scenario("configs/scenarios/two_jobs_fat_tree.yaml");   // has `jobs:`
//   JobsReport r = run_jobs(s);
//   r.jobs[j].step_time, .throughput_samples_per_s, .alone_step_time, .slowdown
//
// Definitions:
//  - Each job runs on its own nodes (scenario.hpp `jobs:`; disjoint), places its tables on
//    them alone and simulates every one of them (`nodes: all`: no representative node, since
//    the other jobs break the symmetry a representative relies on).
//  - Shared run: all jobs start at time 0. A job's step time is its steady-state step time
//    over its own measured window (models/simulation.hpp's definition: end of its last
//    measured step - end of its last warm-up step, over the measured steps).
//  - So that a job's measured window is contended throughout, every job keeps stepping until
//    the others' windows end: job j builds n_j = max(base, ceil(1.5 x max_k(base x t_k) /
//    t_j)) steps, base = warm-up + measured + 2 cool-down steps, t_k the job's alone step
//    time (1.5: margin for the sharing slowing the jobs unequally), at most 20 x base. If a
//    job still ends before another's window does (a job more than 20x faster), the report
//    says so (`contended_throughout` false) rather than hiding that part of the window ran
//    without it.
//  - Alone: the job as a single-job scenario restricted to its nodes (Scenario::job_nodes),
//    the whole platform otherwise idle; run_scenario's full report.
//  - slowdown = shared step time / alone step time (>= 1 up to rounding; 1 = no interference).
//  - throughput = the job's global batch / its step time.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "models/scenario.hpp"
#include "models/simulation.hpp"

namespace dlrmsim::models {

struct JobReport {
  std::string name;
  std::string model;
  std::string mode;
  std::string software;
  std::vector<std::string> nodes;  // the platform nodes it ran on
  std::size_t trainers = 0;
  std::int64_t global_batch = 0;
  int built_steps = 0;  // steps built in the shared run (see the top of this file)
  Seconds step_time;            // sharing the platform
  double throughput_samples_per_s = 0.0;
  Seconds alone_step_time;      // alone on its nodes
  double alone_throughput_samples_per_s = 0.0;
  double slowdown = 1.0;        // step_time / alone_step_time
  bool contended_throughout = true;  // every other job ran during its whole measured window
};

struct JobsReport {
  std::string scenario;
  std::string platform;
  std::string backend;
  int warmup_steps = 0;
  int measured_steps = 0;
  std::vector<JobReport> jobs;
  std::vector<RunReport> alone;  // each job's full report when run alone
  std::size_t activities = 0;    // of the shared run
  std::uint64_t events = 0;
  Seconds simulated_time;
  double wall_seconds = 0.0;     // everything: alone runs and the shared run
};

/// Job `j` of a multi-job scenario as a single-job scenario on its nodes.
Scenario job_scenario(const Scenario& scenario, std::size_t j);

/// Runs every job alone, then all together (see the top of this file). Throws
/// placement::InfeasiblePlacement when a job does not fit on its nodes.
JobsReport run_jobs(const Scenario& scenario);

}  // namespace dlrmsim::models
