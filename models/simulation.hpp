// Running a scenario: placement, step graph, engine, and the report's numbers.
//
//   Scenario s = load_scenario("configs/scenarios/default.yaml");
//   RunReport r = run_scenario(s);          // throws placement::InfeasiblePlacement if it does not fit
//   r.throughput_samples_per_s, r.step_time, r.breakdown, r.utilization, r.memory, r.placement
//
// Definitions (what the report's numbers mean):
//  - step time: steady state, (end of the last measured step - end of the last warm-up step) /
//    measured steps; a step ends when every simulated trainer has applied its dense update
//    (and, in the synchronous modes, every embedding owner its sparse update). Two more steps
//    are simulated after the measured ones (and not measured) so that the last measured step
//    overlaps the next steps' prefetch and embedding pipeline as every steady-state step does.
//  - throughput: global batch / step time.
//  - breakdown, per category of activity over the measured window, per step (computed by
//    sim/statistics.hpp, which defines them):
//      busy     the length of the union of the intervals during which some activity of the
//               category runs (anywhere in the simulated system);
//      exposed  the part of busy not covered by a category earlier in the order
//               dense_compute, embedding_lookup, all_to_all, parameter_server_traffic,
//               all_reduce, host_device_copy, host_work (kReportedCategories,
//               models/categories.hpp): the time this category alone adds to the step.
//      critical the part of the step's critical path spent in the category: walking back from
//               the end of the last measured step, each activity's predecessor is the one of
//               its dependencies (or the task before it on its stream) that finished last,
//               which is the one it waited for; the path's activities are charged to their
//               categories, the gaps between them (latency, nothing running) to idle. The
//               critical times and the critical idle sum to the step time. Unlike exposed,
//               which depends on the order above, it names what the step waited for.
//    busy - exposed is the overlapped time; step time - sum(exposed) is idle (waiting).
//  - utilisation (sim/statistics.hpp): per resource class (link kinds, hbm, dram), bytes
//    moved / (capacity x simulated time) over the resources that carried traffic; per compute
//    engine kind (gpu, cpu), busy time / simulated time over the engines that ran work.
//  - power, cost: models/power.hpp and models/cost.hpp, over the measured window.
//  - memory: the placement's accounting per device (weights, optimiser state, UVM cache,
//    activations and the dense replica) against capacity.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "models/cost.hpp"
#include "models/goodput.hpp"
#include "models/power.hpp"
#include "models/scenario.hpp"
#include "models/steady_state.hpp"
#include "models/stragglers.hpp"
#include "placement/placement.hpp"
#include "placement/plan_statistics.hpp"
#include "sim/activity_graph.hpp"
#include "sim/statistics.hpp"

namespace dlrmsim::models {

/// Busy, exposed and critical time of a category, per step (sim/statistics.hpp).
using BreakdownEntry = sim::CategoryTimes;
/// Utilisation of a resource class or compute-engine kind (sim/statistics.hpp).
using UtilizationEntry = sim::UtilizationEntry;

struct MemoryEntry {
  std::string device;
  std::string kind;  // gpu, cpu_socket, parameter_server
  Bytes capacity;
  Bytes weights;
  Bytes optimizer_state;
  Bytes cache;
  Bytes activations;  // activations and dense replica
  [[nodiscard]] Bytes used() const { return weights + optimizer_state + cache + activations; }
};

struct TablePlacementEntry {
  std::string table;
  std::string tier;
  std::string sharding;
  std::size_t shards = 0;
  std::vector<std::string> owners;  // distinct owner names (first few)
  std::size_t owner_count = 0;
  double hit_rate = 0.0;            // uvm: mean expected cache hit rate over shards
};

/// A device profile the run used, and whether its numbers were measured (its provenance
/// says "measured") or come from datasheets, published figures and assumptions.
struct DeviceProfileEntry {
  std::string name;
  bool measured = false;
  std::string provenance;
};

struct RunReport {
  std::string scenario;
  std::string model;
  std::string platform;
  std::string mode;
  std::string software;  // the software stack's name
  std::vector<DeviceProfileEntry> device_profiles;  // the GPU profiles the step's costs came from
  std::string backend;
  std::string fidelity;
  std::int64_t global_batch = 0;
  std::size_t trainers = 0;
  std::size_t simulated_trainers = 0;
  int warmup_steps = 0;
  int measured_steps = 0;
  /// run.steps: more than measured_steps when the run stopped at its steady state
  /// (run.stop_when_steady).
  int requested_steps = 0;

