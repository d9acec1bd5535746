// The SimGrid 3.32 reference backend.
//
// How the graph maps onto SimGrid
// -------------------------------
//  - Each resource is one SHARED SimGrid link with bandwidth = capacity and latency 0 (the
//    latency is paid by the transfer itself, see "Latency" below).
//  - Routes: all hosts live in one star zone, where the route from host S to host D is the
//    "up" links of S followed by the "down" links of D. A transfer whose route is
//    r1 ... rk-1 rk runs from a source host whose up-links are r1 ... rk-1 to a destination
//    host whose only down-link is rk. There is one source host per distinct route prefix
//    and one destination host per distinct last resource, so the platform grows linearly
//    with the graph (a full zone's routing table would be quadratic in the hosts), and a
//    source is never its own destination (no loopback). (The star zone would drop a link that
//    appears twice in one route; ActivityGraph refuses such routes.)
//  - Compute engines are hosts of 1e9 flop/s with one core per stream: a task of d seconds
//    executes d x 1e9 flop on one core, and because a stream runs one task at a time, the
//    tasks of different streams never share a core and never slow each other down.
//  - One S4U actor per activity, created when the activity becomes ready by whoever
//    finished its last dependency (SimGrid runs actors one at a time, so the dependency
//    counters are plain memory). The activity-DAG API (Exec::init / add_successor) is not
//    used: in 3.32 it rescans a list of all live activities on each completion, which is
//    quadratic for large graphs. Markers, zero-length tasks and transfers that cost
//    nothing finish on the spot without an actor.
//  - A transfer's actor runs on its source host and put()s its bytes into the mailbox of
//    its destination host, whose permanent receiver (a daemon actor on that host) makes
//    the comm start at once. Host-to-host Comm::sendto is avoided for the same reason as
//    the DAG API: 3.32 lists such comms on maestro and scans that list at each completion
//    (a 512-endpoint all-to-all did not finish in 12 minutes that way; 19 s with mailboxes).
//
// Model settings and why (all make SimGrid compute the same thing as the native engine)
//  - network/model:CM02: plain max-min sharing without corrective factors. The default
//    LV08 multiplies latencies by 13.01 and bandwidths by 0.97 (slow-start calibration).
//    CM02 sets network/latency-factor and network/bandwidth-factor to 1 and weight-S to 0;
//    they are also set explicitly below so that no default can change that.
//  - network/crosstraffic:0: otherwise every flow also loads its reverse route with 5 % of
//    its rate (TCP acknowledgements); our resources are one direction each.
//  - network/TCP-gamma:0: otherwise a flow's rate is capped at gamma / (2 x latency)
//    (TCP window limit); our flows are limited by bandwidth only.
//  - Latency: CM02 weights each flow's max-min share by the inverse of its route latency
//    (the flow's "sharing penalty" is its latency; a flow with 1 us gets three times the
//    share of a flow with 3 us on a common link; measured on 3.32). Our model shares fairly
//    whatever the latency, so the links carry no latency: a transfer sleeps for the sum of
//    its route's latencies, then moves its bytes. This is exactly our semantics (no
//    bandwidth used during the latency) and every flow has the same sharing weight.
//  - network/optim:Full: full update of all flows at each event, without Lazy's heap
//    bookkeeping; measured 10-15 % faster on all-to-all workloads, where one event changes
//    most rates (64 endpoints, staggered sizes: 0.46 s against 0.54 s; 128 endpoints:
//    1.08 s against 1.19 s).
//  - Numerical precision (3.32 defaults, kept): surf/precision = 1e-9 s, the tolerance
//    on event dates (a latency below 1 ns is slept as 1 ns; an event may move by up to
//    1 ns, so a completion date is exact to about 1 ns per event on its dependency chain);
//    maxmin/precision = 1e-5 B/s (or flop/s), the slack of the sharing solver, negligible
//    against capacities of MB/s and more. Measured agreement with the native engine is
//    about 1e-8 relative, far inside the 1 % (+ a few ns) the tests require.
//  - Sizes: SimGrid moves whole bytes (uint64); a fractional size is rounded to the
//    nearest byte (at most 0.5 B / bandwidth of difference).
//  - Logging is silenced below "critical" (SimGrid writes info messages to stderr).
//  - Contexts: 16 KiB stacks without guard pages, so that the 261,632 concurrent actors of
//    a 512-endpoint all-to-all fit (SimGrid zero-fills each stack: 16 KiB is about 4 GiB
//    there, the default 8 MiB would not fit; a guard page costs a memory mapping, and a
//    process may have only 65530). The actors run only this file's short functions and
//    SimGrid's blocking calls: they crash with 4 KiB and run with 8 KiB, so 16 KiB leaves
//    twice the space measured as enough.
//
// Process isolation: SimGrid allows one engine per process and keeps global state (its
// clock, configuration and static callbacks survive the engine). simulate_simgrid forks;
// the child builds the platform, runs the engine, writes the result into a pipe and exits
// without tearing SimGrid down; the parent never touches SimGrid, so one process can run
// this backend any number of times.
#include "sim/simgrid_backend.hpp"

