#include "models/placement_problem.hpp"

#include <algorithm>
#include <map>
#include <set>
#include <stdexcept>
#include <string>

#include "common/config.hpp"
#include "models/cost_models.hpp"
#include "models/scenario.hpp"

namespace dlrmsim::models {

using placement::AccessDistribution;
using placement::OwnerKind;
using placement::PlacementDevice;
using placement::PlacementPlan;
using placement::PlacementProblem;
using placement::TableDemand;

namespace {

// TorchRec planner's backward-to-forward ratio (BWD_COMPUTE_MULTIPLIER = 2, "empirical
// studies", in meta-pytorch/torchrec@5772fc8e torchrec/distributed/planner/constants.py): a
// peer's assumption, used only for a GPU without a measured profile.
constexpr double kUncalibratedGpuBackwardFactor = 2.0;

AccessDistribution access_of(const AccessSkew& skew) {
  AccessDistribution d;
  switch (skew.kind) {
    case AccessSkew::Kind::uniform: d = AccessDistribution::uniform(); break;
    case AccessSkew::Kind::zipf: d = AccessDistribution::zipf(skew.zipf_exponent); break;
    case AccessSkew::Kind::hit_rate_curve: d = AccessDistribution::hit_rate(skew.hit_rate_points); break;
  }
  d.ids_by_frequency = skew.id_order == AccessSkew::IdOrder::by_frequency;
  return d;
}

BytesPerSecond nic_bandwidth(const topo::Platform& p, topo::DeviceId d) {
  if (auto nic = p.affinity_nic(d)) return p.nic_spec(*nic).bandwidth;
  return BytesPerSecond(0.0);
}

// A trainer node's GPU or CPU socket: its identity, memory and NIC (the kind's other figures
// are set by the caller).
PlacementDevice trainer_device(const topo::Platform& p, OwnerKind kind, topo::DeviceId id, topo::NodeId node,
                               Bytes capacity, BytesPerSecond bandwidth) {
  PlacementDevice d;
  d.kind = kind;
  d.name = p.device(id).name;
  d.topology_id = id.index;
  d.node = node.index;
  d.memory_capacity = capacity;
  d.memory_bandwidth = bandwidth;
  d.network_bandwidth = nic_bandwidth(p, id);
  return d;
}

}  // namespace

PlacementProblem make_placement_problem(const ModelSpec& model, const topo::Platform& platform,
                                        const topo::DeviceProfileSet* profiles, const ProblemSettings& settings) {
  const NodeRoles& roles = settings.roles;
  const auto& only_nodes = settings.only_nodes;
  PlacementProblem problem;
  problem.striped_host_updates = settings.striped_host_updates;
  problem.ssd_prefetch = settings.ssd_prefetch;
  problem.global_batch = model.global_batch_size;
  problem.wire_element_size = element_size(model.communication_precision);
  problem.gpu_wire_forward =
      Bytes(wire_bytes_per_value(settings.qcomm.forward, model.communication_precision, settings.qcomm.int8_row_dim));
  problem.gpu_wire_backward =
      Bytes(wire_bytes_per_value(settings.qcomm.backward, model.communication_precision, settings.qcomm.int8_row_dim));

  // Tables, groups expanded into their instances.
  for (std::size_t e = 0; e < model.tables.size(); ++e) {
    const auto& t = model.tables[e];
    for (std::int64_t i = 0; i < t.count; ++i) {
      TableDemand d;
      d.name = t.count > 1 ? t.name + "_" + std::to_string(i) : t.name;
      d.model_table = e;
      d.instance = i;
      d.rows = t.rows;
      d.dim = t.dim;
      d.element_size = element_size(t.dtype);
      d.lookups_per_sample = t.lookups.mean();
      d.outputs_per_sample = t.outputs_per_sample();
      d.optimizer_state_per_row = model.embedding_optimizer.embedding_state_bytes(1, t.dim);
      d.access = access_of(t.access);
      problem.tables.push_back(std::move(d));
    }
  }
  problem.gpu_embedding.deduplicated_backward = settings.deduplicated_backward;
  problem.gpu_embedding.fused_optimizer = settings.fused_optimizer;
  problem.gpu_embedding.update = embedding_update(model.embedding_optimizer);
  switch (model.embedding_optimizer.kind) {
    case OptimizerKind::sgd:
    case OptimizerKind::rowwise_adagrad: break;
    case OptimizerKind::adagrad:
    case OptimizerKind::adam:
      problem.notes.push_back("embedding optimizer " + std::string(to_string(model.embedding_optimizer.kind)) +
                              ": profiles measure sgd and rowwise_adagrad backward only; the rowwise_adagrad "
                              "multiple is used");
      break;
  }

  // Node roles.
  bool any_role = false;
  for (const auto& g : platform.groups()) any_role = any_role || !g.role.empty();
  const bool has_gpus = !platform.all_gpus().empty();
  std::vector<char> is_server(platform.nodes().size(), 0);
  std::vector<char> is_trainer(platform.nodes().size(), 0);
  for (const auto& n : platform.nodes()) {
    const auto& g = platform.group(n.group);
    const bool server = any_role ? g.role == roles.parameter_server : (has_gpus && n.gpus.empty());
    const bool worker = any_role && g.role == roles.embedding_worker;
    is_server[n.id.index] = server;
    is_trainer[n.id.index] = !server && !worker && (has_gpus ? !n.gpus.empty() : true);
  }
  if (!only_nodes.empty()) {
    std::vector<char> in_job(platform.nodes().size(), 0);
    for (topo::NodeId n : only_nodes) in_job.at(n.index) = 1;
    for (std::size_t n = 0; n < in_job.size(); ++n) {
      is_server[n] = is_server[n] && in_job[n];
      is_trainer[n] = is_trainer[n] && in_job[n];
    }
  }

  // The GPUs of each trainer node in the job (training.gpus_per_node: the first N), and the CPU
  // sockets hosting them (all of the node's when none of them hosts one).
  const auto job_gpus = [&](const topo::Node& n) {
    std::span<const topo::DeviceId> gpus(n.gpus);
    if (!settings.gpus_per_node) return gpus;
    const auto want = static_cast<std::size_t>(*settings.gpus_per_node);
    if (want > gpus.size()) {
      throw ConfigError(settings.gpus_per_node_where + ": " + std::to_string(want) + " GPUs per node, but node '" +
                        n.name + "' has " + std::to_string(gpus.size()) + "; expected at most " +
                        std::to_string(gpus.size()));
    }
    return gpus.first(want);
  };
  const auto job_cpus = [&](const topo::Node& n) {
    if (!settings.gpus_per_node) return std::vector<topo::DeviceId>(n.cpus.begin(), n.cpus.end());
    std::vector<topo::DeviceId> hosts;
    for (topo::DeviceId c : n.cpus) {
      const auto gpus = job_gpus(n);
      if (std::any_of(gpus.begin(), gpus.end(), [&](topo::DeviceId g) { return platform.host_cpu(g) == c; })) {
        hosts.push_back(c);
      }
    }
    return hosts.empty() ? std::vector<topo::DeviceId>(n.cpus.begin(), n.cpus.end()) : hosts;
  };

  // CPU sockets of trainer nodes first (GPUs refer to them by index), then GPUs, then servers.
  std::map<std::uint32_t, std::int32_t> socket_index;  // topo device index -> problem index
  std::set<std::string> missing_profiles;
  for (const auto& n : platform.nodes()) {
    if (!is_trainer[n.id.index]) continue;
    for (topo::DeviceId c : job_cpus(n)) {
      const auto& spec = platform.cpu_spec(c);
      PlacementDevice d =
          trainer_device(platform, OwnerKind::cpu_socket, c, n.id, spec.dram_capacity, spec.dram_bandwidth);
      d.cpu_rows = topo::CpuRowAccess::of(spec, settings.cpu_access_granule);
      d.access_granule = d.cpu_rows.granule;
      // PCIe towards the GPUs: the route to the first GPU that calls this socket its host.
      for (topo::DeviceId g : n.gpus) {
        if (platform.host_cpu(g) == c) {
          d.host_link_bandwidth = platform.route_bandwidth(c, g);
          break;
        }
      }
      if (d.host_link_bandwidth.value() <= 0.0 && !n.gpus.empty()) {
        d.host_link_bandwidth = platform.route_bandwidth(c, n.gpus.front());
      }
      socket_index[c.index] = static_cast<std::int32_t>(problem.devices.size());
      problem.devices.push_back(std::move(d));
    }
  }
  for (const auto& n : platform.nodes()) {
    if (!is_trainer[n.id.index]) continue;
    for (topo::DeviceId g : job_gpus(n)) {
      const auto& spec = platform.gpu_spec(g);
      PlacementDevice d = trainer_device(platform, OwnerKind::gpu, g, n.id, spec.hbm_capacity, spec.hbm_bandwidth);
      d.backward_factor = kUncalibratedGpuBackwardFactor;
      if (auto host = platform.host_cpu(g)) {
        d.host_link_bandwidth = platform.route_bandwidth(g, *host);
        d.host_socket = socket_index.at(host->index);
      }
      if (profiles) d.profile = profiles->find(spec);
      if (d.profile) {
        d.access_granule = d.profile->gather.access_granule;
      } else {
        missing_profiles.insert(spec.model);
      }
      problem.devices.push_back(std::move(d));
    }
  }
  for (const auto& m : missing_profiles) {
    problem.notes.push_back("GPU " + m + ": no device profile; lookup estimates use peak HBM and PCIe bandwidth "
                            "(efficiency 1) and a backward multiple of 2");
  }
  const auto server_nodes = static_cast<std::size_t>(std::count(is_server.begin(), is_server.end(), char{1}));
  for (const auto& n : platform.nodes()) {
    if (!is_server[n.id.index]) continue;
    PlacementDevice d;
    d.kind = OwnerKind::parameter_server;
    d.name = n.name;
    d.topology_id = n.id.index;
    d.node = n.id.index;
    d.access_granule = settings.cpu_access_granule;
    for (topo::DeviceId c : n.cpus) {
      d.memory_capacity += platform.cpu_spec(c).dram_capacity;
      d.memory_bandwidth += platform.cpu_spec(c).dram_bandwidth;
    }
    // The node's sockets together: their DRAM and cores add up, per-core costs are the first
    // socket's (a server's sockets are alike); ids go through the server's hash map (keyed).
    if (!n.cpus.empty()) d.cpu_rows = topo::CpuRowAccess::of(platform.cpu_spec(n.cpus.front()), settings.cpu_access_granule);
    d.cpu_rows.dram_bandwidth = d.memory_bandwidth;
    d.cpu_rows.cores *= static_cast<double>(n.cpus.size());
    d.cpu_rows.keyed = true;
    if (settings.server_pods) {
      const PodShare pods = pod_share(platform, n.id, *settings.server_pods, server_nodes);
      d.cpu_rows.cores *= pods.cpu;
      if (pods.memory) d.memory_capacity = std::min(d.memory_capacity, *pods.memory);
    }
    for (topo::DeviceId nic : n.nics) d.network_bandwidth += platform.nic_spec(nic).bandwidth;
    problem.devices.push_back(std::move(d));
  }

  // The storage tiers' devices, after every owner (existing indices keep their meaning): each
  // trainer socket's NVMe drives (ssd) and CXL expanders (cxl), each set one device.
  for (std::size_t i = 0, sockets = problem.devices.size(); i < sockets; ++i) {
    if (problem.devices[i].kind != OwnerKind::cpu_socket) continue;
    const auto& spec = platform.cpu_spec(topo::DeviceId{problem.devices[i].topology_id});
    const auto storage = [&](OwnerKind kind, const std::string& suffix, Bytes capacity, BytesPerSecond bandwidth) {
      PlacementDevice d;
      d.kind = kind;
      d.name = problem.devices[i].name + "." + suffix;
      d.topology_id = problem.devices[i].topology_id;
      d.node = problem.devices[i].node;
      d.memory_capacity = capacity;
      d.memory_bandwidth = bandwidth;
      problem.devices.push_back(std::move(d));
      return static_cast<std::int32_t>(problem.devices.size() - 1);
    };
    if (spec.nvme) {
      const double n = spec.nvme->count;
      const auto index = storage(OwnerKind::nvme, "nvme", spec.nvme->capacity * n, spec.nvme->random_read * n);
      problem.devices[static_cast<std::size_t>(index)].nvme = spec.nvme;
      problem.devices[i].nvme_device = index;
    }
    if (spec.cxl) {
      const double n = spec.cxl->count;
      const auto index = storage(OwnerKind::cxl_memory, "cxl", spec.cxl->capacity * n, spec.cxl->bandwidth * n);
      problem.devices[static_cast<std::size_t>(index)].cxl = spec.cxl;
      problem.devices[i].cxl_device = index;
    }
  }
  for (auto& d : problem.devices) {
    if (d.kind == OwnerKind::gpu && d.host_socket >= 0) d.nvme_device = problem.devices[static_cast<std::size_t>(d.host_socket)].nvme_device;
  }

  // Context parallelism splits a sequence model's sequences over GPUs of one node.
  const int cp = settings.context_parallel;
  if (cp > 1) {
    const std::string where = settings.context_parallel_where.empty() ? "training.context_parallel"
                                                                      : settings.context_parallel_where;
    if (model.interaction.kind != Interaction::Kind::hstu) {
      throw ConfigError(where + ": context parallelism splits a sequence model's sequences; this model's interaction is " +
                        model.interaction.describe() + " (use interaction kind hstu, or leave the key out)");
    }
    for (const auto& n : platform.nodes()) {
      if (!is_trainer[n.id.index]) continue;
      const std::size_t g = job_gpus(n).size();
      if (g == 0 || g % static_cast<std::size_t>(cp) != 0) {
        throw ConfigError(where + ": " + std::to_string(cp) + " GPUs a sequence, but node '" + n.name + "' gives the job " +
                          std::to_string(g) + " GPU" + (g == 1 ? "" : "s") +
                          "; expected a divisor of that (a group stays within one node's GPU fabric)");
      }
    }
  }

  // Per-GPU activations and the dense replica. A GPU holds at least one whole sample, or
  // under context parallelism 1/cp of one.
  const std::uint32_t gpus = problem.gpu_count();
  if (gpus > 0) {
    const double local_batch =
        std::max(static_cast<double>(model.global_batch_size) / gpus, 1.0 / static_cast<double>(std::max(cp, 1)));
    double elements = 2.0 * static_cast<double>(model.pooled_embedding_width());
    for (const auto& layer : model.dense_layers()) elements += layer.activation_elements_per_sample;
    problem.activations_per_gpu = element_size(model.compute_precision) * (local_batch * elements);
    problem.dense_weights_per_gpu = model.dense_weight_bytes();
    problem.dense_optimizer_state_per_gpu = model.dense_optimizer_state_bytes();
  }
  const std::uint32_t trainer_nodes = problem.trainer_node_count();
  problem.off_node_fraction = trainer_nodes > 1 ? 1.0 - 1.0 / static_cast<double>(trainer_nodes) : 0.0;
  return problem;
}

PodShare pod_share(const topo::Platform& platform, topo::NodeId node, const RolePods& pods, std::size_t nodes) {
  if (nodes == 0 || pods.count % static_cast<int>(nodes) != 0) {
    throw ConfigError(pods.count_where + ": " + std::to_string(pods.count) + " pods over " + std::to_string(nodes) +
                      " nodes: expected a multiple of the node count (pods are spread evenly)");
  }
  const double per_node = static_cast<double>(pods.count / static_cast<int>(nodes));
  double logical = 0.0;
  for (topo::DeviceId c : platform.node(node).cpus) {
    const auto& spec = platform.cpu_spec(c);
    logical += static_cast<double>(spec.cores) * spec.threads_per_core;
  }
  PodShare share;
  if (logical > 0.0) share.cpu = std::min(1.0, per_node * pods.cpus / logical);
  if (pods.memory.value() > 0.0) share.memory = pods.memory * per_node;
  return share;
}

ProblemSettings problem_settings(const Scenario& scenario) {
  ProblemSettings settings;
  settings.server_pods = scenario.training.server_pods;
  settings.roles.parameter_server = scenario.training.parameter_server_role;
  settings.roles.embedding_worker = scenario.training.embedding_worker_role;
  settings.cpu_access_granule = scenario.training.cpu_access_granule;
  settings.striped_host_updates = scenario.training.software.striped_host_updates;
  settings.ssd_prefetch = scenario.training.software.prefetch == SoftwareStack::Prefetch::next_batch;
  settings.deduplicated_backward = scenario.training.software.deduplicated_backward;
  settings.fused_optimizer = scenario.training.software.fused_optimizer;
  settings.qcomm = scenario.training.software.qcomm;
  settings.only_nodes = scenario.job_nodes;
  settings.gpus_per_node = scenario.training.gpus_per_node;
  settings.gpus_per_node_where = scenario.training.gpus_per_node_where;
  settings.context_parallel = scenario.training.context_parallel;
  settings.context_parallel_where = scenario.training.context_parallel_where;
  return settings;
}

PlacementProblem make_placement_problem(const Scenario& scenario, const topo::DeviceProfileSet& profiles) {
  return make_placement_problem(scenario.model, scenario.platform, &profiles, problem_settings(scenario));
}

PlacementPlan place_tables(const ModelSpec& model, const topo::Platform& platform,
                           const placement::PlacementOptions& options, const placement::StepTimeEvaluator& evaluator,
                           const topo::DeviceProfileSet* profiles) {
  return placement::place(make_placement_problem(model, platform, profiles), options, evaluator);
}

}  // namespace dlrmsim::models
