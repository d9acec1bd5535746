// The three Persia training modes (models/modes/persia_hybrid.cpp): persia_hybrid
// (embeddings asynchronous within training.staleness, dense synchronous), persia_sync and
// persia_async (dense parameters averaged every training.averaging_period steps). Whole
// scenarios are loaded, built and run on the native engine; the traces are the ones
// `dlrmsim run --trace` writes (app/run_report.hpp), whose events carry their step and, for
// Persia's embedding fetch and update, their role.
// (Staleness 0 = persia_sync exactly: tests/test_simulation.cpp, "persia_sync, persia_hybrid
// and persia_async".)
#include <doctest/doctest.h>

#include "approx.hpp"

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "models/simulation.hpp"
#include "app/run_report.hpp"
#include "app/trace.hpp"
#include "scenario_fixtures.hpp"

using namespace dlrmsim;
using namespace dlrmsim::models;
using namespace dlrmsim::models::testing;

namespace {



// A small Persia cluster: one trainer node (one V100 on PCIe gen5 to its CPU, a 1.6 Tbit/s
// NIC), one embedding worker and one parameter server (one CPU socket and a 1.6 Tbit/s NIC
// each), one switch. The model: 1 table of 16-wide fp32 rows (64 B, one cache line) with 100
// lookups per sample, batch 4096, bottom MLP 13-128-16, top MLP 1024-1024-1024-1, fp32.
// `dense_scale` multiplies the GPU's peak FLOP/s and HBM bandwidth (1000: the dense step is
// negligible); `ew_gather` is the embedding worker's gather bandwidth per core (of 8 cores, DRAM
// 10 TB/s, so the cores bound it). The parameter server is fast (64 cores x 100 GB/s) and the
// NICs are wide, so the embedding pipeline's slowest stage is the worker's pooling of the one
// trainer batch of each step, a chain on one worker thread (persia_hybrid.cpp):
//   pool = 4096 x 100 rows x 64 B / ew_gather.
// `ps_gather` is the parameter server's gather bandwidth per core (of 64 cores).
Scenario mini_persia(double dense_scale, const std::string& ew_gather, const std::vector<std::string>& overrides = {},
                     const std::string& ps_gather = "100 GB/s") {
  const std::string flops = std::to_string(15.7 * dense_scale) + " TFLOP/s";
  const std::string hbm = std::to_string(900.0 * dense_scale) + " GB/s";
  const std::string text = R"(
name: persia-mini
platform:
  name: persia-mini
  node_templates:
    gpu-server:
      devices:
        - {name: gpu, kind: gpu, count: 1, model: V100-SXM2-32GB, hbm_capacity: 32 GB, hbm_bandwidth: )" + hbm + R"(,
           peak_flops: {fp32: )" + flops + R"(, fp16: )" + flops + R"(}}
        - {name: cpu, kind: cpu, model: test-cpu, cores: 32, clock: 2 GHz, dram_capacity: 512 GB,
           dram_bandwidth: 300 GB/s, memory_channels: 8, gather_bandwidth_per_core: 9 GB/s, peak_flops: {fp32: 4 TFLOP/s}}
        - {name: nic, kind: nic, bandwidth: 1600 Gbit/s}
      links:
        - {kind: pcie5x16, from: "gpu*", to: cpu, pattern: all}
        - {kind: pcie5x16, between: [nic, cpu]}
    ew-server:
      devices:
        - {name: cpu, kind: cpu, model: test-cpu, cores: 8, clock: 2 GHz, dram_capacity: 512 GB,
           dram_bandwidth: 10 TB/s, memory_channels: 8, gather_bandwidth_per_core: )" + ew_gather + R"(, peak_flops: {fp32: 1 TFLOP/s}}
        - {name: nic, kind: nic, bandwidth: 1600 Gbit/s}
      links:
        - {kind: pcie5x16, between: [nic, cpu]}
    ps-server:
      devices:
        - {name: cpu, kind: cpu, model: test-cpu, cores: 64, clock: 2 GHz, dram_capacity: 512 GB,
           dram_bandwidth: 10 TB/s, memory_channels: 8, gather_bandwidth_per_core: )" + ps_gather + R"(, peak_flops: {fp32: 1 TFLOP/s}}
        - {name: nic, kind: nic, bandwidth: 1600 Gbit/s}
      links:
        - {kind: pcie5x16, between: [nic, cpu]}
  cluster:
    groups:
      - {name: nn, template: gpu-server, count: 1, role: trainer}
      - {name: ew, template: ew-server, count: 1, role: embedding_worker}
      - {name: ps, template: ps-server, count: 1, role: parameter_server}
    fabric: {kind: single_switch, link_kind: ethernet}
model:
  name: mini
  global_batch_size: 4096
  dense_features: 13
  bottom_mlp: [128, 16]
  embedding_tables: [{name: t, rows: 1000000, dim: 16, lookups_per_sample: 100}]
  interaction: concat
  top_mlp: [1024, 1024, 1024, 1]
  optimizer: sgd
  precision: {compute: fp32, communication: fp32}
training: {mode: persia_hybrid, staleness: 100}
placement: {policy: cost_greedy, tiers: [remote_ps]}
run: {warmup_steps: 4, steps: 4, calibration: )" + kCalibration + R"(}
)";
  return load_scenario_text(text, "persia-mini.yaml", kRoot + "/configs/scenarios", overrides);
}

