#include "placement/placement.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <iomanip>
#include <sstream>

#include "common/data_paths.hpp"
#include "common/files.hpp"
#include "common/param.hpp"
#include "placement/lookup_cost.hpp"
#include "placement/tier.hpp"

namespace dlrmsim::placement {

std::string_view to_string(Tier t) { return tier_of(t).name(); }

double PlacementOptions::cache_fraction(Tier tier) const {
  if (!tier_of(tier).properties().hbm_cache) return 0.0;
  return tier == Tier::ssd ? ssd_cache_fraction : uvm_cache_fraction;
}
Tier tier_from_string(std::string_view name) { return tier_of(name).id(); }

Sharding sharding_from_string(std::string_view name) {
  if (const auto s = kShardingNames.parse(name)) return *s;
  throw std::invalid_argument("unknown sharding '" + std::string(name) + "'; expected one of " + kShardingNames.choices(", "));
}

std::span<const CommunicationStep> communication_of(Sharding s) {
  using enum Pass;
  using enum Collective;
  using enum CommScope;
  using enum Payload;
  static constexpr std::array<CommunicationStep, 3> kTableWise{{
      {forward, all_to_all, all_trainers, sparse_ids},
      {forward, all_to_all, all_trainers, pooled_embeddings},
      {backward, all_to_all, all_trainers, pooled_gradients},
  }};
  static constexpr std::array<CommunicationStep, 3> kRowWise{{
      {forward, all_to_all, all_trainers, sparse_ids},
      {forward, reduce_scatter, all_trainers, pooled_embeddings},
      {backward, all_gather, all_trainers, pooled_gradients},
  }};
  static constexpr std::array<CommunicationStep, 5> kTableRowWise{{
      {forward, all_to_all, all_trainers, sparse_ids},
      {forward, reduce_scatter, within_node, pooled_embeddings},
      {forward, all_to_all, across_nodes, pooled_embeddings},
      {backward, all_to_all, across_nodes, pooled_gradients},
      {backward, all_gather, within_node, pooled_gradients},
  }};
  static constexpr std::array<CommunicationStep, 1> kDataParallel{{
      {backward, all_reduce, all_trainers, weight_gradients},
  }};
  switch (s) {
    case Sharding::table_wise:
    case Sharding::column_wise: return kTableWise;
    case Sharding::row_wise: return kRowWise;
    case Sharding::table_row_wise: return kTableRowWise;
    case Sharding::data_parallel: return kDataParallel;
  }
  return {};
}

Bytes TableDemand::footprint(std::int64_t row_count, int columns) const {
  const double r = static_cast<double>(row_count);
  const double column_share = dim > 0 ? static_cast<double>(columns) / dim : 0.0;
  return element_size * (r * columns) + optimizer_state_per_row * (r * column_share);
}

std::vector<std::uint32_t> PlacementProblem::devices_of(OwnerKind k) const {
  std::vector<std::uint32_t> out;
  for (std::uint32_t i = 0; i < devices.size(); ++i) {
    if (devices[i].kind == k) out.push_back(i);
  }
  return out;
}

std::uint32_t PlacementProblem::gpu_count() const {
  return static_cast<std::uint32_t>(std::count_if(devices.begin(), devices.end(),
                                                  [](const PlacementDevice& d) { return d.kind == OwnerKind::gpu; }));
}

std::uint32_t PlacementProblem::trainer_node_count() const {
  std::vector<std::uint32_t> nodes;
  for (const auto& d : devices) {
    if (d.kind == OwnerKind::gpu) nodes.push_back(d.node);
  }
  std::sort(nodes.begin(), nodes.end());
  return static_cast<std::uint32_t>(std::unique(nodes.begin(), nodes.end()) - nodes.begin());
}

Seconds PlacementPlan::max_estimated_load() const {
  Seconds worst{0.0};
  for (const auto& d : devices) worst = std::max(worst, d.estimated_load);
  return worst;
}

InfeasiblePlacement::InfeasiblePlacement(const std::string& message, std::string device, Bytes overflow)
    : std::runtime_error(message), device_(std::move(device)), overflow_(overflow) {}

// ---------------------------------------------------------------------------------------

namespace {

// The scenario's `placement:` keys, read by PlacementOptions::from_config below and listed by
// placement_parameters(). Defaults are PlacementOptions' member initialisers.
const PlacementOptions kDefaults;

/// The policy key: one of placement_policies() (built on first use, from another file's table).
const Choice<std::string>& policy_choice() {
  static const Choice<std::string> choice = [] {
    Choice<std::string> c{.key_path = "placement.policy", .words = {}, .fallback = kDefaults.policy,
                          .meaning = "The placement policy."};
    for (const auto& p : placement_policies()) c.words.emplace_back(p.name, std::string(p.name));
    return c;
  }();
  return choice;
}

const Choice<CacheModel> kCacheModel{.key_path = "placement.cache_model",
                                     .words = {{"lru", CacheModel::lru}, {"static_top_k", CacheModel::static_top_k}},
                                     .fallback = kDefaults.cache_model,
                                     .meaning = "How a UVM cache's hit rate is modelled."};
constexpr std::string_view kRowFraction = "must be a fraction of each table's rows in [0, 1]";
const Param<double> kUvmCacheFraction{
    .key_path = "placement.uvm_cache_fraction", .unit = "fraction", .fallback = kDefaults.uvm_cache_fraction,
    .default_note = "TorchRec's planner default",
    .range = {.min = Bound<double>{0.0, true, kRowFraction}, .max = Bound<double>{1.0, true, kRowFraction}, .interval = true},
    .meaning = "UVM cache size as a fraction of each table's rows."};
const Param<double> kSsdCacheFraction{
    .key_path = "placement.ssd_cache_fraction", .unit = "fraction", .fallback = kDefaults.ssd_cache_fraction,
    .default_note = "uvm_cache_fraction's default",
    .range = {.min = Bound<double>{0.0, false, "must be above 0: FBGEMM's SSD kernel needs an HBM cache (cache_sets > 0)"},
              .max = Bound<double>{1.0, true, kRowFraction}, .interval = true},
    .meaning = "HBM cache of the ssd tier as a fraction of each table's rows (FBGEMM SSDTableBatchedEmbeddingBags' "
               "cache); leave ssd out of placement.tiers rather than setting 0."};
constexpr std::string_view kMemoryFraction = "must be a fraction of each device's memory in [0, 1)";
const Param<double> kMemoryReserveFraction{
    .key_path = "placement.memory_reserve_fraction", .unit = "fraction", .fallback = kDefaults.memory_reserve_fraction,
    .range = {.min = Bound<double>{0.0, true, kMemoryFraction}, .max = Bound<double>{1.0, false, kMemoryFraction},
              .interval = true},
    .meaning = "Fraction of every device's memory kept free (allocator slack, framework buffers)."};
const Parameter kTiers{"placement.tiers", "", "every tier the platform has",
                       "a non-empty list of gpu_hbm | host_dram | uvm | remote_ps",
                       "Tiers the size_greedy, cost_greedy and search policies may use."};
const Param<std::int64_t> kSearchExhaustiveLimit{
    .key_path = "placement.search_exhaustive_limit", .unit = "candidate plans",
    .fallback = static_cast<std::int64_t>(kDefaults.search_exhaustive_limit),
    .range = {.min = Bound<std::int64_t>{1, true, "must be a number of candidate plans >= 1"}},
    .meaning = "search: enumerate every candidate when there are at most this many, else local search."};
const Param<std::int64_t> kSearchMaxEvaluations{
    .key_path = "placement.search_max_evaluations", .unit = "evaluations",
    .fallback = static_cast<std::int64_t>(kDefaults.search_max_evaluations),
    .range = {.min = Bound<std::int64_t>{1, true, "must be a number of evaluations >= 1"}},
    .meaning = "search: most evaluator calls in local search."};
constexpr std::string_view kSliceElements = "must be a number of table elements (rows x columns) >= 1";
const Param<double> kColumnSliceElements{
    .key_path = "placement.column_slice_elements", .unit = "elements (rows x columns)",
    .absent = "none (slice only while fewer slices than GPUs)",
    .range = {.min = Bound<double>{1.0, true, kSliceElements}, .max = Bound<double>{1e18, true, kSliceElements}},
    .meaning = "memory_balanced: a table of more elements is cut into column slices."};
const Param<Bytes> kGpuEmbeddingMemory{
    .key_path = "placement.gpu_embedding_memory", .unit = "bytes", .absent = "none (everything stays in GPU memory)",
    .range = {.min = Bound<Bytes>{Bytes{0.0}}, .note = "; tiers must include host_dram"},
    .meaning = "memory_balanced: embedding weights each GPU keeps; larger tables go to host DRAM."};

const Param<Bytes> kDataParallelBelow{
    .key_path = "placement.data_parallel_below", .unit = "bytes", .absent = "none (no table replicated by size)",
    .range = {.min = Bound<Bytes>{Bytes{0.0}, false}},
    .meaning = "cost_greedy, hugectr_auto: tables whose weights are smaller are replicated on every GPU trainer (data parallel)."};

const Parameter kPlan{"placement.plan", "", "none", "a plan file (JSON or YAML) or {tables: [...]}",
                      "explicit: the plan, table by table: `dlrmsim place --json`'s tables (name, sharding, shards with "
                      "tier, owners, row_begin, row_end, column_begin, column_end); its other keys are recomputed."};

const Param<double> kMemCommBwRatio{
    .key_path = "placement.mem_comm_bw_ratio", .unit = "ratio", .fallback = kDefaults.hugectr_mem_comm_bw_ratio,
    .default_note = "train.py's 3.35e12 / 450e9",
    .range = {.min = Bound<double>{0.0, false}, .max = Bound<double>{1e6, true, "must be a ratio of bandwidths, at most 1e6"}},
    .meaning = "hugectr_auto: HugeCTR's MEM_COMM_BW_RATIO (MLPerf configs: 7 on one node, 67 on several)."};

}  // namespace

std::span<const Parameter> placement_parameters() {
  static const ParameterTable table({
      Parameter{"placement", "", "the defaults below", "a mapping", "Where the embedding tables live and how they are sharded."},
      policy_choice().row(),
      kCacheModel.row(),
      kUvmCacheFraction.row(),
      kMemoryReserveFraction.row(),
      kTiers,
      kPlan,
      kSearchExhaustiveLimit.row(),
      kSearchMaxEvaluations.row(),
      kColumnSliceElements.row(),
      kSsdCacheFraction.row(),
      kGpuEmbeddingMemory.row(),
      kDataParallelBelow.row(),
      kMemCommBwRatio.row(),
  });
  return table.parameters();
}

PlacementOptions PlacementOptions::from_config(const ConfigNode& node) {
  PlacementOptions o;
  o.policy = policy_choice().read(node);
  o.cache_model = kCacheModel.read(node);
  o.uvm_cache_fraction = kUvmCacheFraction.read(node);
  o.ssd_cache_fraction = kSsdCacheFraction.read(node);
  o.memory_reserve_fraction = kMemoryReserveFraction.read(node);
  if (auto c = node.optional_child(param_detail::last_segment(kTiers.key_path))) {
    std::vector<std::string> tier_names;
    for (const MemoryTier* t : memory_tiers()) tier_names.emplace_back(t->name());
    std::string expected;  // "a, b or c"
    for (std::size_t i = 0; i < tier_names.size(); ++i) {
      expected += (i == 0 ? "" : i + 1 == tier_names.size() ? " or " : ", ") + tier_names[i];
    }
    for (const auto& e : c->elements()) {
      const auto name = e.as<std::string>();
      if (std::find(tier_names.begin(), tier_names.end(), name) == tier_names.end()) {
        std::string msg = "unknown tier '" + name + "'";
        if (auto guess = did_you_mean(name, tier_names)) msg += "; did you mean '" + *guess + "'?";
        e.fail(msg + " (expected " + expected + ")");
      }
      o.tiers.push_back(tier_from_string(name));
    }
    if (o.tiers.empty()) c->fail("must list at least one tier");
  }
  o.search_exhaustive_limit = static_cast<std::size_t>(kSearchExhaustiveLimit.read(node));
  o.search_max_evaluations = static_cast<std::size_t>(kSearchMaxEvaluations.read(node));
  o.column_slice_elements = kColumnSliceElements.read_optional(node);
  o.gpu_embedding_memory = kGpuEmbeddingMemory.read_optional(node);
  o.data_parallel_below = kDataParallelBelow.read_optional(node);
  o.hugectr_mem_comm_bw_ratio = kMemCommBwRatio.read(node);
  if (auto plan = node.optional_child("plan")) {
    if (o.policy != "explicit") plan->fail("a plan is read by placement.policy explicit only (the policy is " + o.policy + ")");
    if (plan->is_scalar()) {
      const std::string path = resolve_data_path(plan->as<std::string>(), plan->source_dir(), data_search_path());
      if (!regular_file_exists(path)) plan->fail("cannot open '" + path + "'; expected a plan file (dlrmsim place --json)");
      o.explicit_plan_file = path;
      o.explicit_plan = ConfigNode::load_file(path);
    } else {
      o.explicit_plan = *plan;
    }
  } else if (o.policy == "explicit") {
    node.fail("placement.policy explicit needs placement.plan: a plan file (dlrmsim place --json) or {tables: [...]}");
  }
  if (o.gpu_embedding_memory && !o.tiers.empty() &&
      std::find(o.tiers.begin(), o.tiers.end(), Tier::host_dram) == o.tiers.end()) {
    node.child(kGpuEmbeddingMemory.key()).fail("offloads tables to host memory: placement.tiers must include host_dram");
  }
  node.finish();
  return o;
}

const PolicyInfo& placement_policy(std::string_view name) {
  std::string known;
  for (const auto& p : placement_policies()) {
    if (p.name == name) return p;
    known += (known.empty() ? "" : ", ") + std::string(p.name);
  }
  throw std::invalid_argument("unknown placement policy '" + std::string(name) + "'; expected one of " + known);
}

// ---------------------------------------------------------------------------------------

void account(const PlacementProblem& problem, const PlacementOptions& options, PlacementPlan& plan) {
  plan.cache_model = options.cache_model;
  for (const auto& n : problem.notes) {
    if (std::find(plan.notes.begin(), plan.notes.end(), n) == plan.notes.end()) plan.notes.push_back(n);
  }
  plan.devices.clear();
  plan.devices.reserve(problem.devices.size());
  for (const auto& d : problem.devices) {
    DeviceUsage u;
    u.kind = d.kind;
    u.name = d.name;
    u.topology_id = d.topology_id;
    u.node = d.node;
    u.capacity = d.memory_capacity;
    if (d.kind == OwnerKind::gpu) {
      u.activations = problem.activations_per_gpu;
      u.weights = problem.dense_weights_per_gpu;
      u.optimizer_state = problem.dense_optimizer_state_per_gpu;
    }
    plan.devices.push_back(std::move(u));
  }
  for (auto& tp : plan.tables) {
    const TableDemand& table = problem.tables.at(tp.table);
    if (!tp.distinct_fraction) tp.distinct_fraction = table_distinct_fraction(problem, table);
    const double distinct = *tp.distinct_fraction;
    for (auto& shard : tp.shards) {
      const double shard_rows = static_cast<double>(shard.row_count());
      const Bytes shard_weights = table.element_size * (shard_rows * shard.column_count());
      const Bytes shard_state = table.footprint(shard.row_count(), shard.column_count()) - shard_weights;
      for (std::uint32_t s : shard.storage) {
        plan.devices.at(s).weights += shard_weights;
        plan.devices.at(s).optimizer_state += shard_state;
      }
      if (tier_of(shard.tier).properties().hbm_cache && shard.row_count() > 0) {
        shard.cache_rows = std::clamp<std::int64_t>(shard.cache_rows, 0, shard.row_count());
        shard.cache_size = table.element_size * (static_cast<double>(shard.cache_rows) * shard.column_count());
        // A row shard of a table with hashed ids sees a uniform sample of the table's rows, so
        // its cache of c rows behaves like a cache of c x rows / shard rows on the whole table.
        const double equivalent = static_cast<double>(shard.cache_rows) * static_cast<double>(table.rows) / shard_rows;
        shard.expected_hit_rate =
            cache_hit_rate(table.access, static_cast<double>(table.rows), equivalent, options.cache_model);
        for (std::uint32_t o : shard.owners) plan.devices.at(o).cache += shard.cache_size;
      } else {
        shard.cache_rows = 0;
        shard.cache_size = Bytes(0.0);
        shard.expected_hit_rate = 0.0;
      }
      const LookupWork work = shard_work(problem, table, shard, tp.sharding, distinct);
      shard.estimated_time = Seconds(0.0);
      for (std::uint32_t o : shard.owners) {
        const Seconds t = lookup_time(problem, problem.devices.at(o), shard.tier, table, work);
        shard.estimated_time = std::max(shard.estimated_time, t);
        plan.devices.at(o).estimated_load += t;
      }
    }
  }
}

std::optional<std::uint32_t> most_overflowing_device(const PlacementPlan& plan) {
  std::optional<std::uint32_t> worst;
  double worst_over = 0.0;
  for (std::uint32_t i = 0; i < plan.devices.size(); ++i) {
    const double over = (plan.devices[i].used() - plan.devices[i].capacity).value();
    if (over > worst_over) {
      worst_over = over;
      worst = i;
    }
  }
  return worst;
}

void check_capacity(const PlacementPlan& plan, const PlacementOptions& options) {
  const double keep = 1.0 - options.memory_reserve_fraction;
  std::optional<std::uint32_t> worst;
  double worst_over = 0.0;
  int overflowing = 0;
  for (std::uint32_t i = 0; i < plan.devices.size(); ++i) {
    const auto& d = plan.devices[i];
    const double over = d.used().value() - d.capacity.value() * keep;
    if (over > 0.0) {
      ++overflowing;
      if (over > worst_over) {
        worst_over = over;
        worst = i;
      }
    }
  }
  if (!worst) return;
  const auto& d = plan.devices[*worst];
  std::ostringstream msg;
  msg << "placement '" << plan.policy << "' does not fit: " << d.name << " (" << to_string(d.kind) << ") needs "
      << format_bytes(d.used()) << " (weights " << format_bytes(d.weights) << ", optimizer state "
      << format_bytes(d.optimizer_state) << ", cache " << format_bytes(d.cache) << ", activations "
      << format_bytes(d.activations) << ") but has " << format_bytes(d.capacity * keep) << " usable"
      << (options.memory_reserve_fraction > 0 ? " after the memory reserve" : "") << ": "
      << std::fixed << std::setprecision(0) << std::ceil(worst_over) << std::defaultfloat << " bytes (" << format_bytes(Bytes(worst_over))
      << ") over capacity";
  if (overflowing > 1) msg << "; " << overflowing << " devices overflow";
  // What each allowed tier has left where it stores its tables (its storage devices' free
  // usable memory, all of them together).
  std::string free;
  for (const MemoryTier* t : memory_tiers()) {
    if (!options.tiers.empty() && std::find(options.tiers.begin(), options.tiers.end(), t->id()) == options.tiers.end()) continue;
    double room = 0.0;
    bool any = false;
    for (const auto& u : plan.devices) {
      if (u.kind != t->storage_kind()) continue;
      any = true;
      room += std::max(0.0, u.capacity.value() * keep - u.used().value());
    }
    if (any) free += (free.empty() ? "" : ", ") + std::string(t->name()) + " " + format_bytes(Bytes(room));
  }
  if (!free.empty()) msg << "; free where each tier stores: " << free;
  throw InfeasiblePlacement(msg.str(), d.name, Bytes(std::ceil(worst_over)));
}

PlacementPlan place(const PlacementProblem& problem, const PlacementOptions& options,
                    const StepTimeEvaluator& evaluator) {
  if (problem.global_batch <= 0) throw std::invalid_argument("placement: the global batch must be positive");
  for (const auto& t : problem.tables) {
    if (t.rows <= 0 || t.dim <= 0) {
      throw std::invalid_argument("placement: table '" + t.name + "' needs positive rows and dim");
    }
  }
  const PolicyInfo& policy = placement_policy(options.policy);
  PlacementPlan plan = policy.plan(problem, options, evaluator);
  plan.policy = std::string(policy.name);
  account(problem, options, plan);
  fit_uvm_caches(problem, options, plan);
  check_capacity(plan, options);
  return plan;
}

void fit_uvm_caches(const PlacementProblem& problem, const PlacementOptions& options, PlacementPlan& plan) {
  const double keep = 1.0 - options.memory_reserve_fraction;
  std::vector<double> scale(plan.devices.size(), 1.0);
  bool any = false;
  for (std::size_t d = 0; d < plan.devices.size(); ++d) {
    const auto& u = plan.devices[d];
    if (u.cache.value() <= 0.0 || u.used().value() <= u.capacity.value() * keep) continue;
    const double room = u.capacity.value() * keep - (u.used() - u.cache).value();
    scale[d] = std::max(0.0, room) / u.cache.value();
    any = true;
  }
  if (!any) return;
  for (auto& tp : plan.tables) {
    for (auto& s : tp.shards) {
      if (!tier_of(s.tier).properties().hbm_cache) continue;
      double f = 1.0;
      for (std::uint32_t o : s.owners) f = std::min(f, scale[o]);
      if (f < 1.0) s.cache_rows = static_cast<std::int64_t>(std::floor(static_cast<double>(s.cache_rows) * f));
    }
  }
  account(problem, options, plan);
  plan.notes.push_back("uvm, ssd: caches shrunk below their cache fraction on GPUs whose HBM could not hold them");
}

}  // namespace dlrmsim::placement
