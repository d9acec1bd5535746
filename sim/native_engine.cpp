// The native engine's event loop, and what happens when activities become ready, flows
// start and flows end (sim/native_engine_impl.hpp declares the class; the sharing it calls
// is in sim/native_sharing.hpp, part of this translation unit).
#include "sim/native_engine_impl.hpp"
#include "sim/native_sharing.hpp"

#include "sim/dominated_resources.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace dlrmsim::sim {
namespace native {

NativeEngine::NativeEngine(const ActivityGraph& g, const NativeOptions& options)
    : g_(g),
      options_(options),
      flows_(Flow::kWords + g.max_route_length()),
      hop_pos_stride_(g.max_route_length()),
      solved_(Solved::kWords + g.max_route_length()) {
  const std::size_t n = g.activity_count();
  pending_.resize(n);
  result_.start.assign(n, SimTime::from_ps(-1));
  result_.end.assign(n, SimTime::from_ps(-1));
  resources_.resize(g.resource_count());
  fill_.resize(g.resource_count());
  groups_.resize(g.resource_count());
  for (std::size_t r = 0; r < resources_.size(); ++r) {
    const double capacity = g.resource(ResourceId{static_cast<std::uint32_t>(r)}).capacity.value();
    resources_[r].capacity = capacity;
    if (!(capacity >= kIncrementalMinCapacity && capacity <= kIncrementalMaxCapacity)) {
      options_.resharing = NativeOptions::Resharing::full_component;
    }
  }
  dominated_ = dominated_resources(g);
  latency_.resize(g.resource_count());
  for (std::size_t r = 0; r < latency_.size(); ++r) {
    latency_[r] = g.resource(ResourceId{static_cast<std::uint32_t>(r)}).latency.value();
  }
  engine_active_.assign(g.engine_count(), 0);
  engine_busy_since_.assign(g.engine_count(), 0);
  engine_busy_.assign(g.engine_count(), 0);
  if (options_.on_milestone) {
    milestone_.assign(g.activity_count(), 0);
    for (ActivityId m : options_.milestones) {
      if (m.index >= g.activity_count()) throw GraphError("milestone " + g.describe(m) + " does not exist");
      milestone_[m.index] = 1;
    }
  }
}

SimResult NativeEngine::run() {
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
    const bool have_flow = !completions_.empty();
    if (!have_event && !have_flow) break;
    Ps t;
    if (have_event && have_flow) {
      t = std::min(events_.top().time, groups_[completions_[0]].finish);
    } else {
      t = have_event ? events_.top().time : groups_[completions_[0]].finish;
    }
    now_ = t;
    // Run every event of this instant in scheduling order, then share bandwidth once.
    while (true) {
      const bool e_now = !events_.empty() && events_.top().time == now_;
      const bool f_now = !completions_.empty() && groups_[completions_[0]].finish == now_;
      if (!e_now && !f_now) break;
      if (e_now && (!f_now || events_.top().seq < groups_[completions_[0]].seq)) {
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
        finish_flow(groups_[completions_[0]].members.front().flow);
      }
      drain_immediate();
    }
    if (!dirty_.empty()) reshare();
  }
  if (finished_ != n) report_cycle();
  return collect();
}

/// base + seconds (rounded to the nearest picosecond, or up), refusing a time beyond the
/// engine's range (instead of overflowing).
Ps NativeEngine::later(Ps base, double seconds, std::uint32_t activity, bool round_up) const {
  const double ps = round_up ? std::ceil(seconds * 1e12) : std::round(seconds * 1e12);
  if (!(ps <= kMaxSimulatedSeconds * 1e12 - static_cast<double>(base))) {
    throw GraphError(g_.describe(ActivityId{activity}) + " would end after " +
                     format_seconds(Seconds(seconds - static_cast<double>(now_ - base) * 1e-12)) +
                     " more, beyond the engine's time range (about 106 days)");
  }
  return base + static_cast<Ps>(ps);
}

