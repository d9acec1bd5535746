#include "sim/statistics.hpp"

#include <algorithm>
#include <map>

#include "sim/critical_path.hpp"

namespace dlrmsim::sim {
namespace {

struct Interval {
  std::int64_t begin;
  std::int64_t end;
};

/// Sorts and merges intervals in place; returns the total covered length.
std::int64_t merge(std::vector<Interval>& v) {
  std::sort(v.begin(), v.end(), [](const Interval& a, const Interval& b) { return a.begin < b.begin; });
  std::vector<Interval> out;
  for (const auto& i : v) {
    if (!out.empty() && i.begin <= out.back().end) {
      out.back().end = std::max(out.back().end, i.end);
    } else {
      out.push_back(i);
    }
  }
  v = std::move(out);
  std::int64_t total = 0;
  for (const auto& i : v) total += i.end - i.begin;
  return total;
}

}  // namespace

std::vector<std::int64_t> critical_path_by_category(const ActivityGraph& g, const SimResult& r, ActivityId end,
                                                    std::int64_t from) {
  return critical_path_by_category(g, r, end, from, WaitGraph(g));
}

std::vector<std::int64_t> critical_path_by_category(const ActivityGraph& g, const SimResult& r, ActivityId end,
                                                    std::int64_t from, const WaitGraph& waits) {
  std::vector<std::int64_t> per_category(g.categories().size(), 0);
  waits.walk_back(end, from, r, [&](std::uint32_t a) {
    const auto& act = g.activity(ActivityId{a});
    const std::int64_t start = std::max(r.start[a].ps(), from);
    if (act.kind != ActivityKind::marker && r.end[a].ps() > start) per_category[act.category] += r.end[a].ps() - start;
  });
  return per_category;
}

Breakdown breakdown(const ActivityGraph& g, const SimResult& r, std::span<const std::string_view> order,
                    const Window& w, ActivityId end) {
  return breakdown(g, r, order, w, end, WaitGraph(g));
}

Breakdown breakdown(const ActivityGraph& g, const SimResult& r, std::span<const std::string_view> order,
                    const Window& w, ActivityId end, const WaitGraph& waits) {
  const std::int64_t w0 = w.begin_ps;
  const std::int64_t w1 = w.end_ps;
  const auto& names = g.categories();
  std::vector<std::vector<Interval>> per_cat(names.size());
  for (std::size_t a = 0; a < g.activity_count(); ++a) {
    const auto& act = g.activity(ActivityId{static_cast<std::uint32_t>(a)});
    if (act.kind == ActivityKind::marker) continue;
    const std::int64_t s = std::max(r.start[a].ps(), w0);
    const std::int64_t e = std::min(r.end[a].ps(), w1);
    if (e > s) per_cat[act.category].push_back({s, e});
  }
  // Picoseconds over the window to seconds per step.
  const double per_step = 1e-12 / static_cast<double>(std::max(w.steps, 1));
  Breakdown out;
  std::vector<Interval> covered;
  std::int64_t covered_len = 0;
  for (const auto& name : order) {
    const auto it = std::find(names.begin(), names.end(), name);
    if (it == names.end()) continue;
    auto& v = per_cat[static_cast<std::size_t>(it - names.begin())];
    const std::int64_t busy = merge(v);
    covered.insert(covered.end(), v.begin(), v.end());
    const std::int64_t now = merge(covered);
    CategoryTimes e;
    e.category = std::string(name);
    e.busy = Seconds(static_cast<double>(busy) * per_step);
    e.exposed = Seconds(static_cast<double>(now - covered_len) * per_step);
    covered_len = now;
    out.exposed_total += e.exposed;
    out.categories.push_back(e);
  }

  const std::vector<std::int64_t> on_path = critical_path_by_category(g, r, end, w0, waits);
  std::int64_t charged = 0;
  for (auto& e : out.categories) {
    const auto it = std::find(names.begin(), names.end(), e.category);
    const std::int64_t t = it == names.end() ? 0 : on_path[static_cast<std::size_t>(it - names.begin())];
    e.critical = Seconds(static_cast<double>(t) * per_step);
    charged += t;
  }
  out.critical_idle = Seconds(static_cast<double>(std::max<std::int64_t>(w1 - w0 - charged, 0)) * per_step);
  return out;
}

std::vector<UtilizationEntry> utilization(const ActivityGraph& g, const SimResult& r, int steps) {
  std::vector<UtilizationEntry> out;
  const double makespan = r.makespan.seconds().value();
  std::map<std::string, UtilizationEntry> classes;
  std::map<std::string, double> capacity;
  for (std::size_t i = 0; i < g.resource_count(); ++i) {
    const auto& st = r.resources[i];
    if (st.bytes.value() <= 0.0) continue;
    const auto& res = g.resource(ResourceId{static_cast<std::uint32_t>(i)});
    if (res.kind == kKernelRateKind) continue;  // a kernel's own rate, not hardware
    auto& u = classes[res.kind];
    u.resource_class = res.kind;
    u.cores = res.cores;  // core pools: work units, not bytes
    ++u.count;
    u.bytes += st.bytes;
    capacity[res.kind] += res.capacity.value();
  }
  for (auto& [k, u] : classes) {
    u.utilization = makespan > 0.0 ? u.bytes.value() / (capacity[k] * makespan) : 0.0;
    u.bytes = u.bytes / static_cast<double>(std::max(steps, 1));
    out.push_back(u);
  }
  std::map<std::string, UtilizationEntry> engines;
  std::map<std::string, double> busy;
  for (std::size_t i = 0; i < g.engine_count(); ++i) {
    const auto& st = r.engines[i];
    if (st.busy.value() <= 0.0) continue;
    const auto& e = g.engine(EngineId{static_cast<std::uint32_t>(i)});
    auto& u = engines[e.kind];
    u.resource_class = e.kind;
    u.compute = true;
    ++u.count;
    busy[e.kind] += st.busy.value();
  }
  for (auto& [k, u] : engines) {
    u.utilization = makespan > 0.0 ? busy[k] / (static_cast<double>(u.count) * makespan) : 0.0;
    out.push_back(u);
  }
  return out;
}

}  // namespace dlrmsim::sim
