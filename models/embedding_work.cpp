#include "models/embedding_work.hpp"

#include "models/cpu_framework.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace dlrmsim::models {

using placement::OwnerKind;
using sim::ActivityId;

SimDevice EmbeddingWork::embedding_device(const SimDevice& d) {
  if (!d.is_gpu || ctx_.in.options.embedding_overlap == TrainingOptions::EmbeddingOverlap::serial) return d;
  auto it = embedding_streams_.find(d.device.index);
  if (it == embedding_streams_.end()) {
    it = embedding_streams_
             .emplace(d.device.index, ctx_.graph.add_stream(ctx_.resources.engine(d.device),
                                                        ctx_.in.platform.device(d.device).name + ".embedding"))
             .first;
  }
  SimDevice e = d;
  e.stream = it->second;
  return e;
}

ActivityId EmbeddingWork::embedding_pass(std::uint32_t o, Pass pass, std::span<const ActivityId> deps) {
  const OwnerWork& w = ctx_.represented_work(o);
  const bool backward = pass == Pass::backward;
  const Seconds work = backward ? w.backward_compute : w.forward_compute;
  std::vector<ActivityId> parts;
  if (ctx_.in.problem.devices.at(o).kind == OwnerKind::parameter_server) {
    for (SimDevice* sock : ctx_.sockets_of(topo::NodeId{ctx_.in.problem.devices[o].topology_id})) {
      parts.push_back(ctx_.compute(*sock, work, deps, ctx_.cat.embedding_lookup));
    }
    return ctx_.marker(parts);
  }
  const SimDevice d = embedding_device(*ctx_.owner_device(o));
  const std::vector<ActivityId> framework = cpu_trainer_framework(d, w, backward, deps);
  if (!framework.empty()) deps = framework;
  const int launches = embedding_kernels(w, backward);
  const Seconds launch =
      d.is_gpu ? d.profile->kernel_launch_overhead() * static_cast<double>(launches) : Seconds(0.0);
  if (!backward) {
    parts.push_back(host_.feature_kernels(d, work + launch, launches, std::max(w.gpu_tables, 1), deps, ctx_.cat.embedding_lookup,
                                    KernelLoad::memory_bound(w.hbm_forward)));
    if (w.ssd_read.value() > 0.0) {
      // The gather waits for its rows' pages (read ahead, with prefetch).
      const auto r = ssd_read(d, o, w, deps);
      parts.push_back(ctx_.compute(d, Seconds(0.0), std::span(&r, 1), ctx_.cat.embedding_lookup));
    }
    if (w.uvm_bytes.value() > 0.0) {
      const auto u = net_.host_dma(d, "uvm", *ctx_.in.platform.host_cpu(d.device), d.device, w.uvm_bytes, w.uvm_time, deps,
                              ctx_.cat.embedding_lookup);
      // The gather kernel holds the stream until its PCIe reads are done.
      parts.push_back(ctx_.compute(d, Seconds(0.0), std::span(&u, 1), ctx_.cat.embedding_lookup));
    }
  } else {
    const auto u = host_.kernels(d, work + launch, launches, deps, ctx_.cat.embedding_lookup, KernelLoad::memory_bound(w.hbm_backward));
    parts.push_back(u);
    if (w.ssd_write.value() > 0.0) {
      ctx_.graph.add_compute(ssd_stream(*ctx_.in.platform.host_cpu(d.device)), w.ssd_write, std::span(&u, 1),
                             ctx_.cat.embedding_lookup);
    }
    if (w.uvm_bytes.value() > 0.0) {
      parts.push_back(net_.host_dma(d, "uvm_write", d.device, *ctx_.in.platform.host_cpu(d.device), w.uvm_bytes, w.uvm_time,
                               std::span(&u, 1), ctx_.cat.embedding_lookup));
    }
  }
  return ctx_.marker(parts);
}

sim::StreamId EmbeddingWork::ssd_stream(topo::DeviceId host) {
  auto it = ssd_streams_.find(host.index);
  if (it == ssd_streams_.end()) {
    const std::string name = ctx_.in.platform.device(host).name + ".nvme";
    it = ssd_streams_.emplace(host.index, ctx_.graph.add_stream(ctx_.graph.add_engine(name, "nvme"), name)).first;
  }
  return it->second;
}

ActivityId EmbeddingWork::ssd_read(const SimDevice& d, std::uint32_t owner, const OwnerWork& w, std::span<const ActivityId> deps) {
  const auto host = ctx_.in.platform.host_cpu(d.device);
  if (!host) throw std::invalid_argument("GPU '" + ctx_.in.problem.devices.at(owner).name + "' holds an ssd shard but has no host CPU");
  std::vector<ActivityId> start(deps.begin(), deps.end());
  if (w.ssd_prefetched) {
    // This batch's rows were read from the previous step's forward on (the first step's at once).
    auto& previous = previous_forward_deps_[owner];
    std::swap(start, previous);
    previous.assign(deps.begin(), deps.end());
  }
  return ctx_.graph.add_compute(ssd_stream(*host), w.ssd_read, start, ctx_.cat.embedding_lookup);
}

std::vector<ActivityId> EmbeddingWork::cpu_trainer_framework(const SimDevice& d, const OwnerWork& w, bool backward,
                                                             std::span<const ActivityId> deps) {
  if (d.is_gpu || w.cpu_tables <= 0 || ctx_.trainers().empty() || ctx_.trainers().front().is_gpu) return {};
  const CpuTrainerFramework fw(ctx_.in.options.software, ctx_.in.model, *d.cpu, ctx_.local_batch());
  const FrameworkWork f = backward ? fw.tables_backward(w.cpu_tables, w.lookups, w.cpu_lookup_bytes) : fw.tables_forward(w.cpu_tables);
  if (f.time.value() <= 0.0) return {};
  return {ctx_.compute(d, f.time, deps, ctx_.cat.host_work)};
}

int EmbeddingWork::embedding_kernels(const OwnerWork& w, bool backward) const {
  const bool batched = ctx_.in.options.software.embedding_kernel == SoftwareStack::EmbeddingKernel::table_batched;
  const int pass = batched ? 1 : std::max(w.gpu_tables, 1);
  return backward && !ctx_.in.options.software.fused_optimizer ? pass + std::max(w.gpu_tables, 1) : pass;
}

}  // namespace dlrmsim::models