// The pooling time of the mini cluster's embedding worker, by hand (see mini_persia).
double pool_seconds(double ew_gather_bytes_per_s) { return 4096.0 * 100.0 * 64.0 / ew_gather_bytes_per_s; }

struct TraceEvent {
  std::string category;
  std::string role;
  int step = -1;
  double start_us = 0.0;
  double end_us = 0.0;
  double bytes = 0.0;
};

/// The complete events of the run's trace (as `dlrmsim run --trace` writes it).
std::vector<TraceEvent> trace_events(const RunReport& r) {
  const auto doc = nlohmann::json::parse(app::trace_json(r));
  std::vector<TraceEvent> out;
  for (const auto& e : doc.at("traceEvents")) {
    if (e.at("ph") != "X") continue;
    TraceEvent t;
    t.category = e.at("cat").get<std::string>();
    const auto& args = e.at("args");
    t.step = args.value("step", -1);
    t.role = args.value("role", std::string());
    t.bytes = args.value("bytes", 0.0);
    t.start_us = e.at("ts").get<double>();
    t.end_us = t.start_us + e.at("dur").get<double>();
    out.push_back(std::move(t));
  }
  return out;
}

}  // namespace

// System: the mini Persia cluster above, persia_hybrid with staleness 100, more than the 10
// simulated steps, so the bound never binds (no fetch waits for any update).
// Inputs: the dense path D = the step with the embedding side negligible (worker gathering at
// 1 TB/s per core: pooling 26 us); the embedding path E = the step with the dense side
// negligible (GPU 1000x faster), at 16 and 4 GB/s per core (pooling 1.6384 and 6.5536 ms).
// Expected: E equals the worker's pooling time by hand (the pipeline's slowest stage, one
// in-order stream, back to back in steady state) within 1e-9; the hybrid step (both sides at
// their real speed) equals max(D, E) within 1e-9, for an embedding path shorter than the
// dense path and for one longer: the two paths overlap completely. It is well below D + E
// (what a schedule that serialised them would give), so the check can fail.
TEST_CASE("with a staleness bound that never binds the hybrid step is max(dense path, embedding path)") {
  const double dense_path = run_scenario(mini_persia(1.0, "1000 GB/s")).step_time.value();
  CAPTURE(dense_path);
  CHECK(dense_path > 2e-3);  // the dense path is not negligible itself
  for (const double gbps : {16.0, 4.0}) {
    const std::string ew = std::to_string(gbps) + " GB/s";
    const double embedding_path = run_scenario(mini_persia(1000.0, ew)).step_time.value();
    const auto hybrid = run_scenario(mini_persia(1.0, ew));
    CAPTURE(gbps);
    CAPTURE(embedding_path);
    CAPTURE(hybrid.step_time.value());
    CHECK(embedding_path == dlrmsim::rel(pool_seconds(gbps * 1e9)).epsilon(1e-9));
    CHECK(hybrid.step_time.value() == dlrmsim::rel(std::max(dense_path, embedding_path)).epsilon(1e-9));
    CHECK(hybrid.step_time.value() < 0.85 * (dense_path + embedding_path));
    CHECK(hybrid.step_time_spread < 1e-6);
  }
}