#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <exception>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include <simgrid/s4u.hpp>

namespace dlrmsim::sim {

namespace sg4 = simgrid::s4u;

namespace {

/// Speed of a compute host. Any value works (a task of d seconds executes d x speed flop);
/// 1e9 keeps flop counts of microsecond tasks well above the solver's 1e-5 precision.
constexpr double kHostSpeedFlopsPerSecond = 1e9;

/// "prefix<index>", the name of a SimGrid link or host.
std::string numbered(std::string_view prefix, std::size_t index) {
  std::string name(prefix);
  name.append(std::to_string(index));
  return name;
}

// ---------------------------------------------------------------------------------------
// Result transport between the child and the parent.

enum class Status : std::uint8_t { ok = 0, graph_error = 1, other_error = 2 };

class Writer {
 public:
  explicit Writer(int fd) : fd_(fd) {}
  template <class T>
  void put(const T& v) { put_bytes(&v, sizeof v); }
  template <class T>
  void put_array(const std::vector<T>& v) { put_bytes(v.data(), v.size() * sizeof(T)); }
  void put_bytes(const void* p, std::size_t n) {
    const char* c = static_cast<const char*>(p);
    while (n > 0) {
      const ssize_t w = ::write(fd_, c, n);
      if (w < 0) {
        if (errno == EINTR) continue;
        _exit(3);  // the parent went away: nothing left to report to
      }
      c += w;
      n -= static_cast<std::size_t>(w);
    }
  }

 private:
  int fd_;
};

class Reader {
 public:
  explicit Reader(const std::string& data) : data_(data) {}
  template <class T>
  T get() {
    T v;
    get_bytes(&v, sizeof v);
    return v;
  }
  void get_bytes(void* p, std::size_t n) {
    if (data_.size() - pos_ < n) throw std::runtime_error("simgrid backend: truncated result from the simulation process");
    std::memcpy(p, data_.data() + pos_, n);
    pos_ += n;
  }

 private:
  const std::string& data_;
  std::size_t pos_ = 0;
};

// ---------------------------------------------------------------------------------------
// The simulation, run in the child process.

class Replay {
 public:
  explicit Replay(const ActivityGraph& graph) : graph_(graph) {}

  /// Builds the platform, runs the engine and returns the result (child process only).
  SimResult run() {
    engine_args_ = {
        "dlrmsim-simgrid",
        "--log=root.thres:critical",
        "--cfg=network/model:CM02",
        "--cfg=network/latency-factor:1",
        "--cfg=network/bandwidth-factor:1",
        "--cfg=network/weight-S:0",
        "--cfg=network/crosstraffic:0",
        "--cfg=network/TCP-gamma:0",
        "--cfg=network/optim:Full",
        "--cfg=contexts/stack-size:16",
        "--cfg=contexts/guard-size:0",
    };
#if defined(__SANITIZE_ADDRESS__)
    // AddressSanitizer cannot follow SimGrid's stack switching between actors (it reports
    // stack-buffer-overflows in the context switch); thread contexts are slower but sound.
    engine_args_.emplace_back("--cfg=contexts/factory:thread");
#endif
    std::vector<char*> argv;
    for (auto& a : engine_args_) argv.push_back(a.data());
    argv.push_back(nullptr);
    int argc = static_cast<int>(engine_args_.size());
    // Deliberately never destroyed: this process exits right after reporting, and tearing
    // down hundreds of thousands of finished actors would only cost time.
    auto* engine = new sg4::Engine(&argc, argv.data());

    build_platform();
    prepare_state();

    // The initial ready set: every activity without dependencies, in id order.
    std::vector<std::uint32_t> ready;
    for (std::uint32_t a = 0; a < graph_.activity_count(); ++a) {
      if (remaining_deps_[a] == 0) ready.push_back(a);
    }
    launch(ready, 0.0);
    engine->run();
    return collect();
  }

