// dlrmsim-bench: speed figures of the simulator itself (not of the simulated systems).
//
//   build/dlrmsim-bench            human-readable table
//   build/dlrmsim-bench --json     the same as one JSON object on stdout
// A failed write to standard output (a full disk, a closed pipe) is exit status 4.
//   --no-simgrid                   skip the SimGrid reference runs (they take tens of seconds)
//   --only W...                    run only the named workloads (see --help)
//
// Engine workloads (wall time of the simulation only; building the graph is reported apart):
//  - 1,000,000 fixed-duration (1 us) activities on 4096 compute engines: a ring of 4096
//    engines over 245 rounds where each task waits for its stream predecessor and for the
//    previous round's task on the engine before it (the shape of SimGrid's ring benchmark).
//  - a 512-endpoint all-to-all: every endpoint sends 1 MiB to every other one at once
//    (261,632 concurrent flows), each endpoint with a 25 GB/s uplink and downlink, 1 us each.
//  - a staggered 512-endpoint all-to-all (all_to_all_512_staggered_s): flow sizes of 1 to
//    2 MB in 17 classes over 50 GB/s links, so the sharing changes at ~250 instants. Its
//    completion times are compared with SimGrid's on the same graph
//    (all_to_all_512_staggered_max_rel_diff; SimGrid takes about 30 s of the benchmark).
//  - a 4096-endpoint ring of transfers: 20 rounds of (10 us compute, then 1 MiB to the next
//    endpoint), each round waiting for the previous round's receive.
// Workload figures (wall time of loading and simulating, from the shipped configs):
//  - dcnv2_4096gpu_step_s: one step of DLRM-DCNv2 on 512 DGX H100 (4096 GPUs), no warm-up;
//  - dcnv2_64node_all_s, dcnv2_512node_all_s: the same scenario (1 warm-up + 2 steps) with
//    every node simulated (training.nodes=all, flows aggregated per destination node) on 64
//    and 512 nodes; dcnv2_16node_per_pair_s: 16 nodes with one flow per pair of GPUs;
//  - dcnv2_2048node_all_s: the same on 2,048 nodes (16,384 GPUs: the platform's node group
//    set to 2,048), run in a child process (this program run again with --scenario) so that
//    dcnv2_2048node_all_peak_rss_bytes is that run's own peak resident memory (getrusage of
//    the child: the whole process, binary and libraries included);
//  - stragglers_64node_s: configs/scenarios/stragglers_dcnv2_64node.yaml as shipped;
//  - nvl72_rack_all_s, nvl72_16rack_all_s: configs/scenarios/dcnv2_gb200_nvl72.yaml (1 warm-up
//    + 2 steps), every GPU simulated, on one GB200 NVL72 rack (72 GPUs in one NVLink domain)
//    and on 16 racks (1,152 GPUs) of gb200-nvl72-2racks.yaml's fabric;
//  - persia_100t_s: the 100-trillion-parameter persia_hybrid run on the Google Cloud cluster;
//  - place_5000_tables_s: cost_greedy planning of 5,000 tables over 64 GPUs;
//  - sweep_10000_points_s: configs/sweeps/hbm_bandwidth_x_batch.yaml (10,000 points of a
//    single-server scenario) on 2 threads;
//  - plan_1000_points_s: `dlrmsim plan`'s search (pruning by memory, simulation, selection
//    of the winner and the Pareto front) over configs/sweeps/plan_1000_points.yaml (1,000
//    points of 1 to 5 DGX H100/H200 servers) on 2 threads.
// load_average_start and load_average_end: the machine's 1-minute load average (/proc/loadavg)
// before the first workload and after the last, as the figures depend on it.
// For the last two, both backends run the same graph; completion times are compared
// activity by activity (largest relative difference) and speedup_vs_simgrid is reported.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <functional>
#include <iostream>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <boost/program_options.hpp>

#include "common/files.hpp"
#include "common/json.hpp"
#include "models/simulation.hpp"
#include "placement/synthetic.hpp"
#include "sim/backend.hpp"
#include "sim/native_engine.hpp"
#include "sim/simgrid_backend.hpp"
#include "app/scenario_runner.hpp"
#include "app/plan.hpp"
#include "app/sweep.hpp"

namespace po = boost::program_options;
using namespace dlrmsim;
using namespace dlrmsim::sim;

