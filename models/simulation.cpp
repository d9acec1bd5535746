#include "models/simulation.hpp"

#include <algorithm>
#include <array>
#include <map>
#include <set>

#include "models/training_mode.hpp"
#include "models/placement_problem.hpp"
#include "sim/backend.hpp"
#include "sim/native_engine.hpp"
#include "sim/critical_path.hpp"

namespace dlrmsim::models {
namespace {

// Per category, the picoseconds of the critical path that ends at `end` and runs back to
// `from` (the start of the measured window), walked with sim::WaitGraph.
std::vector<std::int64_t> critical_path_by_category(const sim::ActivityGraph& g, const sim::SimResult& r,
                                                    sim::ActivityId end, std::int64_t from) {
  std::vector<std::int64_t> per_category(g.categories().size(), 0);
  sim::WaitGraph(g).walk_back(end, from, r, [&](std::uint32_t a) {
    const auto& act = g.activity(sim::ActivityId{a});
    const std::int64_t start = std::max(r.start[a].ps(), from);
    if (act.kind != sim::ActivityKind::marker && r.end[a].ps() > start) per_category[act.category] += r.end[a].ps() - start;
  });
  return per_category;
}

struct Interval {
  std::int64_t begin;
  std::int64_t end;
};

/// Sorts and merges intervals in place; returns the total covered length.
std::int64_t merge(std::vector<Interval>& v) {
  std::sort(v.begin(), v.end(), [](const Interval& a, const Interval& b) { return a.begin < b.begin; });
  std::vector<Interval> out;
  for (const auto& i : v) {
    if (!out.empty() && i.begin <= out.back().end) {
      out.back().end = std::max(out.back().end, i.end);
    } else {
      out.push_back(i);
    }
  }
  v = std::move(out);
  std::int64_t total = 0;
  for (const auto& i : v) total += i.end - i.begin;
  return total;
}

placement::PlacementOptions options_for_mode(const Scenario& sc, const TrainingModeInfo& mode) {
  placement::PlacementOptions o = sc.placement;
  if (o.tiers.empty()) o.tiers.assign(mode.default_tiers.begin(), mode.default_tiers.end());
  return o;
}

struct Built {
  std::shared_ptr<sim::ActivityGraph> graph;
  BuiltSteps steps;
  std::shared_ptr<const Slowdowns> slowdowns;  // the scenario's stragglers, if any
  bool representative = false;
};

Built build(const Scenario& sc, const TrainingModeInfo& mode, const placement::PlacementProblem& problem,
            const placement::PlacementPlan& plan, const DeviceProfileSet& profiles, int total_steps) {
  Built b;
  b.graph = std::make_shared<sim::ActivityGraph>();
  StepBuilder builder(sc.model, sc.platform, problem, plan, profiles, sc.training, *b.graph);
  if (sc.stragglers) {
    b.slowdowns = std::make_shared<const Slowdowns>(*sc.stragglers, sc.platform);
    builder.set_slowdowns(b.slowdowns.get());
  }
  builder.select_trainers(mode.cpu_trainers);
  mode.build(builder, total_steps);
  b.steps = builder.built();
  b.representative = builder.representative();
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
                                const placement::PlacementPlan& plan, int warmup_steps, int steps) {
  const auto& mode = training_mode(sc.training.mode);
  const DeviceProfileSet profiles(sc.calibration_dir);
  const Built b = build(sc, mode, problem, plan, profiles, warmup_steps + steps + kCooldownSteps);
  const auto r = sim::backend(sc.backend).run(*b.graph);
  return steady_step_time(r, b.steps, warmup_steps, steps);
}

RunReport run_scenario(const Scenario& sc, const RunOptions& options) {
  if (!sc.jobs.empty()) {
    throw std::invalid_argument("scenario '" + sc.name + "' lists jobs; it runs with `dlrmsim run` (models/jobs.hpp), "
                                "not as one job");
  }
  const auto wall_start = std::chrono::steady_clock::now();
  const auto& mode = training_mode(sc.training.mode);
  const auto popt = options_for_mode(sc, mode);
  const auto problem =
      placement::make_placement_problem(sc.model, sc.platform, placement::profiles_from_directory(sc.calibration_dir), {},
                                        sc.job_nodes);
  const placement::StepTimeEvaluator evaluator = [&](const placement::PlacementPlan& candidate) {
    return simulate_plan_step_time(sc, problem, candidate, 1, 1);
  };
  const auto plan = placement::place(problem, popt, evaluator);

  const DeviceProfileSet profiles(sc.calibration_dir);
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
  for (const DeviceProfile* p : profiles.loaded()) {
    rep.device_profiles.push_back({p->name, p->provenance.rfind("measured", 0) == 0, p->provenance});
  }
  rep.backend = sc.backend;
  rep.fidelity = b.steps.fidelity;
  rep.global_batch = sc.model.global_batch_size;
  rep.trainers = b.steps.total_trainers;
  rep.simulated_trainers = b.steps.simulated_trainers;
  rep.warmup_steps = sc.warmup_steps;
  rep.measured_steps = sc.steps;
  rep.step_time = steady_step_time(r, b.steps, sc.warmup_steps, sc.steps);
  rep.throughput_samples_per_s =
      rep.step_time.value() > 0.0 ? static_cast<double>(sc.model.global_batch_size) / rep.step_time.value() : 0.0;
  for (auto a : b.steps.step_end) rep.step_ends.push_back(r.end[a.index].seconds());
  {
    double lo = 0.0, hi = 0.0, sum = 0.0;
    int count = 0;
    const std::size_t measured_end = static_cast<std::size_t>(sc.warmup_steps + sc.steps);
    for (std::size_t k = static_cast<std::size_t>(std::max(sc.warmup_steps, 1)); k < measured_end; ++k) {
      const double d = (rep.step_ends[k] - rep.step_ends[k - 1]).value();
      lo = count ? std::min(lo, d) : d;
      hi = count ? std::max(hi, d) : d;
      sum += d;
      ++count;
    }
    rep.step_time_spread = count > 1 && sum > 0.0 ? (hi - lo) / (sum / count) : 0.0;
  }

  // Breakdown over the measured window.
  const std::int64_t w0 = sc.warmup_steps > 0 ? r.end[b.steps.step_end[static_cast<std::size_t>(sc.warmup_steps) - 1].index].ps() : 0;
  const std::int64_t w1 = r.end[b.steps.step_end[static_cast<std::size_t>(sc.warmup_steps + sc.steps) - 1].index].ps();
  const auto& names = g.categories();
  const auto& order = Categories::kReported;
  std::vector<std::vector<Interval>> per_cat(names.size());
  for (std::size_t a = 0; a < g.activity_count(); ++a) {
    const auto& act = g.activity(sim::ActivityId{static_cast<std::uint32_t>(a)});
    if (act.kind == sim::ActivityKind::marker) continue;
    const std::int64_t s = std::max(r.start[a].ps(), w0);
    const std::int64_t e = std::min(r.end[a].ps(), w1);
    if (e > s) per_cat[act.category].push_back({s, e});
  }
  const double per_step = 1e-12 / static_cast<double>(std::max(sc.steps, 1));
  std::vector<Interval> covered;
  std::int64_t covered_len = 0;
  Seconds exposed_total{0.0};
  for (const auto& name : order) {
    const auto it = std::find(names.begin(), names.end(), name);
    if (it == names.end()) continue;
    auto& v = per_cat[static_cast<std::size_t>(it - names.begin())];
    const std::int64_t busy = merge(v);
    covered.insert(covered.end(), v.begin(), v.end());
    const std::int64_t now = merge(covered);
    BreakdownEntry e;
    e.category = std::string(name);
    e.busy = Seconds(static_cast<double>(busy) * per_step);
    e.exposed = Seconds(static_cast<double>(now - covered_len) * per_step);
    covered_len = now;
    exposed_total += e.exposed;
    rep.breakdown.push_back(e);
  }
  // Below a picosecond per step the difference is rounding of the integer clock.
  rep.idle = rep.step_time - exposed_total;
  if (rep.idle.value() < 1e-12) rep.idle = Seconds(0.0);

  // Critical path over the measured window (see the header).
  {
    const std::vector<std::int64_t> on_path = critical_path_by_category(g, r, b.steps.step_end[static_cast<std::size_t>(sc.warmup_steps + sc.steps) - 1], w0);
    std::int64_t charged = 0;
    for (auto& e : rep.breakdown) {
      const auto it = std::find(names.begin(), names.end(), e.category);
      const std::int64_t t = it == names.end() ? 0 : on_path[static_cast<std::size_t>(it - names.begin())];
      e.critical = Seconds(static_cast<double>(t) * per_step);
      charged += t;
    }
    rep.critical_idle = Seconds(static_cast<double>(std::max<std::int64_t>(w1 - w0 - charged, 0)) * per_step);
  }

  // Utilisation.
  const double makespan = r.makespan.seconds().value();
  {
    std::map<std::string, UtilizationEntry> classes;
    std::map<std::string, double> capacity;
    for (std::size_t i = 0; i < g.resource_count(); ++i) {
      const auto& st = r.resources[i];
      if (st.bytes.value() <= 0.0) continue;
      const auto& res = g.resource(sim::ResourceId{static_cast<std::uint32_t>(i)});
      auto& u = classes[res.kind];
      u.resource_class = res.kind;
      u.cores = res.cores;  // core pools: work units, not bytes
      ++u.count;
      u.bytes += st.bytes;
      capacity[res.kind] += res.capacity.value();
    }
    for (auto& [k, u] : classes) {
      u.utilization = makespan > 0.0 ? u.bytes.value() / (capacity[k] * makespan) : 0.0;
      u.bytes = u.bytes / static_cast<double>(std::max(total_steps, 1));
      rep.utilization.push_back(u);
    }
    std::map<std::string, UtilizationEntry> engines;
    std::map<std::string, double> busy;
    for (std::size_t i = 0; i < g.engine_count(); ++i) {
      const auto& st = r.engines[i];
      if (st.busy.value() <= 0.0) continue;
      const auto& e = g.engine(sim::EngineId{static_cast<std::uint32_t>(i)});
      auto& u = engines[e.kind];
      u.resource_class = e.kind;
      u.compute = true;
      ++u.count;
      busy[e.kind] += st.busy.value();
    }
    for (auto& [k, u] : engines) {
      u.utilization = makespan > 0.0 ? busy[k] / (static_cast<double>(u.count) * makespan) : 0.0;
      rep.utilization.push_back(u);
    }
  }

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
    rep.power = estimate_power(sc.platform, g, r, window);
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
                                      b.representative);
  }
  if (sc.goodput) {
    rep.goodput = evaluate_goodput(*sc.goodput,
                                   goodput_inputs(*sc.goodput, sc.model, sc.platform, rep.throughput_samples_per_s));
  }
  rep.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
  return rep;
}

int RunReport::step_of(sim::ActivityId a) const {
  const auto& first = step_first_activity;
  const auto after = std::upper_bound(first.begin(), first.end(), a.index);
  return static_cast<int>(after - first.begin()) - 1;
}

ScenarioTiming time_scenario(const std::string& path, const std::vector<std::string>& overrides) {
  ScenarioTiming t;
  const auto t0 = std::chrono::steady_clock::now();
  const Scenario sc = load_scenario(path, overrides);
  const auto t1 = std::chrono::steady_clock::now();
  const RunReport r = run_scenario(sc);
  const auto t2 = std::chrono::steady_clock::now();
  t.load_s = std::chrono::duration<double>(t1 - t0).count();
  t.run_s = std::chrono::duration<double>(t2 - t1).count();
  t.total_s = t.load_s + t.run_s;
  t.throughput_samples_per_s = r.throughput_samples_per_s;
  t.activities = r.activities;
  t.simulated_trainers = r.simulated_trainers;
  return t;
}

}  // namespace dlrmsim::models
