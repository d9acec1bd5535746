#include "sim/native_engine.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <queue>
#include <string>
#include <vector>

namespace dlrmsim::sim {
namespace {

using Ps = std::int64_t;
constexpr std::uint32_t kNone = 0xffffffffu;

/// Relative tolerance of the bottleneck checks at the boundary of an incremental computation
/// (see native_engine.hpp): far above the rounding of a sum of thousands of rates (~1e-13),
/// far below the agreement asked of the engine (1e-9).
constexpr double kSlack = 1e-11;

enum class EventType : std::uint8_t { compute_done, latency_done };

struct Event {
  Ps time;
  std::uint64_t seq;
  std::uint32_t activity;
  EventType type;
};
struct LaterEvent {
  bool operator()(const Event& a, const Event& b) const {
    return a.time != b.time ? a.time > b.time : a.seq > b.seq;
  }
};

/// One hop of an active flow as listed on a resource: which flow, and which route slot.
struct HopRef {
  std::uint32_t flow;
  std::uint32_t slot;  // index into the graph's route pool (unique per transfer and hop)
};

struct Flow {
  const ResourceId* route = nullptr;  // the transfer's route (in the graph's route pool)
  std::uint32_t hops = 0;             // route length
  std::uint32_t activity = kNone;
  double remaining = 0.0;  // bytes still to move as of `updated`
  double rate = 0.0;       // bytes per second
  double new_rate = 0.0;   // water-filling: the rate decided in this computation
  Ps updated = 0;
  Ps finish = 0;           // scheduled completion (key in the flow heap with `seq`)
  std::uint64_t seq = 0;
  std::uint32_t heap_pos = kNone;
  std::uint32_t member = 0;            // == epoch: re-solved in the current computation
  std::uint32_t bottleneck = kNone;    // the resource that fixed its rate (saturated, and it is the max there)
  std::uint32_t fixed_at = kNone;      // water-filling: where its rate was fixed (kNone: not yet)
};

struct ResourceState {
  std::vector<HopRef> hops;  // active flows crossing this resource
  double capacity = 0.0;
  Ps busy_since = 0;
  Ps busy = 0;
  double bytes = 0.0;
  bool dirty = false;
  // Per computation (valid when the mark equals the current epoch).
  std::uint32_t open_mark = 0;   // all its flows are re-solved
  std::uint32_t touch_mark = 0;  // crossed by a re-solved flow
  // Boundary resources (touched, not open): the flows that keep their rates.
  double kept_load = 0.0;                 // sum of their rates
  double kept_max = 0.0;                  // their largest rate
  double kept_bottlenecked_min = 0.0;     // smallest rate among those bottlenecked here
  std::uint32_t kept_bottlenecked = 0;    // how many are bottlenecked here
  // Water-filling scratch.
  double left = 0.0;        // capacity not yet given out
  double key = 0.0;         // left / unfixed: the share it would give now
  double share = 0.0;       // the share it gave when popped
  double solved_max = 0.0;  // largest new rate of a re-solved flow crossing it
  std::uint32_t unfixed = 0;
  std::uint32_t heap_pos = kNone;
  bool popped = false;
  bool changed = false;
};

class NativeEngine {
 public:
  NativeEngine(const ActivityGraph& g, const NativeOptions& options) : g_(g), options_(options) {
    const std::size_t n = g.activity_count();
    pending_.resize(n);
    result_.start.assign(n, SimTime::from_ps(-1));
    result_.end.assign(n, SimTime::from_ps(-1));
    resources_.resize(g.resource_count());
    for (std::size_t r = 0; r < resources_.size(); ++r) {
      resources_[r].capacity = g.resource(ResourceId{static_cast<std::uint32_t>(r)}).capacity.value();
    }
    engine_active_.assign(g.engine_count(), 0);
    engine_busy_since_.assign(g.engine_count(), 0);
    engine_busy_.assign(g.engine_count(), 0);
    hop_pos_.resize(g.route_pool_size());
  }

