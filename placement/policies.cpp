// The placement policies and their registry.
#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <numeric>
#include <stdexcept>

#include "placement/plan_builder.hpp"
#include "placement/placement.hpp"

namespace dlrmsim::placement {

// Defined in search_policy.cpp.
PlacementPlan plan_search(const PlacementProblem& problem, const PlacementOptions& options,
                          const StepTimeEvaluator& evaluator);
// Defined in explicit_policy.cpp.
PlacementPlan plan_explicit(const PlacementProblem& problem, const PlacementOptions& options,
                            const StepTimeEvaluator& evaluator);
// Defined in hugectr_auto_policy.cpp.
PlacementPlan plan_hugectr_auto(const PlacementProblem& problem, const PlacementOptions& options,
                                const StepTimeEvaluator& evaluator);

namespace {

std::vector<std::size_t> all_table_indices(const PlacementProblem& problem) {
  std::vector<std::size_t> v(problem.tables.size());
  std::iota(v.begin(), v.end(), std::size_t{0});
  return v;
}

std::string_view owner_description(Tier tier) { return tier_of(tier).owners_description(); }

// Every table on one tier, balanced by estimated cost; what does not fit is still placed so
// that capacity checking reports the overflow.
PlacementPlan plan_all_on(Tier tier, const PlacementProblem& problem, const PlacementOptions& options) {
  PlanBuilder b(problem, options);
  if (b.owners_of(tier).empty()) {
    throw InfeasiblePlacement("placement tier " + std::string(to_string(tier)) + " needs " +
                                  std::string(owner_description(tier)) + " and the platform has none",
                              "", Bytes(0.0));
  }
  b.assign_balanced(b.whole_tables(all_table_indices(problem), tier), tier, /*allow_overflow=*/true);
  return b.plan();
}

PlacementPlan plan_all_gpu(const PlacementProblem& p, const PlacementOptions& o, const StepTimeEvaluator&) {
  return plan_all_on(Tier::gpu_hbm, p, o);
}
PlacementPlan plan_all_host(const PlacementProblem& p, const PlacementOptions& o, const StepTimeEvaluator&) {
  return plan_all_on(Tier::host_dram, p, o);
}
PlacementPlan plan_all_uvm(const PlacementProblem& p, const PlacementOptions& o, const StepTimeEvaluator&) {
  return plan_all_on(Tier::uvm, p, o);
}
PlacementPlan plan_all_remote(const PlacementProblem& p, const PlacementOptions& o, const StepTimeEvaluator&) {
  return plan_all_on(Tier::remote_ps, p, o);
}

// hashed_servers: Persia's embedding servers. Each id goes to server farmhash(id) mod P
// (PersiaML/PERSIA@7cd455b rust/persia-embedding-server/src/middleware_service/mod.rs,
// sign_to_shard_modulo), so every server holds an equal share of every table's rows and serves
// that share of its lookups whatever their popularity: one row range per server, equal sizes
// (shard_work splits a row-wise table's lookups by row count, as for hashed ids).
PlacementPlan plan_hashed_servers(const PlacementProblem& problem, const PlacementOptions& options,
                                  const StepTimeEvaluator&) {
  PlanBuilder b(problem, options);
  const auto& servers = b.owners_of(Tier::remote_ps);
  if (servers.empty()) {
    throw InfeasiblePlacement("placement policy hashed_servers needs " + std::string(owner_description(Tier::remote_ps)) +
                                  " and the platform has none",
                              "", Bytes(0.0));
  }
  const auto p = static_cast<std::int64_t>(servers.size());
  const Sharding sharding = p == 1 ? Sharding::table_wise : Sharding::row_wise;
  for (std::size_t t = 0; t < problem.tables.size(); ++t) {
    const std::int64_t rows = problem.tables[t].rows;
    for (std::int64_t k = 0; k < p; ++k) {
      // Equal ranges (the first rows % p one row longer); a server may get none of a tiny table.
      const std::int64_t begin = k * (rows / p) + std::min(k, rows % p);
      const std::int64_t end = begin + rows / p + (k < rows % p ? 1 : 0);
      if (end > begin) {
        b.add_shard(t, Tier::remote_ps, sharding, servers[static_cast<std::size_t>(k)], begin, end, 0, problem.tables[t].dim);
      }
    }
  }
  return b.plan();
}

std::vector<Tier> checked_tiers(const PlanBuilder& b) {
  auto tiers = b.tiers_fastest_first();
  if (tiers.empty()) {
    throw InfeasiblePlacement("no placement tier is usable: the platform has no device for any of the allowed tiers",
                              "", Bytes(0.0));
  }
  return tiers;
}

// Memory the tier's tables may use in total (weights and optimiser state; for uvm that lives
// on the host sockets of the GPUs, each counted once).
double tier_budget(const PlanBuilder& b, Tier tier) {
  std::vector<std::uint32_t> storage;
  for (std::uint32_t o : b.owners_of(tier)) {
    storage.push_back(tier_of(tier).storage_of(b.problem(), o));
  }
  std::sort(storage.begin(), storage.end());
  storage.erase(std::unique(storage.begin(), storage.end()), storage.end());
  double total = 0.0;
  for (std::uint32_t d : storage) total += std::max(0.0, b.free_bytes(d));
  return total;
}

// Tables that their chosen tier could not pack: try every tier in `order`; what fits
// nowhere goes to the tier with the most free memory anyway, so that the capacity check
// names the device that overflows and by how much.
void place_leftovers(PlanBuilder& b, const std::vector<Tier>& order, std::vector<std::size_t> tables) {
  for (Tier tier : order) {
    if (tables.empty()) return;
    tables = b.assign_balanced(b.whole_tables(tables, tier), tier, /*allow_overflow=*/false);
  }
  if (tables.empty()) return;
  Tier roomiest = order.front();
  double most = -1.0;
  for (Tier tier : order) {
    const double room = tier_budget(b, tier);
    if (room > most) {
      most = room;
      roomiest = tier;
    }
  }
  b.assign_balanced(b.whole_tables(tables, roomiest), roomiest, /*allow_overflow=*/true);
}

// size_greedy: every table starts on the fastest tier; while the tables there exceed its
// memory, the largest one moves to the slowest tier with room for it. Tables that the
// fastest tier's devices cannot pack also move down.
PlacementPlan plan_size_greedy(const PlacementProblem& problem, const PlacementOptions& options,
                               const StepTimeEvaluator&) {
  PlanBuilder b(problem, options);
  const auto tiers = checked_tiers(b);
  const Tier fastest = tiers.front();
  std::vector<double> budget(std::size(kAllTiers), 0.0);
  for (Tier t : tiers) budget[static_cast<std::size_t>(t)] = tier_budget(b, t);

  auto order = all_table_indices(problem);
  std::stable_sort(order.begin(), order.end(), [&](std::size_t x, std::size_t y) { return b.footprint(x) > b.footprint(y); });
  std::vector<std::vector<std::size_t>> members(std::size(kAllTiers));
  double on_fastest = 0.0;
  for (std::size_t t : order) on_fastest += b.footprint(t);
  std::vector<char> moved(problem.tables.size(), 0);
  // The slowest tier with room for the table; the slowest tier when none has room.
  auto move_down = [&](std::size_t t) {
    for (auto it = tiers.rbegin(); *it != fastest; ++it) {
      double& room = budget[static_cast<std::size_t>(*it)];
      if (b.footprint(t) <= room) {
        room -= b.footprint(t);
        members[static_cast<std::size_t>(*it)].push_back(t);
        return;
      }
    }
    members[static_cast<std::size_t>(tiers.back())].push_back(t);
  };
  std::size_t next_largest = 0;
  while (on_fastest > budget[static_cast<std::size_t>(fastest)] && next_largest < order.size() && tiers.size() > 1) {
    const std::size_t t = order[next_largest++];
    moved[t] = 1;
    on_fastest -= b.footprint(t);
    move_down(t);
  }
  std::vector<std::size_t> stay;
  for (std::size_t t : order) {
    if (!moved[t]) stay.push_back(t);
  }
  const bool single = tiers.size() == 1;
  auto failed = b.assign_balanced(b.whole_tables(stay, fastest), fastest, single);
  for (std::size_t t : failed) {
    if (tiers.size() > 1) move_down(t);
  }
  std::vector<std::size_t> leftovers;
  for (auto it = tiers.rbegin(); it != tiers.rend() && *it != fastest; ++it) {
    auto& list = members[static_cast<std::size_t>(*it)];
    if (list.empty()) continue;
    auto rest = b.assign_balanced(b.whole_tables(list, *it), *it, /*allow_overflow=*/false);
    leftovers.insert(leftovers.end(), rest.begin(), rest.end());
  }
  std::vector<Tier> slowest_first(tiers.rbegin(), tiers.rend());
  place_leftovers(b, slowest_first, leftovers);
  return b.plan();
}

// cost_greedy: fastest tier first. For each tier (in the order of their estimated cost), the
// tables that gain most per byte from being there rather than on the best slower tier are
// admitted until the tier's memory is used up (the greedy rule for a knapsack); the admitted
// tables are then spread over the tier's devices costliest first onto the least-loaded device
// (LPT), hot tables split by columns so that no device is left with more than its share. A
// piece's cost includes its NIC time (lookup_cost.hpp: each piece receives all its table's
// ids), so some tables cannot get under the mean load; then no table is cut finer than
// kSplitFloorShare of the least load those leave the busiest owner (PlanBuilder::
// split_hot_columns): on 64 DGX H100 DLRM-DCNv2 has 213 column pieces instead of 624.
// Cost O(T log T + T log G) for T tables over G devices of a tier (plus rare row splits).
PlacementPlan plan_cost_greedy(const PlacementProblem& problem, const PlacementOptions& options,
                               const StepTimeEvaluator&) {
  PlanBuilder b(problem, options);
  const auto tiers = checked_tiers(b);
  const std::size_t n_tables = problem.tables.size();
  // cost[t * k + i]: estimated time of table t placed whole on the first owner of tiers[i].
  const std::size_t k = tiers.size();
  std::vector<double> cost(n_tables * k);
  for (std::size_t i = 0; i < k; ++i) {
    const std::uint32_t rep = b.owners_of(tiers[i]).front();
    for (std::size_t t = 0; t < n_tables; ++t) cost[t * k + i] = b.table_cost(t, tiers[i], rep).value();
  }
  std::vector<std::size_t> remaining = all_table_indices(problem);
  // Tables below the replication threshold go to every GPU trainer first (HugeCTR's rule).
  if (options.data_parallel_below && b.owners_of(Tier::gpu_hbm).size() > 1 &&
      std::find(tiers.begin(), tiers.end(), Tier::gpu_hbm) != tiers.end()) {
    std::erase_if(remaining, [&](std::size_t t) {
      const TableDemand& d = problem.tables[t];
      if (d.row_bytes() * static_cast<double>(d.rows) >= *options.data_parallel_below) return false;
      b.add_data_parallel(t);
      return true;
    });
  }
  for (std::size_t i = 0; i < k; ++i) {
    const Tier tier = tiers[i];
    const bool last = i + 1 == k;
    std::vector<std::size_t> admitted;
    std::vector<std::size_t> deferred;
    if (last) {
      admitted = remaining;
    } else {
      struct Candidate {
        double density;
        std::size_t table;
      };
      std::vector<Candidate> candidates;
      for (std::size_t t : remaining) {
        double best_later = std::numeric_limits<double>::infinity();
        for (std::size_t j = i + 1; j < k; ++j) best_later = std::min(best_later, cost[t * k + j]);
        const double here = cost[t * k + i];
        if (!(here < best_later)) {
          deferred.push_back(t);
          continue;
        }
        const double gain = std::isinf(best_later) ? std::numeric_limits<double>::max() : best_later - here;
        candidates.push_back({gain / std::max(b.footprint(t), 1.0), t});
      }
      std::stable_sort(candidates.begin(), candidates.end(),
                       [](const Candidate& x, const Candidate& y) { return x.density > y.density; });
      double room = tier_budget(b, tier);
      for (const auto& c : candidates) {
        const double bytes = b.footprint(c.table);
        if (bytes <= room) {
          room -= bytes;
          admitted.push_back(c.table);
        } else {
          deferred.push_back(c.table);
        }
      }
    }
    auto items = b.split_hot_columns(b.whole_tables(admitted, tier), tier);
    auto failed = b.assign_balanced(std::move(items), tier, /*allow_overflow=*/false);
    deferred.insert(deferred.end(), failed.begin(), failed.end());
    std::sort(deferred.begin(), deferred.end());
    remaining = std::move(deferred);
  }
  place_leftovers(b, tiers, remaining);
  return b.plan();
}

// memory_balanced: the strategy of that name in Merlin Distributed Embeddings
// (NVIDIA-Merlin/distributed-embeddings@45cffaa, the commit DeepLearningExamples' TF2 DLRM
// Dockerfile builds, and unchanged at the next commit, 4cb42d4; distributed_embeddings/python/
// layers/dist_model_parallel.py, DistEmbeddingStrategy), which NVIDIA's TensorFlow 2 DLRM/DCNv2
// uses (DeepLearningExamples nn/sparse_model.py, strategy='memory_balanced'):
//  - create_col_sliced_configs / maybe_slice_table_column: a table of more elements than the
//    threshold is cut into N column slices, N the smallest power of two that brings a slice
//    under it, at most one per GPU and per column (the first `columns mod N` slices one column
//    wider). Without a threshold the largest table is halved until there are as many slices
//    as GPUs.
//  - apply_strategy('memory_balanced'): slices sorted by element count, largest first (ties:
//    the later table first, Python's sort of (size, id) pairs in reverse); GPU i takes
//    slices i, 2G-1-i, 2G+i, 4G-1-i, ... of that order.
//  - _merge_slices: slices of one table that land on one GPU are one shard; slices take their
//    columns in GPU order.
//  - _maybe_offload (with placement.gpu_embedding_memory, the library's gpu_embedding_size):
//    a GPU's shards are taken smallest first; once their weights pass the budget, the rest
//    (its largest) live in host memory, on the GPU's own socket, and the CPU looks them up.
PlacementPlan plan_memory_balanced(const PlacementProblem& problem, const PlacementOptions& options,
                                   const StepTimeEvaluator&) {
  PlanBuilder b(problem, options);
  const auto allowed = [&](Tier t) {
    return options.tiers.empty() || std::find(options.tiers.begin(), options.tiers.end(), t) != options.tiers.end();
  };
  if (!allowed(Tier::gpu_hbm)) {
    throw std::invalid_argument("placement policy memory_balanced starts from GPU memory; placement.tiers must include gpu_hbm");
  }
  if (options.gpu_embedding_memory && !allowed(Tier::host_dram)) {
    throw std::invalid_argument("placement.gpu_embedding_memory offloads tables to host memory; placement.tiers must include host_dram");
  }
  const auto& gpus = b.owners_of(Tier::gpu_hbm);
  if (gpus.empty()) {
    throw InfeasiblePlacement("placement policy memory_balanced needs GPUs and the platform has none", "", Bytes(0.0));
  }
  const std::size_t world = gpus.size();
  const std::size_t n = problem.tables.size();
  auto elements = [&](std::size_t t) { return static_cast<double>(problem.tables[t].rows) * problem.tables[t].dim; };
  double threshold = std::numeric_limits<double>::infinity();
  if (options.column_slice_elements) {
    threshold = *options.column_slice_elements;
  } else if (world > n) {
    std::vector<double> sizes(n);
    for (std::size_t t = 0; t < n; ++t) sizes[t] = elements(t);
    while (world > sizes.size()) {
      std::sort(sizes.begin(), sizes.end());
      threshold = sizes.back() - 1.0;
      const double largest = std::floor(sizes.back() / 2.0);
      sizes.back() = largest;
      sizes.push_back(largest);
    }
  }
  struct Slice {
    double size;
    std::size_t table;
    int columns;
  };
  std::vector<Slice> slices;
  for (std::size_t t = 0; t < n; ++t) {
    const int dim = problem.tables[t].dim;
    std::size_t count = 1;
    for (double size = elements(t); size > threshold; size /= 2.0) count *= 2;
    count = std::min({count, world, static_cast<std::size_t>(dim)});
    const int per_slice = dim / static_cast<int>(count);
    const int remainder = dim % static_cast<int>(count);
    for (std::size_t i = 0; i < count; ++i) {
      const int columns = per_slice + (static_cast<int>(i) < remainder ? 1 : 0);
      slices.push_back({static_cast<double>(problem.tables[t].rows) * columns, t, columns});
    }
  }
  std::stable_sort(slices.begin(), slices.end(), [](const Slice& x, const Slice& y) {
    return x.size != y.size ? x.size > y.size : x.table > y.table;
  });
  // columns[g][t]: columns of table t on GPU g (merged slices).
  std::vector<std::vector<int>> columns(world, std::vector<int>(n, 0));
  for (std::size_t g = 0; g < world; ++g) {
    for (std::size_t k = g; k < slices.size(); k += 2 * world) columns[g][slices[k].table] += slices[k].columns;
    for (std::size_t k = 2 * world - 1 - g; k < slices.size(); k += 2 * world) {
      columns[g][slices[k].table] += slices[k].columns;
    }
  }
  std::vector<int> next_column(n, 0);
  for (std::size_t g = 0; g < world; ++g) {
    // Shards of this GPU, smallest weights first (a stable order: table index breaks ties).
    std::vector<std::size_t> mine;
    for (std::size_t t = 0; t < n; ++t) {
      if (columns[g][t] > 0) mine.push_back(t);
    }
    const auto weights = [&](std::size_t t) {
      return static_cast<double>(problem.tables[t].rows) * columns[g][t] * problem.tables[t].element_size.value();
    };
    std::stable_sort(mine.begin(), mine.end(), [&](std::size_t x, std::size_t y) { return weights(x) < weights(y); });
    const std::int32_t socket = problem.devices[gpus[g]].host_socket;
    double kept = 0.0;
    for (std::size_t t : mine) {
      const int width = columns[g][t];
      kept += weights(t);
      const bool offload = options.gpu_embedding_memory && kept > options.gpu_embedding_memory->value();
      if (offload && socket < 0) {
        throw InfeasiblePlacement("placement.gpu_embedding_memory offloads tables of " + problem.devices[gpus[g]].name +
                                      " to host memory, and it has no host socket",
                                  problem.devices[gpus[g]].name, Bytes(0.0));
      }
      const bool whole = width == problem.tables[t].dim;
      b.add_shard(t, offload ? Tier::host_dram : Tier::gpu_hbm, whole ? Sharding::table_wise : Sharding::column_wise,
                  offload ? static_cast<std::uint32_t>(socket) : gpus[g], 0, problem.tables[t].rows, next_column[t],
                  next_column[t] + width);
      next_column[t] += width;
    }
  }
  return b.plan();
}

constexpr std::array kPolicies{
    PolicyInfo{"all_gpu", "every table in GPU HBM, table-wise balanced by estimated cost (row-wise when too big)",
               &plan_all_gpu},
    PolicyInfo{"all_host", "every table in host DRAM of the trainer nodes' CPU sockets, looked up by the CPU",
               &plan_all_host},
    PolicyInfo{"all_uvm", "every table in host DRAM read by its GPU over PCIe through an HBM cache", &plan_all_uvm},
    PolicyInfo{"all_remote", "every table on the parameter-server nodes, row-wise when too big for one",
               &plan_all_remote},
    PolicyInfo{"hashed_servers",
               "Persia's embedding servers: every table's ids hashed over all parameter servers, an equal share "
               "of its rows and lookups on each",
               &plan_hashed_servers},
    PolicyInfo{"size_greedy", "largest tables to the slowest tier until everything fits", &plan_size_greedy},
    PolicyInfo{"cost_greedy",
               "fastest tier first by gain per byte, then LPT balance of estimated lookup cost over devices",
               &plan_cost_greedy},
    PolicyInfo{"memory_balanced",
               "Merlin Distributed Embeddings' strategy: large tables cut into column slices, slices dealt to "
               "the GPUs largest first in a snake (equal slice counts, balanced memory; cost not considered)",
               &plan_memory_balanced},
    PolicyInfo{"hugectr_auto",
               "NVIDIA's MLPerf DLRM-DCNv2 planner (HugeCTR SHARDING_PLAN=auto / hier_auto): tables dealt into "
               "per-GPU (one node) or per-node buckets by hotness, hot tables split, each row-sharded over its "
               "bucket's GPUs",
               &plan_hugectr_auto},
    PolicyInfo{"explicit",
               "the plan given table by table in placement.plan (dlrmsim place --json's tables, read back): tier, "
               "sharding, owners and row and column ranges of every shard",
               &plan_explicit, true},
    PolicyInfo{"search", "evaluate candidate plans with the simulator (exhaustive when small, else local search)",
               &plan_search},
};

}  // namespace

std::span<const PolicyInfo> placement_policies() { return kPolicies; }

}  // namespace dlrmsim::placement