// System: the mini Persia cluster above with its table cut to R = 1,000 rows (uniform access),
// Persia's wire formats (software.embedding_workers: fp16 embeddings and gradients) and the
// hashed_servers placement (one server: the whole table on it), 4 warm-up + 4 measured steps.
// Inputs: the parameter_server_traffic bytes of one measured step in the trace (each transfer is
// one egress segment at its sender and one ingress segment at its receiver, so every byte counts
// twice).
// Expected: a batch of B = 4,096 samples x 100 lookups draws n = 409,600 ids from R rows, of
// which R (1 - e^(-n/R)) = 1,000 (to 1e-170) are distinct; the worker sends the server 8 bytes
// per distinct id, gets back a 64-byte row per distinct id and pushes a 64-byte gradient per
// distinct id, and exchanges with the trainer B x 16 fp16 pooled values each way (131,072 B):
// 2 x (8 + 64 + 64) x 1,000 + 2 x 2 x 131,072 = 796,288 bytes. Without the per-batch
// deduplication the ids alone would be 2 x 8 x 409,600 = 6.6 MB; at fp32 on the wire the
// pooled part would double, so the check can fail. Besides, the staleness permit's three
// control messages (the server's acknowledgement, the worker's answer, the trainer's next
// request: models/modes/persia_hybrid.cpp), 64 bytes each: 2 x 3 x 64 = 384 bytes.
TEST_CASE("Persia's embedding traffic: distinct ids per batch to the servers, fp16 pooled values to the trainers") {
  RunOptions keep;
  keep.keep_graph = true;
  const auto r = run_scenario(mini_persia(1.0, "2 GB/s",
                                          {"model.embedding_tables.0.rows=1000", "placement.policy=hashed_servers",
                                           "software.embedding_workers.embeddings=fp16",
                                           "software.embedding_workers.gradients=fp16"}),
                              keep);
  double bytes = 0.0;
  for (const auto& e : trace_events(r)) {
    if (e.category == "parameter_server_traffic" && e.step == 5) bytes += e.bytes;
  }
  CHECK(bytes == dlrmsim::rel(2.0 * (8.0 + 64.0 + 64.0) * 1000.0 + 4.0 * 4096.0 * 16.0 * 2.0 + 2.0 * 3.0 * 64.0).epsilon(1e-9));
}

// System: Persia's 8-V100 Avazu job (configs/scenarios/persia_avazu_8v100.yaml) in persia_async,
// 3 warm-up + 10 measured + 2 cool-down steps, averaging periods p = 1, 5 and 10.
// Inputs: the trace's all_reduce events (the averaging of the fp32 dense parameters is the
// mode's only all-reduce: gradients are applied locally) with their step and bytes, and the
// report's all_reduce busy time per measured step.
// Expected: all_reduce events occur in exactly the steps s with (s + 1) mod p = 0, each such
// step moving the same bytes as every step does with p = 1 (one whole averaging); over the 10
// measured steps (a multiple of p) the averaging traffic per step is 1/p of one averaging, and
// so is the all_reduce busy time per step (to 1e-3; measured 3.5e-4: an averaging shares the
// node's PCIe uplinks, 7.8 GB/s each way, with the embedding traffic, and overlaps it a little
// differently per period; a wrong period would be off by a factor of 2 or more).
TEST_CASE("persia_async with averaging period p pays the averaging traffic once every p steps") {
  const auto run = [](int p) {
    RunOptions keep;
    keep.keep_graph = true;
    return run_scenario(shipped("persia_avazu_8v100", {"training.mode=persia_async",
                                                       "training.averaging_period=" + std::to_string(p),
                                                       "run.warmup_steps=3", "run.steps=10", "run.stop_when_steady=false"}),
                        keep);
  };
  const auto busy = [](const RunReport& r) {
    for (const auto& b : r.breakdown) {
      if (b.category == "all_reduce") return b.busy.value();
    }
    return 0.0;
  };
  const auto bytes_per_step = [](const RunReport& r) {
    std::map<int, double> bytes;
    for (const auto& e : trace_events(r)) {
      if (e.category == "all_reduce") bytes[e.step] += e.bytes;
    }
    return bytes;
  };
  const auto every = run(1);
  const auto every_bytes = bytes_per_step(every);
  const int total_steps = 3 + 10 + 2;
  REQUIRE(every_bytes.size() == static_cast<std::size_t>(total_steps));
  const double one_averaging = every_bytes.at(0);
  CHECK(one_averaging > 0.0);
  for (const auto& [step, bytes] : every_bytes) CHECK(bytes == dlrmsim::rel(one_averaging).epsilon(1e-9));
  const double one_averaging_time = busy(every);
  CHECK(one_averaging_time > 0.0);
  for (const int p : {5, 10}) {
    const auto r = run(p);
    const auto bytes = bytes_per_step(r);
    CAPTURE(p);
    std::set<int> averaged, expected;
    for (const auto& [step, b] : bytes) {
      averaged.insert(step);
      CHECK(b == dlrmsim::rel(one_averaging).epsilon(1e-9));
    }
    for (int s = 0; s < total_steps; ++s) {
      if ((s + 1) % p == 0) expected.insert(s);
    }
    CHECK(averaged == expected);
    double measured_bytes = 0.0;
    for (const auto& [step, b] : bytes) measured_bytes += step >= 3 && step < 13 ? b : 0.0;
    CHECK(measured_bytes / 10.0 == dlrmsim::rel(one_averaging / p).epsilon(1e-9));
    CHECK(busy(r) == dlrmsim::rel(one_averaging_time / p).epsilon(1e-3));
  }
}