  SimResult run() {
    const std::size_t n = g_.activity_count();
    for (std::size_t i = 0; i < n; ++i) {
      pending_[i] = g_.activity(ActivityId{static_cast<std::uint32_t>(i)}).dependency_count;
    }
    for (std::size_t i = 0; i < n; ++i) {
      if (pending_[i] == 0) make_ready(static_cast<std::uint32_t>(i));
    }
    drain_immediate();
    while (true) {
      const bool have_event = !events_.empty();
      const bool have_flow = !flow_heap_.empty();
      if (!have_event && !have_flow) break;
      Ps t;
      if (have_event && have_flow) {
        t = std::min(events_.top().time, flows_[flow_heap_[0]].finish);
      } else {
        t = have_event ? events_.top().time : flows_[flow_heap_[0]].finish;
      }
      now_ = t;
      // Run every event of this instant in scheduling order, then share bandwidth once.
      while (true) {
        const bool e_now = !events_.empty() && events_.top().time == now_;
        const bool f_now = !flow_heap_.empty() && flows_[flow_heap_[0]].finish == now_;
        if (!e_now && !f_now) break;
        if (e_now && (!f_now || events_.top().seq < flows_[flow_heap_[0]].seq)) {
          const Event ev = events_.top();
          events_.pop();
          ++result_.events;
          if (ev.type == EventType::compute_done) {
            finish_compute(ev.activity);
          } else {
            start_flow(ev.activity);
          }
        } else {
          ++result_.events;
          finish_flow(flow_heap_[0]);
        }
        drain_immediate();
      }
      if (!dirty_.empty()) reshare();
    }
    if (finished_ != n) report_cycle();
    return collect();
  }

 private:
  void schedule(Ps time, std::uint32_t activity, EventType type) {
    events_.push(Event{time, seq_++, activity, type});
  }

  /// now + seconds, refusing a time beyond the engine's range (instead of overflowing).
  Ps later(double seconds, std::uint32_t activity, bool round_up) const {
    const double ps = round_up ? std::ceil(seconds * 1e12) : std::round(seconds * 1e12);
    if (!(ps <= kMaxSimulatedSeconds * 1e12 - static_cast<double>(now_))) {
      throw GraphError(g_.describe(ActivityId{activity}) + " would end after " + format_seconds(Seconds(seconds)) +
                       " more, beyond the engine's time range (about 106 days)");
    }
    return now_ + static_cast<Ps>(ps);
  }

  void make_ready(std::uint32_t a) {
    const Activity& act = g_.activity(ActivityId{a});
    result_.start[a] = SimTime::from_ps(now_);
    switch (act.kind) {
      case ActivityKind::marker:
        immediate_.push_back(a);
        break;
      case ActivityKind::compute: {
        const std::uint32_t e = g_.stream(StreamId{act.stream}).engine.index;
        if (engine_active_[e]++ == 0) engine_busy_since_[e] = now_;
        schedule(later(act.amount, a, false), a, EventType::compute_done);
        break;
      }
      case ActivityKind::transfer: {
        double latency = 0.0;
        for (ResourceId r : g_.route(ActivityId{a})) latency += g_.resource(r).latency.value();
        schedule(later(latency, a, false), a, EventType::latency_done);
        break;
      }
    }
  }

  void complete(std::uint32_t a) {
    result_.end[a] = SimTime::from_ps(now_);
    ++finished_;
    g_.for_each_successor(ActivityId{a}, [&](ActivityId s) {
      if (--pending_[s.index] == 0) make_ready(s.index);
    });
  }

  void drain_immediate() {
    while (!immediate_.empty()) {
      const std::uint32_t a = immediate_.back();
      immediate_.pop_back();
      complete(a);
    }
  }

  void finish_compute(std::uint32_t a) {
    const std::uint32_t e = g_.stream(StreamId{g_.activity(ActivityId{a}).stream}).engine.index;
    if (--engine_active_[e] == 0) engine_busy_[e] += now_ - engine_busy_since_[e];
    complete(a);
  }

  void start_flow(std::uint32_t a) {
    const Activity& act = g_.activity(ActivityId{a});
    if (act.amount <= 0.0) {  // nothing to move: done once the latency has passed
      complete(a);
      return;
    }
    std::uint32_t f;
    if (!free_flows_.empty()) {
      f = free_flows_.back();
      free_flows_.pop_back();
    } else {
      f = static_cast<std::uint32_t>(flows_.size());
      flows_.emplace_back();
    }
    const auto route = g_.route(ActivityId{a});
    Flow& flow = flows_[f];
    flow = Flow{};
    flow.route = route.data();
    flow.hops = static_cast<std::uint32_t>(route.size());
    flow.activity = a;
    flow.remaining = act.amount;
    flow.updated = now_;
    for (std::uint32_t k = 0; k < flow.hops; ++k) {
      const std::uint32_t r = route[k].index;
      const std::uint32_t slot = act.route_begin + k;
      ResourceState& res = resources_[r];
      if (res.hops.empty()) res.busy_since = now_;
      hop_pos_[slot] = static_cast<std::uint32_t>(res.hops.size());
      res.hops.push_back(HopRef{f, slot});
      res.bytes += act.amount;
      mark_dirty(r);
    }
  }

