#include "placement/plan_builder.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <numeric>

#include "placement/lookup_cost.hpp"
#include "placement/tier.hpp"

namespace dlrmsim::placement {
namespace {

std::size_t tier_slot(Tier t) { return static_cast<std::size_t>(t); }

// Sharding label of a table split into row ranges over `owners`.
Sharding row_sharding(const PlacementProblem& problem, Tier tier, const std::vector<std::uint32_t>& owners) {
  if (tier_of(tier).properties().remote || problem.trainer_node_count() <= 1) return Sharding::row_wise;
  const std::uint32_t node = problem.devices[owners.front()].node;
  const bool one_node = std::all_of(owners.begin(), owners.end(),
                                    [&](std::uint32_t o) { return problem.devices[o].node == node; });
  return one_node ? Sharding::table_row_wise : Sharding::row_wise;
}

}  // namespace

PlanBuilder::PlanBuilder(const PlacementProblem& problem, const PlacementOptions& options)
    : problem_(problem), options_(options) {
  const std::size_t n = problem.devices.size();
  usable_.resize(n);
  used_.assign(n, 0.0);
  load_.assign(n, 0.0);
  for (std::uint32_t i = 0; i < n; ++i) {
    const PlacementDevice& d = problem.devices[i];
    usable_[i] = d.memory_capacity.value() * (1.0 - options.memory_reserve_fraction);
    if (d.kind == OwnerKind::gpu) {
      used_[i] = (problem.activations_per_gpu + problem.dense_weights_per_gpu + problem.dense_optimizer_state_per_gpu).value();
    }
  }
  owners_.resize(memory_tiers().size());
  for (const MemoryTier* tier : memory_tiers()) {
    for (std::uint32_t i = 0; i < n; ++i) {
      if (tier->can_own(problem.devices[i])) owners_[tier_slot(tier->id())].push_back(i);
    }
  }
  tables_.resize(problem.tables.size());
  commitments_.resize(problem.tables.size());
  hit_rate_.resize(problem.tables.size());
  distinct_fraction_.resize(problem.tables.size());
}

const std::vector<std::uint32_t>& PlanBuilder::owners_of(Tier tier) const { return owners_[tier_slot(tier)]; }

std::vector<Tier> PlanBuilder::usable_tiers() const {
  std::vector<Tier> out;
  for (const MemoryTier* tier : memory_tiers()) {
    const Tier t = tier->id();
    const bool allowed = options_.tiers.empty() ||
                         std::find(options_.tiers.begin(), options_.tiers.end(), t) != options_.tiers.end();
    if (allowed && !owners_of(t).empty()) out.push_back(t);
  }
  return out;
}

std::vector<Tier> PlanBuilder::tiers_fastest_first() const {
  std::vector<std::pair<double, Tier>> ranked;
  for (Tier tier : usable_tiers()) {
    double total = 0.0;
    for (std::size_t t = 0; t < problem_.tables.size(); ++t) total += table_cost(t, tier, owners_of(tier).front()).value();
    ranked.emplace_back(total, tier);
  }
  std::stable_sort(ranked.begin(), ranked.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<Tier> out;
  for (const auto& r : ranked) out.push_back(r.second);
  return out;
}

double PlanBuilder::free_bytes(std::uint32_t device) const { return usable_[device] - used_[device]; }

double PlanBuilder::footprint(std::size_t table) const { return problem_.tables[table].footprint().value(); }

double PlanBuilder::cache_hit_rate_of(std::size_t table, Tier tier) const {
  const double fraction = options_.cache_fraction(tier);
  const TableDemand& t = problem_.tables[table];
  const double rows = static_cast<double>(t.rows);
  if (fraction != options_.uvm_cache_fraction) {
    return cache_hit_rate(t.access, rows, std::round(fraction * rows), options_.cache_model);
  }
  auto& cached = hit_rate_[table];
  if (!cached) cached = cache_hit_rate(t.access, rows, std::round(fraction * rows), options_.cache_model);
  return *cached;
}

double PlanBuilder::distinct_fraction(std::size_t table) const {
  auto& cached = distinct_fraction_[table];
  if (!cached) cached = table_distinct_fraction(problem_, problem_.tables[table]);
  return *cached;
}

std::vector<std::pair<std::uint32_t, double>> PlanBuilder::memory_needed(std::size_t table, Tier tier,
                                                                          std::uint32_t owner, std::int64_t rows,
                                                                          int columns) const {
  return tier_of(tier).memory_needed(problem_, problem_.tables[table], owner, rows, columns, options_.cache_fraction(tier));
}

bool PlanBuilder::fits(std::size_t table, Tier tier, std::uint32_t owner, std::int64_t rows, int columns) const {
  const auto needed = memory_needed(table, tier, owner, rows, columns);
  return std::all_of(needed.begin(), needed.end(), [&](const auto& n) { return n.second <= free_bytes(n.first); });
}

Seconds PlanBuilder::shard_cost(std::size_t table, Tier tier, std::uint32_t owner, std::int64_t rows,
                                int columns) const {
  const TableDemand& t = problem_.tables[table];
  Shard s;
  s.tier = tier;
  s.owners = {owner};
  s.row_end = rows;
  s.column_end = columns;
  if (tier_of(tier).properties().hbm_cache) s.expected_hit_rate = cache_hit_rate_of(table, tier);
  return lookup_time(problem_, problem_.devices[owner], tier, t, shard_work(problem_, t, s, Sharding::table_wise, distinct_fraction(table)));
}

Seconds PlanBuilder::table_cost(std::size_t table, Tier tier, std::uint32_t owner) const {
  const TableDemand& t = problem_.tables[table];
  return shard_cost(table, tier, owner, t.rows, t.dim);
}

void PlanBuilder::commit(std::size_t table, std::uint32_t device, double bytes, double seconds) {
  used_[device] += bytes;
  load_[device] += seconds;
  commitments_[table].emplace_back(device, bytes, seconds);
}

void PlanBuilder::add_shard(std::size_t table, Tier tier, Sharding sharding, std::uint32_t owner,
                            std::int64_t row_begin, std::int64_t row_end, int column_begin, int column_end) {
  const TableDemand& t = problem_.tables[table];
  auto& tp = tables_[table];
  if (!tp) {
    tp.emplace();
    tp->table = table;
    tp->name = t.name;
    tp->tier = tier;
  }
  tp->sharding = sharding;
  Shard s;
  s.tier = tier;
  s.owners = {owner};
  s.storage = {tier_of(tier).storage_of(problem_, owner)};
  s.row_begin = row_begin;
  s.row_end = row_end;
  s.column_begin = column_begin;
  s.column_end = column_end;
  if (tier_of(tier).properties().hbm_cache) {
    s.cache_rows = static_cast<std::int64_t>(std::llround(options_.cache_fraction(tier) * static_cast<double>(row_end - row_begin)));
    s.expected_hit_rate = cache_hit_rate_of(table, tier);
  }
  const double seconds = shard_cost(table, tier, owner, row_end - row_begin, column_end - column_begin).value();
  s.estimated_time = Seconds(seconds);
  const auto needed = memory_needed(table, tier, owner, row_end - row_begin, column_end - column_begin);
  for (std::size_t i = 0; i < needed.size(); ++i) commit(table, needed[i].first, needed[i].second, i == 0 ? seconds : 0.0);
  tp->shards.push_back(std::move(s));
}

void PlanBuilder::add_data_parallel(std::size_t table) {
  const TableDemand& t = problem_.tables[table];
  TablePlacement tp;
  tp.table = table;
  tp.name = t.name;
  tp.tier = Tier::gpu_hbm;
  tp.sharding = Sharding::data_parallel;
  Shard s;
  s.tier = Tier::gpu_hbm;
  s.owners = owners_of(Tier::gpu_hbm);
  s.storage = s.owners;
  s.row_end = t.rows;
  s.column_end = t.dim;
  set_table(table, TablePlacement{tp.table, tp.name, tp.tier, tp.sharding, {s}, std::nullopt});
}

void PlanBuilder::remove_table(std::size_t table) {
  for (const auto& [device, bytes, seconds] : commitments_[table]) {
    used_[device] -= bytes;
    load_[device] -= seconds;
  }
  commitments_[table].clear();
  tables_[table].reset();
}

void PlanBuilder::set_table(std::size_t t, const TablePlacement& placement) {
  remove_table(t);
  const TableDemand& table = problem_.tables[t];
  TablePlacement tp = placement;
  for (Shard& s : tp.shards) {
    const double bytes = table.footprint(s.row_count(), s.column_count()).value();
    for (std::uint32_t d : s.storage) commit(t, d, bytes, 0.0);
    if (tier_of(s.tier).properties().hbm_cache) {
      s.cache_rows = static_cast<std::int64_t>(std::llround(options_.cache_fraction(s.tier) * static_cast<double>(s.row_count())));
      s.expected_hit_rate = cache_hit_rate_of(t, s.tier);
      const double cache = table.element_size.value() * static_cast<double>(s.cache_rows) * s.column_count();
      for (std::uint32_t o : s.owners) commit(t, o, cache, 0.0);
    }
    const LookupWork work = shard_work(problem_, table, s, tp.sharding, distinct_fraction(t));
    s.estimated_time = Seconds(0.0);
    for (std::uint32_t o : s.owners) {
      const Seconds time = lookup_time(problem_, problem_.devices[o], s.tier, table, work);
      s.estimated_time = std::max(s.estimated_time, time);
      commit(t, o, 0.0, time.value());
    }
  }
  tables_[t] = std::move(tp);
}

std::vector<PlacementItem> PlanBuilder::whole_tables(const std::vector<std::size_t>& tables, Tier tier) const {
  std::vector<PlacementItem> items;
  items.reserve(tables.size());
  const std::uint32_t rep = owners_of(tier).front();
  for (std::size_t t : tables) {
    items.push_back({t, 0, problem_.tables[t].dim, table_cost(t, tier, rep)});
  }
  return items;
}

std::vector<PlacementItem> PlanBuilder::split_hot_columns(std::vector<PlacementItem> items, Tier tier) const {
  const auto& owners = owners_of(tier);
  if (owners.size() < 2 || !tier_of(tier).properties().on_gpu) return items;
  double total = 0.0;
  double max_free = 0.0;
  for (const auto& i : items) total += i.cost.value();
  for (std::uint32_t o : owners) max_free = std::max(max_free, free_bytes(o));
  const double g = static_cast<double>(owners.size());
  const double mean = total / g;
  constexpr int kAlignment = 4;  // FBGEMM table-batched embeddings need dim % 4 == 0 per shard
  const auto width = [](int units, int k, int p) { return kAlignment * (units / k + (p < units % k ? 1 : 0)); };
  // A piece still looks up every row a sample touches and receives every id of the table, so
  // a narrow piece costs more than its share of the columns (fixed per-lookup costs, the
  // access granule, the ids on the wire): pieces are costed with the same model as whole
  // tables. For k pieces: the largest piece and the sum of the k.
  struct Cut {
    double largest;
    double sum;
  };
  struct Candidate {
    std::size_t item;
    std::vector<Cut> cuts;  // cuts[k - 1], k = 1 .. as far as scanned
  };
  std::vector<Candidate> candidates;
  for (std::size_t i = 0; i < items.size(); ++i) {
    const auto& item = items[i];
    const int dim = item.column_end - item.column_begin;
    const int units = dim / kAlignment;
    const bool whole_fits = footprint(item.table) <= max_free;
    if (item.cost.value() <= mean || units < 2 || dim % kAlignment != 0 || !whole_fits) continue;
    const std::int64_t rows = problem_.tables[item.table].rows;
    Candidate c{i, {{item.cost.value(), item.cost.value()}}};
    const int k_max = std::min(units, static_cast<int>(owners.size()));
    for (int k = 2; k <= k_max; ++k) {
      // Two widths at most: the first units % k pieces are one alignment unit wider.
      const double wide = shard_cost(item.table, tier, owners.front(), rows, width(units, k, 0)).value();
      const int n_wide = units % k == 0 ? k : units % k;
      const double narrow =
          n_wide == k ? wide : shard_cost(item.table, tier, owners.front(), rows, width(units, k, k - 1)).value();
      c.cuts.push_back({std::max(wide, narrow), wide * n_wide + narrow * (k - n_wide)});
      if (c.cuts.back().largest <= mean) break;  // more pieces only add work
    }
    candidates.push_back(std::move(c));
  }
  // The busiest owner cannot be below the mean load, nor below the cheapest largest piece of
  // any table (`floor`: a table whose pieces stop getting cheaper, e.g. because each of them
  // receives all of the table's ids). Pieces are cut down to `target`, the larger of the mean
  // and floor x kSplitFloorShare, and no further: below that a cut no longer shortens the
  // step (see kSplitFloorShare) and only adds owners that exchange flows with every node and
  // receive all the table's ids. When the floor is under the mean / kSplitFloorShare (few
  // owners per table: one node, or many tables), target is the mean: plain LPT balance.
  double floor = mean;
  for (const auto& c : candidates) {
    double best = std::numeric_limits<double>::infinity();
    for (const Cut& cut : c.cuts) best = std::min(best, cut.largest);
    floor = std::max(floor, best);
  }
  const double target = std::max(mean, floor * kSplitFloorShare);
  std::vector<int> pieces(items.size(), 1);
  for (const auto& c : candidates) {
    // The number of pieces k minimises max(largest piece, target, mean load), the mean
    // grown by what splitting adds (k pieces cost more than the whole); the fewest pieces
    // among equal values.
    const double cost = items[c.item].cost.value();
    int best_k = 1;
    double best_bound = std::max(cost, target);
    for (std::size_t k = 2; k <= c.cuts.size(); ++k) {
      const Cut& cut = c.cuts[k - 1];
      const double bound = std::max({cut.largest, target, (total - cost + cut.sum) / g});
      if (bound < best_bound) {
        best_bound = bound;
        best_k = static_cast<int>(k);
      }
    }
    pieces[c.item] = best_k;
  }
  std::vector<PlacementItem> out;
  out.reserve(items.size());
  for (std::size_t i = 0; i < items.size(); ++i) {
    const auto& item = items[i];
    const int k = pieces[i];
    if (k == 1) {
      out.push_back(item);
      continue;
    }
    const int units = (item.column_end - item.column_begin) / kAlignment;
    const std::int64_t rows = problem_.tables[item.table].rows;
    int begin = item.column_begin;
    for (int p = 0; p < k; ++p) {
      const int w = width(units, k, p);
      out.push_back({item.table, begin, begin + w, shard_cost(item.table, tier, owners.front(), rows, w)});
      begin += w;
    }
  }
  return out;
}

std::vector<std::size_t> PlanBuilder::assign_balanced(std::vector<PlacementItem> items, Tier tier,
                                                      bool allow_overflow) {
  const auto& owners = owners_of(tier);
  std::vector<std::size_t> failed;
  if (owners.empty()) {
    for (const auto& i : items) failed.push_back(i.table);
    std::sort(failed.begin(), failed.end());
    failed.erase(std::unique(failed.begin(), failed.end()), failed.end());
    return failed;
  }
  std::stable_sort(items.begin(), items.end(), [](const PlacementItem& a, const PlacementItem& b) {
    if (a.cost != b.cost) return a.cost > b.cost;
    return a.table < b.table;
  });
  // Owners ordered by (estimated load, index): the head is the least-loaded one.
  std::set<std::pair<double, std::uint32_t>> by_load;
  for (std::uint32_t o : owners) by_load.emplace(load_[o], o);
  std::vector<char> table_failed(problem_.tables.size(), 0);
  auto refresh = [&](std::uint32_t o, double old_load) {
    by_load.erase({old_load, o});
    by_load.emplace(load_[o], o);
  };
  auto place_on = [&](const PlacementItem& item, std::uint32_t owner, Sharding sharding, std::int64_t rb,
                      std::int64_t re) {
    const double before = load_[owner];
    add_shard(item.table, tier, sharding, owner, rb, re, item.column_begin, item.column_end);
    refresh(owner, before);
  };
  for (const PlacementItem& item : items) {
    if (table_failed[item.table]) continue;
    const TableDemand& t = problem_.tables[item.table];
    const int columns = item.column_end - item.column_begin;
    const bool whole = columns == t.dim;
    const Sharding single = whole ? Sharding::table_wise : Sharding::column_wise;
    std::optional<std::uint32_t> chosen;
    for (const auto& [l, o] : by_load) {
      if (fits(item.table, tier, o, t.rows, columns)) {
        chosen = o;
        break;
      }
    }
    if (chosen) {
      place_on(item, *chosen, single, 0, t.rows);
      continue;
    }
    // Row-wise: the fewest owners (those with the most free memory) that hold equal row ranges.
    std::vector<std::uint32_t> roomiest(owners.begin(), owners.end());
    std::stable_sort(roomiest.begin(), roomiest.end(),
                     [&](std::uint32_t a, std::uint32_t b) { return free_bytes(a) > free_bytes(b); });
    std::size_t parts = 0;
    if (whole) {
      for (std::size_t k = 2; k <= roomiest.size() && parts == 0; ++k) {
        const std::int64_t share = (t.rows + static_cast<std::int64_t>(k) - 1) / static_cast<std::int64_t>(k);
        // Sum the needs per device: the UVM homes of several GPUs may be one socket.
        std::map<std::uint32_t, double> need;
        for (std::size_t i = 0; i < k; ++i) {
          for (const auto& [device, bytes] : memory_needed(item.table, tier, roomiest[i], share, columns)) {
            need[device] += bytes;
          }
        }
        bool ok = true;
        for (const auto& [device, bytes] : need) ok = ok && bytes <= free_bytes(device);
        if (ok) parts = k;
      }
    }
    if (parts == 0 && allow_overflow) {
      if (whole && roomiest.size() > 1) {
        parts = roomiest.size();
      } else {
        place_on(item, by_load.begin()->second, single, 0, t.rows);
        continue;
      }
    }
    if (parts == 0) {
      table_failed[item.table] = 1;
      remove_table(item.table);
      by_load.clear();
      for (std::uint32_t o : owners) by_load.emplace(load_[o], o);
      failed.push_back(item.table);
      continue;
    }
    std::vector<std::uint32_t> chosen_owners(roomiest.begin(), roomiest.begin() + static_cast<std::ptrdiff_t>(parts));
    std::sort(chosen_owners.begin(), chosen_owners.end());
    const Sharding sharding = row_sharding(problem_, tier, chosen_owners);
    for (std::size_t p = 0; p < parts; ++p) {
      const auto rb = static_cast<std::int64_t>(static_cast<__int128>(t.rows) * p / parts);
      const auto re = static_cast<std::int64_t>(static_cast<__int128>(t.rows) * (p + 1) / parts);
      place_on(item, chosen_owners[p], sharding, rb, re);
    }
  }
  std::sort(failed.begin(), failed.end());
  return failed;
}

PlacementPlan PlanBuilder::plan() const {
  PlacementPlan p;
  p.cache_model = options_.cache_model;
  for (const auto& t : tables_) {
    if (!t) continue;
    p.tables.push_back(*t);
    if (const auto& f = distinct_fraction_[t->table]) p.tables.back().distinct_fraction = *f;
  }
  return p;
}

}  // namespace dlrmsim::placement
