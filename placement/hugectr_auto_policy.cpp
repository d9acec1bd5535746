// The hugectr_auto placement policy: NVIDIA's MLPerf DLRM-DCNv2 sharding planner, as HugeCTR's
// MLPerf submissions run it (mlcommons/training_results_v3.0@63e326c4 and
// training_results_v4.1@b87b9e39 NVIDIA/benchmarks/dlrm_dcnv2/implementations/*/sharding/
// planner.py and generate_plan.py; the planner is the same file in both rounds apart from the
// replication threshold).
//
// The planner deals model-parallel tables into buckets (SHARDING_PLAN=auto: the GPUs of a
// one-node job; hier_auto: the nodes of a multi-node job) to balance a cost per bucket,
//   cost(b) = sum over the tables in b of hotness / splits + table_cost x tables in b,
// hotness = lookups per sample, splits = buckets the table is spread over (1, 2, 4, ...),
// table_cost = MEM_COMM_BW_RATIO / mem_comm_work_ratio (train.py's default 4), under a memory
// cap per bucket (train.py's memory_cap_for_embedding 60 GB per GPU, x the node's GPUs for a
// node bucket; rows x dim x 8 B: Adagrad's weight and state). Planner.plan: up to 20 rounds
// of a greedy pass (shards hottest first, each to the bucket of least cost that does not hold
// that table yet and stays under the cap) followed by splitting the hottest table that can
// still be split in two (split count x 2 <= buckets), or, when a shard fits nowhere, that
// table; the candidate of least maximum cost wins, the fallback plan (every table in every
// bucket) first among equals. Tables of fewer rows than DP_SHARDING_THRESHOLD / (dim x 8 B)
// are replicated on every GPU: placement.data_parallel_below (fp32 weights, dim x 4 B per
// row, so 6.25 MB stands for 0.0125 GB). Equal hotnesses and costs are ordered as numpy's
// argsort orders them (numpy_argsort below, ported from numpy 1.24; not stable beyond 16
// elements); the plans of the v3.0 and v4.1 DGX H100 configurations match planner.py's
// output under numpy 1.24 (tests/test_placement_policies.cpp).
//
// In the plan: a table in bucket set S is row-sharded in equal ranges over the GPUs of S (a
// node bucket: every GPU of that node; HugeCTR lists the node's tables on each of its GPUs,
// and a table on several GPUs is sharded by rows, each key sent to the one GPU holding its
// row): table_wise on one GPU, table_row_wise on the GPUs of one node of a multi-node job,
// row_wise otherwise. Assumptions: every GPU of a bucket holds an equal share of the table's
// rows and lookups (HugeCTR's row assignment is by key modulo; the model's access skew is
// spread evenly).
#include <algorithm>
#include <map>
#include <optional>
#include <numeric>
#include <stdexcept>
#include <string>

#include "placement/hugectr_planner.hpp"
#include "placement/plan_builder.hpp"
#include "placement/placement.hpp"