 private:
  void build_platform() {
    auto* zone = sg4::create_star_zone("dlrmsim");
    links_.reserve(graph_.resource_count());
    for (std::uint32_t r = 0; r < graph_.resource_count(); ++r) {
      const Resource& res = graph_.resource(ResourceId{r});
      // SHARED is SimGrid's default policy: the capacity is split among the flows.
      links_.push_back(zone->create_link(numbered("r", r), res.capacity.value())->set_latency(0)->seal());
    }

    std::vector<std::uint32_t> streams_per_engine(graph_.engine_count(), 0);
    for (std::uint32_t s = 0; s < graph_.stream_count(); ++s) {
      ++streams_per_engine[graph_.stream(StreamId{s}).engine.index];
    }
    engine_hosts_.reserve(graph_.engine_count());
    for (std::uint32_t e = 0; e < graph_.engine_count(); ++e) {
      const int cores = static_cast<int>(std::max<std::uint32_t>(1, streams_per_engine[e]));
      engine_hosts_.push_back(
          zone->create_host(numbered("engine", e), kHostSpeedFlopsPerSecond)->set_core_count(cores)->seal());
    }

    // Endpoints of each transfer, deduplicated by route prefix (source) and last resource
    // (destination). The prefix key is the raw bytes of its resource indices.
    const std::size_t n = graph_.activity_count();
    transfer_source_.assign(n, 0);
    transfer_destination_.assign(n, 0);
    std::unordered_map<std::string, std::uint32_t> source_by_prefix;
    std::vector<std::int64_t> destination_by_last(graph_.resource_count(), -1);
    std::string key;
    for (std::uint32_t a = 0; a < n; ++a) {
      const Activity& act = graph_.activity(ActivityId{a});
      if (act.kind != ActivityKind::transfer) continue;
      const auto route = graph_.route(ActivityId{a});
      key.assign(reinterpret_cast<const char*>(route.data()), (route.size() - 1) * sizeof(ResourceId));
      auto [it, inserted] = source_by_prefix.try_emplace(key, static_cast<std::uint32_t>(source_hosts_.size()));
      if (inserted) {
        sg4::Host* host = zone->create_host(numbered("src", source_hosts_.size()), kHostSpeedFlopsPerSecond)->seal();
        std::vector<sg4::LinkInRoute> up;
        up.reserve(route.size() - 1);
        for (std::size_t i = 0; i + 1 < route.size(); ++i) up.emplace_back(links_[route[i].index]);
        zone->add_route(host->get_netpoint(), nullptr, nullptr, nullptr, up, false);
        source_hosts_.push_back(host);
      }
      transfer_source_[a] = it->second;
      const std::uint32_t last = route.back().index;
      if (destination_by_last[last] < 0) {
        destination_by_last[last] = static_cast<std::int64_t>(destination_hosts_.size());
        sg4::Host* host = zone->create_host(numbered("dst", last), kHostSpeedFlopsPerSecond)->seal();
        zone->add_route(nullptr, host->get_netpoint(), nullptr, nullptr, {sg4::LinkInRoute(links_[last])}, false);
        destination_hosts_.push_back(host);
      }
      transfer_destination_[a] = static_cast<std::uint32_t>(destination_by_last[last]);
    }
    zone->seal();

    // One mailbox per destination host, with a permanent receiver living on that host: a
    // put() then starts moving bytes at once from the sender's host to the receiver's
    // host, without a matching get(). (Host-to-host Comm::sendto is not used: in 3.32 such
    // comms are listed on maestro and each completion scans that list, which is quadratic
    // in the number of concurrent transfers.) The receivers are daemons, so the
    // simulation ends when the last activity does.
    destination_mailboxes_.reserve(destination_hosts_.size());
    for (std::size_t d = 0; d < destination_hosts_.size(); ++d) {
      sg4::Mailbox* mailbox = sg4::Mailbox::by_name(numbered("to", d));
      // The receiver collects the comms in order so that finished ones (and the sender
      // actors they reference) are freed; waiting for a comm does not change its rate.
      const sg4::ActorPtr receiver = sg4::Actor::create("receiver", destination_hosts_[d], [mailbox] {
        sg4::Actor::self()->daemonize();
        for (;;) mailbox->get<Replay>();
      });
      mailbox->set_receiver(receiver);
      destination_mailboxes_.push_back(mailbox);
    }
  }

