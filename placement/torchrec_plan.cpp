// A TorchRec sharding plan read as an explicit placement (placement/torchrec_plan.hpp: the
// format and its sources).
#include "placement/torchrec_plan.hpp"

#include <cctype>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "common/config.hpp"
#include "common/json.hpp"
#include "placement/explicit_plan.hpp"

namespace dlrmsim::placement {

namespace {

constexpr const char* kExpected =
    "expected a plan: dlrmsim's {tables: [...]} (dlrmsim place --json) or TorchRec's sharding plan "
    "{module: {table: {sharding_type, compute_kernel, ranks, sharding_spec}}}";

struct NameMap {
  const char* torchrec;
  Sharding sharding;
};
constexpr NameMap kShardingTypes[] = {
    {"table_wise", Sharding::table_wise},         {"row_wise", Sharding::row_wise},
    {"column_wise", Sharding::column_wise},       {"table_row_wise", Sharding::table_row_wise},
    {"table_column_wise", Sharding::column_wise}, {"data_parallel", Sharding::data_parallel},
};

struct KernelMap {
  const char* torchrec;
  Tier tier;
};
constexpr KernelMap kKernels[] = {
    {"dense", Tier::gpu_hbm},    {"fused", Tier::gpu_hbm},   {"quant", Tier::gpu_hbm},
    {"fused_uvm", Tier::uvm},    {"fused_uvm_caching", Tier::uvm},
    {"quant_uvm", Tier::uvm},    {"quant_uvm_caching", Tier::uvm},
    {"key_value", Tier::ssd},
};

template <typename Map>
std::vector<std::string> names_of(const Map& map) {
  std::vector<std::string> names;
  for (const auto& m : map) names.emplace_back(m.torchrec);
  return names;
}

std::string joined(const std::vector<std::string>& names) {
  std::string s;
  for (const auto& n : names) s += (s.empty() ? "" : ", ") + n;
  return s;
}

template <typename Map>
[[noreturn]] void unknown(const ConfigNode& node, const std::string& what, const std::string& value, const Map& map,
                          const std::string& refused) {
  const auto names = names_of(map);
  std::string msg = "unknown " + what + " '" + value + "'";
  if (auto guess = did_you_mean(value, names)) msg += "; did you mean '" + *guess + "'?";
  node.fail(msg + " (expected one of " + joined(names) + "; " + refused + ")");
}

Sharding sharding_of(const ConfigNode& node) {
  const auto name = node.as<std::string>();
  for (const auto& m : kShardingTypes) {
    if (name == m.torchrec) return m.sharding;
  }
  unknown(node, "TorchRec sharding_type", name, kShardingTypes, "grid_shard has no dlrmsim sharding");
}

Tier tier_of_kernel(const ConfigNode& node) {
  const auto name = node.as<std::string>();
  for (const auto& m : kKernels) {
    if (name == m.torchrec) return m.tier;
  }
  unknown(node, "TorchRec compute_kernel", name, kKernels,
          "ssd_virtual_table, dram_virtual_table and customized_kernel have no dlrmsim tier");
}

bool is_null(const ConfigNode& node) { return node.yaml().IsNull(); }

/// The platform's GPU trainers in rank order (indices into problem.devices).
std::vector<std::uint32_t> gpu_ranks(const PlacementProblem& problem) {
  std::vector<std::uint32_t> gpus;
  for (std::uint32_t d = 0; d < problem.devices.size(); ++d) {
    if (problem.devices[d].kind == OwnerKind::gpu) gpus.push_back(d);
  }
  return gpus;
}

std::int64_t rank_value(const std::vector<std::uint32_t>& gpus, const PlacementProblem& problem,
                        const ConfigNode& node, std::int64_t rank) {
  if (rank < 0 || rank >= static_cast<std::int64_t>(gpus.size())) {
    node.fail("rank " + std::to_string(rank) + " is not a GPU trainer: the platform has " +
              std::to_string(gpus.size()) + " (ranks 0-" + std::to_string(gpus.size() == 0 ? 0 : gpus.size() - 1) +
              (gpus.empty() ? "" : ", rank 0 is " + problem.devices[gpus.front()].name + ", rank " +
                                       std::to_string(gpus.size() - 1) + " " + problem.devices[gpus.back()].name) +
              ")");
  }
  return rank;
}

/// The rank of a ShardMetadata placement, "rank:3/cuda:3".
std::int64_t placement_rank(const ConfigNode& node) {
  const auto text = node.as<std::string>();
  const std::string prefix = "rank:";
  std::size_t end = prefix.size();
  while (end < text.size() && std::isdigit(static_cast<unsigned char>(text[end]))) ++end;
  if (text.rfind(prefix, 0) != 0 || end == prefix.size() || (end < text.size() && text[end] != '/')) {
    node.fail("placement '" + text + "': expected \"rank:R/DEVICE\", for example \"rank:3/cuda:3\"");
  }
  return std::stoll(text.substr(prefix.size(), end - prefix.size()));
}

/// [row, column] of shard_offsets or shard_sizes.
std::pair<std::int64_t, std::int64_t> pair_of(const ConfigNode& node, const char* what) {
  const auto e = node.elements();
  if (e.size() != 2) node.fail(std::string("expected ") + what + " [rows, columns] of a 2-D table");
  return {e[0].as<std::int64_t>(), e[1].as<std::int64_t>()};
}

ExplicitTable read_parameter_sharding(const PlacementProblem& problem, const std::vector<std::uint32_t>& gpus,
                                      const std::string& name, const ConfigNode& ps) {
  if (!ps.is_map()) ps.fail("expected TorchRec's ParameterSharding {sharding_type, compute_kernel, ranks, sharding_spec}");
  const std::size_t t = table_named(problem, name, ps);
  const TableDemand& table = problem.tables[t];
  const ConfigNode type_node = ps.child("sharding_type");
  const Sharding sharding = sharding_of(type_node);
  const Tier tier = tier_of_kernel(ps.child("compute_kernel"));
  for (const char* k : {"cache_params", "enforce_hbm", "stochastic_rounding", "bounds_check_mode", "output_dtype",
                        "key_value_params"}) {
    (void)ps.has(k);  // not modelled
  }
  std::vector<std::int64_t> ranks;
  std::vector<ConfigNode> rank_nodes;
  const auto ranks_node = ps.optional_child("ranks");
  if (ranks_node && !is_null(*ranks_node)) {
    for (const ConfigNode& r : ranks_node->elements()) {
      ranks.push_back(rank_value(gpus, problem, r, r.as<std::int64_t>()));
      rank_nodes.push_back(r);
    }
  }
  const ConfigNode ranks_where = ranks_node ? *ranks_node : ps;
  ExplicitTable out{.table = t, .name_where = ps, .sharding = sharding, .shards = {}, .shards_where = ps};
  auto whole = [&](std::vector<std::int64_t> owner_ranks, std::vector<ConfigNode> nodes, const ConfigNode& where) {
    ExplicitShard s{.tier = tier,
                    .owners = {},
                    .owner_nodes = std::move(nodes),
                    .row_begin = 0,
                    .row_end = table.rows,
                    .column_begin = 0,
                    .column_end = table.dim,
                    .where = where,
                    .owners_where = ranks_where};
    for (auto r : owner_ranks) s.owners.push_back(gpus[static_cast<std::size_t>(r)]);
    out.shards.push_back(std::move(s));
  };
  const auto spec = ps.optional_child("sharding_spec");
  if (!spec || is_null(*spec)) {
    if (sharding == Sharding::data_parallel) {
      std::vector<std::int64_t> all;
      for (std::size_t r = 0; r < gpus.size(); ++r) all.push_back(static_cast<std::int64_t>(r));
      whole(all, std::vector<ConfigNode>(all.size(), ps), ps);
    } else if (sharding == Sharding::table_wise) {
      if (ranks.size() != 1) ranks_where.fail("a table_wise table without sharding_spec needs ranks: [its one rank]");
      whole(ranks, rank_nodes, ps);
    } else {
      ps.fail("sharding_type " + type_node.as<std::string>() +
              " needs sharding_spec: {shards: [{shard_offsets, shard_sizes, placement}, ...]}");
    }
    ps.finish();
    return out;
  }
  const ConfigNode shards = spec->child("shards");
  out.shards_where = shards;
  const auto elements = shards.elements();
  if (!ranks.empty() && ranks.size() != elements.size()) {
    ranks_where.fail("ranks has " + std::to_string(ranks.size()) + " entries and sharding_spec " +
                     std::to_string(elements.size()) + " shards; expected the rank of each shard");
  }
  for (std::size_t i = 0; i < elements.size(); ++i) {
    const ConfigNode& e = elements[i];
    const auto [row, column] = pair_of(e.child("shard_offsets"), "shard_offsets");
    const auto [rows, columns] = pair_of(e.child("shard_sizes"), "shard_sizes");
    std::optional<std::int64_t> rank;
    ConfigNode rank_node = e;
    if (auto p = e.optional_child("placement"); p && !is_null(*p)) {
      rank = rank_value(gpus, problem, *p, placement_rank(*p));
      rank_node = *p;
      if (!ranks.empty() && ranks[i] != *rank) {
        p->fail("shard " + std::to_string(i) + " is on rank " + std::to_string(*rank) + " but ranks[" +
                std::to_string(i) + "] is " + std::to_string(ranks[i]));
      }
    } else if (!ranks.empty()) {
      rank = ranks[i];
      rank_node = rank_nodes[i];
    } else {
      e.fail("a shard needs its placement (\"rank:R/cuda:R\") or the ParameterSharding's ranks");
    }
    ExplicitShard s{.tier = tier,
                    .owners = {gpus[static_cast<std::size_t>(*rank)]},
                    .owner_nodes = {rank_node},
                    .row_begin = row,
                    .row_end = row + rows,
                    .column_begin = static_cast<int>(column),
                    .column_end = static_cast<int>(column + columns),
                    .where = e,
                    .owners_where = rank_node};
    e.finish();
    out.shards.push_back(std::move(s));
  }
  spec->finish();
  ps.finish();
  // TorchRec's data_parallel lists one replica per rank; dlrmsim replicates on every GPU
  // trainer, one shard of the whole table.
  if (sharding == Sharding::data_parallel && !out.shards.empty()) out.shards.erase(out.shards.begin() + 1, out.shards.end());
  return out;
}

}  // namespace

PlacementPlan plan_torchrec(const PlacementProblem& problem, const PlacementOptions& options, const ConfigNode& doc) {
  if (!doc.is_map()) doc.fail(kExpected);
  const auto entries = doc.entries();
  const ConfigNode modules = entries.size() == 1 && entries.front().first == "plan" ? entries.front().second : doc;
  if (!modules.is_map() || modules.entries().empty()) modules.fail(kExpected);
  const auto gpus = gpu_ranks(problem);
  std::vector<ExplicitTable> tables;
  for (const auto& [module, params] : modules.entries()) {
    if (!params.is_map()) {
      params.fail("module '" + module + "': expected its tables' ParameterShardings {table: {sharding_type, ...}}; " +
                  kExpected);
    }
    for (const auto& [name, ps] : params.entries()) tables.push_back(read_parameter_sharding(problem, gpus, name, ps));
  }
  return build_explicit_plan(problem, options, tables, modules);
}

std::string_view torchrec_compute_kernel(Tier tier, bool cached) {
  switch (tier) {
    case Tier::gpu_hbm: return "fused";
    case Tier::uvm: return cached ? "fused_uvm_caching" : "fused_uvm";
    case Tier::ssd: return "key_value";
    case Tier::host_dram:
    case Tier::remote_ps:
    case Tier::cxl: return "";
  }
  return "";
}

std::string torchrec_plan_json(const PlacementProblem& problem, const PlacementPlan& plan, std::string_view module) {
  // Rank and local index (its GPU index on its node) of every GPU trainer.
  const auto gpus = gpu_ranks(problem);
  std::vector<std::int64_t> rank(problem.devices.size(), -1), local(problem.devices.size(), 0);
  for (std::size_t r = 0; r < gpus.size(); ++r) {
    rank[gpus[r]] = static_cast<std::int64_t>(r);
    for (std::size_t q = 0; q < r; ++q) local[gpus[r]] += problem.devices[gpus[q]].node == problem.devices[gpus[r]].node;
  }
  Json tables = Json::object();
  for (const auto& tp : plan.tables) {
    if (tp.shards.empty()) continue;
    bool cached = false;
    for (const auto& s : tp.shards) {
      if (s.tier != tp.shards.front().tier) {
        throw std::invalid_argument("table " + tp.name + " has shards on " + std::string(to_string(tp.shards.front().tier)) +
                                    " and on " + std::string(to_string(s.tier)) +
                                    ": a TorchRec ParameterSharding has one compute kernel");
      }
      cached = cached || s.cache_rows > 0;
    }
    const std::string_view kernel = torchrec_compute_kernel(tp.shards.front().tier, cached);
    if (kernel.empty()) {
      throw std::invalid_argument("table " + tp.name + " is on tier " + std::string(to_string(tp.shards.front().tier)) +
                                  ", which TorchRec has no compute kernel for (TorchRec plans hold gpu_hbm and uvm "
                                  "tables: fused, fused_uvm, fused_uvm_caching)");
    }
    Json ps;
    ps["sharding_type"] = to_string(tp.sharding);
    ps["compute_kernel"] = kernel;
    Json ranks = Json::array();
    if (tp.sharding == Sharding::data_parallel) {
      for (std::size_t r = 0; r < gpus.size(); ++r) ranks.push_back(r);
      ps["ranks"] = std::move(ranks);
      ps["sharding_spec"] = Json();
    } else {
      Json shards = Json::array();
      for (const auto& s : tp.shards) {
        const std::uint32_t owner = s.owners.at(0);
        if (s.owners.size() != 1 || rank[owner] < 0) {
          throw std::invalid_argument("table " + tp.name + ": a shard owned by " + plan.devices.at(owner).name +
                                      (s.owners.size() != 1 ? " and others" : ", not a GPU trainer,") +
                                      " has no TorchRec rank");
        }
        ranks.push_back(rank[owner]);
        shards.push_back({{"shard_offsets", {s.row_begin, s.column_begin}},
                          {"shard_sizes", {s.row_count(), s.column_count()}},
                          {"placement", "rank:" + std::to_string(rank[owner]) + "/cuda:" + std::to_string(local[owner])}});
      }
      ps["ranks"] = std::move(ranks);
      ps["sharding_spec"] = {{"shards", std::move(shards)}};
    }
    tables[tp.name] = std::move(ps);
  }
  Json doc;
  doc[std::string(module)] = std::move(tables);
  return json_text(doc);
}

}  // namespace dlrmsim::placement