// System: Persia's 8-V100 Avazu job in persia_hybrid, staleness k = 1 and 2, 3 warm-up + 8
// measured + 2 cool-down steps, traced.
// Inputs: from the trace, per step s, the start of its embedding fetch (the ids sent to the
// parameter servers, role embedding_fetch) and the end of its embedding update on the servers
// (role embedding_update).
// Expected: the fetch of step s reads parameters missing the updates of the earlier steps
// whose update has not ended when it starts; that number (the staleness it sees) is at most k
// for every step, and equal to k for some (the bound is reached, so the check can fail: a
// fetch gated one step too late or not at all would see k + 1 or more). Trace times carry 10
// significant digits (about 10 ps here): an update counts as pending only if it ends more
// than 1 ns after the fetch starts (every activity here lasts microseconds or more).
TEST_CASE("persia_hybrid never exceeds its staleness bound (checked on the trace)") {
  for (const int k : {1, 2}) {
    RunOptions keep;
    keep.keep_graph = true;
    const auto r = run_scenario(shipped("persia_avazu_8v100", {"training.staleness=" + std::to_string(k),
                                                               "run.warmup_steps=3", "run.steps=8"}),
                                keep);
    std::map<int, double> fetch_start, update_end;
    for (const auto& e : trace_events(r)) {
      if (e.role == "embedding_fetch") {
        const auto it = fetch_start.find(e.step);
        fetch_start[e.step] = it == fetch_start.end() ? e.start_us : std::min(it->second, e.start_us);
      } else if (e.role == "embedding_update") {
        update_end[e.step] = std::max(update_end[e.step], e.end_us);
      }
    }
    const int total_steps = 3 + 8 + 2;
    CAPTURE(k);
    REQUIRE(fetch_start.size() == static_cast<std::size_t>(total_steps));
    REQUIRE(update_end.size() == static_cast<std::size_t>(total_steps));
    int largest = 0;
    for (const auto& [s, start] : fetch_start) {
      int pending = 0;
      for (int j = 0; j < s; ++j) pending += update_end.at(j) > start + 1e-3 ? 1 : 0;
      CAPTURE(s);
      CHECK(pending <= k);
      largest = std::max(largest, pending);
    }
    CHECK(largest == k);
  }
}