  void prepare_state() {
    const std::size_t n = graph_.activity_count();
    remaining_deps_.resize(n);
    for (std::uint32_t a = 0; a < n; ++a) remaining_deps_[a] = graph_.activity(ActivityId{a}).dependency_count;
    start_.assign(n, 0.0);
    end_.assign(n, 0.0);
    flows_on_resource_.assign(graph_.resource_count(), 0);
    resource_busy_since_.assign(graph_.resource_count(), 0.0);
    resource_busy_.assign(graph_.resource_count(), 0.0);
    tasks_on_engine_.assign(graph_.engine_count(), 0);
    engine_busy_since_.assign(graph_.engine_count(), 0.0);
    engine_busy_.assign(graph_.engine_count(), 0.0);
  }

  [[nodiscard]] double route_latency(std::uint32_t a) const {
    double latency = 0.0;
    for (ResourceId r : graph_.route(ActivityId{a})) latency += graph_.resource(r).latency.value();
    return latency;
  }

  /// Bytes SimGrid will move for transfer `a` (whole bytes).
  [[nodiscard]] std::uint64_t whole_bytes(std::uint32_t a) const {
    return static_cast<std::uint64_t>(std::llround(graph_.activity(ActivityId{a}).amount));
  }

  /// True when the activity takes no simulated time and needs no actor.
  [[nodiscard]] bool is_instant(std::uint32_t a) const {
    const Activity& act = graph_.activity(ActivityId{a});
    switch (act.kind) {
      case ActivityKind::marker:
        return true;
      case ActivityKind::compute:
        return act.amount <= 0.0;
      case ActivityKind::transfer:
        return whole_bytes(a) == 0 && route_latency(a) <= 0.0;
    }
    return true;
  }

  /// Starts every activity of `ready` at `now`: instant ones finish at once (releasing
  /// their successors in turn), the others get an actor. No SimGrid call happens before
  /// all counters are updated, so other actors never see a half-done release.
  void launch(std::vector<std::uint32_t>& ready, double now) {
    std::vector<std::uint32_t> spawn;
    while (!ready.empty()) {
      const std::uint32_t a = ready.back();
      ready.pop_back();
      start_[a] = now;
      if (is_instant(a)) {
        end_[a] = now;
        ++finished_;
        collect_ready_successors(a, ready);
      } else {
        spawn.push_back(a);
      }
    }
    for (std::uint32_t a : spawn) spawn_actor(a);
  }

  void collect_ready_successors(std::uint32_t a, std::vector<std::uint32_t>& ready) {
    std::size_t first_new = ready.size();
    graph_.for_each_successor(ActivityId{a}, [&](ActivityId s) {
      if (--remaining_deps_[s.index] == 0) ready.push_back(s.index);
    });
    // `ready` is used as a stack: reverse so successors start in the order they were added.
    std::reverse(ready.begin() + static_cast<std::ptrdiff_t>(first_new), ready.end());
  }

  void finish(std::uint32_t a) {
    const double now = sg4::Engine::get_clock();
    end_[a] = now;
    ++finished_;
    std::vector<std::uint32_t> ready;
    collect_ready_successors(a, ready);
    launch(ready, now);
  }

  void spawn_actor(std::uint32_t a) {
    const Activity& act = graph_.activity(ActivityId{a});
    if (act.kind == ActivityKind::compute) {
      const std::uint32_t engine = graph_.stream(StreamId{act.stream}).engine.index;
      sg4::Actor::create("c", engine_hosts_[engine], [this, a, engine] { run_compute(a, engine); });
    } else {
      sg4::Actor::create("t", source_hosts_[transfer_source_[a]], [this, a] { run_transfer(a); });
    }
  }

