// The explicit placement policy: the plan a planner already has, given table by table.
//
//   placement: {policy: explicit, plan: my_plan.json}     # or plan: {tables: [...]} inline
//
// The plan is the `tables` list of `dlrmsim place --json` (a JSON file is YAML, so its errors
// are located like any configuration's): per table its `name`, `sharding` (table_wise,
// row_wise, column_wise, table_row_wise, data_parallel) and `shards`, each with its `tier`,
// its `owners` (device names, as `dlrmsim place` prints them) and its row and column range
// (`row_begin`, `row_end`, `column_begin`, `column_end`). What place derives (rows, dim,
// storage, cache_rows, cache_bytes, expected_hit_rate, estimated_time_s, and the document's
// other keys) may be present and is recomputed, so `place --json` fed back gives the same
// plan. Checked against the scenario: every table of the model exactly once, known device
// names that can own a shard of the tier (a tier the platform lacks has no such device), one
// owner per shard except data_parallel (a replica on every GPU trainer), and shards that tile
// the table's rows x columns exactly (no gap, no overlap). Capacity is place()'s check, as for
// every policy: a plan that does not fit is infeasible, naming the device and the overflow.
//
// A document without `tables` is read as a TorchRec sharding plan (placement/torchrec_plan.hpp).
// Both readers fill an ExplicitTable list (placement/explicit_plan.hpp), checked here.
#include <map>
#include <set>
#include <string>
#include <vector>

#include "common/config.hpp"
#include "common/text.hpp"
#include "placement/explicit_plan.hpp"
#include "placement/plan_builder.hpp"
#include "placement/placement.hpp"
#include "placement/tier.hpp"
#include "placement/torchrec_plan.hpp"

