#include "sim/native_engine.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <queue>
#include <stdexcept>
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

/// Sums of rates are kept exactly, as integers counting 2^-64 B/s (a rate is truncated to
/// that grain): a resource's load is then the same whatever the order of the updates that
/// built it, and never drifts. 128 bits hold any sum up to 2^63 B/s.
__extension__ typedef __int128 Fixed;
constexpr double kFixedOne = 18446744073709551616.0;  // 2^64
/// The same value as static_cast<Fixed>(rate * 2^64) (truncation), without the library
/// call that conversion compiles to: below 2^63 B/s, the whole part and the fraction of a
/// rate are exact doubles, and so is the fraction times 2^64 (below 2^64).
Fixed to_fixed(double rate) {
  if (rate >= 0.0 && rate < 9223372036854775808.0) {  // 2^63
    const auto whole = static_cast<std::int64_t>(rate);  // truncation: the whole part
    return (static_cast<Fixed>(whole) << 64) +
           static_cast<std::uint64_t>((rate - static_cast<double>(whole)) * kFixedOne);
  }
  return static_cast<Fixed>(rate * kFixedOne);
}
double to_double(Fixed x) { return static_cast<double>(x) / kFixedOne; }

/// Capacities (B/s) within which kept loads are exact enough for the incremental
/// computation: the truncation of a million rates stays below 1e-13 of the smallest, and
/// the largest is far from the 2^63 B/s limit of a Fixed sum. Outside it (never in a real
/// platform) the engine recomputes whole components.
constexpr double kIncrementalMinCapacity = 1.0;
constexpr double kIncrementalMaxCapacity = 72057594037927936.0;  // 2^56

/// How many entries ahead the loops over a resource's flows prefetch the rows they will visit
/// (scattered in memory; a row is one cache line). A tuning choice, not a hardware fact:
/// prefetching made `dlrmsim-bench --only staggered` about 30 % faster on the 2-core build
/// machine (2026-12-01); results do not depend on it.
constexpr std::size_t kAhead = 8;

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

// ---- binary min-heaps of entries whose positions live with them (pos(entry) is a reference),
// so that an entry can be re-keyed in place (heap_fix) or removed from anywhere (heap_erase);
// an entry is an id, or an id with its key (then the comparisons read no other memory) ----
template <class T, class Before, class Pos>
void heap_sift_up(std::vector<T>& h, std::size_t i, Before before, Pos pos) {
  const T id = h[i];
  while (i > 0) {
    const std::size_t parent = (i - 1) / 2;
    if (!before(id, h[parent])) break;
    h[i] = h[parent];
    pos(h[i]) = static_cast<std::uint32_t>(i);
    i = parent;
  }
  h[i] = id;
  pos(id) = static_cast<std::uint32_t>(i);
}
template <class T, class Before, class Pos>
void heap_sift_down(std::vector<T>& h, std::size_t i, Before before, Pos pos) {
  const T id = h[i];
  const std::size_t n = h.size();
  while (true) {
    std::size_t child = 2 * i + 1;
    if (child >= n) break;
    if (child + 1 < n && before(h[child + 1], h[child])) ++child;
    if (!before(h[child], id)) break;
    h[i] = h[child];
    pos(h[i]) = static_cast<std::uint32_t>(i);
    i = child;
  }
  h[i] = id;
  pos(id) = static_cast<std::uint32_t>(i);
}
template <class T, class Before, class Pos>
void heap_push(std::vector<T>& h, T id, Before before, Pos pos) {
  h.push_back(id);
  heap_sift_up(h, h.size() - 1, before, pos);
}
template <class T, class Before, class Pos>
void heap_fix(std::vector<T>& h, const T& id, Before before, Pos pos) {
  heap_sift_up(h, pos(id), before, pos);
  heap_sift_down(h, pos(id), before, pos);
}
template <class T, class Before, class Pos>
void heap_erase(std::vector<T>& h, const T& id, Before before, Pos pos) {
  const std::size_t i = pos(id);
  const T last = h.back();
  h.pop_back();
  pos(id) = kNone;
  if (i != h.size()) {
    h[i] = last;
    pos(last) = static_cast<std::uint32_t>(i);
    heap_fix(h, last, before, pos);
  }
}

