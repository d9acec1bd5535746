#include "models/owner_work.hpp"

#include <algorithm>
#include <stdexcept>

#include "models/cost_models.hpp"
#include "models/quantized_comms.hpp"
#include "models/step_context.hpp"
#include "placement/lookup_cost.hpp"
#include "placement/tier.hpp"

namespace dlrmsim::models {

using placement::OwnerKind;

namespace {

/// Shards of a row-sharded table (row_wise, table_row_wise) whose owner is on `node`: the
/// partial sums a node adds up before sending them on; 1 for the other shardings.
double row_shards_on_node(const placement::TablePlacement& tp, std::uint32_t node, const placement::PlacementProblem& problem) {
  if (tp.sharding != placement::Sharding::row_wise && tp.sharding != placement::Sharding::table_row_wise) return 1.0;
  double n = 0.0;
  for (const auto& shard : tp.shards) {
    for (auto o : shard.owners) n += problem.devices.at(o).node == node ? 1.0 : 0.0;
  }
  return std::max(1.0, n);
}

}  // namespace

OwnerWorkTable compute_owner_work(const StepInputs& in) {
  OwnerWorkTable table_out;
  auto& owner_work = table_out.by_owner;
  owner_work.assign(in.problem.devices.size(), OwnerWork{});
  for (std::uint32_t i = 0; i < owner_work.size(); ++i) owner_work[i].owner = i;
  const Bytes comm = element_size(in.model.communication_precision);
  // GPU owners' all-to-alls may be quantised (software.collectives.qcomm), each direction on
  // its own; the other owners' exchanges are in the communication precision.
  const auto& q = in.options.software.qcomm;
  const Bytes gpu_out(wire_bytes_per_value(q.forward, in.model.communication_precision, q.int8_row_dim));
  const Bytes gpu_grad(wire_bytes_per_value(q.backward, in.model.communication_precision, q.int8_row_dim));
  const topo::GpuEmbeddingSoftware software{in.options.software.deduplicated_backward, in.options.software.fused_optimizer,
                                            embedding_update(in.model.embedding_optimizer)};
  for (const auto& tp : in.plan.tables) {
    const auto& table = in.problem.tables.at(tp.table);
    if (tp.sharding == placement::Sharding::data_parallel) {
      // TorchRec all-reduces the dense gradient of a replicated table (rows x dim).
      table_out.dp_gradient_bytes += comm * (static_cast<double>(table.rows) * table.dim);
    }
    const double distinct_fraction =
        tp.distinct_fraction ? *tp.distinct_fraction : placement::table_distinct_fraction(in.problem, table);
    for (const auto& shard : tp.shards) {
      const auto w = placement::shard_work(in.problem, table, shard, tp.sharding, distinct_fraction);
      for (auto o : shard.owners) {
        OwnerWork& ow = owner_work.at(o);
        const auto& dev = in.problem.devices.at(o);
        const Bytes row = table.element_size * static_cast<double>(w.columns);
        const double lookups = w.lookups;
        ow.any = true;
        ow.lookups += lookups;
        if (tp.sharding != placement::Sharding::data_parallel) {
          const double values = w.samples * w.columns;
          const bool gpu = dev.kind == OwnerKind::gpu;
          const double node_shards = row_shards_on_node(tp, dev.node, in.problem);
          ow.pooled_values += values;
          ow.pooled_out += (gpu ? gpu_out : comm) * values;
          ow.pooled_grad += (gpu ? gpu_grad : comm) * values;
          ow.pooled_node_reduced += (gpu ? gpu_out : comm) * values / node_shards;
          ow.pooled_grad_node_reduced += (gpu ? gpu_grad : comm) * values / node_shards;
          ow.ids_in += placement::kIndexBytes * lookups;
          if (gpu) table_out.gpu_pooled_values += values;
        }
        switch (dev.kind) {
          case OwnerKind::gpu: {
            const topo::DeviceId gpu{dev.topology_id};
            const topo::DeviceProfile& prof = in.profiles.get(in.platform.gpu_spec(gpu));
            ++ow.gpu_tables;
            // The one GPU embedding cost model, as the shard's tier composes it (the planner's too).
            const auto c = placement::tier_of(shard.tier).cost({in.problem, dev, table, w, &prof, software});
            ow.backward_compute += c.separate_optimizer;
            ow.hbm_backward += c.hbm_separate_optimizer;
            ow.hbm_forward += c.hbm_forward;
            ow.hbm_backward += c.hbm_backward;
            ow.forward_compute += c.forward;
            // Updates happen in the HBM cache; evicted rows are written back over PCIe.
            ow.backward_compute += c.backward;
            if (c.host_rows > 0.0) {
              if (!in.platform.host_cpu(gpu)) {
                throw std::invalid_argument("GPU '" + dev.name + "' holds a uvm shard but has no host CPU");
              }
              ow.uvm_bytes += c.host_bytes;
              ow.uvm_time += c.host_time;
            }
            // ssd: the drives' page reads of the misses and writes of the evicted rows.
            ow.ssd_read += c.storage_read;
            ow.ssd_write += c.storage_write;
            ow.ssd_prefetched = ow.ssd_prefetched || c.prefetched;
            break;
          }
          case OwnerKind::cpu_socket: {
            const auto& spec = in.platform.cpu_spec(topo::DeviceId{dev.topology_id});
            auto cpu = cpu_row_access(in, spec);
            if (shard.tier == placement::Tier::cxl) {
              if (!spec.cxl) throw std::invalid_argument("CPU '" + dev.name + "' holds a cxl shard but has no CXL memory");
              cpu = topo::with_cxl_memory(cpu, *spec.cxl);
            }
            if (w.serial_update_share > 0.0 && !(cpu.latency.value() > 0.0 && cpu.one_core.value() > 0.0)) {
              throw std::invalid_argument("CPU '" + spec.model +
                                          "' gives no dram_latency, which the software stack's striped host "
                                          "updates (software.embeddings.host_update) need");
            }
            ow.forward_compute += topo::cpu_gather_time(cpu, lookups, row);
            ow.backward_compute +=
                topo::cpu_update_time(cpu, lookups, row, table.optimizer_state_per_row, w.serial_update_share);
            ++ow.cpu_tables;
            ow.cpu_lookup_bytes += row * lookups;
            break;
          }
          case OwnerKind::parameter_server: {
            const topo::NodeId node{dev.topology_id};
            const auto cpus = in.platform.cpus(node);
            if (cpus.empty()) throw std::invalid_argument("parameter server '" + dev.name + "' has no CPU socket");
            // The node's sockets share the work evenly; times are per socket.
            const auto cpu = role_cpu_access(in, in.platform.cpu_spec(cpus.front()), node, true);
            const double share = lookups / static_cast<double>(cpus.size());
            ow.forward_compute += topo::cpu_gather_time(cpu, share, row);
            ow.backward_compute += topo::cpu_update_time(cpu, share, row, table.optimizer_state_per_row);
            break;
          }
          case OwnerKind::nvme:
          case OwnerKind::cxl_memory:
            throw std::logic_error("storage device '" + dev.name + "' owns a shard (it only holds ssd or cxl shards)");
        }
      }
    }
  }
  return table_out;
}

topo::CpuRowAccess cpu_row_access(const StepInputs& in, const topo::CpuSocketSpec& cpu) {
  const auto access = topo::CpuRowAccess::of(cpu, in.options.cpu_access_granule);
  if (!access.has_rate()) {
    throw std::invalid_argument("CPU '" + cpu.model + "' has neither a DRAM bandwidth nor a per-core gather bandwidth");
  }
  return access;
}

topo::CpuRowAccess role_cpu_access(const StepInputs& in, const topo::CpuSocketSpec& cpu, topo::NodeId node, bool server) {
  auto access = cpu_row_access(in, cpu);
  access.keyed = server;  // a parameter server resolves ids through its hash map
  const auto& pods = server ? in.options.server_pods : in.options.worker_pods;
  if (pods) {
    // Servers as the placement problem counts them (pod_share's other caller), workers by role.
    const auto nodes = server ? in.problem.devices_of(OwnerKind::parameter_server).size()
                              : nodes_with_role(in.platform, in.options.embedding_worker_role).size();
    access.cores *= pod_share(in.platform, node, *pods, nodes).cpu;
  }
  return access;
}

}  // namespace dlrmsim::models