void NativeEngine::make_ready(std::uint32_t a) {
  const Activity& act = g_.activity(ActivityId{a});
  result_.start[a] = SimTime::from_ps(now_);
  switch (act.kind) {
    case ActivityKind::marker:
      immediate_.push_back(a);
      break;
    case ActivityKind::compute: {
      const std::uint32_t e = g_.stream(StreamId{act.stream}).engine.index;
      if (engine_active_[e]++ == 0) engine_busy_since_[e] = now_;
      schedule(later(now_, act.amount, a, false), a, EventType::compute_done);
      break;
    }
    case ActivityKind::transfer: {
      if (act.engine_work()) {  // a kernel keeps its engine busy
        const std::uint32_t e = g_.stream(StreamId{act.stream}).engine.index;
        if (engine_active_[e]++ == 0) engine_busy_since_[e] = now_;
      }
      double latency = 0.0;
      for (ResourceId r : g_.route(ActivityId{a})) latency += latency_[r.index];
      schedule(later(now_, latency, a, false), a, EventType::latency_done);
      break;
    }
  }
}

void NativeEngine::complete(std::uint32_t a) {
  result_.end[a] = SimTime::from_ps(now_);
  if (const Activity& act = g_.activity(ActivityId{a}); act.kind == ActivityKind::transfer && act.engine_work()) {
    const std::uint32_t e = g_.stream(StreamId{act.stream}).engine.index;
    if (--engine_active_[e] == 0) engine_busy_[e] += now_ - engine_busy_since_[e];
  }
  ++finished_;
  if (!milestone_.empty() && milestone_[a]) options_.on_milestone(++milestones_done_);
  g_.for_each_successor(ActivityId{a}, [&](ActivityId s) {
    if (--pending_[s.index] == 0) make_ready(s.index);
  });
}

void NativeEngine::start_flow(std::uint32_t a) {
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
    flows_.grow();
    member_.cover(f);
    progress_.emplace_back();
    hop_pos_.resize(hop_pos_.size() + hop_pos_stride_);
  }
  const auto route = g_.route(ActivityId{a});
  const Flow flow{flows_[f]};
  flow.group() = kNone;
  progress_[f].activity = a;
  progress_[f].v_end = 0.0;
  started_.push_back(f);
  std::uint32_t* pos = hop_pos_.data() + f * hop_pos_stride_;
  std::uint32_t k = 0;
  for (const ResourceId hop : route) {
    const std::uint32_t r = hop.index;
    ResourceState& res = resources_[r];
    res.bytes += act.amount;
    if (dominated_[r]) {  // never a bottleneck: only its statistics
      if (res.passing++ == 0) res.busy_since = now_;
      continue;
    }
    flow.route()[k] = r;
    if (res.hops.empty()) res.busy_since = now_;
    pos[k] = static_cast<std::uint32_t>(res.hops.size());
    res.hops.push_back(HopRef{f, k});
    mark_dirty(r);
    ++k;
  }
  flow.hops() = k;
}

void NativeEngine::finish_flow(std::uint32_t f) {
  const Flow flow{flows_[f]};
  const std::uint32_t hops = flow.hops();
  const std::uint32_t gi = flow.group();
  const Fixed rate = groups_[gi].fixed_rate;
  for (std::uint32_t k = 0; k < hops; ++k) resources_[flow.route()[k]].load -= rate;
  leave_group(f);
  reschedule(gi);
  const std::uint32_t a = progress_[f].activity;
  const std::uint32_t* pos_of = hop_pos_.data() + f * hop_pos_stride_;
  for (std::uint32_t k = 0; k < hops; ++k) {
    const std::uint32_t r = flow.route()[k];
    ResourceState& res = resources_[r];
    const std::uint32_t pos = pos_of[k];
    const HopRef last = res.hops.back();
    res.hops[pos] = last;
    hop_pos_[last.flow * hop_pos_stride_ + last.hop] = pos;
    res.hops.pop_back();
    if (res.hops.empty()) {
      res.busy += now_ - res.busy_since;
      res.max_rate = 0.0;
    }
    mark_dirty(r);
  }
  if (hops != g_.activity(ActivityId{a}).route_end - g_.activity(ActivityId{a}).route_begin) {
    for (const ResourceId hop : g_.route(ActivityId{a})) {
      ResourceState& res = resources_[hop.index];
      if (dominated_[hop.index] && --res.passing == 0) res.busy += now_ - res.busy_since;
    }
  }
  progress_[f].activity = kNone;
  free_flows_.push_back(f);
  complete(a);
}

void NativeEngine::report_cycle() const {
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

SimResult NativeEngine::collect() {
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

}  // namespace native

SimResult simulate_native(const ActivityGraph& graph) { return native::NativeEngine(graph, NativeOptions{}).run(); }

SimResult simulate_native(const ActivityGraph& graph, const NativeOptions& options) {
  return native::NativeEngine(graph, options).run();
}

}  // namespace dlrmsim::sim
