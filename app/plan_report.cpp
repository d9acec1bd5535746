#include "app/plan_report.hpp"
#include "common/json.hpp"
#include "common/text.hpp"
#include "placement/tier.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <set>
#include <string>

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

}  // namespace

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
  doc["notes"] = plan.notes;
  return json_text(doc);
}

}  // namespace dlrmsim::app
