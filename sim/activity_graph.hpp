// The activity graph: what the engine simulates.
//
// A graph holds
//  - bandwidth resources (a link direction, a PCIe lane bundle, a NIC port, a memory's
//    channels when they are shared): a capacity in bytes/s and a latency paid once by every
//    transfer that crosses it;
//  - core pools (the cores of a node, one host thread): a number of CPU cores shared by the
//    host work that runs on them;
//  - compute engines (a GPU's SMs, a CPU socket's cores), each with one or more streams;
//  - activities: a compute task of a known duration on a stream, a transfer of N bytes
//    along a route of resources, host work of a known CPU time on a route of core pools, or
//    a zero-cost marker used to join dependencies.
// Host work shares cores as transfers share links: it is a flow of work units (one unit is
// one nanosecond of one core, kWorkUnitsPerCoreSecond per core-second) over core pools whose
// capacity is their core count in units per second, with the same max-min fair rates. Work
// that crosses its thread (a pool of one core) and its node's cores runs at one core while
// the node has a core for it, and k runnable pieces on c < k cores each run at c/k of a core.
// An activity starts when all its dependencies have finished. A stream is an in-order
// queue: each task on a stream also waits for the task added to that stream before it
// (like a CUDA stream). Different streams, also of one engine, run concurrently. A compute
// task of a known duration shares nothing with them; a kernel (add_kernel) is stream-ordered
// too but runs as a flow over the device's shared resources (a GPU's HBM or SMs, a socket's
// DRAM), capped at the rate it reaches alone: concurrent kernels, copies and DMA split those
// resources max-min, so each runs slower by the right amount. The cap is a resource of the
// stream at that rate (kind "kernel_rate"), shared by the stream's kernels of equal solo
// rate: a stream runs one at a time, so each sees it alone.
//
// The graph is compact (about 40 bytes per activity plus its route and dependency edges) and
// is released incrementally by the backends: an activity is scheduled only when its last
// dependency finishes, so the event queue and the set of live flows stay small however
// large the graph is. Dependencies are normally on earlier activities (ids are handed out in
// order); add_dependency can add any edge, so cycles are possible and are reported by the
// backends as errors, never as a hang.
//
// Bad input (negative sizes or durations, a route through a resource that does not exist,
// a dependency on an activity that does not exist) throws GraphError at the call that
// introduces it.
#pragma once

#include <cstdint>
#include <map>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "common/units.hpp"

namespace dlrmsim::sim {

/// The longest simulated time the engine represents: 2^63 ps, about 106 days. A duration,
/// latency or transfer that would end beyond it is refused with a GraphError.
inline constexpr double kMaxSimulatedSeconds = 9.2e6;

/// Work units per core-second of host work (one unit: a nanosecond of one core; integral
/// units keep SimGrid's byte-count rounding below a nanosecond of CPU time).
inline constexpr double kWorkUnitsPerCoreSecond = 1e9;

/// The kind of the resources add_kernel creates to cap a kernel at its solo rate (not
/// hardware: utilisation reports leave them out).
inline constexpr std::string_view kKernelRateKind = "kernel_rate";

/// Bad use of the engine API; the message names the offending activity or resource.
class GraphError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

struct ResourceId {
  std::uint32_t index = 0;
  auto operator<=>(const ResourceId&) const = default;
};
struct EngineId {
  std::uint32_t index = 0;
  auto operator<=>(const EngineId&) const = default;
};
struct StreamId {
  std::uint32_t index = 0;
  auto operator<=>(const StreamId&) const = default;
};
struct ActivityId {
  std::uint32_t index = 0;
  auto operator<=>(const ActivityId&) const = default;
};

enum class ActivityKind : std::uint8_t { compute, transfer, marker };

struct Resource {
  std::string name;
  BytesPerSecond capacity;
  Seconds latency;
  std::string kind;  // a class for utilisation reports: "nvlink", "pcie", "nic", "hbm", ...
  bool cores = false;  // a core pool: capacity and amounts are work units, not bytes
};

struct ComputeEngine {
  std::string name;
  std::string kind;  // "gpu", "cpu", ...
};

struct Stream {
  EngineId engine;
  std::string name;
  std::uint32_t last_task = kNone;  // index of the last task added, kNone if empty
  static constexpr std::uint32_t kNone = 0xffffffffu;
};

struct Activity {
  ActivityKind kind = ActivityKind::marker;
  std::uint16_t category = 0;  // caller-defined class (for breakdowns and traces)
  std::uint32_t stream = Stream::kNone;  // compute and kernels (add_kernel): the stream
  std::uint32_t route_begin = 0;         // transfer: [route_begin, route_end) in route pool
  std::uint32_t route_end = 0;
  std::uint32_t dependency_count = 0;    // number of predecessors
  std::uint32_t first_successor = kNoEdge;  // head of the successor edge list
  std::uint32_t last_successor = kNoEdge;   // tail, so successors are visited in insertion order
  /// What the engine advances: compute, seconds; transfer, the flow's size in its resources'
  /// units (bytes over links, work units over core pools). Read it through the typed
  /// accessors below outside the engines.
  double amount = 0.0;
  bool on_cores = false;  // a transfer over core pools (host work), amount in work units
  static constexpr std::uint32_t kNoEdge = 0xffffffffu;