  void run_compute(std::uint32_t a, std::uint32_t engine) {
    if (tasks_on_engine_[engine]++ == 0) engine_busy_since_[engine] = sg4::Engine::get_clock();
    sg4::this_actor::execute(graph_.activity(ActivityId{a}).duration().value() * kHostSpeedFlopsPerSecond);
    if (--tasks_on_engine_[engine] == 0) engine_busy_[engine] += sg4::Engine::get_clock() - engine_busy_since_[engine];
    ++events_;
    finish(a);
  }

  void run_transfer(std::uint32_t a) {
    const Activity& act = graph_.activity(ActivityId{a});
    const std::uint32_t engine = act.engine_work() ? graph_.stream(StreamId{act.stream}).engine.index : kNoEngine;
    if (engine != kNoEngine && tasks_on_engine_[engine]++ == 0) engine_busy_since_[engine] = sg4::Engine::get_clock();
    const double latency = route_latency(a);
    if (latency > 0.0) {
      sg4::this_actor::sleep_for(latency);
      ++events_;
    }
    const std::uint64_t bytes = whole_bytes(a);
    if (bytes > 0) {
      const auto route = graph_.route(ActivityId{a});
      const double begin = sg4::Engine::get_clock();
      for (ResourceId r : route) {
        if (flows_on_resource_[r.index]++ == 0) resource_busy_since_[r.index] = begin;
      }
      // The payload pointer is never read; put() only needs a non-null one.
      destination_mailboxes_[transfer_destination_[a]]->put(this, bytes);
      const double done = sg4::Engine::get_clock();
      for (ResourceId r : route) {
        if (--flows_on_resource_[r.index] == 0) resource_busy_[r.index] += done - resource_busy_since_[r.index];
      }
      ++events_;
    }
    if (engine != kNoEngine && --tasks_on_engine_[engine] == 0) {
      engine_busy_[engine] += sg4::Engine::get_clock() - engine_busy_since_[engine];
    }
    finish(a);
  }

  SimResult collect() const {
    const std::size_t n = graph_.activity_count();
    if (finished_ != n) {
      throw std::runtime_error("simgrid backend: the simulation ended with " + std::to_string(n - finished_) +
                               " of " + std::to_string(n) + " activities unfinished");
    }
    SimResult result;
    result.start.resize(n);
    result.end.resize(n);
    double makespan = 0.0;
    for (std::size_t a = 0; a < n; ++a) {
      result.start[a] = SimTime::from_seconds(Seconds(start_[a]));
      result.end[a] = SimTime::from_seconds(Seconds(end_[a]));
      makespan = std::max(makespan, end_[a]);
    }
    result.makespan = SimTime::from_seconds(Seconds(makespan));
    const double span = result.makespan.seconds().value();
    result.resources.resize(graph_.resource_count());
    for (std::uint32_t a = 0; a < n; ++a) {
      const Activity& act = graph_.activity(ActivityId{a});
      if (act.kind != ActivityKind::transfer) continue;
      for (ResourceId r : graph_.route(ActivityId{a})) result.resources[r.index].bytes += Bytes(act.amount);
    }
    for (std::uint32_t r = 0; r < graph_.resource_count(); ++r) {
      ResourceStats& s = result.resources[r];
      s.busy = Seconds(resource_busy_[r]);
      s.utilization = span > 0.0 ? s.bytes.value() / (graph_.resource(ResourceId{r}).capacity.value() * span) : 0.0;
    }
    result.engines.resize(graph_.engine_count());
    for (std::uint32_t e = 0; e < graph_.engine_count(); ++e) result.engines[e].busy = Seconds(engine_busy_[e]);
    result.events = events_;
    return result;
  }

  const ActivityGraph& graph_;
  std::vector<std::string> engine_args_;  // SimGrid's command line, alive as long as the engine
  std::vector<sg4::Link*> links_;
  std::vector<sg4::Host*> engine_hosts_;
  std::vector<sg4::Host*> source_hosts_;
  std::vector<sg4::Host*> destination_hosts_;
  std::vector<sg4::Mailbox*> destination_mailboxes_;  // per destination host
  std::vector<std::uint32_t> transfer_source_;       // per activity (transfers only)
  std::vector<std::uint32_t> transfer_destination_;  // per activity (transfers only)