// System: the mini Persia cluster above, persia_hybrid with staleness 100 (never binds), the
// embedding worker gathering at 32 GB/s per core (pooling E = 0.8192 ms, below the dense path
// D > 2 ms). Input: the embedding-worker node (`ew`, the group's one node) a straggler of slowdown 2 on everything
// (applies_to: compute, memory and links: its pooling, gathers and NIC transfers).
// Expected: the hybrid step is unchanged (within 1e-9): the slowed embedding path, about 2E =
// 1.64 ms, still overlaps entirely with the dense path, and within the staleness bound the
// trainers never wait for it. And the straggler does slow the worker: with the dense side
// negligible (GPU 1000x faster) the step is the worker's pooling at half speed, 2E (1e-9;
// its slowed NIC transfers are shorter than the pooling and pipelined behind it), so the check
// that it costs nothing could fail.
TEST_CASE("a straggling embedding worker costs persia_hybrid nothing while the staleness bound does not bind") {
  const std::vector<std::string> straggler{"stragglers.slowdown.ew=2", "stragglers.applies_to=[compute, memory, links]"};
  const double plain = run_scenario(mini_persia(1.0, "32 GB/s")).step_time.value();
  const double slowed = run_scenario(mini_persia(1.0, "32 GB/s", straggler)).step_time.value();
  CAPTURE(plain);
  CHECK(plain > 2e-3);
  CHECK(slowed == dlrmsim::rel(plain).epsilon(1e-9));
  const double embedding_bound = run_scenario(mini_persia(1000.0, "32 GB/s", straggler)).step_time.value();
  CHECK(embedding_bound == dlrmsim::rel(2.0 * pool_seconds(32e9)).epsilon(1e-9));
}

// System: Persia's Avazu job on 2 of the benchmark server's V100s (configs/scenarios/
// persia_avazu_8v100.yaml, node template persia-gpu-2, 512 samples per GPU), the persia-2021
// stack (NCCL without P2P: every GPU-to-GPU transfer is staged through the host socket). Both
// GPUs hang off one PCIe switch whose uplink to the CPU carries 7.8 GB/s each way
// (persia-gpu-server.yaml: NVIDIA/nccl issue 384's 3.9 GB/s per GPU for bidirectional staging).
// Inputs: the report's all_reduce busy time per step; the model's dense parameters P (fp32
// gradients, S = 4 P bytes, 50.4 MB).
// Expected: the all-reduce sends S/2 from each GPU to the other in its reduce-scatter and again
// in its all-gather; staged, each transfer goes up the shared uplink and back down it, so each
// direction of the uplink carries 2 x 2 x S/2 = 2 S, and the all-reduce lasts 2 S / 7.8 GB/s =
// 12.9 ms. Within 2 %: the uplink's downward direction also carries the step's pooled
// embeddings and inputs to the GPUs (1.5 MB, 1.5 % of 2 S) while the all-reduce runs. At the
// link's own 15.75 GB/s the same all-reduce would take 6.4 ms, so the check can fail.
TEST_CASE("without P2P the Persia server's 2-GPU all-reduce is bound by its shared switch uplink") {
  const auto s = shipped("persia_avazu_8v100",
                         {"platform.cluster.groups.0.template=persia-gpu-2", "model.global_batch_size=1024"});
  const double gradient_bytes = 4.0 * s.model.dense_parameters();
  CHECK(gradient_bytes == dlrmsim::rel(50.36e6).epsilon(1e-3));
  const auto r = run_scenario(s);
  double busy = 0.0;
  for (const auto& b : r.breakdown) {
    if (b.category == "all_reduce") busy = b.busy.value();
  }
  const double expected = 2.0 * gradient_bytes / 7.8e9;
  CAPTURE(busy);
  CHECK(busy >= expected * (1.0 - 1e-9));
  CHECK(busy <= expected * 1.02);
}

// System: the mini Persia cluster above with its table cut to R = 1,000 rows (so each batch of
// B = 4,096 samples x 100 lookups holds 1,000 distinct ids, to 1e-170), the GPU 1000x faster
// (the dense path negligible), the worker's cores fast (1 TB/s each: a row summed in 64 ps).
// Inputs: the embedding worker's own time per id and direction, software.embedding_workers.per_id
// P = 10 and 20 us.
// Expected: one trainer batch is one chain on one worker thread, 1,000 x P (+ 409,600 rows x
// 64 ps, the same at both P) per direction, longer than the worker's share over its 8 cores
// (one batch per step). In persia_sync each step's fetch waits for the previous step's update,
// so both directions' chains lie on every step: the step grows by 2 x 1,000 x (20 - 10) us =
// 20 ms. In persia_hybrid with a bound that never binds, the forward and backward chains run
// on their own threads and overlap the next steps: the step grows by one chain's difference,
// 10 ms. (Without the chain, as a throughput over the cores, neither would move by more than
// an eighth of that.)
TEST_CASE("an embedding worker's batch is one thread's chain: per-id cost adds 2 x ids per step in persia_sync, 1 x in the hybrid") {
  const auto step = [](const std::string& mode, const std::string& per_id) {
    return run_scenario(mini_persia(1000.0, "1000 GB/s",
                                    {"model.embedding_tables.0.rows=1000", "training.mode=" + mode,
                                     "software.embedding_workers.per_id=" + per_id}))
        .step_time.value();
  };
  const double sync10 = step("persia_sync", "10 us"), sync20 = step("persia_sync", "20 us");
  const double hybrid10 = step("persia_hybrid", "10 us"), hybrid20 = step("persia_hybrid", "20 us");
  CAPTURE(sync10);
  CAPTURE(hybrid10);
  CHECK(sync20 - sync10 == dlrmsim::rel(2.0 * 1000.0 * 10e-6).epsilon(1e-6));
  CHECK(hybrid20 - hybrid10 == dlrmsim::rel(1000.0 * 10e-6).epsilon(1e-6));
}

