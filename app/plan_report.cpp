#include "app/plan_report.hpp"
#include "common/json.hpp"
#include "common/text.hpp"
#include "placement/tier.hpp"
#include "placement/torchrec_plan.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numeric>
#include <set>
#include <string>
#include <vector>

namespace dlrmsim::app {
using namespace placement;
namespace {

std::string owner_list(const PlacementPlan& plan, const std::vector<std::uint32_t>& ids, std::size_t max_names) {
  std::string s;
  std::set<std::uint32_t> seen;
  std::size_t shown = 0;
  for (std::uint32_t id : ids) {
    if (!seen.insert(id).second) continue;
    if (shown == max_names) {
      s += ",...";
      break;
    }
    s += (shown ? "," : "") + plan.devices.at(id).name;
    ++shown;
  }
  return s;
}

std::string pad(std::string s, std::size_t width) {
  if (s.size() < width) s.append(width - s.size(), ' ');
  return s;
}

std::string mib(Bytes b) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f", b.value() / (1024.0 * 1024.0));
  return buf;
}

std::string ratio(double r) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3g", r);
  return buf;
}

std::string shard_types(const OwnerStatistics& o) {
  std::string s;
  for (Sharding t : kAllShardings) {
    const int n = o.shards[static_cast<std::size_t>(t)];
    if (n > 0) s += (s.empty() ? "" : " ") + std::string(sharding_abbreviation(t)) + ": " + std::to_string(n);
  }
  return s.empty() ? "-" : s;
}

constexpr std::size_t kOwnerWidths[] = {11, 11, 52, 9, 9};

void owner_row(std::ostream& out, const std::string& name, std::size_t width, const OwnerStatistics& o) {
  out << pad(name, width) << "  " << pad(format_bytes(o.hbm), kOwnerWidths[0]) << pad(format_bytes(o.dram), kOwnerWidths[1])
      << pad(format_seconds(o.total()) + " (" + format_seconds(o.forward_compute) + ", " + format_seconds(o.forward_comms) +
                 ", " + format_seconds(o.backward_compute) + ", " + format_seconds(o.backward_comms) + ")",
             kOwnerWidths[2])
      << pad(mib(o.received()), kOwnerWidths[3]) << pad(mib(o.sent()), kOwnerWidths[4]) << shard_types(o) << "\n";
}

constexpr const char* kFigureLabels[kOwnerFigures] = {"HBM",       "DRAM",          "fwd compute",
                                                      "fwd comms", "bwd compute",   "bwd comms",
                                                      "total",     "all-to-all sent", "all-to-all received"};

}  // namespace