  void finish_flow(std::uint32_t f) {
    heap_remove(f);
    const Flow& flow = flows_[f];
    const std::uint32_t a = flow.activity;
    const std::uint32_t route_begin = g_.activity(ActivityId{a}).route_begin;
    for (std::uint32_t k = 0; k < flow.hops; ++k) {
      const std::uint32_t r = flow.route[k].index;
      ResourceState& res = resources_[r];
      const std::uint32_t pos = hop_pos_[route_begin + k];
      const HopRef last = res.hops.back();
      res.hops[pos] = last;
      hop_pos_[last.slot] = pos;
      res.hops.pop_back();
      if (res.hops.empty()) res.busy += now_ - res.busy_since;
      mark_dirty(r);
    }
    flows_[f].activity = kNone;
    free_flows_.push_back(f);
    complete(a);
  }

  void mark_dirty(std::uint32_t r) {
    if (!resources_[r].dirty) {
      resources_[r].dirty = true;
      dirty_.push_back(r);
    }
  }

  // ---- max-min sharing (see native_engine.hpp, "Incremental recomputation") ----

  /// Re-solves the flows whose rates can have changed since the last computation.
  void reshare() {
    ++epoch_;
    open_.clear();
    touched_.clear();
    solved_.clear();
    for (std::uint32_t r : dirty_) {
      resources_[r].dirty = false;
      open(r);
    }
    dirty_.clear();
    const bool full = options_.resharing == NativeOptions::Resharing::full_component;
    std::size_t opened = 0;
    while (true) {
      // Every flow of a newly opened resource is re-solved; the resources it crosses are
      // touched (in full mode, opened: the closure is the whole connected component).
      for (; opened < open_.size(); ++opened) {
        touch(open_[opened]);
        for (const HopRef& h : resources_[open_[opened]].hops) {
          Flow& flow = flows_[h.flow];
          if (flow.member == epoch_) continue;
          flow.member = epoch_;
          solved_.push_back(h.flow);
          for (std::uint32_t k = 0; k < flow.hops; ++k) {
            const std::uint32_t r = flow.route[k].index;
            if (full) {
              open(r);
            } else {
              touch(r);
            }
          }
        }
      }
      measure_kept_flows();
      water_fill();
      if (full || !open_failing_boundary()) break;
    }
    for (std::uint32_t f : solved_) {
      flows_[f].bottleneck = flows_[f].fixed_at;
      set_rate(f, flows_[f].new_rate);
    }
  }

  void open(std::uint32_t r) {
    if (resources_[r].open_mark != epoch_) {
      resources_[r].open_mark = epoch_;
      open_.push_back(r);
    }
  }

  void touch(std::uint32_t r) {
    if (resources_[r].touch_mark != epoch_) {
      resources_[r].touch_mark = epoch_;
      touched_.push_back(r);
    }
  }

  /// For each touched resource: how many re-solved flows cross it, and for a boundary
  /// resource (touched, not open) the rates of the flows that keep theirs.
  void measure_kept_flows() {
    for (std::uint32_t r : touched_) {
      ResourceState& res = resources_[r];
      if (res.open_mark == epoch_) {
        res.left = res.capacity;
        res.unfixed = static_cast<std::uint32_t>(res.hops.size());
        continue;
      }
      double load = 0.0;
      double max_rate = 0.0;
      double bottlenecked_min = 0.0;
      std::uint32_t bottlenecked = 0;
      std::uint32_t solved = 0;
      for (const HopRef& h : res.hops) {
        const Flow& flow = flows_[h.flow];
        if (flow.member == epoch_) {
          ++solved;
          continue;
        }
        load += flow.rate;
        max_rate = std::max(max_rate, flow.rate);
        if (flow.bottleneck == r) {
          bottlenecked_min = bottlenecked == 0 ? flow.rate : std::min(bottlenecked_min, flow.rate);
          ++bottlenecked;
        }
      }
      res.kept_load = load;
      res.kept_max = max_rate;
      res.kept_bottlenecked = bottlenecked;
      res.kept_bottlenecked_min = bottlenecked_min;
      res.left = std::max(0.0, res.capacity - load);
      res.unfixed = solved;
    }
  }

