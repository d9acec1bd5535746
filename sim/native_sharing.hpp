// The native engine's max-min sharing (incremental water-filling) and rate groups; the
// algorithm, its exactness and complexity are in sim/native_engine.hpp. Member definitions
// of the engine class, included by sim/native_engine.cpp only: the event loop and the
// sharing are one translation unit, so that the compiler sees the whole hot loop (every
// member has internal linkage and the helpers called once are inlined, as when this was one
// file). As two translation units, `dlrmsim-bench --only staggered` ran a median 1.08x as long
// in one interleaved A/B of 8 pairs (spread 0.97-1.42x: the 2-core build machine was loaded,
// 2026-12-02), so the hot loop is kept in one unit.
#pragma once

#include "sim/native_engine_impl.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

namespace dlrmsim::sim::native {

// ---- max-min sharing (see native_engine.hpp, "Incremental recomputation") ----

/// Re-solves the flows whose rates can have changed since the last computation.
void NativeEngine::reshare() {
  ++epoch_;
  open_.clear();
  touched_.clear();
  solved_.clear();
  filled_ = 0;
  const bool full = options_.resharing == NativeOptions::Resharing::full_component;
  // The flows bottlenecked on a changed resource, and the new flows, are re-solved first;
  // the checks add whatever else turns out to change.
  for (std::uint32_t r : dirty_) {
    resources_[r].dirty = false;
    touch(r);
    if (full) {
      open(r);
    } else {
      add_members(r);
    }
  }
  dirty_.clear();
  for (std::uint32_t f : started_) {
    if (progress_[f].activity != kNone) add_solved(f, full);
  }
  started_.clear();
  std::size_t opened = 0;
  while (true) {
    for (; opened < open_.size(); ++opened) {  // full mode: the whole connected component
      for (const HopRef& h : resources_[open_[opened]].hops) add_solved(h.flow, full);
    }
    const std::uint32_t starved = water_fill();
    if (starved == kNone) {
      if (full || !add_failing_kept_flows()) break;
    } else if (!full) {
      add_all_kept(starved);  // the kept flows there took all its capacity: re-solve them too
    } else {
      // Cannot happen (over a whole component every resource starts with its capacity).
      throw std::logic_error("native engine: a flow got no bandwidth");
    }
  }
  commit();
}

/// Adds a flow to the re-solved set; the resources it crosses are touched (in full mode,
/// opened: the closure is then the whole connected component).
void NativeEngine::add_solved(std::uint32_t f, bool full) {
  const Flow row{flows_[f]};
  if (member_.test(f)) return;
  member_.set(f);
  const std::uint32_t group = row.group();
  const std::uint32_t l = join_solved(f, row);
  const Solved flow{solved_[l]};
  const Fixed rate = group == kNone ? 0 : groups_[group].fixed_rate;
  for (std::uint32_t k = 0; k < flow.hops(); ++k) {
    const std::uint32_t r = flow.route()[k];
    touch(r);
    ResourceState& res = resources_[r];
    res.solved_hops.push_back(l);
    res.solved_load += rate;
    if (group == r) ++res.solved_members;
    if (full) open(r);
  }
}

/// Appends flow `f` to the table of re-solved flows; returns its index there.
std::uint32_t NativeEngine::join_solved(std::uint32_t f, Flow flow) {
  const auto l = static_cast<std::uint32_t>(solved_.size());
  const Solved row{solved_.grow()};
  fixed_.cover(l);
  if (l >= solved_ids_.size()) [[unlikely]] solved_ids_.resize(2 * static_cast<std::size_t>(l) + 64);
  solved_ids_[l] = SolvedId{f, flow.group()};
  row.fixed_at() = kNone;
  row.hops() = flow.hops();
  std::memcpy(row.route(), flow.route(), flow.hops() * sizeof(std::uint32_t));
  return l;
}

void NativeEngine::add_members(std::uint32_t r) {
  const std::vector<Member>& members = groups_[r].members;
  for (std::size_t i = 0; i < members.size(); ++i) {
    if (i + kAhead < members.size()) {
      __builtin_prefetch(flows_[members[i + kAhead].flow]);
      __builtin_prefetch(&progress_[members[i + kAhead].flow]);
    }
    if (is_member(members[i])) add_solved(members[i].flow, false);
  }
}

void NativeEngine::touch(std::uint32_t r) {
  ResourceState& res = resources_[r];
  if (res.touch_mark != epoch_) {
    res.touch_mark = epoch_;
    res.solved_hops.clear();
    res.solved_load = 0;
    res.solved_members = 0;
    res.kept_max = res.max_rate;
    touched_.push_back(r);
  }
}

/// Progressive filling of the re-solved flows over the touched resources, the kept flows'
/// rates taken off the boundary resources' capacities. Returns kNone, or a resource that
/// had nothing left to give its re-solved flows.
std::uint32_t NativeEngine::water_fill() {
  share_heap_.clear();
  for (std::uint32_t r : touched_) {
    const ResourceState& res = resources_[r];
    Fill& fl = fill_[r];
    fl.popped = false;
    fl.solved_max = 0.0;
    fl.heap_pos = kNone;
    fl.unfixed = static_cast<std::uint32_t>(res.solved_hops.size());
    // The kept flows' load is what the resource carries less what the re-solved flows
    // carried (exact, see Fixed); a resource all of whose flows are re-solved starts full.
    fl.left = fl.unfixed == res.hops.size() ? res.capacity
                                            : std::max(0.0, res.capacity - to_double(res.load - res.solved_load));
    if (fl.unfixed > 0) {
      fl.key = fl.left / fl.unfixed;
      heap_push(share_heap_, r, share_before(), share_pos());
    }
  }
  // Flows added since the last filling are unfixed already.
  fixed_.clear_below(filled_);
  // In exact arithmetic the shares fixed by progressive filling never decrease; holding
  // them monotone keeps rounding from starving a flow with a near-zero leftover share.
  double floor_share = 0.0;
  while (!share_heap_.empty()) {
    const std::uint32_t top = share_heap_[0];
    const ResourceState& res = resources_[top];
    Fill& fl = fill_[top];
    // Keys are lowered in the heap at once but raised only when they reach the top: no
    // key is above its true value, so a top whose key is true is the smallest.
    const double key = fl.left / fl.unfixed;
    if (key != fl.key) {
      fl.key = key;
      heap_sift_down(share_heap_, 0, share_before(), share_pos());
      continue;
    }
    const double share = std::max(fl.key, floor_share);
    // A kept flow faster than this share must slow down to it: it joins the computation
    // now, which raises this resource's key and lowers none below the share (see header).
    if (res.kept_max > share * (1.0 + kSlack) && res.solved_hops.size() != res.hops.size() &&
        activate_kept_above(top, share * (1.0 + kSlack))) {
      continue;
    }
    heap_erase(share_heap_, top, share_before(), share_pos());
    if (!(share > 0.0)) {
      filled_ = solved_.size();
      return top;
    }
    floor_share = share;
    fl.popped = true;
    fl.share = share;
    const std::size_t listed = res.solved_hops.size();
    for (std::size_t i = 0; i < listed; ++i) {
      if (i + kAhead < listed) __builtin_prefetch(solved_[res.solved_hops[i + kAhead]]);
      const std::uint32_t l = res.solved_hops[i];
      if (fixed_.test(l)) continue;
      fixed_.set(l);
      const Solved flow{solved_[l]};
      flow.fixed_at() = top;
      const std::uint32_t hops = flow.hops();
      const std::uint32_t* route = flow.route();
      for (std::uint32_t k = 0; k < hops; ++k) {
        const std::uint32_t r2 = route[k];
        Fill& other = fill_[r2];
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
      Fill& other = fill_[r2];
      other.changed = false;
      if (other.unfixed == 0) {
        heap_erase(share_heap_, r2, share_before(), share_pos());
      } else {
        lower_key(r2);
      }
    }
    changed_.clear();
  }
  filled_ = solved_.size();
  return kNone;
}

/// After a resource's left or unfixed count changed: lowers its heap key at once (a raise
/// waits until it reaches the top), or enters it in the heap.
void NativeEngine::lower_key(std::uint32_t r) {
  Fill& fl = fill_[r];
  const double key = fl.left / fl.unfixed;
  if (fl.heap_pos == kNone) {
    fl.key = key;
    heap_push(share_heap_, r, share_before(), share_pos());
  } else if (key < fl.key) {
    fl.key = key;
    heap_sift_up(share_heap_, fl.heap_pos, share_before(), share_pos());
  }
}

/// Water-filling: the kept flows of `r` faster than `limit` join the computation as
/// unfixed flows. Returns whether any did; `r`'s kept-rate bound becomes exact.
bool NativeEngine::activate_kept_above(std::uint32_t r, double limit) {
  bool any = false;
  double kept_max = 0.0;
  const std::vector<HopRef>& hops = resources_[r].hops;
  for (std::size_t i = 0; i < hops.size(); ++i) {
    if (i + kAhead < hops.size()) __builtin_prefetch(flows_[hops[i + kAhead].flow]);
    const HopRef& h = hops[i];
    if (member_.test(h.flow)) continue;
    const Flow flow{flows_[h.flow]};
    const double rate = groups_[flow.group()].rate;
    if (rate > limit) {
      activate(h.flow);
      any = true;
    } else {
      kept_max = std::max(kept_max, rate);
    }
  }
  resources_[r].kept_max = kept_max;
  return any;
}

/// Water-filling: a kept flow joins as an unfixed flow; its rate goes back to its
/// resources' left capacity.
void NativeEngine::activate(std::uint32_t f) {
  const Flow row{flows_[f]};
  member_.set(f);
  const std::uint32_t group = row.group();
  const std::uint32_t l = join_solved(f, row);
  const Solved flow{solved_[l]};
  const double rate = groups_[group].rate;
  const Fixed fixed_rate = groups_[group].fixed_rate;
  for (std::uint32_t k = 0; k < flow.hops(); ++k) {
    const std::uint32_t r = flow.route()[k];
    ResourceState& res = resources_[r];
    Fill& fl = fill_[r];
    if (res.touch_mark != epoch_) {
      touch(r);
      fl.popped = false;
      fl.solved_max = 0.0;
      fl.heap_pos = kNone;
      fl.unfixed = 0;
      fl.left = std::max(0.0, res.capacity - to_double(res.load));
    }
    res.solved_hops.push_back(l);
    res.solved_load += fixed_rate;
    if (group == r) ++res.solved_members;
    fl.left = std::min(res.capacity, fl.left + rate);
    ++fl.unfixed;
    lower_key(r);
  }
}

/// Checks that the kept flows bottlenecked on each touched resource still are (it is
/// saturated and none of its flows is faster) and adds those that are not to the
/// re-solved set. Returns whether any. (Kept flows faster than a share were added while
/// filling, see activate_kept_above.)
bool NativeEngine::add_failing_kept_flows() {
  const std::size_t before = solved_.size();
  const std::size_t n = touched_.size();
  for (std::size_t i = 0; i < n; ++i) {
    const std::uint32_t r = touched_[i];
    const ResourceState& res = resources_[r];
    const Fill& fl = fill_[r];
    if (groups_[r].live > res.solved_members) {  // kept flows bottlenecked here
      const bool saturated = fl.popped || fl.left <= kSlack * res.capacity;
      if (!saturated || groups_[r].rate < fl.solved_max * (1.0 - kSlack)) add_members(r);
    }
  }
  return solved_.size() != before;
}

/// Applies the computed rates: each popped resource's group moves at its share, and each
/// re-solved flow joins the group of the resource that fixed its rate (or stays in its
/// group if that one gave the same share: a tie, and the old bottleneck is still one).
void NativeEngine::commit() {
  // Bounds on the rates crossing each touched resource: the kept flows' bound and the new
  // shares; rate changes below raise them again where needed.
  for (std::uint32_t r : touched_) {
    ResourceState& res = resources_[r];
    res.max_rate = std::max(res.solved_hops.size() == res.hops.size() ? 0.0 : res.kept_max, fill_[r].solved_max);
    res.kept_members = groups_[r].live - res.solved_members;
  }
  // Re-solved flows: their loads go from the old rate to the new, and each joins the group
  // of the resource that fixed it (unless its old group gave the same share: a tie).
  const std::size_t solved = solved_.size();
  // The flows of a group mostly get the same share: its conversion is reused.
  double last_rate = -1.0;
  Fixed last_fixed = 0;
  for (std::size_t l = 0; l < solved; ++l) {
    if (l + kAhead < solved) {
      const std::uint32_t ahead = solved_ids_[l + kAhead].flow;
      __builtin_prefetch(&progress_[ahead]);
      __builtin_prefetch(flows_[ahead]);
    }
    const Solved flow{solved_[l]};
    const std::uint32_t f = solved_ids_[l].flow;
    const std::uint32_t group = solved_ids_[l].group;
    const double new_rate = fill_[flow.fixed_at()].share;
    const double old_rate = group == kNone ? 0.0 : groups_[group].rate;
    Fixed delta = 0;
    if (new_rate != old_rate) {
      if (new_rate != last_rate) {
        last_rate = new_rate;
        last_fixed = to_fixed(new_rate);
      }
      delta = last_fixed - (group == kNone ? 0 : groups_[group].fixed_rate);
    }
    if (delta != 0) {
      for (std::uint32_t k = 0; k < flow.hops(); ++k) resources_[flow.route()[k]].load += delta;
    }
    std::uint32_t target = flow.fixed_at();
    if (group != kNone && group != target) {
      const Fill& old = fill_[group];
      if (old.popped && old.share == new_rate) target = group;
    }
    if (target == group) continue;
    double remaining;
    if (group != kNone) {
      const std::uint32_t from = group;
      remaining = std::max(0.0, progress_[f].v_end - progress_now(from));
      leave_group(f);
      mark_reschedule(from);
    } else {
      remaining = g_.activity(ActivityId{progress_[f].activity}).amount;
    }
    join_group(f, target, remaining);
    mark_reschedule(target);
  }
  // Groups: each popped resource's moves at its share (the clocks read the same now
  // before and after the moves above); the loads of members not re-solved follow.
  for (std::uint32_t r : touched_) {
    const Fill& fl = fill_[r];
    if (fl.popped && fl.share != groups_[r].rate) set_group_rate(r, fl.share);
  }
  for (std::uint32_t gi : rescheduled_) {
    groups_[gi].reschedule = false;
    reschedule(gi);
  }
  rescheduled_.clear();
  for (std::size_t l = 0; l < solved; ++l) member_.reset(solved_ids_[l].flow);
  fixed_.clear_below(solved_.size());
}

// ---- rate groups and the completion heap ----

void NativeEngine::set_group_rate(std::uint32_t gi, double rate) {
  Group& grp = groups_[gi];
  if (grp.live > 0) {
    grp.v = progress_now(gi);
    grp.v_time = now_;
    mark_reschedule(gi);
    if (resources_[gi].kept_members > 0) {
      const Fixed delta = to_fixed(rate) - grp.fixed_rate;
      for (std::size_t i = 0; i < grp.members.size(); ++i) {
        if (i + kAhead < grp.members.size()) {
          __builtin_prefetch(flows_[grp.members[i + kAhead].flow]);
          __builtin_prefetch(&progress_[grp.members[i + kAhead].flow]);
        }
        const Member& m = grp.members[i];
        if (!is_member(m) || member_.test(m.flow)) continue;  // stale, or re-solved: load already updated
        const Flow flow{flows_[m.flow]};
        for (std::uint32_t k = 0; k < flow.hops(); ++k) {
          ResourceState& res = resources_[flow.route()[k]];
          res.load += delta;
          res.max_rate = std::max(res.max_rate, rate);
        }
      }
    }
  }
  grp.rate = rate;
  grp.fixed_rate = to_fixed(rate);
}

/// A new stamp for flow `f`, which is in no group. When its stamp wraps around, the entries
/// of `f` (all stale) are dropped from every group first, so that no old entry can match.
std::uint32_t NativeEngine::new_stamp(std::uint32_t f) {
  if (++progress_[f].stamp == 0) {
    for (std::size_t gi = 0; gi < groups_.size(); ++gi) {
      auto& members = groups_[gi].members;
      const auto end = std::remove_if(members.begin(), members.end(), [&](const Member& m) { return m.flow == f; });
      if (end != members.end()) {
        members.erase(end, members.end());
        std::make_heap(members.begin(), members.end(), member_after());
      }
    }
  }
  return progress_[f].stamp;
}

void NativeEngine::join_group(std::uint32_t f, std::uint32_t gi, double remaining) {
  Group& grp = groups_[gi];
  if (grp.live == 0) {  // restart an idle clock at zero, keeping its magnitude small
    grp.v = 0.0;
    grp.v_time = now_;
  }
  progress_[f].v_end = progress_now(gi) + remaining;
  Flow{flows_[f]}.group() = gi;
  grp.members.push_back(Member{progress_[f].v_end, f, new_stamp(f)});
  std::push_heap(grp.members.begin(), grp.members.end(), member_after());
  ++grp.live;
}

void NativeEngine::leave_group(std::uint32_t f) {
  const Flow flow{flows_[f]};
  Group& grp = groups_[flow.group()];
  flow.group() = kNone;
  new_stamp(f);  // its entry becomes stale
  auto& members = grp.members;
  if (--grp.live == 0) {
    members.clear();
  } else if (members.size() > 2 * static_cast<std::size_t>(grp.live) + 16) {
    members.erase(std::remove_if(members.begin(), members.end(), [&](const Member& m) { return !is_member(m); }),
                  members.end());
    std::make_heap(members.begin(), members.end(), member_after());
  } else {
    while (!is_member(members.front())) {
      std::pop_heap(members.begin(), members.end(), member_after());
      members.pop_back();
    }
  }
}

/// Recomputes when the group's first member completes; leaves the completion heap
/// untouched if that did not change.
void NativeEngine::reschedule(std::uint32_t gi) {
  Group& grp = groups_[gi];
  auto before = [this](std::uint32_t a, std::uint32_t b) {
    const Group& x = groups_[a];
    const Group& y = groups_[b];
    return x.finish != y.finish ? x.finish < y.finish : x.seq < y.seq;
  };
  auto pos = [this](std::uint32_t g) -> std::uint32_t& { return groups_[g].heap_pos; };
  if (grp.live == 0) {
    if (grp.heap_pos != kNone) heap_erase(completions_, gi, before, pos);
    return;
  }
  const Member& first = grp.members.front();
  const Ps finish = std::max(
      now_, later(grp.v_time, (first.v_end - grp.v) / grp.rate, progress_[first.flow].activity, true));
  if (grp.heap_pos != kNone && finish == grp.finish) return;
  grp.finish = finish;
  grp.seq = seq_++;
  if (grp.heap_pos == kNone) {
    heap_push(completions_, gi, before, pos);
  } else {
    heap_fix(completions_, gi, before, pos);
  }
}

}  // namespace dlrmsim::sim::native
