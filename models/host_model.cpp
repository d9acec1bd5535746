#include "models/host_model.hpp"

#include <algorithm>
#include <array>
#include <stdexcept>
#include <string>

#include "placement/lookup_cost.hpp"

namespace dlrmsim::models {

using sim::ActivityId;

HostModel::HostThread& HostModel::host_thread(const SimDevice& d) {
  auto it = host_threads_.find(d.device.index);
  if (it != host_threads_.end()) return it->second;
  // The node's cores: its sockets' physical cores (a thread on a hyperthread sibling shares
  // its core's execution units, so physical cores bound the host work).
  auto cores = node_cores_.find(d.node.index);
  if (cores == node_cores_.end()) {
    int n = 0;
    for (auto c : ctx_.in.platform.cpus(d.node)) n += ctx_.in.platform.cpu_spec(c).cores;
    if (n <= 0) {
      throw std::invalid_argument("node '" + ctx_.in.platform.node(d.node).name +
                                  "' has no CPU cores to run the host work of its GPUs");
    }
    cores = node_cores_.emplace(d.node.index, ctx_.graph.add_cores(ctx_.in.platform.node(d.node).name + ".cores", n)).first;
  }
  const std::string name = ctx_.in.platform.device(d.device).name;
  HostThread h;
  h.route = {ctx_.graph.add_cores(name + ".host_thread", 1.0, "host_thread"), cores->second};
  // Loader threads only when loading costs CPU time (otherwise they would be idle pools).
  const int loaders = ctx_.in.options.software.loader_per_sample.value() > 0.0 ? ctx_.in.options.software.loader_workers : 0;
  for (int w = 0; w < loaders; ++w) {
    h.loader_routes.push_back({ctx_.graph.add_cores(name + ".loader" + std::to_string(w), 1.0, "host_thread"), cores->second});
  }
  return host_threads_.emplace(d.device.index, std::move(h)).first->second;
}

ActivityId HostModel::host_work(HostThread& h, Seconds t) {
  std::vector<ActivityId> deps;
  if (h.last) deps.push_back(*h.last);
  h.last = ctx_.graph.add_cpu_work(t, h.route, deps, ctx_.cat.host_work);
  return *h.last;
}

ActivityId HostModel::kernels(const SimDevice& d, Seconds t, int launches, std::span<const ActivityId> deps,
                                std::uint16_t category, KernelLoad load) {
  // No kernel takes less than its floor (device_profile.hpp), however little its work.
  if (d.is_gpu) t = std::max(t, d.profile->kernel_floor(launches));
  if (!d.is_gpu || launches <= 0 || !ctx_.in.options.software.per_kernel_launch) return ctx_.compute(d, t, deps, category, load);
  HostThread& h = host_thread(d);
  const Seconds per_launch = ctx_.in.options.software.dispatch + d.profile->kernel_launch_overhead();
  std::vector<ActivityId> gpu_deps(deps.begin(), deps.end());
  gpu_deps.push_back(host_work(h, per_launch));
  const ActivityId k = ctx_.compute(d, t, gpu_deps, category, load);
  if (launches == 1) return k;
  const std::array<ActivityId, 2> both{k, host_work(h, per_launch * static_cast<double>(launches - 1))};
  return ctx_.marker(both);
}

ActivityId HostModel::feature_kernels(const SimDevice& d, Seconds t, int launches, int features,
                                        std::span<const ActivityId> deps, std::uint16_t category, KernelLoad load) {
  if (ctx_.in.options.software.sync != SoftwareStack::HostSync::per_feature || !d.is_gpu || features <= 1) {
    return kernels(d, t, launches, deps, category, load);
  }
  std::vector<ActivityId> after(deps.begin(), deps.end());
  const int per_piece = std::max(1, launches / features);
  ActivityId last{};
  for (int f = 0; f < features; ++f) {
    const KernelLoad piece{load.sms, load.hbm / static_cast<double>(features)};
    last = kernels(d, t / static_cast<double>(features), per_piece, after, category, piece);
    host_wait(d, last);
    after = {last};
  }
  return last;
}

void HostModel::host_wait(const SimDevice& d, ActivityId done) {
  if (!d.is_gpu) return;
  HostThread& h = host_thread(d);
  std::vector<ActivityId> deps{done};
  if (h.last) deps.push_back(*h.last);
  h.last = ctx_.marker(deps);
}

void HostModel::host_operators(const SimDevice& d, int count) {
  if (!d.is_gpu || count <= 0 || ctx_.in.options.software.dispatch.value() <= 0.0) return;
  host_work(host_thread(d), ctx_.in.options.software.dispatch * static_cast<double>(count));
}

ActivityId HostModel::host_call(const SimDevice& d, ActivityId after) {
  if (!d.is_gpu || ctx_.in.options.software.dispatch.value() <= 0.0) return after;
  const std::array<ActivityId, 2> both{after, host_work(host_thread(d), ctx_.in.options.software.dispatch)};
  return ctx_.marker(both);
}

ActivityId HostModel::codec(const SimDevice& d, std::optional<Precision> codec, double values, ActivityId after,
                           std::uint16_t category) {
  if (!codec || !d.is_gpu || !(values > 0.0)) return after;
  const Bytes bytes =
      codec_hbm_bytes(codec, ctx_.in.model.communication_precision, values, ctx_.in.options.software.qcomm.int8_row_dim);
  const Seconds t = bytes / d.profile->achievable_hbm_bandwidth();
  return kernels(d, t, 1, std::span(&after, 1), category, KernelLoad::memory_bound(bytes));
}

void HostModel::read_back(const SimDevice& d, ActivityId also) {
  if (!d.is_gpu) return;
  std::vector<ActivityId> deps{also};
  const std::uint32_t last = ctx_.graph.stream(d.stream).last_task;
  if (last != sim::Stream::kNone) deps.push_back(ActivityId{last});
  host_wait(d, ctx_.marker(deps));
}

void HostModel::host_step_end(const SimDevice& d, ActivityId step_end) {
  if (ctx_.in.options.software.sync != SoftwareStack::HostSync::none) host_wait(d, step_end);
}

ActivityId HostModel::step_input(std::size_t i, int s, std::span<const ActivityId> step_end) {
  const SimDevice& d = ctx_.trainers().at(i);
  prev_copy_.resize(ctx_.trainers().size());
  prev_load_.resize(ctx_.trainers().size());
  std::vector<ActivityId> after;  // the previous step's counterpart and the end of step s-2
  if (s > 1) after.push_back(step_end[static_cast<std::size_t>(s) - 2]);
  // Loading on the node's cores: the local batch split evenly over the loader threads
  // (PyTorch DataLoader workers each assemble whole batches; the split is the steady-state
  // rate of that round robin).
  std::vector<ActivityId> load_deps = after;
  if (s > 0) load_deps.push_back(prev_load_[i]);
  if (auto read = dataset_read(i, s)) load_deps.push_back(*read);
  const Seconds per_sample = ctx_.in.options.software.loader_per_sample;
  if (d.is_gpu && per_sample.value() > 0.0) {
    HostThread& h = host_thread(d);
    const Seconds each = per_sample * (static_cast<double>(ctx_.local_batch()) / static_cast<double>(h.loader_routes.size()));
    std::vector<ActivityId> parts;
    for (const auto& route : h.loader_routes) parts.push_back(ctx_.graph.add_cpu_work(each, route, load_deps, ctx_.cat.host_work));
    prev_load_[i] = ctx_.marker(parts);
  } else {
    prev_load_[i] = ctx_.marker(load_deps);
  }
  if (s > 1) host_wait(d, step_end[static_cast<std::size_t>(s) - 2]);
  std::vector<ActivityId> copy_deps = after;
  if (s > 0) copy_deps.push_back(prev_copy_[i]);
  copy_deps.push_back(prev_load_[i]);
  prev_copy_[i] = input_copy(d, copy_deps);
  host_operators(d, ctx_.in.options.software.feature_operators * static_cast<int>(ctx_.in.model.table_count()));
  const auto& stack = ctx_.in.options.software;
  const Seconds framework = stack.framework_per_step + stack.framework_per_sample * static_cast<double>(ctx_.local_batch());
  if (d.is_gpu && framework.value() > 0.0) host_work(host_thread(d), framework);
  return prev_copy_[i];
}

std::optional<ActivityId> HostModel::dataset_read(std::size_t i, int s) {
  const int in_flight = ctx_.in.options.software.loader_batches_in_flight;
  const auto& storage = ctx_.in.platform.storage();
  if (in_flight <= 0 || !storage || !(storage->dataset_read_latency.value() > 0.0)) return std::nullopt;
  // The node's reader keeps `in_flight` reads of latency L outstanding, so in steady state it
  // hands over one batch every L / in_flight: a chain of that occupancy per batch on a stream
  // of the node's reader, one read per node and step, shared by the node's trainers. (The
  // pipeline's fill, the first batch after L, lies in the warm-up steps.)
  const std::uint32_t node = ctx_.trainers().at(i).node.index;
  Reader& r = readers_[node];
  if (!r.stream) {
    const std::string name = ctx_.in.platform.node(topo::NodeId{node}).name + ".reader";
    r.stream = ctx_.graph.add_stream(ctx_.graph.add_engine(name, "reader"), name);
  }
  if (r.step != s) {
    r.step = s;
    r.read = ctx_.graph.add_compute(*r.stream, storage->dataset_read_latency / static_cast<double>(in_flight), {},
                                    ctx_.cat.host_work);
  }
  return r.read;
}

Bytes HostModel::input_bytes(std::int64_t samples) const {
  // Dense features in fp32, one index per lookup, one length per (sample, table), a label.
  const double s = static_cast<double>(samples);
  return element_size(Precision::fp32) * (s * (ctx_.in.model.dense_features + 1.0)) +
         placement::kIndexBytes * (s * (ctx_.in.model.lookups_per_sample() + static_cast<double>(ctx_.in.model.table_count())));
}

ActivityId HostModel::input_copy(const SimDevice& trainer, std::span<const ActivityId> deps) {
  if (!trainer.is_gpu) return ctx_.marker(deps);
  const auto host = ctx_.in.platform.host_cpu(trainer.device);
  if (!host) return ctx_.marker(deps);
  const Bytes raw = input_bytes(ctx_.local_batch());
  // The copy engine's measured bandwidth (its fixed latency is the route's latency); a
  // profile without one copies at the route's bandwidth.
  const BytesPerSecond copy = trainer.profile->copy(topo::CopyKind::h2d_pinned).bandwidth;
  const Seconds solo = raw / (copy.value() > 0.0 ? copy : ctx_.in.platform.route_bandwidth(*host, trainer.device));
  return net_.host_dma(trainer, "h2d", *host, trainer.device, raw, solo, deps, ctx_.cat.host_device_copy);
}

}  // namespace dlrmsim::models
