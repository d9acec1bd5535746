#include "models/training_options.hpp"

#include "models/training_mode.hpp"

namespace dlrmsim::models {

TrainingOptions TrainingOptions::from_config(const ConfigNode& node) {
  TrainingOptions o;
  if (!node.is_map()) node.fail("expected a mapping with mode: ...");
  o.mode = node.get<std::string>("mode");
  const std::string nodes = node.get_choice_or("nodes", {"auto", "representative", "all"}, "auto");
  o.nodes = nodes == "all" ? NodeFidelity::all : nodes == "representative" ? NodeFidelity::representative : NodeFidelity::automatic;
  o.communication = node.get_choice_or("communication", {"aggregated", "per_pair"}, "aggregated") == "per_pair"
                        ? CommunicationFidelity::per_pair
                        : CommunicationFidelity::aggregated;
  o.staleness = node.get_positive_or<int>("staleness", o.staleness, true);
  if (node.has("averaging_period")) {
    o.averaging_period = node.get_positive<int>("averaging_period");
    // Only a mode that averages dense parameters reads it; anywhere else it would be ignored.
    if (const auto* mode = find_training_mode(o.mode); mode && !mode->reads_averaging_period) {
      std::string readers;
      for (const auto& m : training_modes()) {
        if (m.reads_averaging_period) readers += (readers.empty() ? "" : ", ") + std::string(m.name);
      }
      node.child("averaging_period").fail("applies only to training.mode " + readers + " (this scenario's mode is " + o.mode + ")");
    }
  }
  o.embedding_overlap = node.get_choice_or("embedding_overlap", {"serial", "concurrent"}, "serial") == "concurrent"
                            ? EmbeddingOverlap::concurrent
                            : EmbeddingOverlap::serial;
  if (auto cpu = node.optional_child("cpu")) {
    if (!cpu->is_map()) cpu->fail("expected a mapping: {dense_efficiency: 0.4}");
    // dense_efficiency matters only where CPU sockets run dense layers (dense_costs asks for
    // it there); access_granule alone is a complete setting for GPU trainers.
    if (cpu->has("dense_efficiency")) {
      o.cpu_dense_efficiency = cpu->get_positive<double>("dense_efficiency");
      if (*o.cpu_dense_efficiency > 1.0) cpu->child("dense_efficiency").fail("a fraction of peak must be at most 1");
    }
    o.cpu_access_granule = cpu->get_positive_or<Bytes>("access_granule", o.cpu_access_granule);
    cpu->finish();
  }
  if (auto pods = node.optional_child("pods")) {
    if (!pods->is_map()) pods->fail("expected a mapping: {parameter_server: {count, cpus, memory}, embedding_worker: ...}");
    // Memory limits what a parameter server holds; an embedding worker holds no tables.
    auto read = [](const ConfigNode& r, bool holds_tables) {
      if (!r.is_map()) r.fail("expected a mapping: {count: 120, cpus: 80}");
      placement::RolePods p;
      p.count = r.get_positive<int>("count");
      p.count_where = r.child("count").where();
      p.cpus = r.get_positive<int>("cpus");
      if (holds_tables) p.memory = r.get_positive_or<Bytes>("memory", Bytes(0.0), true);
      r.finish();
      return p;
    };
    if (auto r = pods->optional_child("parameter_server")) o.server_pods = read(*r, true);
    if (auto r = pods->optional_child("embedding_worker")) o.worker_pods = read(*r, false);
    pods->finish();
  }
  if (auto roles = node.optional_child("roles")) {
    if (!roles->is_map()) roles->fail("expected a mapping of roles to group roles");
    o.trainer_role = roles->get_or<std::string>("trainer", o.trainer_role);
    o.parameter_server_role = roles->get_or<std::string>("parameter_server", o.parameter_server_role);
    o.embedding_worker_role = roles->get_or<std::string>("embedding_worker", o.embedding_worker_role);
    roles->finish();
  }
  node.finish();
  return o;
}

}  // namespace dlrmsim::models
