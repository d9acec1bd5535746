// The native engine as a class, internal to its one translation unit (sim/native_engine.cpp,
// which includes this and sim/native_sharing.hpp): the event loop and flow starts and ends
// are defined in native_engine.cpp, the max-min sharing and the rate groups in
// native_sharing.hpp, the small members both call here. The class is in an unnamed
// namespace, so every member has internal linkage. The algorithm is in sim/native_engine.hpp.
#pragma once

#include <cstdint>
#include <queue>
#include <vector>

#include "sim/native_engine.hpp"
#include "sim/native_tables.hpp"

namespace dlrmsim::sim::native {
namespace {

class NativeEngine {
 public:
  NativeEngine(const ActivityGraph& g, const NativeOptions& options);

  SimResult run();

 private:
  void schedule(Ps time, std::uint32_t activity, EventType type) {
    events_.push(Event{time, seq_++, activity, type});
  }

  /// base + seconds (rounded to the nearest picosecond, or up), refusing a time beyond the
  /// engine's range (instead of overflowing).
  Ps later(Ps base, double seconds, std::uint32_t activity, bool round_up) const;

  void make_ready(std::uint32_t a);

  void complete(std::uint32_t a);

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

  void start_flow(std::uint32_t a);

  void finish_flow(std::uint32_t f);

  void mark_dirty(std::uint32_t r) {
    if (!resources_[r].dirty) {
      resources_[r].dirty = true;
      dirty_.push_back(r);
    }
  }

  // ---- max-min sharing (see native_engine.hpp, "Incremental recomputation") ----

  /// Re-solves the flows whose rates can have changed since the last computation.
  void reshare();

  /// Adds a flow to the re-solved set; the resources it crosses are touched (in full mode,
  /// opened: the closure is then the whole connected component).
  void add_solved(std::uint32_t f, bool full);

  /// Appends flow `f` to the table of re-solved flows; returns its index there.
  std::uint32_t join_solved(std::uint32_t f, Flow flow);

  void add_members(std::uint32_t r);

  void add_all_kept(std::uint32_t r) {
    for (const HopRef& h : resources_[r].hops) add_solved(h.flow, false);
  }

  void open(std::uint32_t r) {
    if (resources_[r].open_mark != epoch_) {
      resources_[r].open_mark = epoch_;
      open_.push_back(r);
    }
  }

  void touch(std::uint32_t r);

  // The water-filling heap: touched resources by (key, index).
  auto share_before() {
    return [this](std::uint32_t a, std::uint32_t b) {
      const double x = fill_[a].key;
      const double y = fill_[b].key;
      return x != y ? x < y : a < b;
    };
  }
  auto share_pos() {
    return [this](std::uint32_t r) -> std::uint32_t& { return fill_[r].heap_pos; };
  }

  /// Progressive filling of the re-solved flows over the touched resources, the kept flows'
  /// rates taken off the boundary resources' capacities. Returns kNone, or a resource that
  /// had nothing left to give its re-solved flows.
  std::uint32_t water_fill();

  /// After a resource's left or unfixed count changed: lowers its heap key at once (a raise
  /// waits until it reaches the top), or enters it in the heap.
  void lower_key(std::uint32_t r);

  /// Water-filling: the kept flows of `r` faster than `limit` join the computation as
  /// unfixed flows. Returns whether any did; `r`'s kept-rate bound becomes exact.
  bool activate_kept_above(std::uint32_t r, double limit);

  /// Water-filling: a kept flow joins as an unfixed flow; its rate goes back to its
  /// resources' left capacity.
  void activate(std::uint32_t f);

  /// Checks that the kept flows bottlenecked on each touched resource still are (it is
  /// saturated and none of its flows is faster) and adds those that are not to the
  /// re-solved set. Returns whether any. (Kept flows faster than a share were added while
  /// filling, see activate_kept_above.)
  bool add_failing_kept_flows();

  /// Applies the computed rates: each popped resource's group moves at its share, and each
  /// re-solved flow joins the group of the resource that fixed its rate (or stays in its
  /// group if that one gave the same share: a tie, and the old bottleneck is still one).
  void commit();

