#include "models/step_builder.hpp"

#include <algorithm>
#include <limits>
#include <set>
#include <stdexcept>

#include "models/fidelity.hpp"
#include "placement/lookup_cost.hpp"
#include "topologies/platform_data.hpp"

namespace dlrmsim::models {

using sim::ActivityId;
using placement::DeviceKind;
using placement::Tier;

// ---- construction ---------------------------------------------------------------------------

StepBuilder::StepBuilder(const ModelSpec& model, const topo::Platform& platform,
                         const placement::PlacementProblem& problem, const placement::PlacementPlan& plan,
                         const topo::DeviceProfileSet& profiles, const TrainingOptions& options, sim::ActivityGraph& graph)
    : StepBuilder(model, platform, problem, plan, profiles, options, graph, topo::export_platform(platform, graph)) {}

StepBuilder::StepBuilder(const ModelSpec& model, const topo::Platform& platform,
                         const placement::PlacementProblem& problem, const placement::PlacementPlan& plan,
                         const topo::DeviceProfileSet& profiles, const TrainingOptions& options, sim::ActivityGraph& graph,
                         topo::PlatformResources resources)
    : model_(model),
      platform_(platform),
      problem_(problem),
      plan_(plan),
      profiles_(profiles),
      options_(options),
      graph_(graph),
      resources_(std::move(resources)) {
  cat_ = Categories::add_to(graph_);
}

StepBuilder::~StepBuilder() = default;

const ClusterFidelity& StepBuilder::fidelity() const {
  if (!fidelity_) throw std::logic_error("the step builder's fidelity is chosen by select_trainers()");
  return *fidelity_;
}

bool StepBuilder::representative() const { return fidelity_ && fidelity_->representative(); }

void StepBuilder::select_trainers(bool cpu_trainers) {
  const auto kind = cpu_trainers ? DeviceKind::cpu_socket : DeviceKind::gpu;
  const auto ids = problem_.devices_of(kind);
  if (ids.empty()) {
    throw std::invalid_argument(std::string("training mode '") + options_.mode + "' needs " +
                                (cpu_trainers ? "CPU sockets" : "GPUs") + " as trainers; the platform has none");
  }
  std::map<std::uint32_t, std::vector<topo::DeviceId>> by_node;
  for (auto i : ids) {
    const topo::DeviceId d{problem_.devices[i].topology_id};
    by_node[platform_.node_of(d).index].push_back(d);
  }
  total_trainers_ = ids.size();
  trainer_nodes_ = by_node.size();
  trainers_per_node_ = by_node.begin()->second.size();
  compute_owner_work();
  fidelity_ = ClusterFidelity::choose(FidelityInputs{
      platform_, problem_, options_, owner_work_, by_node,
      [this](topo::DeviceId d) { return narrowest(egress_route(d)); },
      [this](topo::DeviceId d) { return narrowest(ingress_route(d)); }});
  trainers_.clear();
  for (const auto& [n, devs] : by_node) {
    if (!fidelity_->simulates_node(topo::NodeId{n})) continue;
    for (auto d : devs) trainers_.push_back(sim_device(d));
  }
  built_.simulated_trainers = trainers_.size();
  built_.total_trainers = total_trainers_;
  built_.fidelity = fidelity_->description();
}

std::int64_t StepBuilder::local_batch() const {
  return std::max<std::int64_t>(1, model_.global_batch_size / static_cast<std::int64_t>(std::max<std::size_t>(1, total_trainers_)));
}

SimDevice& StepBuilder::sim_device(topo::DeviceId d) {
  auto it = devices_.find(d.index);
  if (it != devices_.end()) return it->second;
  SimDevice s;
  s.device = d;
  s.node = platform_.node_of(d);
  const auto& dev = platform_.device(d);
  s.stream = graph_.add_stream(resources_.engine(d), dev.name + ".compute");
  if (dev.kind == topo::DeviceKind::gpu) {
    s.is_gpu = true;
    s.profile = &profiles_.get(platform_.gpu_spec(d));
    const auto gpus = platform_.gpus(s.node);
    s.local_index = static_cast<int>(std::find(gpus.begin(), gpus.end(), d) - gpus.begin());
  } else if (dev.kind == topo::DeviceKind::cpu) {
    s.cpu = &platform_.cpu_spec(d);
    const auto cpus = platform_.cpus(s.node);
    s.local_index = static_cast<int>(std::find(cpus.begin(), cpus.end(), d) - cpus.begin());
  } else {
    throw std::invalid_argument("device '" + dev.name + "' is neither a GPU nor a CPU socket and cannot compute");
  }
  return devices_.emplace(d.index, s).first->second;
}

SimDevice StepBuilder::embedding_device(const SimDevice& d) {
  if (!d.is_gpu || options_.embedding_overlap == TrainingOptions::EmbeddingOverlap::serial) return d;
  auto it = embedding_streams_.find(d.device.index);
  if (it == embedding_streams_.end()) {
    it = embedding_streams_
             .emplace(d.device.index, graph_.add_stream(resources_.engine(d.device),
                                                        platform_.device(d.device).name + ".embedding"))
             .first;
  }
  SimDevice e = d;
  e.stream = it->second;
  return e;
}

std::vector<SimDevice*> StepBuilder::sockets_of(topo::NodeId node) {
  std::vector<SimDevice*> out;
  for (auto c : platform_.cpus(node)) out.push_back(&sim_device(c));
  if (out.empty()) throw std::invalid_argument("node '" + platform_.node(node).name + "' has no CPU socket");
  return out;
}

std::vector<topo::NodeId> StepBuilder::nodes_with_role(const std::string& role) const {
  std::vector<topo::NodeId> out;
  for (const auto& g : platform_.groups()) {
    if (g.role != role && g.name != role) continue;
    for (std::uint32_t i = 0; i < g.node_count; ++i) out.push_back(topo::NodeId{g.first_node.index + i});
  }
  return out;
}

// ---- embedding work -------------------------------------------------------------------------

void StepBuilder::compute_owner_work() {
  owner_work_.assign(problem_.devices.size(), OwnerWork{});
  for (std::uint32_t i = 0; i < owner_work_.size(); ++i) owner_work_[i].owner = i;
  const Bytes comm = element_size(model_.communication_precision);
  dp_gradient_bytes_ = Bytes(0.0);
  for (const auto& tp : plan_.tables) {
    const auto& table = problem_.tables.at(tp.table);
    if (tp.sharding == placement::Sharding::data_parallel) {
      // TorchRec all-reduces the dense gradient of a replicated table (rows x dim).
      dp_gradient_bytes_ += comm * (static_cast<double>(table.rows) * table.dim);
    }
    const double distinct_fraction =
        tp.distinct_fraction ? *tp.distinct_fraction : placement::table_distinct_fraction(problem_, table);
    for (const auto& shard : tp.shards) {
      const auto w = placement::shard_work(problem_, table, shard, tp.sharding, distinct_fraction);
      for (auto o : shard.owners) {
        OwnerWork& ow = owner_work_.at(o);
        const auto& dev = problem_.devices.at(o);
        const Bytes row = table.element_size * static_cast<double>(w.columns);
        const double lookups = w.lookups;
        const double pooling = w.samples > 0.0 ? lookups / w.samples : 1.0;
        const double distinct = lookups > 0.0 && options_.software.deduplicated_backward
                                    ? std::clamp(w.distinct_rows / lookups, 1e-12, 1.0)
                                    : 1.0;
        ow.any = true;
        ow.lookups += lookups;
        if (tp.sharding != placement::Sharding::data_parallel) {
          ow.pooled_out += comm * (w.samples * w.columns);
          ow.ids_in += placement::kIndexBytes * lookups;
        }
        Optimizer opt = model_.embedding_optimizer;
        switch (dev.kind) {
          case DeviceKind::gpu: {
            const topo::DeviceId gpu{dev.topology_id};
            const topo::DeviceProfile& prof = profiles_.get(platform_.gpu_spec(gpu));
            ++ow.gpu_tables;
            if (!options_.software.fused_optimizer) {
              ow.backward_compute += gpu_embedding_separate_optimizer_time(prof, {lookups, row, pooling, w.columns});
              ow.hbm_backward += row * (2.0 * lookups);  // the sparse gradient written and read back
            }
            // HBM bytes: the forward reads the rows found in HBM and writes the pooled bags; the
            // backward reads the bags' gradients and reads and writes each updated row and its
            // optimiser state (cost_models.hpp's update model).
            const double in_hbm = shard.tier == Tier::uvm ? lookups * shard.expected_hit_rate : lookups;
            const Bytes bags = comm * (w.samples * w.columns);
            ow.hbm_forward += row * in_hbm + bags;
            ow.hbm_backward += bags + (row + table.optimizer_state_per_row) * (2.0 * lookups * distinct);
            if (shard.tier == Tier::uvm) {
              const double hits = lookups * shard.expected_hit_rate;
              const double misses = lookups - hits;
              ow.forward_compute += gpu_embedding_forward_time(prof, {hits, row, pooling, w.columns});
              // Updates happen in the HBM cache; evicted rows are written back over PCIe.
              ow.backward_compute +=
                  gpu_embedding_backward_time(prof, {lookups, row, pooling, w.columns, distinct}, opt);
              if (misses > 0.0) {
                const auto host = platform_.host_cpu(gpu);
                if (!host) throw std::invalid_argument("GPU '" + dev.name + "' holds a uvm shard but has no host CPU");
                ow.uvm_bytes += row * misses;
                ow.uvm_time += prof.uvm_gather_time(misses, row);
              }
            } else {
              ow.forward_compute += gpu_embedding_forward_time(prof, {lookups, row, pooling, w.columns});
              ow.backward_compute +=
                  gpu_embedding_backward_time(prof, {lookups, row, pooling, w.columns, distinct}, opt);
            }
            break;
          }
          case DeviceKind::cpu_socket: {
            const auto& spec = platform_.cpu_spec(topo::DeviceId{dev.topology_id});
            const auto cpu = cpu_row_access(spec);
            if (w.serial_update_share > 0.0 && !(cpu.latency.value() > 0.0 && cpu.one_core.value() > 0.0)) {
              throw std::invalid_argument("CPU '" + spec.model +
                                          "' gives no dram_latency, which the software stack's striped host "
                                          "updates (software.embeddings.host_update) need");
            }
            ow.forward_compute += topo::cpu_gather_time(cpu, lookups, row);
            ow.backward_compute +=
                topo::cpu_update_time(cpu, lookups, row, table.optimizer_state_per_row, w.serial_update_share);
            break;
          }
          case DeviceKind::parameter_server: {
            const topo::NodeId node{dev.topology_id};
            const auto cpus = platform_.cpus(node);
            if (cpus.empty()) throw std::invalid_argument("parameter server '" + dev.name + "' has no CPU socket");
            // The node's sockets share the work evenly; times are per socket.
            const auto cpu = role_cpu_access(platform_.cpu_spec(cpus.front()), node, true);
            const double share = lookups / static_cast<double>(cpus.size());
            ow.forward_compute += topo::cpu_gather_time(cpu, share, row);
            ow.backward_compute += topo::cpu_update_time(cpu, share, row, table.optimizer_state_per_row);
            break;
          }
        }
      }
    }
  }
}

topo::CpuRowAccess StepBuilder::cpu_row_access(const topo::CpuSocketSpec& cpu) const {
  const auto access = topo::CpuRowAccess::of(cpu, options_.cpu_access_granule);
  if (!access.has_rate()) {
    throw std::invalid_argument("CPU '" + cpu.model + "' has neither a DRAM bandwidth nor a per-core gather bandwidth");
  }
  return access;
}

topo::CpuRowAccess StepBuilder::role_cpu_access(const topo::CpuSocketSpec& cpu, topo::NodeId node, bool server) const {
  auto access = cpu_row_access(cpu);
  access.keyed = server;  // a parameter server resolves ids through its hash map
  const auto& pods = server ? options_.server_pods : options_.worker_pods;
  if (pods) {
    // Servers as the placement problem counts them (pod_share's other caller), workers by role.
    const auto nodes = server ? problem_.devices_of(DeviceKind::parameter_server).size()
                              : nodes_with_role(options_.embedding_worker_role).size();
    access.cores *= placement::pod_share(platform_, node, *pods, nodes).cpu;
  }
  return access;
}

const OwnerWork& StepBuilder::represented_work(std::uint32_t owner) const { return fidelity().represented_work(owner); }

bool StepBuilder::plan_uses(Tier tier) const {
  for (const auto& tp : plan_.tables) {
    for (const auto& s : tp.shards) {
      if (s.tier == tier) return true;
    }
  }
  return false;
}

std::vector<std::uint32_t> StepBuilder::simulated_owners(DeviceKind kind) const {
  return fidelity().simulated_owners(kind);
}

SimDevice* StepBuilder::owner_device(std::uint32_t owner) {
  const auto& dev = problem_.devices.at(owner);
  if (dev.kind == DeviceKind::parameter_server) return sockets_of(topo::NodeId{dev.topology_id}).front();
  return &sim_device(topo::DeviceId{dev.topology_id});
}

// ---- activities -----------------------------------------------------------------------------

ActivityId StepBuilder::compute(const SimDevice& d, Seconds t, std::span<const ActivityId> deps, std::uint16_t category,
                                KernelLoad load) {
  if (slowdowns_ && (category == cat_.embedding_lookup ? slowdowns_->options().memory : slowdowns_->options().compute)) {
    t = t * fidelity().device_slowdown(*slowdowns_, step_, d.device);
  }
  const auto sms = d.is_gpu ? resources_.sms(d.device) : std::nullopt;
  const bool on_sms = load.sms && sms;  // else a GPU without an SM pool, or a CPU: fixed duration
  const bool on_hbm = d.is_gpu && load.hbm.value() > 0.0 && t.value() > 0.0 && (on_sms || !load.sms);
  // Alone the kernel takes t over all the SMs and/or moves its bytes at hbm / t; beside other
  // streams' kernels, copies and NCCL's kernels (nccl_sms) it gets its max-min share of each.
  const sim::ResourceId memory = on_hbm ? resources_.memory(d.device) : sim::ResourceId{};
  const double sm_rate = on_sms ? graph_.resource(*sms).capacity.value() : 0.0;
  if (on_sms && on_hbm) {
    const std::array parts{sim::ActivityGraph::KernelPart{t.value() * sm_rate, std::span(&*sms, 1)},
                           sim::ActivityGraph::KernelPart{load.hbm.value(), std::span(&memory, 1)}};
    return graph_.add_kernel(d.stream, t, parts, deps, category);
  }
  if (on_hbm) {
    return graph_.add_kernel(d.stream, load.hbm.value(), (load.hbm / t).value(), std::span(&memory, 1), deps, category);
  }
  if (on_sms) return graph_.add_kernel(d.stream, t.value() * sm_rate, sm_rate, std::span(&*sms, 1), deps, category);
  return graph_.add_compute(d.stream, t, deps, category);
}

ActivityId StepBuilder::marker(std::span<const ActivityId> deps) { return graph_.add_marker(deps, cat_.sync); }

// ---- host work --------------------------------------------------------------------------------

StepBuilder::HostThread& StepBuilder::host_thread(const SimDevice& d) {
  auto it = host_threads_.find(d.device.index);
  if (it != host_threads_.end()) return it->second;
  // The node's cores: its sockets' physical cores (a thread on a hyperthread sibling shares
  // its core's execution units, so physical cores bound the host work).
  auto cores = node_cores_.find(d.node.index);
  if (cores == node_cores_.end()) {
    int n = 0;
    for (auto c : platform_.cpus(d.node)) n += platform_.cpu_spec(c).cores;
    if (n <= 0) {
      throw std::invalid_argument("node '" + platform_.node(d.node).name +
                                  "' has no CPU cores to run the host work of its GPUs");
    }
    cores = node_cores_.emplace(d.node.index, graph_.add_cores(platform_.node(d.node).name + ".cores", n)).first;
  }
  const std::string name = platform_.device(d.device).name;
  HostThread h;
  h.route = {graph_.add_cores(name + ".host_thread", 1.0, "host_thread"), cores->second};
  // Loader threads only when loading costs CPU time (otherwise they would be idle pools).
  const int loaders = options_.software.loader_per_sample.value() > 0.0 ? options_.software.loader_workers : 0;
  for (int w = 0; w < loaders; ++w) {
    h.loader_routes.push_back({graph_.add_cores(name + ".loader" + std::to_string(w), 1.0, "host_thread"), cores->second});
  }
  return host_threads_.emplace(d.device.index, std::move(h)).first->second;
}

ActivityId StepBuilder::host_work(HostThread& h, Seconds t) {
  std::vector<ActivityId> deps;
  if (h.last) deps.push_back(*h.last);
  h.last = graph_.add_cpu_work(t, h.route, deps, cat_.host_work);
  return *h.last;
}

ActivityId StepBuilder::kernels(const SimDevice& d, Seconds t, int launches, std::span<const ActivityId> deps,
                                std::uint16_t category, KernelLoad load) {
  if (!d.is_gpu || launches <= 0 || !options_.software.per_kernel_launch) return compute(d, t, deps, category, load);
  HostThread& h = host_thread(d);
  const Seconds per_launch = options_.software.dispatch + d.profile->kernel_launch_overhead();
  std::vector<ActivityId> gpu_deps(deps.begin(), deps.end());
  gpu_deps.push_back(host_work(h, per_launch));
  const ActivityId k = compute(d, t, gpu_deps, category, load);
  if (launches == 1) return k;
  const std::array<ActivityId, 2> both{k, host_work(h, per_launch * static_cast<double>(launches - 1))};
  return marker(both);
}

ActivityId StepBuilder::feature_kernels(const SimDevice& d, Seconds t, int launches, int features,
                                        std::span<const ActivityId> deps, std::uint16_t category, KernelLoad load) {
  if (options_.software.sync != SoftwareStack::HostSync::per_feature || !d.is_gpu || features <= 1) {
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

void StepBuilder::host_wait(const SimDevice& d, ActivityId done) {
  if (!d.is_gpu) return;
  HostThread& h = host_thread(d);
  std::vector<ActivityId> deps{done};
  if (h.last) deps.push_back(*h.last);
  h.last = marker(deps);
}

void StepBuilder::host_operators(const SimDevice& d, int count) {
  if (!d.is_gpu || count <= 0 || options_.software.dispatch.value() <= 0.0) return;
  host_work(host_thread(d), options_.software.dispatch * static_cast<double>(count));
}

void StepBuilder::begin_step(int step) {
  step_ = step;
  auto& first = built_.step_first_activity;
  const auto count = static_cast<std::uint32_t>(graph_.activity_count());
  if (step >= 0 && static_cast<std::size_t>(step) >= first.size()) first.resize(static_cast<std::size_t>(step) + 1, count);
}

void StepBuilder::host_step_end(const SimDevice& d, ActivityId step_end) {
  if (options_.software.sync != SoftwareStack::HostSync::none) host_wait(d, step_end);
}

ActivityId StepBuilder::step_input(std::size_t i, int s, std::span<const ActivityId> step_end) {
  SimDevice& d = trainers_.at(i);
  prev_copy_.resize(trainers_.size());
  prev_load_.resize(trainers_.size());
  std::vector<ActivityId> after;  // the previous step's counterpart and the end of step s-2
  if (s > 1) after.push_back(step_end[static_cast<std::size_t>(s) - 2]);
  // Loading on the node's cores: the local batch split evenly over the loader threads
  // (PyTorch DataLoader workers each assemble whole batches; the split is the steady-state
  // rate of that round robin).
  std::vector<ActivityId> load_deps = after;
  if (s > 0) load_deps.push_back(prev_load_[i]);
  const Seconds per_sample = options_.software.loader_per_sample;
  if (d.is_gpu && per_sample.value() > 0.0) {
    HostThread& h = host_thread(d);
    const Seconds each = per_sample * (static_cast<double>(local_batch()) / static_cast<double>(h.loader_routes.size()));
    std::vector<ActivityId> parts;
    for (const auto& route : h.loader_routes) parts.push_back(graph_.add_cpu_work(each, route, load_deps, cat_.host_work));
    prev_load_[i] = marker(parts);
  } else {
    prev_load_[i] = marker(load_deps);
  }
  if (s > 1) host_wait(d, step_end[static_cast<std::size_t>(s) - 2]);
  std::vector<ActivityId> copy_deps = after;
  if (s > 0) copy_deps.push_back(prev_copy_[i]);
  copy_deps.push_back(prev_load_[i]);
  prev_copy_[i] = input_copy(d, copy_deps);
  host_operators(d, options_.software.feature_operators * static_cast<int>(model_.table_count()));
  return prev_copy_[i];
}

double StepBuilder::link_factor(std::span<const sim::ResourceId> route) const {
  if (!slowdowns_ || !slowdowns_->options().links) return 1.0;
  // Link resources are exported in directed-link order (topologies/engine_export.hpp).
  const std::uint32_t first = resources_.link_resource(topo::DirectedLinkId{0}).index;
  const std::uint32_t count = static_cast<std::uint32_t>(platform_.directed_link_count());
  double factor = 1.0;
  for (sim::ResourceId r : route) {
    if (r.index >= first && r.index - first < count) {
      factor = std::max(factor, fidelity().link_slowdown(*slowdowns_, step_, topo::DirectedLinkId{r.index - first}));
    }
  }
  return factor;
}

ActivityId StepBuilder::transfer(Bytes bytes, std::span<const sim::ResourceId> route, std::span<const ActivityId> deps,
                                 std::uint16_t category) {
  if (route.empty() || bytes.value() <= 0.0) return marker(deps);
  return graph_.add_transfer(bytes * link_factor(route), route, deps, category);
}

ActivityId StepBuilder::host_dma(const SimDevice& gpu, std::string_view queue, topo::DeviceId from, topo::DeviceId to,
                                 Bytes bytes, Seconds solo, std::span<const ActivityId> deps, std::uint16_t category) {
  if (bytes.value() <= 0.0 || solo.value() <= 0.0) return marker(deps);
  const auto host = platform_.device(from).kind == topo::DeviceKind::cpu ? from : to;
  std::vector<sim::ResourceId> route{resources_.memory(host)};
  resources_.append_route_resources(from, to, route);
  // A slowed link carries its bytes `factor` times slower: the DMA moves that many more bytes
  // at its own rate, as transfer() does.
  const double factor = link_factor(route);
  return graph_.add_kernel(side_stream(gpu, queue, true), bytes.value() * factor, (bytes / solo).value(), route, deps,
                           category);
}

sim::StreamId StepBuilder::side_stream(const SimDevice& gpu, std::string_view name, bool copy_engine) {
  const auto key = std::make_pair(gpu.device.index, std::string(name));
  auto q = side_streams_.find(key);
  if (q != side_streams_.end()) return q->second;
  const std::string& device = platform_.device(gpu.device).name;
  sim::EngineId engine = graph_.stream(gpu.stream).engine;
  if (copy_engine) {
    auto e = copy_engines_.find(gpu.device.index);
    if (e == copy_engines_.end()) e = copy_engines_.emplace(gpu.device.index, graph_.add_engine(device + ".copy", "copy_engine")).first;
    engine = e->second;
  }
  return side_streams_.emplace(key, graph_.add_stream(engine, device + "." + key.second)).first->second;
}

void StepBuilder::nccl_kernel(const SimDevice& gpu, Bytes intra, Bytes inter, ActivityId start, std::uint16_t category) {
  if (!gpu.is_gpu) return;
  const auto sms = resources_.sms(gpu.device);
  if (!sms) return;
  const NcclView& view = nccl_view(gpu);
  const int k = options_.software.nccl_sms(platform_.gpu_spec(gpu.device).sm_count,
                                           view.nvlink && options_.software.peer_to_peer);  // NCCL_P2P_DISABLE hides NVLink
  if (k <= 0) return;
  Seconds solo{intra.value() * view.intra_seconds_per_byte};
  if (inter.value() > 0.0) solo = std::max(solo, inter / narrowest(egress_route(gpu.device)));
  if (solo.value() <= 0.0) return;
  const double rate = k * sim::kWorkUnitsPerCoreSecond;
  graph_.add_kernel(side_stream(gpu, "nccl." + graph_.categories()[category]), solo.value() * rate, rate,
                    std::span(&*sms, 1), std::span(&start, 1), category);
}

const StepBuilder::NcclView& StepBuilder::nccl_view(const SimDevice& gpu) {
  auto it = nccl_views_.find(gpu.device.index);
  if (it != nccl_views_.end()) return it->second;
  // One byte spread evenly over the node's other GPUs along the platform's routes: the
  // busiest link's share of it over that link's bandwidth is the time per byte alone.
  NcclView v;
  const auto peers = platform_.gpus(gpu.node);
  std::map<std::uint32_t, double> load;  // bytes per directed link
  for (const topo::DeviceId p : peers) {
    if (p == gpu.device) continue;
    for (const auto l : platform_.route(gpu.device, p)) {
      load[l.index] += 1.0 / static_cast<double>(peers.size() - 1);
      v.nvlink |= platform_.link(topo::link_of(l)).resource_class == "nvlink";
    }
  }
  for (const auto& [l, bytes] : load) {
    const double bandwidth = platform_.link(topo::link_of(topo::DirectedLinkId{l})).bandwidth.value();
    v.intra_seconds_per_byte = std::max(v.intra_seconds_per_byte, bytes / bandwidth);
  }
  return nccl_views_.emplace(gpu.device.index, v).first->second;
}

void StepBuilder::nccl_all_to_all(DeviceKind kind, Bytes OwnerWork::*what,
                                  const std::map<std::uint32_t, ActivityId>& start, std::uint16_t category) {
  if (kind != DeviceKind::gpu || total_trainers_ <= 1) return;
  const double total = static_cast<double>(total_trainers_);
  const double local = static_cast<double>(trainers_per_node_);
  for (const auto& [o, begin] : start) {
    if (problem_.devices.at(o).kind != kind) continue;
    const Bytes bytes = represented_work(o).*what;
    nccl_kernel(*owner_device(o), bytes * ((local - 1.0) / total), bytes * ((total - local) / total), begin, category);
  }
}

std::optional<sim::ResourceId> StepBuilder::gpu_memory(topo::DeviceId d) const {
  if (platform_.device(d).kind != topo::DeviceKind::gpu) return std::nullopt;
  const sim::ResourceId m = resources_.memory(d);
  if (!(graph_.resource(m).capacity.value() > 0.0)) return std::nullopt;
  return m;
}

ActivityId StepBuilder::send(topo::DeviceId a, topo::DeviceId b, Bytes bytes, std::span<const ActivityId> deps,
                             std::uint16_t category) {
  if (a == b || bytes.value() <= 0.0) return marker(deps);
  // Between two GPUs of a node the route starts at the sender's HBM and ends at the receiver's:
  // NVLink and PCIe peer-to-peer copies (and the staging copies without P2P) run at rates that
  // take a share of HBM worth modelling (an NVLink-4 direction, 450 GB/s, is 13 % of an H100's
  // 3.35 TB/s), and compete there with the embedding kernels. Off the node a GPU's traffic is
  // bounded by its NIC (400 Gbit/s, 1.5 % of that HBM), so inter-node routes leave HBM out: two
  // more hops per flow cost the every-node cluster simulations 15-25 % of their time for no
  // change in any validated prediction.
  const bool same_node = platform_.node_of(a) == platform_.node_of(b);
  const auto from = same_node ? gpu_memory(a) : std::nullopt, to = same_node ? gpu_memory(b) : std::nullopt;
  auto route_from = [&](std::vector<sim::ResourceId> r) {
    if (from) r.insert(r.begin(), *from);
    return r;
  };
  auto route_to = [&](std::vector<sim::ResourceId> r) {
    if (to) r.push_back(*to);
    return r;
  };
  if (!options_.software.peer_to_peer) {
    // NCCL without P2P (NCCL_P2P_DISABLE): two GPUs of one node exchange data through a
    // buffer in host memory (the SHM transport), never over NVLink or PCIe peer-to-peer. NCCL
    // pipelines the staging in chunks (NCCL_BUFFSIZE, 4 MiB by default), so the copy into host
    // memory and the copy out of it run concurrently: two transfers of the full byte count,
    // GPU a -> its host socket's DRAM and that DRAM -> GPU b, each loading its own PCIe
    // direction and the socket's DRAM (written once, read once).
    const auto& da = platform_.device(a);
    const auto& db = platform_.device(b);
    const auto host = platform_.host_cpu(a);
    if (da.kind == topo::DeviceKind::gpu && db.kind == topo::DeviceKind::gpu && da.node == db.node && host) {
      const sim::ResourceId dram = resources_.memory(*host);
      std::vector<sim::ResourceId> in = route_from(resources_.route_resources(a, *host));
      in.push_back(dram);
      std::vector<sim::ResourceId> out{dram};
      resources_.append_route_resources(*host, b, out);
      out = route_to(std::move(out));
      const std::array<ActivityId, 2> halves{transfer(bytes, in, deps, category), transfer(bytes, out, deps, category)};
      return marker(halves);
    }
  }
  if (options_.software.peer_to_peer && options_.software.nvlink_relay) {
    if (const auto relay = platform_.nvlink_relay(a, b)) {
      const auto route =
          route_to(route_from({resources_.link_resource((*relay)[0]), resources_.link_resource((*relay)[1])}));
      return transfer(bytes, route, deps, category);
    }
  }
  const auto route = route_to(route_from(resources_.route_resources(a, b)));
  return transfer(bytes, route, deps, category);
}

BytesPerSecond StepBuilder::route_bandwidth(topo::DeviceId a, topo::DeviceId b) const {
  return platform_.route_bandwidth(a, b);
}

topo::DeviceId StepBuilder::remote_peer(topo::DeviceId d) const {
  const auto node = platform_.node_of(d);
  const auto nodes = platform_.nodes();
  for (const auto& n : nodes) {
    if (n.id == node) continue;
    if (!n.gpus.empty()) return n.gpus.front();
    if (!n.cpus.empty()) return n.cpus.front();
  }
  throw std::invalid_argument("inter-node traffic from '" + platform_.device(d).name +
                              "' on a platform with a single node");
}

BytesPerSecond StepBuilder::narrowest(std::span<const sim::ResourceId> route) const {
  BytesPerSecond least{std::numeric_limits<double>::infinity()};
  for (auto r : route) least = std::min(least, graph_.resource(r).capacity);
  return least;
}

std::span<const sim::ResourceId> StepBuilder::egress_route(topo::DeviceId d) {
  auto it = egress_.find(d.index);
  if (it != egress_.end()) return it->second;
  const auto peer = remote_peer(d);
  const auto links = platform_.route(d, peer);
  std::vector<sim::ResourceId> r;
  for (auto l : links) {
    r.push_back(resources_.link_resource(l));
    if (platform_.link(topo::link_of(l)).fabric) break;
  }
  return egress_.emplace(d.index, std::move(r)).first->second;
}

std::span<const sim::ResourceId> StepBuilder::ingress_route(topo::DeviceId d) {
  auto it = ingress_.find(d.index);
  if (it != ingress_.end()) return it->second;
  const auto peer = remote_peer(d);
  const auto links = platform_.route(peer, d);
  std::size_t first = 0;
  for (std::size_t i = 0; i < links.size(); ++i) {
    if (platform_.link(topo::link_of(links[i])).fabric) first = i;
  }
  std::vector<sim::ResourceId> r;
  for (std::size_t i = first; i < links.size(); ++i) r.push_back(resources_.link_resource(links[i]));
  return ingress_.emplace(d.index, std::move(r)).first->second;
}

StepBuilder::RemoteBytes StepBuilder::remote_bytes(topo::NodeId n) const {
  // Per step, from the plan's owner work (every owner, not only the simulated ones): an
  // owner's node receives the ids and the pooled gradients of the samples of the other nodes
  // and sends them its pooled outputs; a trainer node receives the other nodes' owners'
  // outputs for its samples and sends them its ids and gradients. Apart (`dense`): the dense
  // all-reduce moves 2 (N-1)/N of the dense gradients each way (the ring's byte count, as
  // all_reduce()).
  RemoteBytes b;
  const double nodes = static_cast<double>(std::max<std::size_t>(1, trainer_nodes_));
  const double on_node = 1.0 / nodes;  // the node's share of the global batch
  for (std::uint32_t i = 0; i < owner_work_.size(); ++i) {
    const OwnerWork& w = owner_work_[i];
    if (!w.any) continue;
    const auto& dev = problem_.devices[i];
    const bool here = dev.kind != DeviceKind::parameter_server &&
                      platform_.node_of(topo::DeviceId{dev.topology_id}) == n;
    const Bytes in = w.ids_in + w.pooled_out, out = w.pooled_out;
    if (here) {
      b.down += in * (1.0 - on_node);
      b.up += out * (1.0 - on_node);
    } else {
      b.down += out * on_node;
      b.up += in * on_node;
    }
  }
  const Bytes dense = element_size(model_.communication_precision) * model_.dense_parameters() + dp_gradient_bytes_;
  b.dense = dense * (2.0 * (nodes - 1.0) / nodes);
  return b;
}

const StepBuilder::CoreShare* StepBuilder::core_share(topo::DeviceId d) {
  auto it = core_share_.find(d.index);
  if (it != core_share_.end()) return it->second ? &*it->second : nullptr;
  std::optional<CoreShare> share;
  const auto& fabric = platform_.fabric();
  const auto& ft = platform_.data().fabric_tables;
  if (fabric && fabric->kind != topo::FabricKind::single_switch && ft.spine_count > 0) {
    // The NIC the traffic leaves by: the first fabric link of the egress route.
    const auto links = platform_.route(d, remote_peer(d));
    std::optional<topo::DeviceId> nic;
    for (auto l : links) {
      const auto& link = platform_.link(topo::link_of(l));
      if (!link.fabric) continue;
      for (auto end : {link.a, link.b}) {
        if (end.index < ft.nic_number_of_device.size() && ft.nic_number_of_device[end.index] != topo::kNoIndex) nic = end;
      }
      break;
    }
    if (nic) {
      const std::uint32_t number = ft.nic_number_of_device[nic->index];
      const std::uint32_t leaf = ft.leaf_of_nic[number];
      const auto my_node = platform_.node_of(*nic);
      double on_leaf = 0.0, others = 0.0, others_on_leaf = 0.0;
      for (std::uint32_t k = 0; k < ft.nic_device.size(); ++k) {
        const bool same_leaf = ft.leaf_of_nic[k] == leaf;
        if (same_leaf) on_leaf += 1.0;
        if (platform_.node_of(ft.nic_device[k]) == my_node) continue;
        others += 1.0;
        if (same_leaf) others_on_leaf += 1.0;
      }
      BytesPerSecond uplinks{0.0};
      for (std::uint32_t sp = 0; sp < ft.spine_count; ++sp) {
        uplinks += platform_.link(ft.uplink[static_cast<std::size_t>(leaf) * ft.spine_count + sp]).bandwidth;
      }
      const BytesPerSecond host = platform_.link(ft.host_link_of_nic[number]).bandwidth;
      const BytesPerSecond per_nic = uplinks / std::max(on_leaf, 1.0);
      if (others > 0.0 && per_nic < host) {
        // One pair of resources per (node, leaf), shared by every device whose traffic leaves by
        // one of the node's NICs on that leaf. Their capacity is the node's share of the leaf's uplinks in
        // proportion to the bytes it sends (receives) across nodes per step among the trainer
        // nodes on the leaf: the uplinks carry the leaf's bytes in the time they need, and the
        // representative node (the one with the most loaded owner) is not limited to an equal
        // share when the other nodes on its leaf send less. The part of the traffic that
        // crosses the uplinks: for the embeddings (destinations spread over the other nodes'
        // NICs) the other nodes off the leaf, 1 - others_on_leaf / others; for the dense
        // all-reduce, whose ring runs over the nodes in order (EveryNode::inter_node_all_reduce),
        // the ring's edges between leaves, one per leaf: 1 / (nodes on the leaf). With the
        // embeddings' fraction for the ring too, the representative node was 7-11 % slower than
        // every node on the 2:1 fat tree at 16 and 64 nodes.
        double node_nics = 0.0;
        std::vector<topo::NodeId> leaf_nodes;
        for (std::uint32_t k = 0; k < ft.nic_device.size(); ++k) {
          if (ft.leaf_of_nic[k] != leaf) continue;
          const auto n = platform_.node_of(ft.nic_device[k]);
          if (n == my_node) node_nics += 1.0;
          if (std::find(leaf_nodes.begin(), leaf_nodes.end(), n) == leaf_nodes.end()) leaf_nodes.push_back(n);
        }
        const std::uint64_t key = (static_cast<std::uint64_t>(my_node.index) << 32) | leaf;
        auto known = nic_core_share_.find(key);
        if (known == nic_core_share_.end()) {
          CoreShare c;
          c.remote_fraction = 1.0 - others_on_leaf / others;
          c.ring_remote_fraction = others_on_leaf < others ? 1.0 / static_cast<double>(leaf_nodes.size()) : 0.0;
          const RemoteBytes mine = remote_bytes(my_node);
          RemoteBytes leaf_total;
          for (auto n : leaf_nodes) {
            const RemoteBytes b = remote_bytes(n);
            leaf_total.up += b.up;
            leaf_total.down += b.down;
            leaf_total.dense += b.dense;
          }
          const BytesPerSecond equal = per_nic * node_nics;
          const BytesPerSecond cap = host * node_nics;
          auto capacity = [&](Bytes own, Bytes total) {
            if (!(total.value() > 0.0) || !(own.value() > 0.0)) return equal;
            return std::min(cap, std::max(equal, uplinks * (own / total)));
          };
          // The bytes that cross the uplinks: the embedding traffic's remote fraction, the ring's.
          auto crossing = [&](Bytes embeddings, Bytes dense) {
            return embeddings * c.remote_fraction + dense * c.ring_remote_fraction;
          };
          const std::string name = platform_.node(my_node).name + ".leaf_uplink_share";
          c.up = graph_.add_resource(name + ".up",
                                     capacity(crossing(mine.up, mine.dense), crossing(leaf_total.up, leaf_total.dense)),
                                     Seconds(0.0), "network");
          c.down = graph_.add_resource(
              name + ".down", capacity(crossing(mine.down, mine.dense), crossing(leaf_total.down, leaf_total.dense)),
              Seconds(0.0), "network");
          known = nic_core_share_.emplace(key, c).first;
        }
        share = known->second;
      }
    }
  }
  auto& slot = core_share_[d.index];
  slot = share;
  return slot ? &*slot : nullptr;
}

ActivityId StepBuilder::send_segment(bool egress, topo::DeviceId d, Bytes bytes, std::span<const ActivityId> deps,
                                     std::uint16_t category) {
  if (bytes.value() <= 0.0) return marker(deps);
  const auto route = egress ? egress_route(d) : ingress_route(d);
  const CoreShare* c = core_share(d);
  if (!c) return transfer(bytes, route, deps, category);
  // Split into the part that stays under the leaf and the part that crosses the core (the
  // dense all-reduce's ring crosses it at its own fraction, core_share).
  const double remote = category == cat_.all_reduce ? c->ring_remote_fraction : c->remote_fraction;
  std::vector<sim::ResourceId> via_core(route.begin(), route.end());
  via_core.push_back(egress ? c->up : c->down);
  const std::array<ActivityId, 2> parts{transfer(bytes * (1.0 - remote), route, deps, category),
                                        transfer(bytes * remote, via_core, deps, category)};
  return marker(parts);
}

ActivityId StepBuilder::send_egress(topo::DeviceId d, Bytes bytes, std::span<const ActivityId> deps, std::uint16_t category) {
  return send_segment(true, d, bytes, deps, category);
}

ActivityId StepBuilder::send_ingress(topo::DeviceId d, Bytes bytes, std::span<const ActivityId> deps,
                                     std::uint16_t category) {
  return send_segment(false, d, bytes, deps, category);
}

// ---- collectives ----------------------------------------------------------------------------

std::vector<ActivityId> StepBuilder::collective_launch(std::span<const ActivityId> ready, std::uint16_t category) {
  const Seconds delay = options_.software.collective_launch;
  if (delay.value() <= 0.0) return {ready.begin(), ready.end()};
  if (!launch_delay_) {
    // Only zero-byte transfers cross it (they pay its latency); its capacity is any value in
    // the native engine's incremental range (sim/native_engine.hpp).
    launch_delay_ = graph_.add_resource("software.collective_launch", BytesPerSecond(1e12), delay, "collective_launch");
  }
  std::vector<ActivityId> out;
  for (ActivityId r : ready) out.push_back(graph_.add_transfer(Bytes(0.0), std::span(&*launch_delay_, 1), std::span(&r, 1), category));
  return out;
}

std::vector<ActivityId> StepBuilder::reduce_dense_gradients(const std::vector<std::vector<ActivityId>>& layer_done,
                                                            std::span<const ActivityId> last_backward,
                                                            std::uint16_t category) {
  const std::size_t n = trainers_.size();
  if (n == 0) return {};
  const auto& costs = dense_costs(trainers_.front());
  const Bytes grad_elem = element_size(model_.communication_precision);
  const bool overlap = options_.software.allreduce_overlaps_backward;
  std::vector<ActivityId> prev;
  auto reduce = [&](Bytes bytes, auto ready_of) {
    std::vector<ActivityId> ready(n);
    for (std::size_t i = 0; i < n; ++i) {
      std::vector<ActivityId> deps{ready_of(i)};
      if (!prev.empty()) deps.push_back(prev[i]);
      ready[i] = marker(deps);
    }
    prev = all_reduce(bytes, ready, category);
  };
  // Buckets close in backward order (top MLP's last layer first).
  Bytes acc;
  for (std::size_t l = costs.size(); l-- > 0;) {
    acc += grad_elem * costs[l].parameters;
    if ((acc >= options_.software.allreduce_bucket || l == 0) && acc.value() > 0.0) {
      reduce(acc, [&](std::size_t i) { return overlap ? layer_done[i][l] : last_backward[i]; });
      acc = Bytes(0.0);
    }
  }
  if (dp_gradient_bytes_.value() > 0.0) reduce(dp_gradient_bytes_, [&](std::size_t i) { return last_backward[i]; });
  return prev;
}

std::vector<ActivityId> StepBuilder::all_reduce(Bytes bytes, std::span<const ActivityId> ready, std::uint16_t category) {
  const std::size_t n = trainers_.size();
  std::vector<ActivityId> done(n);
  if (total_trainers_ <= 1 || bytes.value() <= 0.0) {
    for (std::size_t i = 0; i < n; ++i) done[i] = marker(ready.subspan(i, 1));
    return done;
  }
  const std::vector<ActivityId> launched = collective_launch(ready, category);
  ready = launched;
  const double g = static_cast<double>(trainers_per_node_);
  const double nodes = static_cast<double>(trainer_nodes_);
  // Group simulated trainers by node.
  std::map<std::uint32_t, std::vector<std::size_t>> by_node;
  for (std::size_t i = 0; i < n; ++i) by_node[trainers_[i].node.index].push_back(i);

  const Bytes shard = bytes / g;
  const Bytes inter_node = trainer_nodes_ > 1 ? shard * (2.0 * (nodes - 1.0) / nodes) : Bytes(0.0);
  // NCCL's kernel holds its SMs through both intra-node phases and the inter-node one.
  for (std::size_t i = 0; i < n; ++i) {
    nccl_kernel(trainers_[i], shard * (2.0 * (g - 1.0)), Bytes(0.0), ready[i], category);
    if (inter_node.value() > 0.0) nccl_kernel(trainers_[i], Bytes(0.0), inter_node, ready[i], category);
  }
  // Phase 1: reduce-scatter inside each node: every GPU sends S/g to each peer.
  std::vector<std::vector<ActivityId>> inbound(n);
  for (auto& [node, members] : by_node) {
    for (auto i : members) {
      for (auto j : members) {
        if (i == j) continue;
        const std::array<ActivityId, 1> dep{ready[i]};
        inbound[j].push_back(send(trainers_[i].device, trainers_[j].device, shard, dep, category));
      }
    }
  }
  std::vector<ActivityId> phase1(n);
  for (std::size_t i = 0; i < n; ++i) {
    inbound[i].push_back(ready[i]);
    phase1[i] = marker(inbound[i]);
  }
  // Phase 2: all-reduce of S/g across nodes (ring byte count per GPU: 2 (N-1)/N x S/g).
  const std::vector<ActivityId> phase2 =
      trainer_nodes_ > 1 ? fidelity().inter_node_all_reduce(*this, inter_node, phase1, category) : phase1;
  // Phase 3: all-gather inside each node.
  std::vector<std::vector<ActivityId>> in3(n);
  for (auto& [node, members] : by_node) {
    for (auto i : members) {
      for (auto j : members) {
        if (i == j) continue;
        const std::array<ActivityId, 1> dep{phase2[i]};
        in3[j].push_back(send(trainers_[i].device, trainers_[j].device, shard, dep, category));
      }
    }
  }
  for (std::size_t i = 0; i < n; ++i) {
    in3[i].push_back(phase2[i]);
    done[i] = marker(in3[i]);
  }
  return done;
}


void StepBuilder::owner_trainer_flows(
    const SimDevice& od, Towards towards, Bytes bytes,
    const std::function<std::vector<ActivityId>(std::span<const std::size_t>)>& ready,
    const std::function<void(std::span<const std::size_t>, ActivityId)>& arrived, std::uint16_t category) {
  const double share = 1.0 / static_cast<double>(std::max<std::size_t>(1, total_trainers_));
  std::size_t local = 0;
  for (std::size_t i = 0; i < trainers_.size(); ++i) {
    if (trainers_[i].node != od.node) continue;
    ++local;
    const auto deps = ready(std::span(&i, 1));
    const topo::DeviceId t = trainers_[i].device;
    arrived(std::span(&i, 1), towards == Towards::trainers ? send(od.device, t, bytes * share, deps, category)
                                                           : send(t, od.device, bytes * share, deps, category));
  }
  fidelity().owner_off_node(*this, od, towards, bytes, local, ready, arrived, category);
}

std::vector<ActivityId> StepBuilder::pooled_to_trainers(DeviceKind kind, const std::map<std::uint32_t, ActivityId>& owner_ready_in,
                                                        std::span<const ActivityId> trainer_gate, std::uint16_t category,
                                                        Bytes OwnerWork::*what) {
  std::map<std::uint32_t, ActivityId> launched;
  if (kind == DeviceKind::gpu && total_trainers_ > 1) {
    for (const auto& [o, r] : owner_ready_in) launched[o] = collective_launch(std::span(&r, 1), category).front();
  }
  const auto& owner_ready = launched.empty() ? owner_ready_in : launched;
  nccl_all_to_all(kind, what, owner_ready, category);
  const std::size_t n = trainers_.size();
  std::vector<std::vector<ActivityId>> inbound(n);
  for (std::size_t i = 0; i < n; ++i) inbound[i].push_back(trainer_gate[i]);
  for (const auto& [o, ready] : owner_ready) {
    if (problem_.devices.at(o).kind != kind) continue;
    const OwnerWork& w = represented_work(o);
    if ((w.*what).value() <= 0.0) continue;
    const std::array<ActivityId, 1> dep{ready};
    owner_trainer_flows(
        *owner_device(o), Towards::trainers, w.*what,
        [&](std::span<const std::size_t>) { return std::vector<ActivityId>(dep.begin(), dep.end()); },
        [&](std::span<const std::size_t> members, ActivityId a) {
          for (auto i : members) inbound[i].push_back(a);
        },
        category);
  }
  // The traffic of the owners that are not simulated (the representative node's counterparts).
  const auto counterparts = fidelity().counterparts_to_trainers(*this, kind, what, owner_ready, category);
  std::vector<ActivityId> arrived(n);
  for (std::size_t i = 0; i < n; ++i) {
    inbound[i].insert(inbound[i].end(), counterparts[i].begin(), counterparts[i].end());
    arrived[i] = marker(inbound[i]);
  }
  return arrived;
}

std::map<std::uint32_t, ActivityId> StepBuilder::gradients_to_owners(DeviceKind kind, std::span<const ActivityId> trainer_ready,
                                                                     std::uint16_t category, Bytes OwnerWork::*what) {
  // The reverse of pooled_to_trainers: each trainer sends each owner its share of the pooled
  // gradients (same bytes as the forward outputs).
  std::vector<ActivityId> launched;
  if (kind == DeviceKind::gpu && total_trainers_ > 1) {
    launched = collective_launch(trainer_ready, category);
    trainer_ready = launched;
  }
  // The simulated trainers' traffic towards the owners that are not simulated (the
  // representative node's counterparts), joined into the arrival of the owner standing for them.
  auto counterparts = fidelity().counterparts_to_owners(*this, kind, what, trainer_ready, category);
  if (kind == DeviceKind::gpu && total_trainers_ > 1) {
    // NCCL's kernel on each GPU owner starts with its own trainer's part.
    std::map<std::uint32_t, ActivityId> ready_on;  // by GPU device index
    for (std::size_t i = 0; i < trainers_.size(); ++i) ready_on.emplace(trainers_[i].device.index, trainer_ready[i]);
    std::map<std::uint32_t, ActivityId> start;
    for (std::uint32_t o : simulated_owners(kind)) {
      if (auto r = ready_on.find(owner_device(o)->device.index); r != ready_on.end()) start.emplace(o, r->second);
    }
    nccl_all_to_all(kind, what, start, category);
  }
  std::map<std::uint32_t, ActivityId> done;
  for (std::uint32_t o : simulated_owners(kind)) {
    const OwnerWork& w = represented_work(o);
    std::vector<ActivityId> inbound;
    owner_trainer_flows(
        *owner_device(o), Towards::owner, w.*what,
        [&](std::span<const std::size_t> members) {
          std::vector<ActivityId> deps;
          for (auto i : members) deps.push_back(trainer_ready[i]);
          return deps;
        },
        [&](std::span<const std::size_t>, ActivityId a) { inbound.push_back(a); }, category);
    const auto& extra = counterparts[o];
    inbound.insert(inbound.end(), extra.begin(), extra.end());
    if (inbound.empty()) inbound.assign(trainer_ready.begin(), trainer_ready.end());
    done[o] = marker(inbound);
  }
  return done;
}

// ---- embedding passes and the optimiser tail ----------------------------------------------------

ActivityId StepBuilder::embedding_pass(std::uint32_t o, Pass pass, std::span<const ActivityId> deps) {
  const OwnerWork& w = represented_work(o);
  const bool backward = pass == Pass::backward;
  const Seconds work = backward ? w.backward_compute : w.forward_compute;
  std::vector<ActivityId> parts;
  if (problem_.devices.at(o).kind == DeviceKind::parameter_server) {
    for (SimDevice* sock : sockets_of(topo::NodeId{problem_.devices[o].topology_id})) {
      parts.push_back(compute(*sock, work, deps, cat_.embedding_lookup));
    }
    return marker(parts);
  }
  const SimDevice d = embedding_device(*owner_device(o));
  const int launches = embedding_kernels(w, backward);
  const Seconds launch =
      d.is_gpu ? d.profile->kernel_launch_overhead() * static_cast<double>(launches) : Seconds(0.0);
  if (!backward) {
    parts.push_back(feature_kernels(d, work + launch, launches, std::max(w.gpu_tables, 1), deps, cat_.embedding_lookup,
                                    KernelLoad::memory_bound(w.hbm_forward)));
    if (w.uvm_bytes.value() > 0.0) {
      const auto u = host_dma(d, "uvm", *platform_.host_cpu(d.device), d.device, w.uvm_bytes, w.uvm_time, deps,
                              cat_.embedding_lookup);
      // The gather kernel holds the stream until its PCIe reads are done.
      parts.push_back(compute(d, Seconds(0.0), std::span(&u, 1), cat_.embedding_lookup));
    }
  } else {
    const auto u = kernels(d, work + launch, launches, deps, cat_.embedding_lookup, KernelLoad::memory_bound(w.hbm_backward));
    parts.push_back(u);
    if (w.uvm_bytes.value() > 0.0) {
      parts.push_back(host_dma(d, "uvm_write", d.device, *platform_.host_cpu(d.device), w.uvm_bytes, w.uvm_time,
                               std::span(&u, 1), cat_.embedding_lookup));
    }
  }
  return marker(parts);
}

std::vector<ActivityId> StepBuilder::dense_optimizer(std::span<const ActivityId> last_backward,
                                                     std::span<const ActivityId> reduced) {
  const double parameters = model_.dense_parameters();
  std::vector<ActivityId> done;
  for (std::size_t i = 0; i < trainers_.size(); ++i) {
    const SimDevice& t = trainers_[i];
    std::vector<ActivityId> deps{last_backward[i]};
    if (!reduced.empty()) deps.push_back(reduced[i]);
    const Seconds time = t.is_gpu ? gpu_dense_optimizer_time(model_, *t.profile, parameters)
                                  : cpu_dense_optimizer_time(model_, *t.cpu, parameters);
    // Memory bound: the master weights, gradients and optimiser state over HBM.
    done.push_back(kernels(t, time, 1, deps, cat_.dense_compute,
                           KernelLoad::memory_bound(dense_optimizer_bytes_per_parameter(model_) * parameters)));
  }
  return done;
}

// ---- input ------------------------------------------------------------------------------------

int StepBuilder::embedding_kernels(const OwnerWork& w, bool backward) const {
  const bool batched = options_.software.embedding_kernel == SoftwareStack::EmbeddingKernel::table_batched;
  const int pass = batched ? 1 : std::max(w.gpu_tables, 1);
  return backward && !options_.software.fused_optimizer ? pass + std::max(w.gpu_tables, 1) : pass;
}

Bytes StepBuilder::input_bytes(std::int64_t samples) const {
  // Dense features in fp32, one index per lookup, one length per (sample, table), a label.
  const double s = static_cast<double>(samples);
  return element_size(Precision::fp32) * (s * (model_.dense_features + 1.0)) +
         placement::kIndexBytes * (s * (model_.lookups_per_sample() + static_cast<double>(model_.table_count())));
}

ActivityId StepBuilder::input_copy(const SimDevice& trainer, std::span<const ActivityId> deps) {
  if (!trainer.is_gpu) return marker(deps);
  const auto host = platform_.host_cpu(trainer.device);
  if (!host) return marker(deps);
  const Bytes raw = input_bytes(local_batch());
  // The copy engine's measured bandwidth (its fixed latency is the route's latency); a
  // profile without one copies at the route's bandwidth.
  const BytesPerSecond copy = trainer.profile->copy(topo::CopyKind::h2d_pinned).bandwidth;
  const Seconds solo = raw / (copy.value() > 0.0 ? copy : platform_.route_bandwidth(*host, trainer.device));
  return host_dma(trainer, "h2d", *host, trainer.device, raw, solo, deps, cat_.host_device_copy);
}

namespace {
/// A dense operator's kernels load HBM alone when its traffic sets their time, else the SMs and HBM.
KernelLoad dense_load(Bytes hbm, bool memory_bound) {
  return memory_bound ? KernelLoad::memory_bound(hbm) : KernelLoad::sms_and_hbm(hbm);
}

bool in_layers(const DenseOperatorCost& c, StepBuilder::DenseLayers layers) {
  const bool bottom = c.name.rfind("bottom_mlp", 0) == 0;
  return bottom == (layers == StepBuilder::DenseLayers::bottom_mlp);
}
}  // namespace

ActivityId StepBuilder::dense_forward(const SimDevice& trainer, DenseLayers layers, ActivityId after) {
  for (const auto& c : dense_costs(trainer)) {
    if (!in_layers(c, layers)) continue;
    const std::array<ActivityId, 1> dep{after};
    after = kernels(trainer, c.forward, c.forward_kernels, dep, cat_.dense_compute,
                    dense_load(c.forward_hbm, c.forward_memory_bound));
  }
  return after;
}

ActivityId StepBuilder::dense_backward(const SimDevice& trainer, DenseLayers layers, ActivityId after,
                                       std::span<ActivityId> layer_done) {
  const auto& costs = dense_costs(trainer);
  for (std::size_t l = costs.size(); l-- > 0;) {
    if (!in_layers(costs[l], layers)) continue;
    const std::array<ActivityId, 1> dep{after};
    after = kernels(trainer, costs[l].backward, costs[l].backward_kernels, dep, cat_.dense_compute,
                    dense_load(costs[l].backward_hbm, costs[l].backward_memory_bound));
    layer_done[l] = after;
  }
  return after;
}

const std::vector<DenseOperatorCost>& StepBuilder::dense_costs(const SimDevice& trainer) {
  const std::string key = trainer.is_gpu ? "gpu:" + trainer.profile->name : "cpu:" + trainer.cpu->model;
  auto it = dense_cache_.find(key);
  if (it != dense_cache_.end()) return it->second;
  std::vector<DenseOperatorCost> costs;
  if (trainer.is_gpu) {
    costs = gpu_dense_costs(model_, *trainer.profile, local_batch());
  } else {
    costs = cpu_dense_costs(model_, *trainer.cpu, options_.cpu_dense_efficiency, local_batch());
  }
  return dense_cache_.emplace(key, std::move(costs)).first->second;
}

}  // namespace dlrmsim::models