namespace dlrmsim::placement {

namespace {

struct Rect {
  std::int64_t r0, r1;
  int c0, c1;
  [[nodiscard]] bool overlaps(const Rect& o) const { return r0 < o.r1 && o.r0 < r1 && c0 < o.c1 && o.c0 < c1; }
};

/// The keys of a plan document that place derives: read (so they are not unknown keys) and
/// recomputed.
void ask_derived(const ConfigNode& node, std::initializer_list<const char*> keys) {
  for (const char* k : keys) (void)node.has(k);
}

std::uint32_t device_named(const PlacementProblem& problem, const ConfigNode& node) {
  const auto name = node.as<std::string>();
  std::vector<std::string> names;
  for (std::uint32_t d = 0; d < problem.devices.size(); ++d) {
    if (problem.devices[d].name == name) return d;
    names.push_back(problem.devices[d].name);
  }
  std::string msg = "unknown device '" + name + "'";
  if (auto guess = did_you_mean(name, names)) msg += "; did you mean '" + *guess + "'?";
  node.fail(msg + " (the devices `dlrmsim place` prints for this scenario)");
}

/// One table entry of dlrmsim's own plan (`place --json`'s `tables`).
ExplicitTable read_table(const PlacementProblem& problem, const ConfigNode& node) {
  const auto name_node = node.child("name");
  const std::size_t t = table_named(problem, name_node.as<std::string>(), name_node);
  const TableDemand& table = problem.tables[t];
  if (node.has("rows") && node.get<std::int64_t>("rows") != table.rows) {
    node.child("rows").fail("the model's table '" + table.name + "' has " + std::to_string(table.rows) +
                            " rows; the plan was made for another model");
  }
  if (node.has("dim") && node.get<int>("dim") != table.dim) {
    node.child("dim").fail("the model's table '" + table.name + "' has dim " + std::to_string(table.dim) +
                           "; the plan was made for another model");
  }
  const auto sharding_node = node.child("sharding");
  Sharding sharding{};
  try {
    sharding = sharding_from_string(sharding_node.as<std::string>());
  } catch (const std::invalid_argument& e) {
    sharding_node.fail(e.what());
  }
  (void)node.has("tier");  // the table's tier is its shards'
  const ConfigNode shards = node.child("shards");
  ExplicitTable out{.table = t, .name_where = name_node, .sharding = sharding, .shards = {}, .shards_where = shards};
  for (const ConfigNode& s : shards.elements()) {
    const auto tier_node = s.child("tier");
    Tier tier{};
    try {
      tier = tier_from_string(tier_node.as<std::string>());
    } catch (const std::invalid_argument& e) {
      tier_node.fail(e.what());
    }
    const ConfigNode owners = s.child("owners");
    ExplicitShard shard{.tier = tier,
                        .owners = {},
                        .owner_nodes = {},
                        .row_begin = s.get_or<std::int64_t>("row_begin", 0),
                        .row_end = s.get_or<std::int64_t>("row_end", table.rows),
                        .column_begin = s.get_or<int>("column_begin", 0),
                        .column_end = s.get_or<int>("column_end", table.dim),
                        .where = s,
                        .owners_where = owners};
    for (const ConfigNode& o : owners.elements()) {
      shard.owners.push_back(device_named(problem, o));
      shard.owner_nodes.push_back(o);
    }
    ask_derived(s, {"storage", "cache_rows", "cache_bytes", "expected_hit_rate", "estimated_time_s"});
    s.finish();
    out.shards.push_back(std::move(shard));
  }
  node.finish();
  return out;
}

void place_table(PlanBuilder& builder, const PlacementProblem& problem, const ExplicitTable& entry) {
  const std::size_t t = entry.table;
  const TableDemand& table = problem.tables[t];
  if (entry.shards.empty()) entry.shards_where.fail("a table needs at least one shard");
  std::vector<Rect> rects;
  for (const ExplicitShard& s : entry.shards) {
    for (std::size_t i = 0; i < s.owners.size(); ++i) {
      const PlacementDevice& device = problem.devices[s.owners[i]];
      if (!tier_of(s.tier).can_own(device)) {
        s.owner_nodes[i].fail("device '" + device.name + "' cannot own a shard of tier " + std::string(to_string(s.tier)) +
                              (builder.owners_of(s.tier).empty() ? " (no device of this platform can)" : ""));
      }
    }
    if (s.owners.empty()) s.owners_where.fail("a shard needs an owner");
    const Rect r{s.row_begin, s.row_end, s.column_begin, s.column_end};
    if (r.r0 < 0 || r.r1 > table.rows || r.r0 >= r.r1 || r.c0 < 0 || r.c1 > table.dim || r.c0 >= r.c1) {
      s.where.fail("rows [" + std::to_string(r.r0) + ", " + std::to_string(r.r1) + ") x columns [" +
                   std::to_string(r.c0) + ", " + std::to_string(r.c1) + ") are not a non-empty part of the table's " +
                   std::to_string(table.rows) + " x " + std::to_string(table.dim));
    }
    if (entry.sharding == Sharding::data_parallel) {
      if (s.tier != Tier::gpu_hbm || r.r0 != 0 || r.r1 != table.rows || r.c0 != 0 || r.c1 != table.dim) {
        s.where.fail("a data_parallel table is one gpu_hbm shard of the whole table, replicated on every GPU trainer");
      }
      builder.add_data_parallel(t);
      rects.push_back(r);
      continue;
    }
    if (s.owners.size() != 1) s.owners_where.fail("a shard has one owner (only data_parallel replicates a table)");
    for (const Rect& other : rects) {
      if (other.overlaps(r)) s.where.fail("this shard overlaps another shard of table '" + table.name + "'");
    }
    rects.push_back(r);
    builder.add_shard(t, s.tier, entry.sharding, s.owners.front(), r.r0, r.r1, r.c0, r.c1);
  }
  double area = 0.0;
  for (const Rect& r : rects) area += static_cast<double>(r.r1 - r.r0) * (r.c1 - r.c0);
  if (area != static_cast<double>(table.rows) * table.dim) {
    entry.shards_where.fail("the shards cover " + format_number(area, 6) + " of the table's " +
                            format_number(static_cast<double>(table.rows) * table.dim, 6) +
                            " rows x columns; every row and column must be in exactly one shard");
  }
}

}  // namespace

std::size_t table_named(const PlacementProblem& problem, const std::string& name, const ConfigNode& name_node) {
  std::vector<std::string> names;
  for (std::size_t t = 0; t < problem.tables.size(); ++t) {
    if (problem.tables[t].name == name) return t;
    names.push_back(problem.tables[t].name);
  }
  std::string msg = "the model has no table '" + name + "'";
  if (auto guess = did_you_mean(name, names)) msg += "; did you mean '" + *guess + "'?";
  name_node.fail(msg);
}

PlacementPlan build_explicit_plan(const PlacementProblem& problem, const PlacementOptions& options,
                                  const std::vector<ExplicitTable>& tables, const ConfigNode& tables_where) {
  PlanBuilder builder(problem, options);
  std::set<std::size_t> seen;
  for (const ExplicitTable& entry : tables) {
    if (!seen.insert(entry.table).second) {
      entry.name_where.fail("table '" + problem.tables[entry.table].name + "' is placed twice");
    }
    place_table(builder, problem, entry);
  }
  for (std::size_t t = 0; t < problem.tables.size(); ++t) {
    if (!seen.count(t)) {
      tables_where.fail("the plan does not place the model's table '" + problem.tables[t].name + "' (" +
                        std::to_string(problem.tables.size() - seen.size()) + " of " +
                        std::to_string(problem.tables.size()) + " tables missing)");
    }
  }
  return builder.plan();
}

PlacementPlan plan_explicit(const PlacementProblem& problem, const PlacementOptions& options, const StepTimeEvaluator&) {
  if (!options.explicit_plan) {
    throw std::invalid_argument("placement.policy explicit needs placement.plan (a plan file, or {tables: [...]})");
  }
  const ConfigNode& doc = *options.explicit_plan;
  if (!doc.is_map() || !doc.has("tables")) {
    PlacementPlan plan = plan_torchrec(problem, options, doc);
    plan.notes.push_back("explicit plan from TorchRec's sharding plan " + doc.source());
    return plan;
  }
  ask_derived(doc, {"policy", "cache_model", "predicted_step_time_s", "evaluations", "max_estimated_load_s", "devices",
                    "communication", "statistics", "notes", "dlrmsim_version"});
  const ConfigNode tables = doc.child("tables");
  std::vector<ExplicitTable> entries;
  for (const ConfigNode& entry : tables.elements()) entries.push_back(read_table(problem, entry));
  doc.finish();
  PlacementPlan plan = build_explicit_plan(problem, options, entries, tables);
  plan.notes.push_back("explicit plan from " + doc.source());
  return plan;
}

}  // namespace dlrmsim::placement