  // ---- rate groups and the completion heap ----

  /// The group clock's reading now.
  [[nodiscard]] double progress_now(std::uint32_t gi) const {
    const Group& grp = groups_[gi];
    return grp.v + grp.rate * static_cast<double>(now_ - grp.v_time) * 1e-12;
  }

  void set_group_rate(std::uint32_t gi, double rate);

  void mark_reschedule(std::uint32_t gi) {
    if (!groups_[gi].reschedule) {
      groups_[gi].reschedule = true;
      rescheduled_.push_back(gi);
    }
  }

  /// The member heaps' order, as std::push_heap wants it (the first entry is the smallest).
  static auto member_after() {
    return [](const Member& a, const Member& b) { return a.v_end != b.v_end ? a.v_end > b.v_end : a.flow > b.flow; };
  }
  [[nodiscard]] bool is_member(const Member& m) const { return progress_[m.flow].stamp == m.stamp; }

  /// A new stamp for flow `f`, which is in no group. When its stamp wraps around, the entries
  /// of `f` (all stale) are dropped from every group first, so that no old entry can match.
  std::uint32_t new_stamp(std::uint32_t f);

  void join_group(std::uint32_t f, std::uint32_t gi, double remaining);

  void leave_group(std::uint32_t f);

  /// Recomputes when the group's first member completes; leaves the completion heap
  /// untouched if that did not change.
  void reschedule(std::uint32_t gi);

  [[noreturn]] void report_cycle() const;

  SimResult collect();

  const ActivityGraph& g_;
  std::vector<std::uint8_t> milestone_;  // 1 for the activities of options_.milestones
  std::size_t milestones_done_ = 0;
  NativeOptions options_;
  SimResult result_;
  Ps now_ = 0;
  std::uint64_t seq_ = 0;
  std::uint32_t epoch_ = 0;
  std::size_t finished_ = 0;
  std::vector<std::uint32_t> pending_;
  std::priority_queue<Event, std::vector<Event>, LaterEvent> events_;
  std::vector<std::uint32_t> immediate_;
  Rows flows_;                               // per active flow (see Flow)
  std::vector<FlowProgress> progress_;
  std::vector<std::uint32_t> free_flows_;
  std::vector<ResourceState> resources_;
  std::vector<double> latency_;              // per resource, in seconds (read as a route becomes ready)
  std::vector<std::uint8_t> dominated_;      // per resource: never saturated (sim/dominated_resources.hpp)
  std::vector<Fill> fill_;                   // one per resource
  std::vector<Group> groups_;                // one per resource
  std::vector<std::uint32_t> completions_;   // groups with members, by (finish, seq)
  std::size_t hop_pos_stride_;              // the longest route
  std::vector<std::uint32_t> hop_pos_;      // per flow and hop: its position in the resource's hops
  std::vector<std::uint32_t> dirty_;
  std::vector<std::uint32_t> started_;      // flows started since the last computation
  std::vector<std::uint32_t> open_;         // resources all of whose flows are re-solved
  std::vector<std::uint32_t> touched_;      // resources crossed by a re-solved flow
  Rows solved_;                             // the flows re-solved in this computation (see Solved)
  std::vector<SolvedId> solved_ids_;        // per row of solved_: which flow, its group (kept, as solved_)
  Bits member_;                             // per active flow: in solved_
  Bits fixed_;                              // per row of solved_: fixed by the current water-filling
  std::size_t filled_ = 0;                  // how many of them the last water-filling fixed
  std::vector<std::uint32_t> changed_;      // water-filling: resources whose key changed in this pop
  std::vector<std::uint32_t> share_heap_;   // water-filling: touched resources by (key, index)
  std::vector<std::uint32_t> rescheduled_;  // commit: groups whose first completion may have moved
  std::vector<std::uint32_t> engine_active_;
  std::vector<Ps> engine_busy_since_;
  std::vector<Ps> engine_busy_;
};

}  // namespace
}  // namespace dlrmsim::sim::native
