#include "sim/activity_graph.hpp"

#include <algorithm>
#include <cmath>

namespace dlrmsim::sim {

ResourceId ActivityGraph::add_resource(std::string name, BytesPerSecond capacity, Seconds latency, std::string kind) {
  if (!(capacity.value() > 0.0) || !std::isfinite(capacity.value())) {
    throw GraphError("resource '" + name + "': capacity must be a positive finite bandwidth, got " +
                     std::to_string(capacity.value()) + " B/s");
  }
  if (!(latency.value() >= 0.0) || !(latency.value() <= kMaxSimulatedSeconds)) {
    throw GraphError("resource '" + name + "': latency must be zero or positive, got " +
                     std::to_string(latency.value()) + " s");
  }
  resources_.push_back(Resource{std::move(name), capacity, latency, std::move(kind)});
  return ResourceId{static_cast<std::uint32_t>(resources_.size() - 1)};
}

ResourceId ActivityGraph::add_cores(std::string name, double cores, std::string kind) {
  if (!(cores > 0.0) || !(cores <= 1e6)) {
    throw GraphError("core pool '" + name + "': the core count must be positive (at most a million), got " +
                     std::to_string(cores));
  }
  const ResourceId id = add_resource(std::move(name), BytesPerSecond(cores * kWorkUnitsPerCoreSecond), Seconds(0.0),
                                     std::move(kind));
  resources_.back().cores = true;
  return id;
}

EngineId ActivityGraph::add_engine(std::string name, std::string kind) {
  engines_.push_back(ComputeEngine{std::move(name), std::move(kind)});
  return EngineId{static_cast<std::uint32_t>(engines_.size() - 1)};
}

StreamId ActivityGraph::add_stream(EngineId engine, std::string name) {
  if (engine.index >= engines_.size()) {
    throw GraphError("add_stream: compute engine #" + std::to_string(engine.index) + " does not exist (" +
                     std::to_string(engines_.size()) + " engines)");
  }
  streams_.push_back(Stream{engine, std::move(name)});
  return StreamId{static_cast<std::uint32_t>(streams_.size() - 1)};
}

std::uint16_t ActivityGraph::add_category(std::string name) {
  for (std::size_t i = 0; i < categories_.size(); ++i) {
    if (categories_[i] == name) return static_cast<std::uint16_t>(i);
  }
  if (categories_.size() >= 0xffff) throw GraphError("too many activity categories");
  categories_.push_back(std::move(name));
  return static_cast<std::uint16_t>(categories_.size() - 1);
}

void ActivityGraph::check_activity(ActivityId a, std::string_view role) const {
  if (a.index >= activities_.size()) {
    throw GraphError(std::string(role) + " activity #" + std::to_string(a.index) + " does not exist (" +
                     std::to_string(activities_.size()) + " activities so far)");
  }
}

ActivityId ActivityGraph::push(Activity a, std::span<const ActivityId> deps) {
  if (activities_.size() >= 0xfffffff0u) throw GraphError("more than 4 billion activities");
  for (ActivityId d : deps) check_activity(d, "dependency:");
  activities_.push_back(a);
  const ActivityId id{static_cast<std::uint32_t>(activities_.size() - 1)};
  for (ActivityId d : deps) add_dependency(d, id);
  return id;
}

void ActivityGraph::check_stream(StreamId stream, std::string_view what) const {
  if (stream.index >= streams_.size()) {
    throw GraphError(std::string(what) + ": stream #" + std::to_string(stream.index) + " does not exist (" +
                     std::to_string(streams_.size()) + " streams)");
  }
}

void ActivityGraph::order_on_stream(StreamId stream, ActivityId id) {
  Stream& s = streams_[stream.index];
  if (s.last_task != Stream::kNone) add_dependency(ActivityId{s.last_task}, id);
  s.last_task = id.index;
}

ActivityId ActivityGraph::add_compute(StreamId stream, Seconds duration, std::span<const ActivityId> deps,
                                      std::uint16_t category) {
  check_stream(stream, "add_compute");
  if (!(duration.value() >= 0.0) || !std::isfinite(duration.value())) {
    throw GraphError("add_compute on stream '" + streams_[stream.index].name +
                     "': duration must be zero or positive, got " + std::to_string(duration.value()) + " s");
  }
  if (duration.value() > kMaxSimulatedSeconds) {
    throw GraphError("add_compute on stream '" + streams_[stream.index].name + "': a task of " +
                     format_seconds(duration) + " exceeds the engine's time range (about 106 days)");
  }
  Activity a;
  a.kind = ActivityKind::compute;
  a.category = category;
  a.stream = stream.index;
  a.amount = duration.value();
  const ActivityId id = push(a, deps);
  order_on_stream(stream, id);
  return id;
}

void ActivityGraph::add_route(Activity& a, std::span<const ResourceId> route, std::string_view what, bool cores) {
  if (route.empty()) throw GraphError(std::string(what) + ": the route is empty (it crosses at least one resource)");
  for (std::size_t i = 0; i < route.size(); ++i) {
    const ResourceId r = route[i];
    if (r.index >= resources_.size()) {
      throw GraphError(std::string(what) + ": route goes through resource #" + std::to_string(r.index) +
                       ", which does not exist (" + std::to_string(resources_.size()) + " resources)");
    }
    if (resources_[r.index].cores != cores) {
      throw GraphError(std::string(what) + ": resource '" + resources_[r.index].name + "' is " +
                       (cores ? "not a core pool (host work runs on cores)" : "a core pool (transfers cross links)"));
    }
    // A route is a path: a resource crossed twice would count twice against its capacity
    // in one model and once in another, so it is refused.
    for (std::size_t j = 0; j < i; ++j) {
      if (route[j] == r) {
        throw GraphError(std::string(what) + ": the route crosses resource '" + resources_[r.index].name + "' twice");
      }
    }
  }
  a.kind = ActivityKind::transfer;
  a.on_cores = cores;
  a.route_begin = static_cast<std::uint32_t>(route_pool_.size());
  route_pool_.insert(route_pool_.end(), route.begin(), route.end());
  a.route_end = static_cast<std::uint32_t>(route_pool_.size());
  max_route_length_ = std::max(max_route_length_, route.size());
}

ActivityId ActivityGraph::add_transfer(Bytes bytes, std::span<const ResourceId> route, std::span<const ActivityId> deps,
                                       std::uint16_t category) {
  if (!(bytes.value() >= 0.0) || !std::isfinite(bytes.value())) {
    throw GraphError("add_transfer: size must be zero or positive, got " + std::to_string(bytes.value()) + " B");
  }
  Activity a;
  a.category = category;
  a.amount = bytes.value();
  add_route(a, route, "add_transfer", false);
  return push(a, deps);
}

ActivityId ActivityGraph::add_cpu_work(Seconds cpu_time, std::span<const ResourceId> cores,
                                       std::span<const ActivityId> deps, std::uint16_t category) {
  if (!(cpu_time.value() >= 0.0) || !(cpu_time.value() <= kMaxSimulatedSeconds)) {
    throw GraphError("add_cpu_work: CPU time must be zero or positive and within the engine's range, got " +
                     std::to_string(cpu_time.value()) + " s");
  }
  Activity a;
  a.category = category;
  a.amount = cpu_time.value() * kWorkUnitsPerCoreSecond;
  add_route(a, cores, "add_cpu_work", true);
  return push(a, deps);
}

ActivityId ActivityGraph::add_kernel(StreamId stream, double amount, double solo_rate, std::span<const ResourceId> route,
                                     std::span<const ActivityId> deps, std::uint16_t category) {
  check_stream(stream, "add_kernel");
  const std::string& name = streams_[stream.index].name;
  if (!(amount >= 0.0) || !std::isfinite(amount)) {
    throw GraphError("add_kernel on stream '" + name + "': amount must be zero or positive, got " + std::to_string(amount));
  }
  if (!(solo_rate > 0.0) || !std::isfinite(solo_rate)) {
    throw GraphError("add_kernel on stream '" + name + "': the solo rate must be positive, got " + std::to_string(solo_rate));
  }
  if (route.empty()) throw GraphError("add_kernel on stream '" + name + "': the route is empty");
  if (route.front().index >= resources_.size()) {
    throw GraphError("add_kernel on stream '" + name + "': route goes through resource #" +
                     std::to_string(route.front().index) + ", which does not exist");
  }
  const bool cores = resources_[route.front().index].cores;
  const auto key = std::make_tuple(stream.index, solo_rate, cores);
  auto cap = kernel_rates_.find(key);
  if (cap == kernel_rates_.end()) {
    const std::string cap_name = name + ".rate" + std::to_string(kernel_rates_.size());
    const ResourceId r = cores ? add_cores(cap_name, solo_rate / kWorkUnitsPerCoreSecond, std::string(kKernelRateKind))
                               : add_resource(cap_name, BytesPerSecond(solo_rate), Seconds(0.0), std::string(kKernelRateKind));
    cap = kernel_rates_.emplace(key, r).first;
  }
  std::vector<ResourceId> full;
  full.reserve(route.size() + 1);
  full.push_back(cap->second);
  full.insert(full.end(), route.begin(), route.end());
  Activity a;
  a.category = category;
  a.stream = stream.index;
  a.amount = amount;
  add_route(a, full, "add_kernel", cores);
  const ActivityId id = push(a, deps);
  order_on_stream(stream, id);
  return id;
}

ActivityId ActivityGraph::add_kernel(StreamId stream, Seconds solo, std::span<const KernelPart> parts,
                                     std::span<const ActivityId> deps, std::uint16_t category) {
  check_stream(stream, "add_kernel");
  const std::string name = streams_[stream.index].name;
  if (parts.empty()) throw GraphError("add_kernel on stream '" + name + "': no parts");
  if (!(solo.value() > 0.0) || !std::isfinite(solo.value())) {
    throw GraphError("add_kernel on stream '" + name + "': the time alone must be positive, got " +
                     std::to_string(solo.value()) + " s");
  }
  for (const KernelPart& p : parts) {
    if (!(p.amount > 0.0) || !std::isfinite(p.amount)) {
      throw GraphError("add_kernel on stream '" + name + "': each part's amount must be positive, got " +
                       std::to_string(p.amount));
    }
  }
  const auto rate = [&](const KernelPart& p) { return p.amount / solo.value(); };
  if (parts.size() == 1) return add_kernel(stream, parts[0].amount, rate(parts[0]), parts[0].route, deps, category);
  const std::uint32_t before = streams_[stream.index].last_task;
  std::vector<ActivityId> done{add_kernel(stream, parts[0].amount, rate(parts[0]), parts[0].route, deps, category)};
  for (std::size_t i = 1; i < parts.size(); ++i) {
    auto c = companions_.find({stream.index, i});
    if (c == companions_.end()) {
      const StreamId s = add_stream(streams_[stream.index].engine, name + ".part" + std::to_string(i));
      c = companions_.emplace(std::make_pair(stream.index, i), s).first;
    }
    const ActivityId part = add_kernel(c->second, parts[i].amount, rate(parts[i]), parts[i].route, deps, category);
    if (before != Stream::kNone) add_dependency(ActivityId{before}, part);
    done.push_back(part);
  }
  const ActivityId join = add_marker(done, category);
  streams_[stream.index].last_task = join.index;
  return join;
}

ActivityId ActivityGraph::add_marker(std::span<const ActivityId> deps, std::uint16_t category) {
  Activity a;
  a.kind = ActivityKind::marker;
  a.category = category;
  return push(a, deps);
}

void ActivityGraph::add_dependency(ActivityId before, ActivityId after) {
  check_activity(before, "add_dependency: predecessor");
  check_activity(after, "add_dependency: successor");
  if (before == after) throw GraphError("add_dependency: " + describe(after) + " cannot depend on itself");
  const auto e = static_cast<std::uint32_t>(edges_.size());
  edges_.push_back(Edge{after.index, Activity::kNoEdge});
  Activity& b = activities_[before.index];
  if (b.last_successor == Activity::kNoEdge) {
    b.first_successor = e;
  } else {
    edges_[b.last_successor].next = e;
  }
  b.last_successor = e;
  ++activities_[after.index].dependency_count;
}

std::span<const ResourceId> ActivityGraph::route(ActivityId a) const {
  const Activity& act = activities_[a.index];
  return {route_pool_.data() + act.route_begin, route_pool_.data() + act.route_end};
}

std::string ActivityGraph::describe(ActivityId a) const {
  if (a.index >= activities_.size()) return "activity #" + std::to_string(a.index) + " (missing)";
  const Activity& act = activities_[a.index];
  std::string out;
  switch (act.kind) {
    case ActivityKind::compute:
      out = "compute #" + std::to_string(a.index) + " on stream '" + streams_[act.stream].name + "' of '" +
            engines_[streams_[act.stream].engine.index].name + "'";
      break;
    case ActivityKind::transfer:
      if (act.stream != Stream::kNone) {
        out = "kernel #" + std::to_string(a.index) + " on stream '" + streams_[act.stream].name + "' of '" +
              engines_[streams_[act.stream].engine.index].name + "'";
        break;
      }
      if (act.on_cores) {
        out = "host work #" + std::to_string(a.index) + " (" + format_seconds(act.cpu_time()) + " of CPU on '" +
              resources_[route_pool_[act.route_begin].index].name + "')";
        break;
      }
      out = "transfer #" + std::to_string(a.index) + " (" + format_bytes(act.bytes()) + " from '" +
            resources_[route_pool_[act.route_begin].index].name + "')";
      break;
    case ActivityKind::marker:
      out = "marker #" + std::to_string(a.index);
      break;
  }
  if (act.category != 0) out += " [" + categories_[act.category] + "]";
  return out;
}

void ActivityGraph::reserve(std::size_t activities, std::size_t edges) {
  activities_.reserve(activities);
  edges_.reserve(edges);
}

}  // namespace dlrmsim::sim