/// One hop of an active flow as listed on a resource: which flow, and which hop of its route.
struct HopRef {
  std::uint32_t flow;
  std::uint32_t hop;
};

/// Storage aligned on cache lines (64 bytes).
template <class T>
struct LineAligned {
  using value_type = T;
  LineAligned() = default;
  template <class U>
  explicit LineAligned(const LineAligned<U>&) {}
  T* allocate(std::size_t n) { return static_cast<T*>(::operator new(n * sizeof(T), std::align_val_t{64})); }
  void deallocate(T* p, std::size_t) { ::operator delete(p, std::align_val_t{64}); }
  bool operator==(const LineAligned&) const { return true; }
};

/// Rows of 32-bit words of one stride, reused in place (a flow's route, a re-solved flow).
/// The stride is a power of two up to 16 words, or a multiple of 16 (64 bytes), and the rows
/// are aligned on cache lines, so that a row of up to 64 bytes is one line.
class Rows {
 public:
  explicit Rows(std::size_t words) : stride_(padded(words)) {}
  [[nodiscard]] std::uint32_t* operator[](std::size_t i) { return words_.data() + i * stride_; }
  [[nodiscard]] std::size_t size() const { return rows_; }
  /// A new row at the end; its words are not cleared (the caller writes them). The storage
  /// only grows, geometrically, so that a table refilled by every computation (the re-solved
  /// flows) is neither cleared nor re-grown each time.
  std::uint32_t* grow() {
    const std::size_t end = (rows_ + 1) * stride_;
    if (end > words_.size()) [[unlikely]] words_.resize(std::max(end, 2 * words_.size()));
    ++rows_;
    return words_.data() + end - stride_;
  }
  void clear() { rows_ = 0; }

 private:
  static std::size_t padded(std::size_t words) {
    std::size_t stride = 1;
    while (stride < words && stride < 16) stride *= 2;
    return stride >= words ? stride : (words + 15) / 16 * 16;
  }

  std::size_t stride_;
  std::size_t rows_ = 0;
  std::vector<std::uint32_t, LineAligned<std::uint32_t>> words_;
};

/// One bit per index.
class Bits {
 public:
  [[nodiscard]] bool test(std::size_t i) const { return (words_[i >> 6] >> (i & 63)) & 1; }
  void set(std::size_t i) { words_[i >> 6] |= std::uint64_t{1} << (i & 63); }
  void reset(std::size_t i) { words_[i >> 6] &= ~(std::uint64_t{1} << (i & 63)); }
  /// Makes room for index i (new bits are clear).
  void cover(std::size_t i) {
    if ((i >> 6) >= words_.size()) words_.resize((i >> 6) + 1, 0);
  }
  /// Clears the bits below n.
  void clear_below(std::size_t n) { std::fill(words_.begin(), words_.begin() + static_cast<std::ptrdiff_t>((n + 63) >> 6), 0); }

 private:
  std::vector<std::uint64_t> words_;
};

/// An active flow's row: what the rate computation reads of it, its route included, so that
/// visiting a flow is one memory access.
struct Flow {
  static constexpr std::size_t kWords = 2;  // words before the route
  std::uint32_t* w;
  /// Its rate group: the resource it is bottlenecked on.
  [[nodiscard]] std::uint32_t& group() const { return w[0]; }
  [[nodiscard]] std::uint32_t& hops() const { return w[1]; }
  [[nodiscard]] std::uint32_t* route() const { return w + kWords; }
};

/// A re-solved flow, as the water-filling reads and writes it: one row of the table of the
/// current computation (in the order the flows joined it), its route copied in, so that the
/// water-filling and the commit visit compact memory, not one row per flow of all the active
/// flows. A row holds only what the filling needs (16 bytes for a route of two resources):
/// its rate is the share of the resource that fixed it, and which flow it is and its group
/// are in a table of their own (SolvedId), read in order by the commit.
struct Solved {
  static constexpr std::size_t kWords = 2;  // words before the route
  std::uint32_t* w;
  /// Water-filling: the resource that fixed its rate (its rate is that resource's share).
  [[nodiscard]] std::uint32_t& fixed_at() const { return w[0]; }
  [[nodiscard]] std::uint32_t& hops() const { return w[1]; }
  [[nodiscard]] std::uint32_t* route() const { return w + kWords; }
};