  double throughput_samples_per_s = 0.0;
  Seconds step_time;
  std::vector<Seconds> step_ends;  // end time of every simulated step (warm-up, measured, cool-down)
  /// (longest - shortest) / mean of the measured steps' durations (0 when they are alike;
  /// a periodic steady state has a spread and a period).
  double step_time_spread = 0.0;
  /// Whether the measured steps repeat, with which period, and how many the step time
  /// averages over (models/steady_state.hpp).
  SteadyState steady_state;
  std::vector<BreakdownEntry> breakdown;
  Seconds idle;  // per step: step time - sum of exposed
  Seconds critical_idle;  // per step: gaps on the critical path (step time - sum of critical)
  std::vector<UtilizationEntry> utilization;
  std::vector<MemoryEntry> memory;
  std::string placement_policy;
  std::vector<TablePlacementEntry> placement;
  /// The plan's planner statistics (placement/plan_statistics.hpp), as `dlrmsim place` prints them.
  placement::PlanStatistics plan_statistics;
  PowerReport power;  // power and energy (models/power.hpp)
  CostReport cost;    // money and time to train (models/cost.hpp)

  /// Failures, checkpoints and goodput over a training run, when the scenario asks for it
  /// (models/goodput.hpp).
  std::optional<GoodputReport> goodput;
  /// Step-time distribution and who was waited for, when the scenario has stragglers
  /// (models/stragglers.hpp).
  std::optional<StragglerReport> stragglers;

  // Engine figures.
  std::size_t activities = 0;
  std::uint64_t events = 0;
  Seconds simulated_time;
  double wall_seconds = 0.0;  // wall-clock time of the whole run (placement + build + engine)

  // The simulated graph and its result, kept when asked for (traces).
  std::shared_ptr<sim::ActivityGraph> graph;
  std::shared_ptr<sim::SimResult> result;
  /// With the graph: per simulated step, its first activity's id, and the roles a mode gave
  /// some activities (BuiltSteps).
  std::vector<std::uint32_t> step_first_activity;
  std::map<std::uint32_t, std::string> activity_roles;

  /// The step an activity of the kept graph was built in (0 = the first warm-up step), or -1
  /// for one built before the first step.
  [[nodiscard]] int step_of(sim::ActivityId a) const;
};

struct RunOptions {
  bool keep_graph = false;  // keep graph and result in the report (for --trace)
  /// Called as the simulated steps end (done, total), for a progress line; the native
  /// backend reports them, other backends do not.
  std::function<void(std::size_t done, std::size_t total)> on_step;
  /// Parsed device-profile files to reuse (a sweep worker's, kept across its points); none:
  /// the run parses the files it needs.
  topo::DeviceProfileFiles* profile_files = nullptr;
};

/// Measured steps a run of more (with run.stop_when_steady, without stragglers) simulates
/// first: when they are steady (a period of up to 4 steps found, models/steady_state.hpp) they
/// are the report, else every step is simulated.
inline constexpr int kSteadyProbeSteps = 8;

/// Places the tables, builds warm-up + measured steps, runs the backend and computes the
/// report. Throws placement::InfeasiblePlacement when the job does not fit, ConfigError or
/// std::invalid_argument for inputs that cannot be simulated as described (among them a
/// scenario with `jobs:`: models/jobs.hpp runs those).
RunReport run_scenario(const Scenario& scenario, const RunOptions& options = {});

/// A scenario's placement problem and plan, as run_scenario makes them.
struct PlacedScenario {
  placement::PlacementProblem problem;
  placement::PlacementPlan plan;
};

/// Plans a scenario's placement as `dlrmsim run` does: its `placement:` options with, when
/// they name no tiers, the training mode's default tiers; the search policy evaluates
/// candidate plans by simulating one warm-up and one measured step of each. `profiles` is
/// the run's profile cache. Throws placement::InfeasiblePlacement when the tables do not fit.
PlacedScenario place_scenario(const Scenario& scenario, const topo::DeviceProfileSet& profiles);

/// Simulates `steps` steps of a given plan and returns the steady-state step time (used as
/// the placement search's evaluator and by tests). `profiles`: the run's one profile cache,
/// the one its placement problem was made with.
Seconds simulate_plan_step_time(const Scenario& scenario, const placement::PlacementProblem& problem,
                                const placement::PlacementPlan& plan, const topo::DeviceProfileSet& profiles,
                                int warmup_steps, int steps);

}  // namespace dlrmsim::models