namespace {

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

/// Wall-clock seconds of loading and running a scenario file (reading the scenario, platform
/// and model files, then placement + step graph + engine + report).
double scenario_seconds(const std::string& path, const std::vector<std::string>& overrides = {}) {
  const auto t0 = std::chrono::steady_clock::now();
  const models::Scenario sc = models::load_scenario(path, overrides);
  models::run_scenario(sc);
  return seconds_since(t0);
}

/// The 1-minute load average, or -1 where it cannot be read.
double load_average() {
  double load[1] = {-1.0};
  return ::getloadavg(load, 1) == 1 ? load[0] : -1.0;
}

/// Wall-clock seconds of loading and running a scenario file in a child process (this program
/// again, with --scenario), and that child's peak resident memory in bytes (getrusage of the
/// child: exactly that run, the binary and its libraries included).
std::pair<double, double> scenario_in_child(const std::string& self, const std::string& path,
                                            const std::vector<std::string>& overrides) {
  int out[2];
  if (::pipe(out) != 0) throw std::runtime_error("pipe failed");
  std::vector<std::string> args{self, "--scenario", path};
  for (const std::string& o : overrides) {
    args.push_back("--set");
    args.push_back(o);
  }
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  const pid_t pid = ::fork();
  if (pid < 0) throw std::runtime_error("fork failed");
  if (pid == 0) {
    ::dup2(out[1], STDOUT_FILENO);
    ::close(out[0]);
    ::close(out[1]);
    ::execv(self.c_str(), argv.data());
    ::_exit(127);
  }
  ::close(out[1]);
  std::string text;
  char buffer[256];
  for (ssize_t n; (n = ::read(out[0], buffer, sizeof buffer)) > 0;) text.append(buffer, static_cast<std::size_t>(n));
  ::close(out[0]);
  int status = 0;
  struct rusage usage {};
  if (::wait4(pid, &status, 0, &usage) != pid || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    throw std::runtime_error("the child run of " + path + " failed");
  }
  return {std::stod(text), static_cast<double>(usage.ru_maxrss) * 1024.0};  // ru_maxrss is in KiB
}

/// Wall-clock seconds that place() with cost_greedy takes on
/// placement::make_synthetic_problem(tables, gpus_per_node, nodes) (building it excluded).
double cost_greedy_planning_seconds(std::size_t tables, std::uint32_t gpus_per_node, std::uint32_t nodes) {
  const placement::PlacementProblem problem = placement::make_synthetic_problem(tables, gpus_per_node, nodes);
  placement::PlacementOptions options;
  options.policy = "cost_greedy";
  const auto t0 = std::chrono::steady_clock::now();
  const placement::PlacementPlan plan = placement::place(problem, options);
  const double seconds = seconds_since(t0);
  if (plan.tables.size() != problem.tables.size()) throw std::logic_error("cost_greedy left tables unplaced");
  return seconds;
}

template <class F>
auto timed(F&& f, double& wall) {
  const auto t0 = std::chrono::steady_clock::now();
  auto out = f();
  wall = seconds_since(t0);
  return out;
}

ActivityGraph compute_ring(int engines, int rounds) {
  ActivityGraph g;
  g.reserve(static_cast<std::size_t>(engines) * rounds, static_cast<std::size_t>(engines) * rounds * 2);
  std::vector<StreamId> streams;
  for (int e = 0; e < engines; ++e) streams.push_back(g.add_stream(g.add_engine("cpu" + std::to_string(e), "cpu")));
  std::vector<ActivityId> previous(engines), current(engines);
  for (int k = 0; k < rounds; ++k) {
    for (int e = 0; e < engines; ++e) {
      if (k == 0) {
        current[e] = g.add_compute(streams[e], Seconds(1e-6));
      } else {
        const ActivityId dep = previous[(e + engines - 1) % engines];
        current[e] = g.add_compute(streams[e], Seconds(1e-6), std::span(&dep, 1));
      }
    }
    std::swap(previous, current);
  }
  return g;
}

/// Every endpoint has an uplink and a downlink of `bandwidth` (1 us latency each) and one
/// flow to every other endpoint, of bytes(i, j).
template <class BytesOf>
ActivityGraph all_to_all(int endpoints, BytesPerSecond bandwidth, BytesOf bytes) {
  ActivityGraph g;
  std::vector<ResourceId> up, down;
  for (int i = 0; i < endpoints; ++i) {
    up.push_back(g.add_resource("up" + std::to_string(i), bandwidth, Seconds(1e-6), "nic"));
    down.push_back(g.add_resource("down" + std::to_string(i), bandwidth, Seconds(1e-6), "nic"));
  }
  g.reserve(static_cast<std::size_t>(endpoints) * endpoints, 0);
  for (int i = 0; i < endpoints; ++i) {
    for (int j = 0; j < endpoints; ++j) {
      if (i != j) g.add_transfer(bytes(i, j), std::vector{up[i], down[j]});
    }
  }
  return g;
}

/// 25 GB/s links, 1 MiB flows.
ActivityGraph all_to_all(int endpoints) {
  return all_to_all(endpoints, BytesPerSecond(25e9), [](int, int) { return Bytes(1048576.0); });
}

/// The staggered all-to-all of the engine tests (tests/engine_fixtures.hpp): 50 GB/s links and
/// flow i->j carries 1 MB x (1 + ((7i + 13j) mod 17) / 16), so 17 size classes finish at
/// ~250 different instants and the sharing changes at each of them.
ActivityGraph staggered_all_to_all(int endpoints) {
  return all_to_all(endpoints, BytesPerSecond(50e9),
                    [](int i, int j) { return Bytes(1e6 * (1.0 + ((7 * i + 13 * j) % 17) / 16.0)); });
}

ActivityGraph transfer_ring(int endpoints, int rounds) {
  ActivityGraph g;
  std::vector<ResourceId> up, down;
  std::vector<StreamId> streams;
  for (int i = 0; i < endpoints; ++i) {
    up.push_back(g.add_resource("up" + std::to_string(i), BytesPerSecond(25e9), Seconds(1e-6), "nic"));
    down.push_back(g.add_resource("down" + std::to_string(i), BytesPerSecond(25e9), Seconds(1e-6), "nic"));
    streams.push_back(g.add_stream(g.add_engine("gpu" + std::to_string(i), "gpu")));
  }
  std::vector<ActivityId> received(endpoints);
  for (int k = 0; k < rounds; ++k) {
    std::vector<ActivityId> next(endpoints);
    for (int i = 0; i < endpoints; ++i) {
      std::vector<ActivityId> deps;
      if (k > 0) deps.push_back(received[i]);
      const ActivityId c = g.add_compute(streams[i], Seconds(10e-6), deps);
      const int j = (i + 1) % endpoints;
      next[j] = g.add_transfer(Bytes(1048576.0), std::vector{up[i], down[j]}, std::vector{c});
    }
    received = next;
  }
  return g;
}

double max_relative_difference(const SimResult& a, const SimResult& b) {
  double worst = 0.0;
  for (std::size_t i = 0; i < a.end.size(); ++i) {
    const double x = a.end[i].seconds().value();
    const double y = b.end[i].seconds().value();
    const double scale = std::max(std::fabs(y), 1e-9);
    worst = std::max(worst, std::fabs(x - y) / scale);
  }
  return worst;
}

struct Figures {
  std::vector<std::pair<std::string, double>> values;
  void add(const std::string& key, double v) { values.emplace_back(key, v); }
};

void compare_backends(Figures& out, const std::string& name, const ActivityGraph& g, bool with_simgrid) {
  double native_s = 0.0;
  const SimResult native = timed([&] { return simulate_native(g); }, native_s);
  out.add(name + "_activities", static_cast<double>(g.activity_count()));
  out.add(name + "_native_wall_s", native_s);
  out.add(name + "_makespan_s", native.makespan.seconds().value());
  if (!with_simgrid) return;
  double simgrid_s = 0.0;
  const SimResult reference = timed([&] { return simulate_simgrid(g); }, simgrid_s);
  out.add(name + "_simgrid_wall_s", simgrid_s);
  out.add(name + "_speedup_vs_simgrid", simgrid_s / native_s);
  out.add(name + "_max_relative_difference", max_relative_difference(native, reference));
}

/// Writes `text` to standard output and flushes it: 0, or 4 with a message when the write
/// fails.
int print_checked(const std::string& text) {
  try {
    write_output_file("-", text);
    return 0;
  } catch (const OutputError& e) {
    std::cerr << "error: " << e.what() << "\n";
    return 4;
  }
}

}  // namespace