/// Which flow a row of the re-solved table is, and its group when it joined (its group until
/// the commit).
struct SolvedId {
  std::uint32_t flow;
  std::uint32_t group;
};

/// The rest of an active flow.
struct FlowProgress {
  std::uint32_t activity = kNone;
  /// Changes whenever the flow joins or leaves a group: its entry in its group's member heap
  /// is the one with this stamp, entries with an older one are stale (see Group). Kept when
  /// the row is reused by another flow.
  std::uint32_t stamp = 0;
  double v_end = 0.0;               // the group progress at which it is complete
};

/// An entry of a rate group's member heap, with its key (the group progress at which the
/// flow is complete) and the flow's stamp when it joined.
struct Member {
  double v_end;
  std::uint32_t flow;
  std::uint32_t stamp;
};

/// The flows bottlenecked on one resource all move at the resource's share, so they share
/// one progress clock: `v` bytes moved by each member since the clock started, as of
/// `v_time`. A member that joins with R bytes left completes when the clock reaches
/// v(now) + R; a rate change moves the clock, not the members.
struct Group {
  double rate = 0.0;
  Fixed fixed_rate = 0;                // to_fixed(rate), which the load updates add
  double v = 0.0;
  Ps v_time = 0;
  Ps finish = 0;                      // completion of its first member (key in the completion heap with `seq`)
  std::uint64_t seq = 0;
  std::uint32_t heap_pos = kNone;     // in the completion heap
  /// Min-heap by (v_end, flow) of its members, and of stale entries: a flow that leaves is
  /// not searched for, its entry is left in place and dropped when it reaches the top (then
  /// the top is always a member) or when stale entries outnumber members (the heap is
  /// rebuilt). Moving flows between groups thus costs no position updates in other memory.
  std::vector<Member> members;
  std::uint32_t live = 0;              // members (entries that are not stale)
  bool reschedule = false;             // commit scratch: its first completion may have moved
};

/// A resource. The fields a computation reads and writes for each re-solved flow crossing it
/// come first, in one cache line (the states are aligned on lines).
struct alignas(64) ResourceState {
  // Per computation (valid when touch_mark equals the current epoch).
  Fixed solved_load = 0;                   // the re-solved flows' current rates, summed
  std::vector<std::uint32_t> solved_hops;  // the re-solved flows crossing it (rows of the solved table)
  std::uint32_t touch_mark = 0;            // crossed by a re-solved flow
  std::uint32_t solved_members = 0;        // re-solved flows bottlenecked here
  double kept_max = 0.0;                   // bound on the kept flows' rates (exact once scanned)
  double max_rate = 0.0;                   // bound on the current rates of its flows
  // The rest.
  Fixed load = 0;          // the sum of the current rates of its flows, exactly (see to_fixed)
  std::vector<HopRef> hops;  // active flows crossing this resource
  double capacity = 0.0;
  std::uint32_t open_mark = 0;     // all its flows are re-solved (valid when equal to the epoch)
  std::uint32_t kept_members = 0;  // commit: flows bottlenecked here that were not re-solved
  Ps busy_since = 0;
  Ps busy = 0;
  double bytes = 0.0;
  bool dirty = false;
};

/// A resource's water-filling scratch, apart from the rest so that the filling's accesses,
/// several per hop, stay within a small array.
struct Fill {
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
  NativeEngine(const ActivityGraph& g, const NativeOptions& options)
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

 private:
  void schedule(Ps time, std::uint32_t activity, EventType type) {
    events_.push(Event{time, seq_++, activity, type});
  }