  /// Work of a compute engine's stream: a compute task or a kernel (add_kernel), as opposed to
  /// a transfer or host work.
  [[nodiscard]] bool engine_work() const { return stream != Stream::kNone; }
  /// A compute task's duration.
  [[nodiscard]] Seconds duration() const { return kind == ActivityKind::compute ? Seconds(amount) : Seconds(0.0); }
  /// The bytes a transfer moves over links (0 for host work, compute and markers).
  [[nodiscard]] Bytes bytes() const {
    return kind == ActivityKind::transfer && !on_cores ? Bytes(amount) : Bytes(0.0);
  }
  /// The CPU time (of one core) host work needs (0 for everything else, kernels over a GPU's
  /// SMs included).
  [[nodiscard]] Seconds cpu_time() const {
    return kind == ActivityKind::transfer && on_cores && stream == Stream::kNone ? Seconds(amount / kWorkUnitsPerCoreSecond)
                                                                                : Seconds(0.0);
  }
};

struct Edge {
  std::uint32_t to;
  std::uint32_t next;
};

class ActivityGraph {
 public:
  ResourceId add_resource(std::string name, BytesPerSecond capacity, Seconds latency, std::string kind = "link");
  /// A pool of `cores` CPU cores (may be fractional; > 0) for host work.
  ResourceId add_cores(std::string name, double cores, std::string kind = "cpu_cores");
  EngineId add_engine(std::string name, std::string kind = "compute");
  StreamId add_stream(EngineId engine, std::string name = {});

  /// Categories name classes of activities ("embedding_lookup", "all_to_all", ...).
  std::uint16_t add_category(std::string name);

  ActivityId add_compute(StreamId stream, Seconds duration, std::span<const ActivityId> deps = {},
                         std::uint16_t category = 0);
  ActivityId add_transfer(Bytes bytes, std::span<const ResourceId> route, std::span<const ActivityId> deps = {},
                          std::uint16_t category = 0);
  /// Host work of `cpu_time` on one core, over a route of core pools (its thread, its node's
  /// cores): it runs at the max-min fair share of those pools.
  ActivityId add_cpu_work(Seconds cpu_time, std::span<const ResourceId> cores, std::span<const ActivityId> deps = {},
                          std::uint16_t category = 0);
  /// A kernel on `stream` (ordered after the stream's previous task, as a compute task) that
  /// moves `amount` over `route`, the device resources it loads: bytes over bandwidth
  /// resources (HBM, DRAM) or work units over core pools (a GPU's SMs: one unit is a
  /// nanosecond of one SM, kWorkUnitsPerCoreSecond per SM-second). It never runs faster than
  /// `solo_rate` (units per second: its amount over the time it takes alone), and shares each
  /// resource of its route max-min with the activities crossing it.
  ActivityId add_kernel(StreamId stream, double amount, double solo_rate, std::span<const ResourceId> route,
                        std::span<const ActivityId> deps = {}, std::uint16_t category = 0);
  /// One kind of resource a kernel loads: `amount` over `route` (as add_kernel's).
  struct KernelPart {
    double amount = 0.0;
    std::span<const ResourceId> route;
  };
  /// A kernel on `stream` that loads several kinds of resource at once (a GEMM: its SMs and
  /// its HBM, in different units): one flow per part, each capped at the rate that makes it
  /// take `solo` alone (amount / solo), started together when the kernel would start; the
  /// kernel ends when its last part has, so alone it takes `solo` and beside other work it
  /// takes as long as its most slowed part. The first part runs on `stream` (add_kernel); each
  /// further part runs on a companion stream of the same engine (named after the stream, with
  /// ".part1", ".part2", ...: one trace track each); the returned join is what the stream's
  /// next task waits for. Flows are not weighted: a part slowed on its resource does not slow
  /// the others, which finish early (the kernel's end is right, how its load spreads over its
  /// lifetime is front-loaded on the less contended resource). One part: add_kernel.
  ActivityId add_kernel(StreamId stream, Seconds solo, std::span<const KernelPart> parts,
                        std::span<const ActivityId> deps = {}, std::uint16_t category = 0);
  /// A zero-cost activity that finishes as soon as its dependencies have (a join point).
  ActivityId add_marker(std::span<const ActivityId> deps = {}, std::uint16_t category = 0);
  /// `after` waits for `before`. May create a cycle; backends report cycles as errors.
  void add_dependency(ActivityId before, ActivityId after);