  /// Progressive filling of the re-solved flows over the touched resources, the kept flows'
  /// rates taken off the boundary resources' capacities.
  void water_fill() {
    share_heap_.clear();
    for (std::uint32_t r : touched_) {
      ResourceState& res = resources_[r];
      res.popped = false;
      res.solved_max = 0.0;
      res.heap_pos = kNone;
      if (res.unfixed > 0) {
        res.key = res.left / res.unfixed;
        share_heap_push(r);
      }
    }
    for (std::uint32_t f : solved_) flows_[f].fixed_at = kNone;
    // In exact arithmetic the shares fixed by progressive filling never decrease; holding
    // them monotone keeps rounding from starving a flow with a near-zero leftover share.
    double floor_share = 0.0;
    while (!share_heap_.empty()) {
      const std::uint32_t top = share_heap_pop();
      ResourceState& res = resources_[top];
      const double share = std::max(res.key, floor_share);
      floor_share = share;
      res.popped = true;
      res.share = share;
      for (const HopRef& h : res.hops) {
        Flow& flow = flows_[h.flow];
        if (flow.member != epoch_ || flow.fixed_at != kNone) continue;
        flow.fixed_at = top;
        flow.new_rate = share;
        for (std::uint32_t k = 0; k < flow.hops; ++k) {
          const std::uint32_t r2 = flow.route[k].index;
          ResourceState& other = resources_[r2];
          other.left = std::max(0.0, other.left - share);
          --other.unfixed;
          other.solved_max = share;  // shares are fixed in non-decreasing order
          if (r2 != top && !other.changed) {
            other.changed = true;
            changed_.push_back(r2);
          }
        }
      }
      for (std::uint32_t r2 : changed_) {
        ResourceState& other = resources_[r2];
        other.changed = false;
        if (other.unfixed == 0) {
          share_heap_erase(r2);
        } else {
          other.key = other.left / other.unfixed;
          share_heap_fix(r2);
        }
      }
      changed_.clear();
    }
  }

  /// Checks that every flow crossing a boundary resource still has a bottleneck (a
  /// saturated resource on which no flow gets more); opens each boundary resource where a
  /// kept flow lost its bottleneck or outgrows a re-solved one. Returns whether any opened.
  bool open_failing_boundary() {
    bool opened = false;
    const std::size_t n = touched_.size();
    for (std::size_t i = 0; i < n; ++i) {
      const std::uint32_t r = touched_[i];
      const ResourceState& res = resources_[r];
      if (res.open_mark == epoch_) continue;
      bool fail = res.popped && res.kept_max > res.share * (1.0 + kSlack);
      if (!fail && res.kept_bottlenecked > 0) {
        const bool saturated = res.popped || res.left <= kSlack * res.capacity;
        fail = !saturated || res.kept_bottlenecked_min < res.solved_max * (1.0 - kSlack);
      }
      if (fail) {
        open(r);
        opened = true;
      }
    }
    return opened;
  }

  void set_rate(std::uint32_t f, double rate) {
    Flow& flow = flows_[f];
    if (flow.heap_pos != kNone && rate == flow.rate) return;  // unchanged: keep its completion
    if (flow.rate > 0.0) {
      flow.remaining = std::max(0.0, flow.remaining - flow.rate * static_cast<double>(now_ - flow.updated) * 1e-12);
    }
    flow.updated = now_;
    flow.rate = rate;
    flow.finish = later(flow.remaining / rate, flow.activity, true);
    flow.seq = seq_++;
    if (flow.heap_pos == kNone) {
      heap_insert(f);
    } else {
      heap_update(f);
    }
  }

