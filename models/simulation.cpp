#include "models/simulation.hpp"

#include <algorithm>
#include <chrono>
#include <array>
#include <map>
#include <set>

#include "models/step_builder.hpp"
#include "models/training_mode.hpp"
#include "models/placement_problem.hpp"
#include "models/sharding_groups.hpp"
#include "sim/critical_path.hpp"
#include "sim/backend.hpp"
#include "sim/native_engine.hpp"
#include "sim/statistics.hpp"

namespace dlrmsim::models {
namespace {

struct Built {
  std::shared_ptr<sim::ActivityGraph> graph;
  BuiltSteps steps;
  std::shared_ptr<const Slowdowns> slowdowns;  // the scenario's stragglers, if any
  topo::PlatformResources resources;           // the platform's ids in the graph
  bool representative = false;
};

Built build(const Scenario& sc, const TrainingModeInfo& mode, const placement::PlacementProblem& problem,
            const placement::PlacementPlan& plan, const topo::DeviceProfileSet& profiles, int total_steps) {
  Built b;
  b.graph = std::make_shared<sim::ActivityGraph>();
  StepBuilder builder({sc.model, sc.platform, problem, plan, profiles, sc.training}, *b.graph);
  if (sc.stragglers) {
    b.slowdowns = std::make_shared<const Slowdowns>(*sc.stragglers, sc.platform);
    builder.context().set_slowdowns(b.slowdowns.get());
  }
  builder.select_trainers(mode.cpu_trainers, total_steps);
  mode.build(builder, total_steps);
  b.steps = builder.context().built;
  b.representative = builder.context().representative();
  b.resources = builder.context().resources;
  return b;
}

/// Steps built after the measured ones and not measured: without them the last measured step
/// would not overlap the next step's prefetch and embedding pipeline, and would be shorter
/// than a steady-state step (an end effect).
constexpr int kCooldownSteps = 2;

Seconds steady_step_time(const sim::SimResult& r, const BuiltSteps& steps, int warmup, int measured) {
  const auto& ends = steps.step_end;
  if (ends.size() < static_cast<std::size_t>(warmup + measured) || measured <= 0) return Seconds(0.0);
  const SimTime last = r.end[ends[static_cast<std::size_t>(warmup + measured) - 1].index];
  const SimTime first = warmup > 0 ? r.end[ends[static_cast<std::size_t>(warmup) - 1].index] : SimTime();
  return (last - first).seconds() / static_cast<double>(measured);
}

}  // namespace

Seconds simulate_plan_step_time(const Scenario& sc, const placement::PlacementProblem& problem,
                                const placement::PlacementPlan& plan, const topo::DeviceProfileSet& profiles,
                                int warmup_steps, int steps) {
  const auto& mode = training_mode(sc.training.mode);
  const Built b = build(sc, mode, problem, plan, profiles, warmup_steps + steps + kCooldownSteps);
  const auto r = sim::backend(sc.backend).run(*b.graph);
  return steady_step_time(r, b.steps, warmup_steps, steps);
}

PlacedScenario place_scenario(const Scenario& sc, const topo::DeviceProfileSet& profiles) {
  placement::PlacementOptions options = sc.placement;
  const auto& mode = training_mode(sc.training.mode);
  if (options.tiers.empty()) options.tiers.assign(mode.default_tiers.begin(), mode.default_tiers.end());
  PlacedScenario placed{make_placement_problem(sc, profiles), {}};
  // 2D sparse parallelism (models/sharding_groups.hpp): one group's plan, on every group.
  if (const auto groups = sharding_groups(sc, placed.problem)) {
    const placement::PlacementProblem group = group_problem(sc, profiles, *groups);
    make_two_d(placed.problem, *groups);
    const placement::StepTimeEvaluator evaluator = [&](const placement::PlacementPlan& candidate) {
      return simulate_plan_step_time(sc, placed.problem, replicate_plan(group, candidate, placed.problem, *groups, options),
                                     profiles, 1, 1);
    };
    placed.plan = replicate_plan(group, placement::place(group, options, evaluator), placed.problem, *groups, options);
    return placed;
  }
  const placement::StepTimeEvaluator evaluator = [&](const placement::PlacementPlan& candidate) {
    return simulate_plan_step_time(sc, placed.problem, candidate, profiles, 1, 1);
  };
  placed.plan = placement::place(placed.problem, options, evaluator);
  return placed;
}

namespace {

RunReport run_all_steps(const Scenario& sc, const RunOptions& options) {
  if (!sc.jobs.empty()) {
    throw std::invalid_argument("scenario '" + sc.name + "' lists jobs; it runs with `dlrmsim run` (models/jobs.hpp), "
                                "not as one job");
  }
  const auto wall_start = std::chrono::steady_clock::now();
  const auto& mode = training_mode(sc.training.mode);
  const topo::DeviceProfileSet profiles(sc.calibration_dir, options.profile_files);
  const PlacedScenario placed = place_scenario(sc, profiles);
  const placement::PlacementProblem& problem = placed.problem;
  const placement::PlacementPlan& plan = placed.plan;

  const int total_steps = sc.warmup_steps + sc.steps + kCooldownSteps;
  Built b = build(sc, mode, problem, plan, profiles, total_steps);
  std::shared_ptr<sim::SimResult> result;
  if (options.on_step && sc.backend == "native") {
    sim::NativeOptions native;
    native.milestones = b.steps.step_end;
    const std::size_t total = b.steps.step_end.size();
    native.on_milestone = [&](std::size_t done) { options.on_step(done, total); };
    result = std::make_shared<sim::SimResult>(sim::simulate_native(*b.graph, native));
  } else {
    result = std::make_shared<sim::SimResult>(sim::backend(sc.backend).run(*b.graph));
  }
  const sim::ActivityGraph& g = *b.graph;
  const sim::SimResult& r = *result;

  RunReport rep;
  rep.scenario = sc.name;
  rep.model = sc.model.name;
  rep.platform = sc.platform.name();
  rep.mode = std::string(mode.name);
  rep.software = sc.training.software.name;
  for (const topo::DeviceProfile* p : profiles.loaded()) {
    rep.device_profiles.push_back({p->name, p->provenance.rfind("measured", 0) == 0, p->provenance});
  }
  rep.backend = sc.backend;
  rep.fidelity = b.steps.fidelity;
  rep.global_batch = sc.model.global_batch_size;
  rep.trainers = b.steps.total_trainers;
  rep.simulated_trainers = b.steps.simulated_trainers;
  rep.warmup_steps = sc.warmup_steps;
  rep.measured_steps = sc.steps;
  rep.requested_steps = sc.steps;
  for (auto a : b.steps.step_end) rep.step_ends.push_back(r.end[a.index].seconds());
  {
    // The measured steps' durations; the step time is their mean over whole periods of the
    // steady state (models/steady_state.hpp): the last steps_used measured steps.
    std::vector<double> durations;
    for (int k = sc.warmup_steps; k < sc.warmup_steps + sc.steps; ++k) {
      const double before = k > 0 ? rep.step_ends[static_cast<std::size_t>(k) - 1].value() : 0.0;
      durations.push_back(rep.step_ends[static_cast<std::size_t>(k)].value() - before);
    }
    rep.steady_state = find_steady_state(durations);
    const int skipped = sc.steps - rep.steady_state.steps_used;
    rep.step_time = steady_step_time(r, b.steps, sc.warmup_steps + skipped, rep.steady_state.steps_used);
    rep.step_time_spread = rep.steady_state.spread;
  }
  rep.throughput_samples_per_s =
      rep.step_time.value() > 0.0 ? static_cast<double>(sc.model.global_batch_size) / rep.step_time.value() : 0.0;

  // Breakdown over the measured window.
  const std::int64_t w0 = sc.warmup_steps > 0 ? r.end[b.steps.step_end[static_cast<std::size_t>(sc.warmup_steps) - 1].index].ps() : 0;
  const std::int64_t w1 = r.end[b.steps.step_end[static_cast<std::size_t>(sc.warmup_steps + sc.steps) - 1].index].ps();
  const sim::Window window{w0, w1, sc.steps};
  // One wait index for every critical path walked (the breakdown's, the stragglers report's).
  const sim::WaitGraph waits(g);
  const sim::Breakdown bd = sim::breakdown(g, r, kReportedCategories, window,
                                           b.steps.step_end[static_cast<std::size_t>(sc.warmup_steps + sc.steps) - 1], waits);
  rep.breakdown = bd.categories;
  // Below a picosecond per step the difference is rounding of the integer clock.
  rep.idle = rep.step_time - bd.exposed_total;
  if (rep.idle.value() < 1e-12) rep.idle = Seconds(0.0);
  rep.critical_idle = bd.critical_idle;
  rep.utilization = sim::utilization(g, r, total_steps);

  // Memory and placement.
  for (const auto& d : plan.devices) {
    MemoryEntry m;
    m.device = d.name;
    m.kind = std::string(placement::to_string(d.kind));
    m.capacity = d.capacity;
    m.weights = d.weights;
    m.optimizer_state = d.optimizer_state;
    m.cache = d.cache;
    m.activations = d.activations;
    rep.memory.push_back(m);
  }
  rep.placement_policy = plan.policy;
  rep.plan_statistics = placement::plan_statistics(problem, plan);
  for (const auto& t : plan.tables) {
    TablePlacementEntry e;
    e.table = t.name;
    e.tier = std::string(placement::to_string(t.tier));
    e.sharding = std::string(placement::to_string(t.sharding));
    e.shards = t.shards.size();
    std::set<std::uint32_t> owners;
    double hit = 0.0;
    for (const auto& s : t.shards) {
      owners.insert(s.owners.begin(), s.owners.end());
      hit += s.expected_hit_rate;
    }
    e.owner_count = owners.size();
    for (auto o : owners) {
      if (e.owners.size() >= 4) break;
      e.owners.push_back(plan.devices.at(o).name);
    }
    e.hit_rate = t.shards.empty() ? 0.0 : hit / static_cast<double>(t.shards.size());
    rep.placement.push_back(e);
  }

  {
    PowerWindow window;
    window.begin_ps = w0;
    window.end_ps = w1;
    window.measured_steps = sc.steps;
    window.global_batch = sc.model.global_batch_size;
    window.representative = b.steps.simulated_trainers < b.steps.total_trainers;
    window.pue = sc.cost.pue;
    window.training_samples = sc.cost.training_samples;
    rep.power = estimate_power(sc.platform, b.resources, g, r, window);
    rep.cost = estimate_cost(sc.platform, rep.power, rep.throughput_samples_per_s, sc.cost);
  }

  rep.activities = g.activity_count();
  rep.events = r.events;
  rep.simulated_time = r.makespan.seconds();
  if (options.keep_graph) {
    rep.graph = b.graph;
    rep.result = result;
    rep.step_first_activity = b.steps.step_first_activity;
    rep.activity_roles = b.steps.roles;
  }
  if (b.slowdowns) {
    rep.stragglers = straggler_report(g, r, b.steps.step_end, sc.warmup_steps, sc.steps, *b.slowdowns, sc.platform,
                                      b.representative, waits);
  }
  if (sc.goodput) {
    rep.goodput = evaluate_goodput(*sc.goodput,
                                   goodput_inputs(*sc.goodput, sc.model, sc.platform, rep.throughput_samples_per_s));
  }
  rep.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
  return rep;
}

}  // namespace

RunReport run_scenario(const Scenario& sc, const RunOptions& options) {
  if (sc.stop_when_steady && !sc.stragglers && sc.steps > kSteadyProbeSteps) {
    Scenario probe = sc;
    probe.steps = kSteadyProbeSteps;
    RunReport r = run_all_steps(probe, options);
    if (r.steady_state.period > 0) {
      r.requested_steps = sc.steps;
      return r;
    }
  }
  return run_all_steps(sc, options);
}

int RunReport::step_of(sim::ActivityId a) const {
  const auto& first = step_first_activity;
  const auto after = std::upper_bound(first.begin(), first.end(), a.index);
  return static_cast<int>(after - first.begin()) - 1;
}

}  // namespace dlrmsim::models
