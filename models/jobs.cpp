#include "models/jobs.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>

#include "models/placement_problem.hpp"
#include "models/step_builder.hpp"
#include "models/training_mode.hpp"
#include "sim/backend.hpp"
#include "topologies/engine_export.hpp"

namespace dlrmsim::models {
namespace {

/// Not measured, as run_scenario's (models/simulation.cpp): the last measured step overlaps
/// the next steps' prefetch as every steady-state step does.
constexpr int kCooldownSteps = 2;
/// Margin on the steps a job builds so that it outlasts the others' windows (see the header).
constexpr double kOutlastMargin = 1.5;
/// The most steps a job builds, as a multiple of its own (bounds the graph).
constexpr int kMaxStepMultiple = 20;

}  // namespace

Scenario job_scenario(const Scenario& sc, std::size_t j) {
  const JobSpec& job = sc.jobs.at(j);
  Scenario s = sc;
  s.jobs.clear();
  s.name = sc.name + "/" + job.name;
  s.model = job.model;
  s.training = job.training;
  s.placement = job.placement;
  s.job_nodes = job.nodes;
  return s;
}

JobsReport run_jobs(const Scenario& sc) {
  const auto wall_start = std::chrono::steady_clock::now();
  JobsReport rep;
  rep.scenario = sc.name;
  rep.platform = sc.platform.name();
  rep.backend = sc.backend;
  rep.warmup_steps = sc.warmup_steps;
  rep.measured_steps = sc.steps;

  // Alone: each job's full run on its nodes.
  const std::size_t n = sc.jobs.size();
  std::vector<Scenario> alone_scenarios;
  for (std::size_t j = 0; j < n; ++j) {
    alone_scenarios.push_back(job_scenario(sc, j));
    rep.alone.push_back(run_scenario(alone_scenarios.back()));
  }

  // Steps each job builds in the shared run (see the header).
  const int base = sc.warmup_steps + sc.steps + kCooldownSteps;
  double longest = 0.0;
  for (const auto& a : rep.alone) longest = std::max(longest, a.step_time.value() * base);
  std::vector<int> steps(n, base);
  for (std::size_t j = 0; j < n; ++j) {
    const double t = rep.alone[j].step_time.value();
    if (t <= 0.0) continue;
    const double wanted = std::ceil(kOutlastMargin * longest / t);
    steps[j] = static_cast<int>(std::clamp(wanted, static_cast<double>(base), static_cast<double>(kMaxStepMultiple * base)));
  }

  // Shared: one graph, one export of the platform, every job's builder on it.
  sim::ActivityGraph graph;
  const topo::PlatformResources resources = topo::export_platform(sc.platform, graph);
  const topo::DeviceProfileSet profiles(sc.calibration_dir);
  std::vector<placement::PlacementProblem> problems;
  std::vector<placement::PlacementPlan> plans;
  problems.reserve(n);
  plans.reserve(n);
  std::vector<BuiltSteps> built;
  for (std::size_t j = 0; j < n; ++j) {
    const Scenario& js = alone_scenarios[j];
    const auto& mode = training_mode(js.training.mode);
    PlacedScenario placed = place_scenario(js, profiles);
    problems.push_back(std::move(placed.problem));
    plans.push_back(std::move(placed.plan));
    const placement::PlacementProblem& problem = problems.back();
    StepBuilder builder({js.model, sc.platform, problem, plans.back(), profiles, js.training}, graph, resources);
    builder.select_trainers(mode.cpu_trainers, steps[j]);
    mode.build(builder, steps[j]);
    built.push_back(builder.context().built);
  }
  const sim::SimResult r = sim::backend(sc.backend).run(graph);

  auto end_of = [&](std::size_t j, int step) { return r.end[built[j].step_end.at(static_cast<std::size_t>(step)).index]; };
  std::vector<SimTime> window_end(n), last_end(n);
  for (std::size_t j = 0; j < n; ++j) {
    window_end[j] = end_of(j, sc.warmup_steps + sc.steps - 1);
    last_end[j] = end_of(j, steps[j] - 1);
  }
  for (std::size_t j = 0; j < n; ++j) {
    const Scenario& js = alone_scenarios[j];
    JobReport job;
    job.name = sc.jobs[j].name;
    job.model = js.model.name;
    job.mode = js.training.mode;
    job.software = js.training.software.name;
    for (topo::NodeId node : js.job_nodes) job.nodes.push_back(sc.platform.node(node).name);
    job.trainers = built[j].total_trainers;
    job.global_batch = js.model.global_batch_size;
    job.built_steps = steps[j];
    const SimTime first = sc.warmup_steps > 0 ? end_of(j, sc.warmup_steps - 1) : SimTime();
    job.step_time = (window_end[j] - first).seconds() / static_cast<double>(std::max(sc.steps, 1));
    job.throughput_samples_per_s =
        job.step_time.value() > 0.0 ? static_cast<double>(job.global_batch) / job.step_time.value() : 0.0;
    job.alone_step_time = rep.alone[j].step_time;
    job.alone_throughput_samples_per_s = rep.alone[j].throughput_samples_per_s;
    job.slowdown = job.alone_step_time.value() > 0.0 ? job.step_time.value() / job.alone_step_time.value() : 1.0;
    for (std::size_t k = 0; k < n; ++k) {
      if (k != j && last_end[k] < window_end[j]) job.contended_throughout = false;
    }
    rep.jobs.push_back(std::move(job));
  }
  rep.activities = graph.activity_count();
  rep.events = r.events;
  rep.simulated_time = r.makespan.seconds();
  rep.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
  return rep;
}

}  // namespace dlrmsim::models