  // ---- indexed binary heap of the touched resources' shares, ordered by (key, index) ----
  [[nodiscard]] bool share_before(std::uint32_t a, std::uint32_t b) const {
    const double x = resources_[a].key;
    const double y = resources_[b].key;
    return x != y ? x < y : a < b;
  }
  void share_place(std::size_t i, std::uint32_t r) {
    share_heap_[i] = r;
    resources_[r].heap_pos = static_cast<std::uint32_t>(i);
  }
  void share_sift_up(std::size_t i) {
    const std::uint32_t r = share_heap_[i];
    while (i > 0) {
      const std::size_t parent = (i - 1) / 2;
      if (!share_before(r, share_heap_[parent])) break;
      share_place(i, share_heap_[parent]);
      i = parent;
    }
    share_place(i, r);
  }
  void share_sift_down(std::size_t i) {
    const std::uint32_t r = share_heap_[i];
    const std::size_t n = share_heap_.size();
    while (true) {
      std::size_t child = 2 * i + 1;
      if (child >= n) break;
      if (child + 1 < n && share_before(share_heap_[child + 1], share_heap_[child])) ++child;
      if (!share_before(share_heap_[child], r)) break;
      share_place(i, share_heap_[child]);
      i = child;
    }
    share_place(i, r);
  }
  void share_heap_push(std::uint32_t r) {
    share_heap_.push_back(r);
    share_sift_up(share_heap_.size() - 1);
  }
  void share_heap_fix(std::uint32_t r) {
    const std::size_t i = resources_[r].heap_pos;
    share_sift_up(i);
    share_sift_down(resources_[r].heap_pos);
  }
  void share_heap_erase(std::uint32_t r) {
    const std::size_t i = resources_[r].heap_pos;
    const std::uint32_t last = share_heap_.back();
    share_heap_.pop_back();
    resources_[r].heap_pos = kNone;
    if (last != r) {
      share_place(i, last);
      share_heap_fix(last);
    }
  }
  std::uint32_t share_heap_pop() {
    const std::uint32_t top = share_heap_[0];
    share_heap_erase(top);
    return top;
  }

  // ---- indexed binary heap of flow completions, ordered by (finish, seq) ----
  [[nodiscard]] bool flow_before(std::uint32_t a, std::uint32_t b) const {
    const Flow& x = flows_[a];
    const Flow& y = flows_[b];
    return x.finish != y.finish ? x.finish < y.finish : x.seq < y.seq;
  }
  void heap_place(std::size_t i, std::uint32_t f) {
    flow_heap_[i] = f;
    flows_[f].heap_pos = static_cast<std::uint32_t>(i);
  }
  void sift_up(std::size_t i) {
    const std::uint32_t f = flow_heap_[i];
    while (i > 0) {
      const std::size_t parent = (i - 1) / 2;
      if (!flow_before(f, flow_heap_[parent])) break;
      heap_place(i, flow_heap_[parent]);
      i = parent;
    }
    heap_place(i, f);
  }
  void sift_down(std::size_t i) {
    const std::uint32_t f = flow_heap_[i];
    const std::size_t n = flow_heap_.size();
    while (true) {
      std::size_t child = 2 * i + 1;
      if (child >= n) break;
      if (child + 1 < n && flow_before(flow_heap_[child + 1], flow_heap_[child])) ++child;
      if (!flow_before(flow_heap_[child], f)) break;
      heap_place(i, flow_heap_[child]);
      i = child;
    }
    heap_place(i, f);
  }
  void heap_insert(std::uint32_t f) {
    flow_heap_.push_back(f);
    sift_up(flow_heap_.size() - 1);
  }
  void heap_update(std::uint32_t f) {
    const std::size_t i = flows_[f].heap_pos;
    sift_up(i);
    sift_down(flows_[f].heap_pos);
  }
  void heap_remove(std::uint32_t f) {
    const std::size_t i = flows_[f].heap_pos;
    const std::uint32_t last = flow_heap_.back();
    flow_heap_.pop_back();
    flows_[f].heap_pos = kNone;
    if (last != f) {
      heap_place(i, last);
      sift_up(i);
      sift_down(flows_[last].heap_pos);
    }
  }