namespace dlrmsim::placement {

namespace {

struct ShardList {
  std::vector<double> hotness;  // per shard, hottest first
  std::vector<std::size_t> table;
};

/// numpy's argsort (kind "quicksort", numpy/core/src/npysort/quicksort.cpp aquicksort_ of
/// numpy 1.24: introsort, median-of-three partitions, insertion sort below 17 elements,
/// heapsort past 2 log2(n) levels), so that equal hotnesses are ordered as planner.py orders
/// them: not stable on more than 16 elements.
std::vector<std::size_t> numpy_argsort(const std::vector<double>& v) {
  const auto num = static_cast<std::ptrdiff_t>(v.size());
  std::vector<std::size_t> tosort(v.size());
  std::iota(tosort.begin(), tosort.end(), std::size_t{0});
  if (num < 2) return tosort;
  std::size_t* const base = tosort.data();
  std::size_t* pl = base;
  std::size_t* pr = base + num - 1;
  std::vector<std::size_t*> stack;
  std::vector<int> depths;
  int msb = 0;
  for (auto n = num; n > 1; n >>= 1) ++msb;
  int cdepth = msb * 2;
  const auto heapsort = [&](std::size_t* first, std::ptrdiff_t n) {
    // aheapsort_: a 1-based heap over first[0..n).
    std::size_t* a = first - 1;
    std::ptrdiff_t i, j, l;
    std::size_t tmp;
    for (l = n >> 1; l > 0; --l) {
      tmp = a[l];
      for (i = l, j = l << 1; j <= n;) {
        if (j < n && v[a[j]] < v[a[j + 1]]) j += 1;
        if (v[tmp] < v[a[j]]) {
          a[i] = a[j];
          i = j;
          j += j;
        } else {
          break;
        }
      }
      a[i] = tmp;
    }
    for (; n > 1;) {
      tmp = a[n];
      a[n] = a[1];
      n -= 1;
      for (i = 1, j = 2; j <= n;) {
        if (j < n && v[a[j]] < v[a[j + 1]]) j++;
        if (v[tmp] < v[a[j]]) {
          a[i] = a[j];
          i = j;
          j += j;
        } else {
          break;
        }
      }
      a[i] = tmp;
    }
  };
  for (;;) {
    if (cdepth < 0) {
      heapsort(pl, pr - pl + 1);
    } else {
      while ((pr - pl) > 16) {
        std::size_t* pm = pl + ((pr - pl) >> 1);
        if (v[*pm] < v[*pl]) std::swap(*pm, *pl);
        if (v[*pr] < v[*pm]) std::swap(*pr, *pm);
        if (v[*pm] < v[*pl]) std::swap(*pm, *pl);
        const double vp = v[*pm];
        std::size_t* pi = pl;
        std::size_t* pj = pr - 1;
        std::swap(*pm, *pj);
        for (;;) {
          do ++pi;
          while (v[*pi] < vp);
          do --pj;
          while (vp < v[*pj]);
          if (pi >= pj) break;
          std::swap(*pi, *pj);
        }
        std::swap(*pi, *(pr - 1));
        if (pi - pl < pr - pi) {
          stack.push_back(pi + 1);
          stack.push_back(pr);
          pr = pi - 1;
        } else {
          stack.push_back(pl);
          stack.push_back(pi - 1);
          pl = pi + 1;
        }
        depths.push_back(--cdepth);
      }
      for (std::size_t* pi = pl + 1; pi <= pr; ++pi) {
        const std::size_t vi = *pi;
        const double vp = v[vi];
        std::size_t* pj = pi;
        std::size_t* pk = pi - 1;
        while (pj > pl && vp < v[*pk]) *pj-- = *pk--;
        *pj = vi;
      }
    }
    if (stack.empty()) break;
    pr = stack.back();
    stack.pop_back();
    pl = stack.back();
    stack.pop_back();
    cdepth = depths.back();
    depths.pop_back();
  }
  return tosort;
}

/// np.argsort(hotness)[::-1]: the shards hottest first, as planner.py sorts them.
void sort_hottest_first(ShardList& s) {
  std::vector<std::size_t> idx = numpy_argsort(s.hotness);
  std::reverse(idx.begin(), idx.end());
  ShardList out;
  for (std::size_t i : idx) {
    out.hotness.push_back(s.hotness[i]);
    out.table.push_back(s.table[i]);
  }
  s = std::move(out);
}

}  // namespace

HugectrPlan hugectr_plan(const HugectrPlannerInput& in) {
  const std::size_t n = in.hotness.size();
  const std::size_t buckets = in.buckets;
  if (buckets == 0 || in.rows.size() != n) throw std::invalid_argument("hugectr planner: no buckets or mismatched tables");
  struct Candidate {
    double cost;
    std::vector<std::vector<std::size_t>> buckets;
  };
  std::vector<Candidate> candidates;
  std::vector<double> splits(n, 0.0);
  // Cost and memory of every bucket (CostModel.get_cost).
  auto evaluate = [&](const std::vector<std::vector<std::size_t>>& ll, double capacity, std::vector<double>& cost) {
    cost.assign(ll.size(), 0.0);
    bool oom = false;
    for (std::size_t b = 0; b < ll.size(); ++b) {
      double hot = 0.0, mem = 0.0;
      for (std::size_t t : ll[b]) {
        hot += in.hotness[t] / splits[t];
        mem += in.bytes_per_row * static_cast<double>(in.rows[t]) / splits[t];
      }
      cost[b] = hot + in.table_cost * static_cast<double>(ll[b].size());
      oom |= mem > capacity;
    }
    return oom;
  };
  // The fallback plan: every table in every bucket.
  {
    std::vector<std::vector<std::size_t>> ll(buckets);
    for (auto& b : ll) {
      b.resize(n);
      std::iota(b.begin(), b.end(), std::size_t{0});
    }
    std::fill(splits.begin(), splits.end(), static_cast<double>(buckets));
    std::vector<double> cost;
    if (evaluate(ll, in.bucket_capacity, cost)) throw std::runtime_error("hugectr planner: out of memory even with every table in every bucket");
    candidates.push_back({*std::max_element(cost.begin(), cost.end()), ll});
  }
  // The replicated tables leave the buckets and take their memory from every bucket.
  std::vector<bool> dp(n, false);
  double capacity = in.bucket_capacity;
  for (std::size_t t = 0; t < n; ++t) {
    dp[t] = in.replicated[t];
    if (dp[t]) capacity -= in.bytes_per_row * static_cast<double>(in.rows[t]);
  }
  if (capacity < 0.0) throw std::runtime_error("hugectr planner: out of memory with the replicated tables");
  ShardList state;
  std::fill(splits.begin(), splits.end(), 0.0);
  for (std::size_t t = 0; t < n; ++t) {
    if (dp[t]) continue;
    state.hotness.push_back(in.hotness[t]);
    state.table.push_back(t);
    splits[t] = 1.0;
  }
  sort_hottest_first(state);
  auto split = [&](std::size_t t) {
    if (splits[t] * 2.0 > static_cast<double>(buckets)) return false;
    ShardList kept;
    for (std::size_t i = 0; i < state.table.size(); ++i) {
      if (state.table[i] == t) continue;
      kept.hotness.push_back(state.hotness[i]);
      kept.table.push_back(state.table[i]);
    }
    splits[t] *= 2.0;
    for (int k = 0; k < static_cast<int>(splits[t]); ++k) {
      kept.hotness.push_back(in.hotness[t] / splits[t]);
      kept.table.push_back(t);
    }
    state = std::move(kept);
    sort_hottest_first(state);
    return true;
  };
  for (int round = 0; round < in.max_rounds; ++round) {
    // greedy_plan
    std::vector<std::vector<std::size_t>> ll(buckets);
    std::vector<double> cost(buckets, 0.0), trial;
    std::optional<std::size_t> homeless;
    for (std::size_t i = 0; i < state.table.size(); ++i) {
      const std::vector<std::size_t> order = numpy_argsort(cost);
      bool placed = false;
      for (std::size_t b : order) {
        if (std::find(ll[b].begin(), ll[b].end(), state.table[i]) != ll[b].end()) continue;
        ll[b].push_back(state.table[i]);
        if (!evaluate(ll, capacity, trial)) {
          cost = trial;
          placed = true;
          break;
        }
        ll[b].pop_back();
      }
      if (!placed) {
        homeless = state.table[i];
        break;
      }
    }
    if (!homeless) {
      candidates.push_back({*std::max_element(cost.begin(), cost.end()), ll});
      // split_hot_shard: the hottest shard whose table can still be split.
      for (std::size_t i = 0; i < state.table.size(); ++i) {
        if (split(state.table[i])) break;
      }
    } else if (!split(*homeless)) {
      break;
    }
  }
  std::stable_sort(candidates.begin(), candidates.end(), [](const Candidate& a, const Candidate& b) { return a.cost < b.cost; });
  HugectrPlan plan;
  plan.max_cost = candidates.front().cost;
  plan.buckets = candidates.front().buckets;
  plan.replicated = dp;
  return plan;
}

PlacementPlan plan_hugectr_auto(const PlacementProblem& problem, const PlacementOptions& options,
                                const StepTimeEvaluator&) {
  PlanBuilder b(problem, options);
  if (!options.tiers.empty() && std::find(options.tiers.begin(), options.tiers.end(), Tier::gpu_hbm) == options.tiers.end()) {
    throw std::invalid_argument("placement policy hugectr_auto places tables in GPU memory; placement.tiers must include gpu_hbm");
  }
  const auto& gpus = b.owners_of(Tier::gpu_hbm);
  if (gpus.empty()) throw InfeasiblePlacement("placement policy hugectr_auto needs GPUs and the platform has none", "", Bytes(0.0));
  // Buckets: the GPUs of a one-node job (auto), the nodes of a multi-node one (hier_auto).
  std::map<std::uint32_t, std::vector<std::uint32_t>> by_node;
  for (std::uint32_t g : gpus) by_node[problem.devices[g].node].push_back(g);
  const bool hierarchical = by_node.size() > 1;
  std::vector<std::vector<std::uint32_t>> bucket_gpus;
  if (hierarchical) {
    for (auto& [node, list] : by_node) bucket_gpus.push_back(list);
  } else {
    for (std::uint32_t g : gpus) bucket_gpus.push_back({g});
  }
  HugectrPlannerInput in;
  in.buckets = bucket_gpus.size();
  in.table_cost = options.hugectr_mem_comm_bw_ratio / kHugectrMemCommWorkRatio;
  in.bucket_capacity = kHugectrMemoryCapPerGpu.value() * static_cast<double>(hierarchical ? by_node.begin()->second.size() : 1);
  for (const TableDemand& t : problem.tables) {
    in.hotness.push_back(t.lookups_per_sample);
    in.rows.push_back(t.rows);
    // Weight and Adagrad state, fp32 each (byte_per_elem = 8 in generate_plan.py).
    in.bytes_per_row = std::max(in.bytes_per_row, 8.0 * t.dim);
    in.replicated.push_back(options.data_parallel_below && gpus.size() > 1 &&
                            t.row_bytes() * static_cast<double>(t.rows) < *options.data_parallel_below);
  }
  HugectrPlan plan;
  try {
    plan = hugectr_plan(in);
  } catch (const std::runtime_error& e) {
    // Out of memory even with every table spread over every bucket: by how much a bucket's
    // GPU is over the planner's cap.
    double all = 0.0;
    for (std::size_t t = 0; t < in.rows.size(); ++t) all += in.bytes_per_row * static_cast<double>(in.rows[t]);
    const double over = all / static_cast<double>(in.buckets) - in.bucket_capacity;
    throw InfeasiblePlacement(std::string("placement policy hugectr_auto: ") + e.what(), problem.devices[gpus.front()].name,
                              Bytes(std::max(over, 1.0)));
  }
  for (std::size_t t = 0; t < problem.tables.size(); ++t) {
    if (plan.replicated[t]) b.add_data_parallel(t);
  }
  // Each model-parallel table's owners: the GPUs of its buckets, in bucket order.
  std::vector<std::vector<std::uint32_t>> owners(problem.tables.size());
  for (std::size_t k = 0; k < plan.buckets.size(); ++k) {
    for (std::size_t t : plan.buckets[k]) owners[t].insert(owners[t].end(), bucket_gpus[k].begin(), bucket_gpus[k].end());
  }
  for (std::size_t t = 0; t < problem.tables.size(); ++t) {
    if (plan.replicated[t] || owners[t].empty()) continue;
    const auto& list = owners[t];
    const bool one_node = std::all_of(list.begin(), list.end(),
                                      [&](std::uint32_t g) { return problem.devices[g].node == problem.devices[list.front()].node; });
    const Sharding sharding = list.size() == 1 ? Sharding::table_wise
                              : one_node && hierarchical ? Sharding::table_row_wise
                                                         : Sharding::row_wise;
    const std::int64_t rows = problem.tables[t].rows;
    // A table of fewer rows than GPUs has a row on each of its first GPUs only.
    const auto parts = std::min<std::int64_t>(static_cast<std::int64_t>(list.size()), std::max<std::int64_t>(1, rows));
    for (std::int64_t k = 0; k < parts; ++k) {
      b.add_shard(t, Tier::gpu_hbm, sharding, list[static_cast<std::size_t>(k)], rows * k / parts, rows * (k + 1) / parts, 0,
                  problem.tables[t].dim);
    }
  }
  return b.plan();
}

}  // namespace dlrmsim::placement