// System: the mini Persia cluster above with 1,000 distinct ids a batch (R = 1,000 rows, as
// in the test above), persia_sync, the GPU 1000x faster and the worker's cores fast (1 TB/s
// each): the parameter server's 64 cores, each reading a 64-byte row at G bytes/s, are the
// slow part of the round trip.
// Inputs: G = 6.4 and 3.2 MB/s, so one core's time per id c = 64 B / G = 10 and 20 us, for the
// lookup and for the update (sgd: no optimiser state; no measured profile, so no hash probe).
// Expected: the server spreads a batch's 1,000 ids over its 64 cores (DRAM at 10 TB/s is far
// from binding): ids x c / cores = 156.25 us per direction at 10 us, 312.5 us at 20 us. The
// lookup and the update of every step lie on the round trip a synchronous step waits for, so
// the step grows by 2 x 1,000 x 10 us / 64 = 312.5 us, and at 10 us the servers' two
// directions (312.5 us) are most of the step. A model that put the servers' work on one core,
// or off the path, would miss by 64x or by 100 %.
TEST_CASE("where the servers bind the round trip grows by exactly ids x per-id cost / server cores") {
  const auto step = [](const std::string& ps_gather) {
    return run_scenario(mini_persia(1000.0, "1000 GB/s", {"model.embedding_tables.0.rows=1000", "training.mode=persia_sync"},
                                    ps_gather))
        .step_time.value();
  };
  const double sync10 = step("6.4 MB/s"), sync20 = step("3.2 MB/s");
  CAPTURE(sync10);
  const double per_direction = 1000.0 * 10e-6 / 64.0;
  CHECK(sync10 > 2.0 * per_direction);
  CHECK(sync10 < 2.0 * per_direction * 1.6);
  CHECK(sync20 - sync10 == dlrmsim::rel(2.0 * per_direction).epsilon(1e-6));
}

// System: the mini Persia cluster above, R = 1,000 rows (1,000 distinct ids a batch), the
// embedding worker's own time per id P (software.embedding_workers.per_id), persia_sync.
// Inputs: the dense path D (the step with the embedding side fast: P = 0), the round trip
// T(P) (the step with the GPU 1000x faster: the embedding side alone, fetch and update back to
// back, itself checked by hand above: 2 x 1,000 x P plus the rows summed and the transfers),
// and the synchronous step S(P) with both at their speed, at P = 10 and 20 us (T = 20 and
// 40 ms, longer than D).
// Expected: a synchronous step waits for the round trip from the moment its gradients leave
// (after the backward of the layers above the bottom MLP) until the next batch's embeddings
// arrive; the dense work it overlaps is only what lies outside that window (the bottom MLP,
// the optimiser, the next input copy). So S = D + T - W with W, the overlapped dense work,
// the same at both P (S - T identical to 1e-9 s), positive and under a tenth of D (the
// interaction and top MLP, which it cannot overlap, are most of the dense step). A schedule
// that hid the round trip behind the dense step (the hybrid's max(D, T)) would give S - T = 0,
// one that did not overlap at all S - T = D: both fail.
TEST_CASE("at staleness 0 the step is the dense path plus the embedding round trip that does not overlap it") {
  const auto step = [](double dense_scale, const std::string& per_id) {
    return run_scenario(mini_persia(dense_scale, "1000 GB/s",
                                    {"model.embedding_tables.0.rows=1000", "training.mode=persia_sync",
                                     "software.embedding_workers.per_id=" + per_id}))
        .step_time.value();
  };
  const double dense_path = step(1.0, "0 us");
  CAPTURE(dense_path);
  CHECK(dense_path > 2e-3);
  double excess = 0.0;
  for (const char* per_id : {"10 us", "20 us"}) {
    const double round_trip = step(1000.0, per_id), sync = step(1.0, per_id);
    CAPTURE(per_id);
    CAPTURE(round_trip);
    CAPTURE(sync);
    CHECK(round_trip > dense_path);
    const double overlapped = dense_path + round_trip - sync;
    CHECK(overlapped > 0.0);
    CHECK(overlapped < 0.1 * dense_path);
    if (excess == 0.0) {
      excess = sync - round_trip;
    } else {
      CHECK(sync - round_trip == doctest::Approx(excess).epsilon(1e-9).scale(1.0));
    }
  }
}