  [[noreturn]] void report_cycle() const {
    // The unfinished activities form a subgraph with no source (else one would have run), so
    // a depth-first search over it finds a back edge: a cycle.
    const std::size_t n = g_.activity_count();
    std::vector<std::uint8_t> color(n, 0);  // 0 new, 1 on stack, 2 done
    std::vector<std::uint32_t> parent(n, kNone);
    std::size_t unfinished = 0;
    for (std::size_t i = 0; i < n; ++i) unfinished += result_.end[i].ps() < 0 ? 1 : 0;
    for (std::size_t root = 0; root < n; ++root) {
      if (result_.end[root].ps() >= 0 || color[root] != 0) continue;
      std::vector<std::pair<std::uint32_t, std::vector<std::uint32_t>>> stack;
      auto push = [&](std::uint32_t v) {
        color[v] = 1;
        std::vector<std::uint32_t> succ;
        g_.for_each_successor(ActivityId{v}, [&](ActivityId s) {
          if (result_.end[s.index].ps() < 0) succ.push_back(s.index);
        });
        std::reverse(succ.begin(), succ.end());
        stack.emplace_back(v, std::move(succ));
      };
      push(static_cast<std::uint32_t>(root));
      while (!stack.empty()) {
        auto& [v, succ] = stack.back();
        if (succ.empty()) {
          color[v] = 2;
          stack.pop_back();
          continue;
        }
        const std::uint32_t s = succ.back();
        succ.pop_back();
        if (color[s] == 1) {
          std::vector<std::uint32_t> cycle{s};
          for (std::uint32_t u = v; u != s; u = parent[u]) cycle.push_back(u);
          std::reverse(cycle.begin() + 1, cycle.end());
          std::string text;
          const std::size_t shown = std::min<std::size_t>(cycle.size(), 8);
          for (std::size_t i = 0; i < shown; ++i) text += g_.describe(ActivityId{cycle[i]}) + " -> ";
          if (shown < cycle.size()) text += "... -> ";
          text += g_.describe(ActivityId{s});
          throw GraphError("dependency cycle: " + text + " (" + std::to_string(unfinished) +
                           " activities can never start)");
        }
        if (color[s] == 0) {
          parent[s] = v;
          push(s);
        }
      }
    }
    throw GraphError(std::to_string(unfinished) + " activities never started (unresolved dependencies)");
  }

  SimResult collect() {
    result_.makespan = SimTime::from_ps(now_);
    const double makespan_s = static_cast<double>(now_) * 1e-12;
    result_.resources.reserve(resources_.size());
    for (std::size_t r = 0; r < resources_.size(); ++r) {
      const ResourceState& res = resources_[r];
      const double util = makespan_s > 0.0 ? res.bytes / (res.capacity * makespan_s) : 0.0;
      result_.resources.push_back(
          ResourceStats{Bytes(res.bytes), Seconds(static_cast<double>(res.busy) * 1e-12), util});
    }
    result_.engines.reserve(engine_busy_.size());
    for (Ps busy : engine_busy_) result_.engines.push_back(EngineStats{Seconds(static_cast<double>(busy) * 1e-12)});
    return std::move(result_);
  }

  const ActivityGraph& g_;
  NativeOptions options_;
  SimResult result_;
  Ps now_ = 0;
  std::uint64_t seq_ = 0;
  std::uint32_t epoch_ = 0;
  std::size_t finished_ = 0;
  std::vector<std::uint32_t> pending_;
  std::priority_queue<Event, std::vector<Event>, LaterEvent> events_;
  std::vector<std::uint32_t> immediate_;
  std::vector<Flow> flows_;
  std::vector<std::uint32_t> free_flows_;
  std::vector<std::uint32_t> flow_heap_;
  std::vector<ResourceState> resources_;
  std::vector<std::uint32_t> hop_pos_;
  std::vector<std::uint32_t> dirty_;
  std::vector<std::uint32_t> open_;     // resources all of whose flows are re-solved
  std::vector<std::uint32_t> touched_;  // resources crossed by a re-solved flow (open first or not)
  std::vector<std::uint32_t> solved_;   // the flows re-solved in this computation
  std::vector<std::uint32_t> changed_;  // water-filling: resources whose key changed in this pop
  std::vector<std::uint32_t> share_heap_;
  std::vector<std::uint32_t> engine_active_;
  std::vector<Ps> engine_busy_since_;
  std::vector<Ps> engine_busy_;
};

}  // namespace

SimResult simulate_native(const ActivityGraph& graph) { return NativeEngine(graph, NativeOptions{}).run(); }

SimResult simulate_native(const ActivityGraph& graph, const NativeOptions& options) {
  return NativeEngine(graph, options).run();
}

}  // namespace dlrmsim::sim