int main(int argc, char** argv) {
  po::options_description options("dlrmsim-bench options");
  options.add_options()("help,h", "show this help")("json", "print one JSON object")(
      "no-simgrid", "skip the SimGrid reference runs")("no-sweep", "skip the 10,000-point sweep")(
      "only", po::value<std::vector<std::string>>()->multitoken(),
      "run only these workloads (activities all_to_all staggered ring dcnv2_step persia place sweep "
      "cluster_64 cluster_512 cluster_2048 cluster_per_pair nvl72 nvl72_16 stragglers plan)")(
      "configs", po::value<std::string>()->default_value(DLRMSIM_SOURCE_DIR "/configs"), "the configs/ directory")(
      "scenario", po::value<std::string>(), "run only this scenario file and print its wall seconds (the child of a memory figure)")(
      "set", po::value<std::vector<std::string>>()->multitoken(), "with --scenario: key.path=value overrides");
  po::variables_map vm;
  try {
    po::store(po::parse_command_line(argc, argv, options), vm);
  } catch (const po::error& e) {
    std::cerr << "error: " << e.what() << "\n" << options;
    return 2;
  }
  if (vm.count("help")) {
    std::cout << options;
    return print_checked("");
  }
  if (vm.count("scenario")) {
    const auto overrides = vm.count("set") ? vm["set"].as<std::vector<std::string>>() : std::vector<std::string>{};
    char line[64];
    std::snprintf(line, sizeof line, "%.17g\n", scenario_seconds(vm["scenario"].as<std::string>(), overrides));
    return print_checked(line);
  }
  const std::vector<std::string> workloads{"activities", "all_to_all", "staggered",  "ring",       "dcnv2_step",
                                           "persia",     "place",      "sweep",      "cluster_64", "cluster_512",
                                           "cluster_2048", "cluster_per_pair", "nvl72", "nvl72_16", "stragglers", "plan"};
  std::vector<std::string> only;
  if (vm.count("only")) {
    only = vm["only"].as<std::vector<std::string>>();
    for (const std::string& w : only) {
      if (std::find(workloads.begin(), workloads.end(), w) == workloads.end()) {
        std::cerr << "error: --only: unknown workload '" << w << "'\n" << options;
        return 2;
      }
    }
  }
  auto selected = [&](const std::string& w) {
    return only.empty() || std::find(only.begin(), only.end(), w) != only.end();
  };
  const bool with_simgrid = vm.count("no-simgrid") == 0;
  Figures figures;
  figures.add("load_average_start", load_average());

  if (selected("activities")) {
    double build_s = 0.0;
    const ActivityGraph g = timed([] { return compute_ring(4096, 245); }, build_s);
    double run_s = 0.0;
    const SimResult r = timed([&] { return simulate_native(g); }, run_s);
    figures.add("activities", static_cast<double>(g.activity_count()));
    figures.add("activities_build_s", build_s);
    figures.add("activities_run_s", run_s);
    figures.add("activities_per_s", static_cast<double>(g.activity_count()) / run_s);
    figures.add("activities_makespan_s", r.makespan.seconds().value());
  }
  if (selected("all_to_all")) compare_backends(figures, "all_to_all_512", all_to_all(512), with_simgrid);
  if (selected("staggered")) {
    const ActivityGraph g = staggered_all_to_all(512);
    double run_s = 0.0;
    const SimResult r = timed([&] { return simulate_native(g); }, run_s);
    figures.add("all_to_all_512_staggered_s", run_s);
    figures.add("all_to_all_512_staggered_makespan_s", r.makespan.seconds().value());
    if (with_simgrid) {
      // SimGrid re-solves every coupled flow at each of the ~250 completion instants (261,632
      // flows): about 30 s on this project's build machine.
      double simgrid_s = 0.0;
      const SimResult reference = timed([&] { return simulate_simgrid(g); }, simgrid_s);
      figures.add("all_to_all_512_staggered_simgrid_wall_s", simgrid_s);
      figures.add("all_to_all_512_staggered_max_rel_diff", max_relative_difference(r, reference));
      figures.add("all_to_all_512_staggered_speedup_vs_simgrid", simgrid_s / run_s);
    }
  }
  if (selected("ring")) compare_backends(figures, "ring_4096", transfer_ring(4096, 20), with_simgrid);

  const std::string configs = vm["configs"].as<std::string>();
  const std::string superpod = configs + "/scenarios/dcnv2_superpod_4096gpu.yaml";
  if (selected("dcnv2_step")) {
    figures.add("dcnv2_4096gpu_step_s", scenario_seconds(superpod, {"run.warmup_steps=0", "run.steps=1"}));
  }
  // Every node simulated (training.nodes=all), 1 warm-up + 2 measured steps (+ 2 cool-down).
  if (selected("cluster_64")) {
    figures.add("dcnv2_64node_all_s",
                scenario_seconds(superpod, {"platform.cluster.groups.0.count=64", "training.nodes=all", "run.warmup_steps=1", "run.steps=2"}));
  }
  if (selected("cluster_512")) {
    figures.add("dcnv2_512node_all_s", scenario_seconds(superpod, {"training.nodes=all", "run.warmup_steps=1", "run.steps=2"}));
  }
  if (selected("cluster_2048")) {
    const auto [seconds, peak] = scenario_in_child(
        "/proc/self/exe", superpod,
        {"platform.cluster.groups.0.count=2048", "training.nodes=all", "run.warmup_steps=1", "run.steps=2"});
    figures.add("dcnv2_2048node_all_s", seconds);
    figures.add("dcnv2_2048node_all_peak_rss_bytes", peak);
  }
  if (selected("cluster_per_pair")) {
    figures.add("dcnv2_16node_per_pair_s",
                scenario_seconds(superpod, {"platform.cluster.groups.0.count=16", "training.nodes=all",
                                            "training.communication=per_pair", "run.warmup_steps=1", "run.steps=2"}));
  }
  const std::string nvl72 = configs + "/scenarios/dcnv2_gb200_nvl72.yaml";
  if (selected("nvl72")) {
    figures.add("nvl72_rack_all_s", scenario_seconds(nvl72, {"run.warmup_steps=1", "run.steps=2"}));
  }
  if (selected("nvl72_16")) {
    figures.add("nvl72_16rack_all_s",
                scenario_seconds(nvl72, {"platform=../platforms/gb200-nvl72-2racks.yaml", "platform.cluster.groups.0.count=16",
                                         "run.warmup_steps=1", "run.steps=2"}));
  }
  if (selected("persia")) {
    figures.add("persia_100t_s", scenario_seconds(configs + "/scenarios/persia_100t_gcp.yaml"));
  }
  if (selected("stragglers")) {
    figures.add("stragglers_64node_s", scenario_seconds(configs + "/scenarios/stragglers_dcnv2_64node.yaml"));
  }
  if (selected("place")) figures.add("place_5000_tables_s", cost_greedy_planning_seconds(5000, 8, 8));
  if (selected("sweep") && !vm.count("no-sweep")) {
    const app::Sweep sweep = app::load_sweep(configs + "/sweeps/hbm_bandwidth_x_batch.yaml");
    const std::string csv = "/tmp/dlrmsim_bench_sweep_" + std::to_string(::getpid()) + ".csv";
    double sweep_s = 0.0;
    const std::size_t failed = timed(
        [&] {
          return app::run_sweep(sweep, app::run_scenario_point, app::scenario_output_columns(),
                                  app::SweepOptions{csv, 2, false, {}, {}});
        },
        sweep_s);
    std::remove(csv.c_str());
    figures.add("sweep_points", static_cast<double>(sweep.size()));
    figures.add("sweep_failed_points", static_cast<double>(failed));
    figures.add("sweep_10000_points_s", sweep_s);
  }
  if (selected("plan")) {
    const app::Sweep space = app::load_sweep(configs + "/sweeps/plan_1000_points.yaml");
    const std::string csv = "/tmp/dlrmsim_bench_plan_" + std::to_string(::getpid()) + ".csv";
    double plan_s = 0.0;
    std::size_t simulated = 0;
    timed(
        [&] {
          const auto& outputs = app::scenario_output_columns();
          app::run_sweep(space, app::run_plan_point, outputs, app::SweepOptions{csv, 2, false, {}, {}});
          app::PlanOptions po;
          po.target_samples_per_s = 50e6;
          po.training_samples = models::kDefaultTrainingSamples;
          const auto rows = app::read_result_rows(csv, space, outputs);
          simulated = app::select_plan(rows.rows, app::sweep_columns(space, outputs), po).simulated;
          return simulated;
        },
        plan_s);
    std::remove(csv.c_str());
    figures.add("plan_points", static_cast<double>(space.size()));
    figures.add("plan_simulated_points", static_cast<double>(simulated));
    figures.add("plan_1000_points_s", plan_s);
  }

  figures.add("load_average_end", load_average());
  // Six significant digits: the figures are wall times, which vary by more between runs.
  std::string text;
  if (vm.count("json")) {
    Json doc = Json::object();
    for (const auto& [key, value] : figures.values) doc[key] = json_number(value, 6);
    text = json_text(doc);
  } else {
    for (const auto& [key, value] : figures.values) {
      char line[128];
      std::snprintf(line, sizeof line, "%-40s %.6g\n", key.c_str(), value);
      text += line;
    }
  }
  return print_checked(text);
}
