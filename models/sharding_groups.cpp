#include "models/sharding_groups.hpp"

#include <algorithm>
#include <map>
#include <string>
#include <tuple>

#include "common/config.hpp"
#include "models/placement_problem.hpp"
#include "models/scenario.hpp"

namespace dlrmsim::models {

using placement::OwnerKind;
using placement::PlacementPlan;
using placement::PlacementProblem;

std::vector<topo::NodeId> ShardingGroups::nodes_of(std::size_t r) const {
  const auto first = trainer_nodes.begin() + static_cast<std::ptrdiff_t>(r * group_nodes);
  return {first, first + static_cast<std::ptrdiff_t>(group_nodes)};
}

std::optional<ShardingGroups> sharding_groups(const Scenario& sc, const PlacementProblem& full) {
  if (!sc.training.sharding_group) return std::nullopt;
  const std::string& where = sc.training.sharding_group_where.empty() ? std::string("training.sharding_group")
                                                                      : sc.training.sharding_group_where;
  const auto g = static_cast<std::size_t>(*sc.training.sharding_group);
  if (sc.training.mode != "hybrid_parallel_sync") {
    throw ConfigError(where + ": 2D sparse parallelism is modelled for training.mode hybrid_parallel_sync (GPU trainers "
                      "owning the shards); this scenario's mode is " + sc.training.mode);
  }
  if (sc.training.software.hierarchical_all_to_all) {
    throw ConfigError(where + ": 2D sparse parallelism with software.collectives.all_to_all: hierarchical is not "
                      "modelled (TorchRec's DMPCollection runs the flat all-to-all within each group)");
  }
  if (!full.devices_of(OwnerKind::parameter_server).empty()) {
    throw ConfigError(where + ": 2D sparse parallelism shards the tables over GPU trainers; this job has parameter servers");
  }
  std::map<std::uint32_t, std::size_t> per_node;
  for (const auto& d : full.devices) {
    if (d.kind == OwnerKind::gpu) ++per_node[d.node];
  }
  std::size_t gpus = 0;
  for (const auto& [n, c] : per_node) gpus += c;
  if (gpus == 0) throw ConfigError(where + ": 2D sparse parallelism needs GPU trainers; the job has none");
  if (gpus % g != 0) {
    throw ConfigError(where + ": " + std::to_string(g) + " GPUs a sharding group, but the job has " + std::to_string(gpus) +
                      " trainer GPUs; expected a divisor of " + std::to_string(gpus) + " (every group a whole replica)");
  }
  const std::size_t node_gpus = per_node.begin()->second;
  for (const auto& [n, c] : per_node) {
    if (c != node_gpus) {
      throw ConfigError(where + ": 2D sparse parallelism needs trainer nodes of equal GPU counts (" +
                        std::to_string(node_gpus) + " and " + std::to_string(c) + " here)");
    }
  }
  if (g % node_gpus != 0) {
    throw ConfigError(where + ": " + std::to_string(g) + " GPUs a sharding group, but a trainer node gives the job " +
                      std::to_string(node_gpus) + "; expected a multiple of " + std::to_string(node_gpus) +
                      " (groups of whole nodes, DMPCollection's contiguous mesh)");
  }
  ShardingGroups out;
  out.group_gpus = g;
  out.group_nodes = g / node_gpus;
  out.replicas = gpus / g;
  for (const auto& [n, c] : per_node) out.trainer_nodes.push_back(topo::NodeId{n});
  return out;
}

PlacementProblem group_problem(const Scenario& sc, const topo::DeviceProfileSet& profiles, const ShardingGroups& groups) {
  ProblemSettings settings = problem_settings(sc);
  settings.only_nodes = groups.nodes_of(0);
  ModelSpec model = sc.model;
  model.global_batch_size = std::max<std::int64_t>(1, model.global_batch_size / static_cast<std::int64_t>(groups.replicas));
  return make_placement_problem(model, sc.platform, &profiles, settings);
}

void make_two_d(PlacementProblem& full, const ShardingGroups& groups) {
  full.global_batch = std::max<std::int64_t>(1, full.global_batch / static_cast<std::int64_t>(groups.replicas));
  full.off_node_fraction = groups.group_nodes > 1 ? 1.0 - 1.0 / static_cast<double>(groups.group_nodes) : 0.0;
}

namespace {

/// (kind, node, position among the node's devices of that kind) -> index in `problem.devices`.
using Slot = std::tuple<OwnerKind, std::uint32_t, std::size_t>;

std::map<Slot, std::uint32_t> slots(const PlacementProblem& problem) {
  std::map<std::pair<OwnerKind, std::uint32_t>, std::size_t> seen;
  std::map<Slot, std::uint32_t> out;
  for (std::uint32_t i = 0; i < problem.devices.size(); ++i) {
    const auto& d = problem.devices[i];
    out[{d.kind, d.node, seen[{d.kind, d.node}]++}] = i;
  }
  return out;
}

}  // namespace

PlacementPlan replicate_plan(const PlacementProblem& group, const PlacementPlan& plan, const PlacementProblem& full,
                             const ShardingGroups& groups, const placement::PlacementOptions& options) {
  std::map<std::uint32_t, std::size_t> node_rank;
  for (std::size_t i = 0; i < groups.trainer_nodes.size(); ++i) node_rank[groups.trainer_nodes[i].index] = i;
  std::vector<Slot> group_slot(group.devices.size());
  for (const auto& [slot, i] : slots(group)) group_slot[i] = slot;
  const auto full_slots = slots(full);
  auto in_replica = [&](std::uint32_t d, std::size_t r) {
    auto [kind, node, pos] = group_slot.at(d);
    const auto rank = node_rank.find(node);
    if (rank == node_rank.end()) throw std::logic_error("2D: a group device off the trainer nodes");
    const std::uint32_t target = groups.trainer_nodes.at(rank->second + r * groups.group_nodes).index;
    return full_slots.at({kind, target, pos});
  };
  PlacementPlan out = plan;
  for (auto& tp : out.tables) {
    std::vector<placement::Shard> shards;
    for (std::size_t r = 0; r < groups.replicas; ++r) {
      for (placement::Shard s : tp.shards) {
        for (auto& o : s.owners) o = in_replica(o, r);
        for (auto& o : s.storage) o = in_replica(o, r);
        shards.push_back(std::move(s));
      }
    }
    tp.shards = std::move(shards);
  }
  placement::account(full, options, out);
  out.predicted_step_time = plan.predicted_step_time;
  out.evaluations = plan.evaluations;
  out.notes.push_back("2D sparse parallelism: " + std::to_string(groups.replicas) + " replicas of a plan over " +
                      std::to_string(groups.group_gpus) + " GPUs (" + std::to_string(groups.group_nodes) + " node" +
                      (groups.group_nodes == 1 ? "" : "s") + " each)");
  return out;
}

Bytes replica_sync_payload(const PlacementProblem& problem, const PlacementPlan& plan) {
  std::map<std::uint32_t, Bytes> by_gpu;
  for (const auto& tp : plan.tables) {
    if (tp.sharding == placement::Sharding::data_parallel) continue;
    const auto& table = problem.tables.at(tp.table);
    for (const auto& s : tp.shards) {
      for (std::uint32_t o : s.owners) {
        if (problem.devices.at(o).kind == OwnerKind::gpu) by_gpu[o] += table.footprint(s.row_count(), s.column_count());
      }
    }
  }
  Bytes largest{0.0};
  for (const auto& [o, b] : by_gpu) largest = std::max(largest, b);
  return largest;
}

}  // namespace dlrmsim::models
