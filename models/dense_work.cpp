#include "models/dense_work.hpp"

#include <algorithm>
#include <array>
#include <string>

#include "models/cpu_framework.hpp"

namespace dlrmsim::models {

using sim::ActivityId;

std::vector<ActivityId> DenseWork::reduce_gradients(const std::vector<std::vector<ActivityId>>& layer_done,
                                                            std::span<const ActivityId> last_backward,
                                                            std::uint16_t category) {
  const std::size_t n = ctx_.trainers().size();
  if (n == 0) return {};
  const auto& ops = costs(ctx_.trainers().front());
  const Bytes grad_elem = element_size(ctx_.in.model.communication_precision);
  const bool overlap = ctx_.in.options.software.allreduce_overlaps_backward;
  // DDP's compression hook (software.collectives.qcomm.all_reduce): each bucket cast to the
  // wire type before its all-reduce and back after it (models/quantized_comms.hpp).
  const auto& qcomm = ctx_.in.options.software.qcomm;
  const double wire_ratio =
      wire_bytes_per_value(qcomm.all_reduce, ctx_.in.model.communication_precision, qcomm.int8_row_dim) / grad_elem.value();
  std::vector<ActivityId> prev;
  std::vector<std::vector<ActivityId>> decoded(n);
  auto reduce = [&](Bytes bytes, auto ready_of) {
    const double values = bytes.value() / grad_elem.value();
    std::vector<ActivityId> ready(n);
    for (std::size_t i = 0; i < n; ++i) {
      // The cast runs on the compute stream when the bucket is ready; only the all-reduce
      // itself waits for the previous bucket's (one NCCL stream).
      std::vector<ActivityId> deps{host_.codec(ctx_.trainers()[i], qcomm.all_reduce, values, ready_of(i), category)};
      if (!prev.empty()) deps.push_back(prev[i]);
      ready[i] = ctx_.marker(deps);
    }
    prev = collectives_.all_reduce(bytes * wire_ratio, ready, category);
    if (!qcomm.all_reduce) return;
    for (std::size_t i = 0; i < n; ++i) decoded[i].push_back(host_.codec(ctx_.trainers()[i], qcomm.all_reduce, values, prev[i], category));
  };
  // Buckets close in backward order (top MLP's last layer first). Without overlap the
  // replicated tables' gradients join the last bucket when it has room (one grouped
  // all-reduce, as HugeCTR's grouped_all_reduce does), else they are reduced on their own.
  const Bytes dp = ctx_.owner_work().dp_gradient_bytes;
  bool dp_reduced = dp.value() <= 0.0;
  Bytes acc;
  for (std::size_t l = ops.size(); l-- > 0;) {
    acc += grad_elem * ops[l].parameters;
    if (l == 0 && !overlap && !dp_reduced && acc + dp <= ctx_.in.options.software.allreduce_bucket) {
      acc += dp;
      dp_reduced = true;
    }
    if ((acc >= ctx_.in.options.software.allreduce_bucket || l == 0) && acc.value() > 0.0) {
      reduce(acc, [&](std::size_t i) { return overlap ? layer_done[i][l] : last_backward[i]; });
      acc = Bytes(0.0);
    }
  }
  if (!dp_reduced) reduce(dp, [&](std::size_t i) { return last_backward[i]; });
  if (qcomm.all_reduce && !prev.empty()) {
    for (std::size_t i = 0; i < n; ++i) {
      decoded[i].push_back(prev[i]);
      prev[i] = ctx_.marker(decoded[i]);
    }
  }
  return prev;
}

std::vector<ActivityId> DenseWork::optimizer(std::span<const ActivityId> last_backward,
                                                     std::span<const ActivityId> reduced) {
  const double parameters = ctx_.in.model.dense_parameters();
  std::vector<ActivityId> done;
  for (std::size_t i = 0; i < ctx_.trainers().size(); ++i) {
    const SimDevice& t = ctx_.trainers()[i];
    std::vector<ActivityId> deps{last_backward[i]};
    if (!reduced.empty()) deps.push_back(reduced[i]);
    if (!t.is_gpu) deps = {framework(t, cpu_framework(t).dense_optimizer(), ctx_.marker(deps))};
    const Seconds time = t.is_gpu ? gpu_dense_optimizer_time(ctx_.in.model, *t.profile, parameters)
                                  : cpu_dense_optimizer_time(ctx_.in.model, *t.cpu, parameters);
    // Memory bound: the master weights, gradients and optimiser state over HBM.
    done.push_back(host_.kernels(t, time, 1, deps, ctx_.cat.dense_compute,
                           KernelLoad::memory_bound(dense_optimizer_bytes_per_parameter(ctx_.in.model) * parameters)));
  }
  return done;
}

namespace {
/// A dense operator's kernels load HBM alone when its traffic sets their time, else the SMs and HBM.
KernelLoad dense_load(Bytes hbm, bool memory_bound) {
  return memory_bound ? KernelLoad::memory_bound(hbm) : KernelLoad::sms_and_hbm(hbm);
}

bool in_layers(const DenseOperatorCost& c, DenseWork::Layers layers) {
  return c.before_embeddings == (layers == DenseWork::Layers::bottom_mlp);
}
}  // namespace

CpuTrainerFramework DenseWork::cpu_framework(const SimDevice& trainer) const {
  return CpuTrainerFramework(ctx_.in.options.software, ctx_.in.model, *trainer.cpu, ctx_.local_batch());
}

ActivityId DenseWork::framework(const SimDevice& trainer, const FrameworkWork& work, ActivityId after) {
  if (trainer.is_gpu || work.time.value() <= 0.0) return after;
  const std::array<ActivityId, 1> dep{after};
  return ctx_.compute(trainer, work.time, dep, ctx_.cat.host_work);
}

ActivityId DenseWork::exchange(const SimDevice& trainer, Bytes bytes, ActivityId after) {
  if (bytes.value() <= 0.0 || !trainer.is_gpu) return after;
  // The trainer's group: the context_parallel GPUs of its node around it, in trainer order
  // (select_trainers lists each node's GPUs together).
  const auto& all = ctx_.trainers();
  const auto cp = static_cast<std::size_t>(ctx_.in.options.context_parallel);
  const std::size_t i = static_cast<std::size_t>(
      std::find_if(all.begin(), all.end(), [&](const SimDevice& t) { return t.device == trainer.device; }) - all.begin());
  const std::size_t per_node = std::max<std::size_t>(1, ctx_.trainers_per_node());
  const std::size_t first = i - (i % per_node) % cp;
  const std::array<ActivityId, 1> dep{after};
  std::vector<ActivityId> sent{after};
  for (std::size_t j = first; j < first + cp && j < all.size(); ++j) {
    if (j != i) sent.push_back(collectives_.transfers().send(trainer.device, all[j].device, bytes, dep, ctx_.cat.all_to_all));
  }
  return ctx_.marker(sent);
}

ActivityId DenseWork::forward(const SimDevice& trainer, Layers layers, ActivityId after) {
  const auto& ops = costs(trainer);
  for (std::size_t l = 0; l < ops.size(); ++l) {
    const auto& c = ops[l];
    if (!in_layers(c, layers)) continue;
    if (!trainer.is_gpu) after = framework(trainer, cpu_framework(trainer).layer_forward(ctx_.in.model.dense_layers()[l]), after);
    after = exchange(trainer, c.forward_exchange, after);
    const std::array<ActivityId, 1> dep{after};
    after = host_.kernels(trainer, c.forward, c.forward_kernels, dep, ctx_.cat.dense_compute,
                    dense_load(c.forward_hbm, c.forward_memory_bound));
  }
  return after;
}

ActivityId DenseWork::backward(const SimDevice& trainer, Layers layers, ActivityId after,
                                       std::span<ActivityId> layer_done) {
  const auto& ops = costs(trainer);
  // The loss and its gradient come before the top MLP's backward.
  if (!trainer.is_gpu && layers == Layers::above_bottom) after = framework(trainer, cpu_framework(trainer).loss(), after);
  for (std::size_t l = ops.size(); l-- > 0;) {
    if (!in_layers(ops[l], layers)) continue;
    if (!trainer.is_gpu) after = framework(trainer, cpu_framework(trainer).layer_backward(ctx_.in.model.dense_layers()[l]), after);
    after = exchange(trainer, ops[l].backward_exchange, after);
    const std::array<ActivityId, 1> dep{after};
    after = host_.kernels(trainer, ops[l].backward, ops[l].backward_kernels, dep, ctx_.cat.dense_compute,
                    dense_load(ops[l].backward_hbm, ops[l].backward_memory_bound));
    layer_done[l] = after;
  }
  return after;
}

const std::vector<DenseOperatorCost>& DenseWork::costs(const SimDevice& trainer) {
  const std::string key = trainer.is_gpu ? "gpu:" + trainer.profile->name : "cpu:" + trainer.cpu->model;
  auto it = dense_cache_.find(key);
  if (it != dense_cache_.end()) return it->second;
  std::vector<DenseOperatorCost> out;
  if (trainer.is_gpu) {
    // Context parallelism: the layers over sequences see the samples of the GPU's group.
    const int cp = ctx_.in.options.context_parallel;
    const auto groups = static_cast<std::int64_t>(std::max<std::size_t>(1, ctx_.total_trainers() / static_cast<std::size_t>(cp)));
    out = gpu_dense_costs(ctx_.in.model, *trainer.profile, ctx_.local_batch(), cp, ctx_.in.model.global_batch_size / groups);
  } else {
    const SoftwareStack& stack = ctx_.in.options.software;
    std::optional<CpuCostInput::PerItemGemm> per_item;
    if (stack.cpu_bmm == SoftwareStack::CpuBmm::per_item) per_item = {stack.bmm_item_call, stack.bmm_item_efficiency};
    out = cpu_dense_costs(ctx_.in.model, *trainer.cpu, ctx_.in.options.cpu_dense_efficiency, ctx_.local_batch(), per_item);
  }
  return dense_cache_.emplace(key, std::move(out)).first->second;
}

}  // namespace dlrmsim::models