  [[nodiscard]] std::size_t activity_count() const { return activities_.size(); }
  [[nodiscard]] std::size_t resource_count() const { return resources_.size(); }
  [[nodiscard]] std::size_t engine_count() const { return engines_.size(); }
  [[nodiscard]] std::size_t stream_count() const { return streams_.size(); }
  [[nodiscard]] std::size_t edge_count() const { return edges_.size(); }
  /// Total number of route hops over all transfers (a route slot indexes one hop).
  [[nodiscard]] std::size_t route_pool_size() const { return route_pool_.size(); }
  /// The number of resources of the longest route (0 if there are no transfers).
  [[nodiscard]] std::size_t max_route_length() const { return max_route_length_; }

  [[nodiscard]] const Activity& activity(ActivityId a) const { return activities_[a.index]; }
  [[nodiscard]] const Resource& resource(ResourceId r) const { return resources_[r.index]; }
  [[nodiscard]] const ComputeEngine& engine(EngineId e) const { return engines_[e.index]; }
  [[nodiscard]] const Stream& stream(StreamId s) const { return streams_[s.index]; }
  [[nodiscard]] const std::vector<std::string>& categories() const { return categories_; }
  [[nodiscard]] std::span<const ResourceId> route(ActivityId a) const;

  /// Visits the successors of `a` in the order the edges were added.
  template <class F>
  void for_each_successor(ActivityId a, F&& f) const {
    for (std::uint32_t e = activities_[a.index].first_successor; e != Activity::kNoEdge; e = edges_[e].next) {
      f(ActivityId{edges_[e].to});
    }
  }

  /// Human-readable description of an activity for error messages ("transfer #12 (4096 B)").
  [[nodiscard]] std::string describe(ActivityId a) const;

  void reserve(std::size_t activities, std::size_t edges);

 private:
  ActivityId push(Activity a, std::span<const ActivityId> deps);
  void check_activity(ActivityId a, std::string_view role) const;
  /// GraphError naming `what` when the stream does not exist.
  void check_stream(StreamId stream, std::string_view what) const;
  /// `id` waits for the stream's last task and becomes it (in-order streams).
  void order_on_stream(StreamId stream, ActivityId id);
  /// Checks a route (every resource exists, none twice, all core pools or none) and appends it.
  void add_route(Activity& a, std::span<const ResourceId> route, std::string_view what, bool cores);

  std::vector<Resource> resources_;
  std::vector<ComputeEngine> engines_;
  std::vector<Stream> streams_;
  std::vector<std::string> categories_{"uncategorised"};
  std::vector<Activity> activities_;
  std::vector<Edge> edges_;
  std::vector<ResourceId> route_pool_;
  std::size_t max_route_length_ = 0;
  // add_kernel's rate caps by (stream, solo rate, core pool or not).
  std::map<std::tuple<std::uint32_t, double, bool>, ResourceId> kernel_rates_;
  // Multi-part kernels' companion streams by (stream, part index).
  std::map<std::pair<std::uint32_t, std::size_t>, StreamId> companions_;
};

/// What a backend reports after running a graph.
struct ResourceStats {
  Bytes bytes;         // bytes that crossed the resource (core pools: work units)
  Seconds busy;        // time during which at least one transfer was using it
  double utilization;  // bytes / (capacity x makespan)
};

struct EngineStats {
  Seconds busy;  // time during which at least one of its streams ran a task
};

struct SimResult {
  SimTime makespan;
  std::vector<SimTime> start;  // per activity
  std::vector<SimTime> end;    // per activity
  std::vector<ResourceStats> resources;
  std::vector<EngineStats> engines;
  std::uint64_t events = 0;    // events processed (for speed reports)
};

}  // namespace dlrmsim::sim