// System: the mini Persia cluster above, R = 1,000 rows, the GPU 1000x faster, the worker's
// own time per id 10 us, persia_sync; the fabric's latency per link L (platform.cluster.fabric.
// link_latency; Persia's RPCs cross the zone's network, PersiaML/PERSIA@05d59c2).
// Inputs: L = 0 and 100 us.
// Expected: the synchronous round trip is eight one-way messages in a row (models/modes/
// persia_hybrid.cpp): gradients trainer -> worker, row gradients worker -> server, the
// server's acknowledgement, the worker's answer to the trainer, the trainer's next request,
// ids worker -> server, rows server -> worker, pooled trainer-ward. Each is a sender's egress
// segment and a receiver's ingress segment side by side, each over one fabric link, so each
// pays L once, except the rows, whose ingress at the worker starts when every server's rows
// have left: 9 x 100 us = 0.9 ms more per step. Without the three control messages (the
// permit's way back) it would be 6 x 100 us.
TEST_CASE("the synchronous round trip pays the latency of each of its RPC messages") {
  const auto step = [](const std::string& latency) {
    return run_scenario(mini_persia(1000.0, "1000 GB/s",
                                    {"model.embedding_tables.0.rows=1000", "training.mode=persia_sync",
                                     "software.embedding_workers.per_id=10 us",
                                     "platform.cluster.fabric.link_latency=" + latency}))
        .step_time.value();
  };
  const double at0 = step("0 us"), at100 = step("100 us");
  CAPTURE(at0);
  CHECK(at100 - at0 == dlrmsim::rel(9.0 * 100e-6).epsilon(1e-6));
}

// System: the mini Persia cluster above, R = 1,000 rows, the GPU 1000x faster, the worker's
// own time per id 10 us (a 10 ms chain each way).
// Inputs: the RPC stack's own latency per message, software.embedding_workers.rpc_latency,
// 0 and 200 us, in persia_sync and in persia_hybrid with a bound (100) that never binds.
// Expected: each of the eight messages of a synchronous round trip (the trainer's request,
// ids, rows, pooled values, gradients, row gradients, the servers' acknowledgement, the
// worker's answer: models/modes/persia_hybrid.cpp) pays it once after arriving, so the
// synchronous step grows by 8 x 200 us = 1.6 ms. The hybrid's pipeline runs ahead of the
// dense step: a latency inside it delays when each batch's embeddings arrive but not how often
// they do, so its step (the 10 ms chain) does not move. A latency paid once per step, or not at
// all, would give 0.2 or 0 ms in the synchronous mode.
TEST_CASE("the RPC stack's latency lies on the synchronous round trip eight times and off the hybrid's step") {
  const auto step = [](const std::string& mode, const std::string& latency) {
    return run_scenario(mini_persia(1000.0, "1000 GB/s",
                                    {"model.embedding_tables.0.rows=1000", "training.mode=" + mode,
                                     "software.embedding_workers.per_id=10 us",
                                     "software.embedding_workers.rpc_latency=" + latency}))
        .step_time.value();
  };
  const double sync0 = step("persia_sync", "0 us"), sync200 = step("persia_sync", "200 us");
  const double hybrid0 = step("persia_hybrid", "0 us"), hybrid200 = step("persia_hybrid", "200 us");
  CAPTURE(sync0);
  CAPTURE(hybrid0);
  CHECK(sync200 - sync0 == dlrmsim::rel(8.0 * 200e-6).epsilon(1e-6));
  CHECK(hybrid200 == dlrmsim::rel(hybrid0).epsilon(1e-9));
}
