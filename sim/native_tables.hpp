// The native engine's tables (internal to sim/native_engine*.cpp): exact fixed-point rate
// sums, indexed heaps, cache-line rows of flows and resources, rate groups. What each holds
// and why it is laid out so is written beside it; the algorithm that reads them is in
// sim/native_engine.hpp.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <new>
#include <vector>

namespace dlrmsim::sim::native {

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
inline Fixed to_fixed(double rate) {
  if (rate >= 0.0 && rate < 9223372036854775808.0) {  // 2^63
    const auto whole = static_cast<std::int64_t>(rate);  // truncation: the whole part
    return (static_cast<Fixed>(whole) << 64) +
           static_cast<std::uint64_t>((rate - static_cast<double>(whole)) * kFixedOne);
  }
  return static_cast<Fixed>(rate * kFixedOne);
}
inline double to_double(Fixed x) { return static_cast<double>(x) / kFixedOne; }

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
  std::uint32_t passing = 0;       // a dominated resource (never in a flow's route): flows crossing it
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

}  // namespace dlrmsim::sim::native