void print_plan_statistics(std::ostream& out, const PlanStatistics& st) {
  out << "planner statistics, per step of " << st.global_batch
      << " samples (TorchRec's EmbeddingStats: HBM, DDR, Perf, Input, Output, Shards)\n";
  std::size_t width = 6;
  for (const auto& o : st.owners) width = std::max(width, o.name.size());
  width = std::max<std::size_t>(width, 14);
  // A summarised kind's rows are named "smallest NAME".
  if (std::any_of(st.imbalance.begin(), st.imbalance.end(), [](const Imbalance& im) { return im.devices > kListedOwners; })) {
    width += std::string("smallest ").size();
  }
  out << pad("device", width) << "  " << pad("HBM", kOwnerWidths[0]) << pad("DRAM", kOwnerWidths[1])
      << pad("estimate (fwd comp, fwd comm, bwd comp, bwd comm)", kOwnerWidths[2]) << pad("in MiB", kOwnerWidths[3])
      << pad("out MiB", kOwnerWidths[4]) << "shards\n";
  for (const Imbalance& im : st.imbalance) {
    std::vector<const OwnerStatistics*> members;
    for (const auto& o : st.owners) {
      if (o.kind == im.kind) members.push_back(&o);
    }
    if (members.size() <= kListedOwners) {
      for (const auto* o : members) owner_row(out, o->name, width, *o);
      continue;
    }
    // A large cluster: the kind's mean and the devices of the largest and smallest estimate.
    OwnerStatistics mean;
    mean.hbm = Bytes(im.mean[static_cast<std::size_t>(OwnerFigure::hbm)]);
    mean.dram = Bytes(im.mean[static_cast<std::size_t>(OwnerFigure::dram)]);
    mean.forward_compute = Seconds(im.mean[static_cast<std::size_t>(OwnerFigure::forward_compute)]);
    mean.forward_comms = Seconds(im.mean[static_cast<std::size_t>(OwnerFigure::forward_comms)]);
    mean.backward_compute = Seconds(im.mean[static_cast<std::size_t>(OwnerFigure::backward_compute)]);
    mean.backward_comms = Seconds(im.mean[static_cast<std::size_t>(OwnerFigure::backward_comms)]);
    double ids = 0.0, outputs = 0.0, gradients = 0.0;
    for (const auto* o : members) {
      ids += o->ids_received.value();
      outputs += o->outputs_sent.value();
      gradients += o->gradients_received.value();
      for (std::size_t t = 0; t < o->shards.size(); ++t) mean.shards[t] += o->shards[t];
    }
    const double n = static_cast<double>(members.size());
    mean.ids_received = Bytes(ids / n);
    mean.outputs_sent = Bytes(outputs / n);
    mean.gradients_received = Bytes(gradients / n);
    const auto total = static_cast<std::size_t>(OwnerFigure::total);
    owner_row(out, std::string(to_string(im.kind)) + " mean of " + std::to_string(members.size()), width, mean);
    bool any = false;
    for (double m : im.mean) any = any || m > 0.0;
    if (!any) continue;  // the kind holds and does nothing: its extremes are its mean
    owner_row(out, "largest " + st.owners.at(im.max_device[total]).name, width, st.owners.at(im.max_device[total]));
    owner_row(out, "smallest " + st.owners.at(im.min_device[total]).name, width, st.owners.at(im.min_device[total]));
  }
  out << "(in: ids and gradients received, out: pooled outputs sent; a kind's mean row sums its shards)\n";
  out << "imbalance (max / mean):\n";
  for (const Imbalance& im : st.imbalance) {
    out << "  " << im.devices << " " << to_string(im.kind) << (im.devices == 1 ? "" : "s") << ":";
    bool any = false;
    for (std::size_t f = 0; f < kOwnerFigures; ++f) {
      if (!(im.mean[f] > 0.0)) continue;
      out << (any ? ", " : " ") << kFigureLabels[f] << " " << ratio(im.max_over_mean[f]);
      any = true;
    }
    out << (any ? "\n" : " nothing held or estimated\n");
  }
  std::vector<std::size_t> order(st.tables.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::size_t shown = order.size();
  if (order.size() > kListedOwners) {
    std::stable_sort(order.begin(), order.end(),
                     [&](std::size_t a, std::size_t b) { return st.tables[a].estimate > st.tables[b].estimate; });
    shown = kListedOwners;
  }
  std::size_t name_width = 5;
  for (const auto& t : st.tables) name_width = std::max(name_width, t.name.size());
  out << "\n" << pad("table", name_width) << "  " << pad("pooling", 9) << pad("kernel", 19) << pad("type", 6)
      << pad("shards", 8) << pad("owners", 8) << "est. time" << (shown < order.size() ? " (the largest " + std::to_string(shown) + ")" : "") << "\n";
  for (std::size_t i = 0; i < shown; ++i) {
    const TableStatistics& t = st.tables[order[i]];
    out << pad(t.name, name_width) << "  " << pad(format_number(t.pooling_factor, 4), 9) << pad(t.kernel, 19)
        << pad(t.shard_type, 6) << pad(std::to_string(t.shards), 8) << pad(std::to_string(t.owners), 8)
        << format_seconds(t.estimate) << "\n";
  }
  if (shown < order.size()) out << "... " << order.size() - shown << " more tables (place --json lists every one)\n";
}

Json plan_statistics_json(const PlanStatistics& st, int significant_digits) {
  const auto json_number = [significant_digits](double v) { return dlrmsim::json_number(v, significant_digits); };
  Json doc;
  doc["global_batch"] = st.global_batch;
  Json& owners = doc["owners"] = Json::array();
  for (const auto& o : st.owners) {
    Json shards = Json::object();
    for (Sharding t : kAllShardings) {
      const int n = o.shards[static_cast<std::size_t>(t)];
      if (n > 0) shards[std::string(sharding_abbreviation(t))] = n;
    }
    owners.push_back({{"name", o.name},
                      {"kind", to_string(o.kind)},
                      {"hbm_bytes", json_number(o.hbm.value())},
                      {"dram_bytes", json_number(o.dram.value())},
                      {"forward_compute_s", json_number(o.forward_compute.value())},
                      {"forward_comms_s", json_number(o.forward_comms.value())},
                      {"backward_compute_s", json_number(o.backward_compute.value())},
                      {"backward_comms_s", json_number(o.backward_comms.value())},
                      {"total_s", json_number(o.total().value())},
                      {"ids_received_bytes", json_number(o.ids_received.value())},
                      {"outputs_sent_bytes", json_number(o.outputs_sent.value())},
                      {"gradients_received_bytes", json_number(o.gradients_received.value())},
                      {"sent_bytes", json_number(o.sent().value())},
                      {"received_bytes", json_number(o.received().value())},
                      {"shards", std::move(shards)}});
  }
  Json& imbalance = doc["imbalance"] = Json::array();
  for (const Imbalance& im : st.imbalance) {
    Json ratios = Json::object(), means = Json::object(), hi = Json::object(), lo = Json::object();
    for (std::size_t f = 0; f < kOwnerFigures; ++f) {
      const std::string key(kOwnerFigureNames[f]);
      ratios[key] = json_number(im.max_over_mean[f]);
      means[key] = json_number(im.mean[f]);
      hi[key] = st.owners.at(im.max_device[f]).name;
      lo[key] = st.owners.at(im.min_device[f]).name;
    }
    imbalance.push_back({{"kind", to_string(im.kind)},
                         {"devices", im.devices},
                         {"max_over_mean", std::move(ratios)},
                         {"mean", std::move(means)},
                         {"max_device", std::move(hi)},
                         {"min_device", std::move(lo)}});
  }
  Json& tables = doc["tables"] = Json::array();
  for (const auto& t : st.tables) {
    tables.push_back({{"name", t.name},
                      {"pooling_factor", json_number(t.pooling_factor)},
                      {"compute_kernel", t.kernel},
                      {"shard_type", t.shard_type},
                      {"tier", to_string(t.tier)},
                      {"shards", t.shards},
                      {"owners", t.owners},
                      {"estimated_time_s", json_number(t.estimate.value())}});
  }
  return doc;
}

void print_plan(std::ostream& out, const PlacementProblem& problem, const PlacementPlan& plan) {
  out << "placement: policy " << plan.policy << ", cache model " << to_string(plan.cache_model) << ", "
      << plan.tables.size() << " tables, " << plan.devices.size() << " devices\n";
  if (plan.predicted_step_time) {
    out << "predicted step time: " << format_seconds(*plan.predicted_step_time) << " (" << plan.evaluations
        << " plans evaluated)\n";
  }
  out << "estimated busiest device load: " << format_seconds(plan.max_estimated_load()) << " per step\n\n";

  std::size_t name_width = 5;
  for (const auto& tp : plan.tables) name_width = std::max(name_width, tp.name.size());
  out << pad("table", name_width) << "  " << pad("rows", 16) << pad("dim", 5) << pad("tier", 10)
      << pad("sharding", 15) << pad("shards", 7) << pad("hit rate", 9) << pad("est. time", 11) << "devices\n";
  for (const auto& tp : plan.tables) {
    const TableDemand& t = problem.tables.at(tp.table);
    std::vector<std::uint32_t> owners;
    double hit = 0.0;
    for (const auto& s : tp.shards) {
      owners.insert(owners.end(), s.owners.begin(), s.owners.end());
      hit += s.expected_hit_rate;
    }
    Seconds worst{0.0};
    for (const auto& s : tp.shards) worst = std::max(worst, s.estimated_time);
    char hit_text[16] = "-";
    if (placement::tier_of(tp.tier).properties().hbm_cache) std::snprintf(hit_text, sizeof hit_text, "%.3f", hit / static_cast<double>(tp.shards.size()));
    out << pad(tp.name, name_width) << "  " << pad(std::to_string(t.rows), 16) << pad(std::to_string(t.dim), 5)
        << pad(std::string(to_string(tp.tier)), 10) << pad(std::string(to_string(tp.sharding)), 15)
        << pad(std::to_string(tp.shards.size()), 7) << pad(hit_text, 9) << pad(format_seconds(worst), 11)
        << owner_list(plan, owners, 4) << "\n";
  }

  std::size_t device_width = 6;
  for (const auto& d : plan.devices) device_width = std::max(device_width, d.name.size());
  out << "\n" << pad("device", device_width) << "  " << pad("kind", 17) << pad("used / capacity", 24)
      << pad("weights", 11) << pad("opt state", 11) << pad("cache", 11) << pad("activations", 12) << "est. load\n";
  for (const auto& d : plan.devices) {
    char pct[16];
    std::snprintf(pct, sizeof pct, " (%.0f%%)", d.capacity.value() > 0 ? 100.0 * d.used().value() / d.capacity.value() : 0.0);
    out << pad(d.name, device_width) << "  " << pad(std::string(to_string(d.kind)), 17)
        << pad(format_bytes(d.used()) + " / " + format_bytes(d.capacity) + pct, 24) << pad(format_bytes(d.weights), 11)
        << pad(format_bytes(d.optimizer_state), 11) << pad(format_bytes(d.cache), 11)
        << pad(format_bytes(d.activations), 12) << format_seconds(d.estimated_load) << "\n";
  }
  if (!plan.notes.empty()) {
    out << "\nnotes:\n";
    for (const auto& n : plan.notes) out << "  - " << n << "\n";
  }
}

std::string plan_json(const PlacementProblem& problem, const PlacementPlan& plan) {
  auto names = [&](const std::vector<std::uint32_t>& ids) {
    Json list = Json::array();
    for (std::uint32_t id : ids) list.push_back(plan.devices.at(id).name);
    return list;
  };
  Json doc;
  doc["policy"] = plan.policy;
  doc["cache_model"] = to_string(plan.cache_model);
  doc["predicted_step_time_s"] = plan.predicted_step_time ? json_number(plan.predicted_step_time->value()) : Json();
  doc["evaluations"] = plan.evaluations;
  doc["max_estimated_load_s"] = json_number(plan.max_estimated_load().value());
  Json& tables = doc["tables"] = Json::array();
  std::set<Sharding> used;
  for (const auto& tp : plan.tables) {
    const TableDemand& t = problem.tables.at(tp.table);
    used.insert(tp.sharding);
    Json shards = Json::array();
    for (const auto& s : tp.shards) {
      shards.push_back({{"tier", to_string(s.tier)},
                        {"owners", names(s.owners)},
                        {"storage", names(s.storage)},
                        {"row_begin", s.row_begin},
                        {"row_end", s.row_end},
                        {"column_begin", s.column_begin},
                        {"column_end", s.column_end},
                        {"cache_rows", s.cache_rows},
                        {"cache_bytes", json_number(s.cache_size.value())},
                        {"expected_hit_rate", json_number(s.expected_hit_rate)},
                        {"estimated_time_s", json_number(s.estimated_time.value())}});
    }
    tables.push_back({{"name", tp.name},
                      {"rows", t.rows},
                      {"dim", t.dim},
                      {"tier", to_string(tp.tier)},
                      {"sharding", to_string(tp.sharding)},
                      {"shards", std::move(shards)}});
  }
  Json& devices = doc["devices"] = Json::array();
  for (const auto& d : plan.devices) {
    devices.push_back({{"name", d.name},
                       {"kind", to_string(d.kind)},
                       {"topology_id", d.topology_id},
                       {"node", d.node},
                       {"capacity_bytes", json_number(d.capacity.value())},
                       {"weights_bytes", json_number(d.weights.value())},
                       {"optimizer_state_bytes", json_number(d.optimizer_state.value())},
                       {"cache_bytes", json_number(d.cache.value())},
                       {"activations_bytes", json_number(d.activations.value())},
                       {"used_bytes", json_number(d.used().value())},
                       {"estimated_load_s", json_number(d.estimated_load.value())}});
  }
  Json& communication = doc["communication"] = Json::object();
  for (Sharding s : used) {
    Json steps = Json::array();
    for (const auto& c : communication_of(s)) {
      steps.push_back({{"pass", to_string(c.pass)},
                       {"collective", to_string(c.collective)},
                       {"scope", to_string(c.scope)},
                       {"payload", to_string(c.payload)}});
    }
    communication[std::string(to_string(s))] = std::move(steps);
  }
  doc["statistics"] = plan_statistics_json(plan_statistics(problem, plan));
  doc["notes"] = plan.notes;
  return json_text(doc);
}

}  // namespace dlrmsim::app