  std::vector<std::uint32_t> remaining_deps_;
  std::vector<double> start_;
  std::vector<double> end_;
  std::size_t finished_ = 0;
  std::uint64_t events_ = 0;  // compute ends, latency ends and data-phase ends

  std::vector<std::uint32_t> flows_on_resource_;
  std::vector<double> resource_busy_since_;
  std::vector<double> resource_busy_;
  std::vector<std::uint32_t> tasks_on_engine_;
  static constexpr std::uint32_t kNoEngine = 0xffffffffu;
  std::vector<double> engine_busy_since_;
  std::vector<double> engine_busy_;
};

void write_result(Writer& out, const SimResult& r) {
  out.put(Status::ok);
  out.put(static_cast<std::uint64_t>(r.start.size()));
  out.put(r.makespan.ps());
  std::vector<std::int64_t> ps(r.start.size());
  for (std::size_t i = 0; i < ps.size(); ++i) ps[i] = r.start[i].ps();
  out.put_array(ps);
  for (std::size_t i = 0; i < ps.size(); ++i) ps[i] = r.end[i].ps();
  out.put_array(ps);
  out.put(static_cast<std::uint64_t>(r.resources.size()));
  for (const ResourceStats& s : r.resources) {
    out.put(s.bytes.value());
    out.put(s.busy.value());
    out.put(s.utilization);
  }
  out.put(static_cast<std::uint64_t>(r.engines.size()));
  for (const EngineStats& s : r.engines) out.put(s.busy.value());
  out.put(r.events);
}

void write_error(Writer& out, Status status, const std::string& message) {
  out.put(status);
  out.put(static_cast<std::uint64_t>(message.size()));
  out.put_bytes(message.data(), message.size());
}

[[noreturn]] void run_child(const ActivityGraph& graph, int fd) {
  Writer out(fd);
  try {
    Replay replay(graph);
    const SimResult result = replay.run();
    write_result(out, result);
  } catch (const GraphError& e) {
    write_error(out, Status::graph_error, e.what());
  } catch (const std::exception& e) {
    write_error(out, Status::other_error, e.what());
  }
  ::close(fd);
  // _exit: no SimGrid teardown (slow for large runs) and none of the parent's exit
  // handlers or buffered output run twice.
  _exit(0);
}

SimResult read_result(const std::string& data) {
  Reader in(data);
  const auto status = in.get<Status>();
  if (status != Status::ok) {
    const auto length = in.get<std::uint64_t>();
    std::string message(length, '\0');
    in.get_bytes(message.data(), length);
    if (status == Status::graph_error) throw GraphError(message);
    throw std::runtime_error(message);
  }
  SimResult r;
  const auto n = in.get<std::uint64_t>();
  r.makespan = SimTime::from_ps(in.get<std::int64_t>());
  std::vector<std::int64_t> ps(n);
  in.get_bytes(ps.data(), n * sizeof(std::int64_t));
  r.start.reserve(n);
  for (auto v : ps) r.start.push_back(SimTime::from_ps(v));
  in.get_bytes(ps.data(), n * sizeof(std::int64_t));
  r.end.reserve(n);
  for (auto v : ps) r.end.push_back(SimTime::from_ps(v));
  r.resources.resize(in.get<std::uint64_t>());
  for (ResourceStats& s : r.resources) {
    s.bytes = Bytes(in.get<double>());
    s.busy = Seconds(in.get<double>());
    s.utilization = in.get<double>();
  }
  r.engines.resize(in.get<std::uint64_t>());
  for (EngineStats& s : r.engines) s.busy = Seconds(in.get<double>());
  r.events = in.get<std::uint64_t>();
  return r;
}

/// Throws GraphError naming a cycle when some activities can never start (Kahn's
/// algorithm, O(activities + dependencies)); the simulation itself would just stop early.
void check_acyclic(const ActivityGraph& graph) {
  const std::size_t n = graph.activity_count();
  std::vector<std::uint32_t> remaining(n);
  std::vector<std::uint32_t> ready;
  for (std::uint32_t a = 0; a < n; ++a) {
    remaining[a] = graph.activity(ActivityId{a}).dependency_count;
    if (remaining[a] == 0) ready.push_back(a);
  }
  std::size_t released = 0;
  while (!ready.empty()) {
    const std::uint32_t a = ready.back();
    ready.pop_back();
    ++released;
    graph.for_each_successor(ActivityId{a}, [&](ActivityId s) {
      if (--remaining[s.index] == 0) ready.push_back(s.index);
    });
  }
  if (released == n) return;

  // Every activity left has a predecessor that is also left (otherwise it would have been
  // released), so walking backwards through such predecessors must come back to an
  // activity already seen: that closes a cycle.
  constexpr std::uint32_t kNone = 0xffffffffu;
  std::vector<std::uint32_t> blocked_by(n, kNone);
  std::uint32_t any_blocked = kNone;
  for (std::uint32_t a = 0; a < n; ++a) {
    if (remaining[a] == 0) continue;
    if (any_blocked == kNone) any_blocked = a;
    graph.for_each_successor(ActivityId{a}, [&](ActivityId s) {
      if (remaining[s.index] != 0 && blocked_by[s.index] == kNone) blocked_by[s.index] = a;
    });
  }
  std::vector<std::uint32_t> seen_at(n, kNone);
  std::vector<std::uint32_t> walk;
  std::uint32_t a = any_blocked;
  while (seen_at[a] == kNone) {
    seen_at[a] = static_cast<std::uint32_t>(walk.size());
    walk.push_back(a);
    a = blocked_by[a];
  }
  // walk[seen_at[a] ...] is the cycle, each one waiting for the next; print it in
  // dependency order (each activity runs before the next).
  std::vector<std::uint32_t> cycle(walk.begin() + seen_at[a], walk.end());
  std::reverse(cycle.begin(), cycle.end());
  std::rotate(cycle.begin(), std::min_element(cycle.begin(), cycle.end()), cycle.end());  // lowest id first
  std::string message = "dependency cycle: ";
  constexpr std::size_t kShown = 6;
  for (std::size_t i = 0; i < std::min(cycle.size(), kShown); ++i) {
    message += graph.describe(ActivityId{cycle[i]}) + " -> ";
  }
  message += cycle.size() > kShown ? "... -> " + graph.describe(ActivityId{cycle.front()})
                                   : graph.describe(ActivityId{cycle.front()});
  message += " (" + std::to_string(n - released) + " activities can never start)";
  throw GraphError(message);
}

}  // namespace

SimResult simulate_simgrid(const ActivityGraph& graph) {
  check_acyclic(graph);

  int fds[2];
  if (::pipe(fds) != 0) throw std::runtime_error(std::string("simgrid backend: pipe failed: ") + std::strerror(errno));
  std::fflush(nullptr);  // so that nothing buffered before the fork is written twice
  const pid_t child = ::fork();
  if (child < 0) {
    const int err = errno;
    ::close(fds[0]);
    ::close(fds[1]);
    throw std::runtime_error(std::string("simgrid backend: fork failed: ") + std::strerror(err));
  }
  if (child == 0) {
    ::close(fds[0]);
    run_child(graph, fds[1]);
  }
  ::close(fds[1]);

  std::string data;
  char buffer[1 << 16];
  for (;;) {
    const ssize_t got = ::read(fds[0], buffer, sizeof buffer);
    if (got > 0) {
      data.append(buffer, static_cast<std::size_t>(got));
    } else if (got == 0) {
      break;
    } else if (errno != EINTR) {
      break;
    }
  }
  ::close(fds[0]);

  int status = 0;
  pid_t waited;
  do {
    waited = ::waitpid(child, &status, 0);
  } while (waited < 0 && errno == EINTR);
  if (waited == child && WIFSIGNALED(status)) {
    throw std::runtime_error("simgrid backend: the simulation process was killed by signal " +
                             std::to_string(WTERMSIG(status)) + " (" + strsignal(WTERMSIG(status)) +
                             "); SimGrid's message, if any, is on stderr");
  }
  if (waited == child && WIFEXITED(status) && WEXITSTATUS(status) != 0) {
    throw std::runtime_error("simgrid backend: the simulation process exited with status " +
                             std::to_string(WEXITSTATUS(status)) + "; SimGrid's message, if any, is on stderr");
  }
  if (data.empty()) throw std::runtime_error("simgrid backend: the simulation process returned no result");
  return read_result(data);
}

}  // namespace dlrmsim::sim