  /// base + seconds (rounded to the nearest picosecond, or up), refusing a time beyond the
  /// engine's range (instead of overflowing).
  Ps later(Ps base, double seconds, std::uint32_t activity, bool round_up) const {
    const double ps = round_up ? std::ceil(seconds * 1e12) : std::round(seconds * 1e12);
    if (!(ps <= kMaxSimulatedSeconds * 1e12 - static_cast<double>(base))) {
      throw GraphError(g_.describe(ActivityId{activity}) + " would end after " +
                       format_seconds(Seconds(seconds - static_cast<double>(now_ - base) * 1e-12)) +
                       " more, beyond the engine's time range (about 106 days)");
    }
    return base + static_cast<Ps>(ps);
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
        schedule(later(now_, act.amount, a, false), a, EventType::compute_done);
        break;
      }
      case ActivityKind::transfer: {
        if (act.engine_work()) {  // a kernel keeps its engine busy
          const std::uint32_t e = g_.stream(StreamId{act.stream}).engine.index;
          if (engine_active_[e]++ == 0) engine_busy_since_[e] = now_;
        }
        double latency = 0.0;
        for (ResourceId r : g_.route(ActivityId{a})) latency += g_.resource(r).latency.value();
        schedule(later(now_, latency, a, false), a, EventType::latency_done);
        break;
      }
    }
  }

  void complete(std::uint32_t a) {
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
      flows_.grow();
      member_.cover(f);
      progress_.emplace_back();
      hop_pos_.resize(hop_pos_.size() + hop_pos_stride_);
    }
    const auto route = g_.route(ActivityId{a});
    const Flow flow{flows_[f]};
    flow.group() = kNone;
    flow.hops() = static_cast<std::uint32_t>(route.size());
    progress_[f].activity = a;
    progress_[f].v_end = 0.0;
    started_.push_back(f);
    std::uint32_t* pos = hop_pos_.data() + f * hop_pos_stride_;
    for (std::uint32_t k = 0; k < route.size(); ++k) {
      const std::uint32_t r = route[k].index;
      flow.route()[k] = r;
      ResourceState& res = resources_[r];
      if (res.hops.empty()) res.busy_since = now_;
      pos[k] = static_cast<std::uint32_t>(res.hops.size());
      res.hops.push_back(HopRef{f, k});
      res.bytes += act.amount;
      mark_dirty(r);
    }
  }

  void finish_flow(std::uint32_t f) {
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
    progress_[f].activity = kNone;
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
  void add_solved(std::uint32_t f, bool full) {
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
  std::uint32_t join_solved(std::uint32_t f, Flow flow) {
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

  void add_members(std::uint32_t r) {
    const std::vector<Member>& members = groups_[r].members;
    for (std::size_t i = 0; i < members.size(); ++i) {
      if (i + kAhead < members.size()) {
        __builtin_prefetch(flows_[members[i + kAhead].flow]);
        __builtin_prefetch(&progress_[members[i + kAhead].flow]);
      }
      if (is_member(members[i])) add_solved(members[i].flow, false);
    }
  }

  void add_all_kept(std::uint32_t r) {
    for (const HopRef& h : resources_[r].hops) add_solved(h.flow, false);
  }

  void open(std::uint32_t r) {
    if (resources_[r].open_mark != epoch_) {
      resources_[r].open_mark = epoch_;
      open_.push_back(r);
    }
  }

  void touch(std::uint32_t r) {
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
  std::uint32_t water_fill() {
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
  void lower_key(std::uint32_t r) {
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
  bool activate_kept_above(std::uint32_t r, double limit) {
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
  void activate(std::uint32_t f) {
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
  bool add_failing_kept_flows() {
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
  void commit() {
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

  /// The group clock's reading now.
  [[nodiscard]] double progress_now(std::uint32_t gi) const {
    const Group& grp = groups_[gi];
    return grp.v + grp.rate * static_cast<double>(now_ - grp.v_time) * 1e-12;
  }

  void set_group_rate(std::uint32_t gi, double rate) {
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
  std::uint32_t new_stamp(std::uint32_t f) {
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

  void join_group(std::uint32_t f, std::uint32_t gi, double remaining) {
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

  void leave_group(std::uint32_t f) {
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
  void reschedule(std::uint32_t gi) {
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

SimResult simulate_native(const ActivityGraph& graph) { return NativeEngine(graph, NativeOptions{}).run(); }

SimResult simulate_native(const ActivityGraph& graph, const NativeOptions& options) {
  return NativeEngine(graph, options).run();
}

}  // namespace dlrmsim::sim
