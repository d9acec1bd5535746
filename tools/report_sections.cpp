#include "tools/report_sections.hpp"

#include <algorithm>
#include <cctype>
#include <map>
#include <sstream>
#include <vector>

#include "app/power_report.hpp"
#include "common/text.hpp"
#include "common/units.hpp"
#include "tools/report.hpp"
#include "tools/report_chart.hpp"
#include "tools/run_document.hpp"
#include "tools/tick_label.hpp"

namespace dlrmsim::tools {

using nlohmann::json;

namespace {

std::string seconds(double s) { return format_seconds(Seconds(s)); }
std::string bytes(double b) { return format_bytes(Bytes(b)); }
std::string percent(double fraction) { return format_number(100.0 * fraction, 3) + " %"; }

/// A two-column table of (name, value) rows.
std::string pairs_table(const std::vector<std::pair<std::string, std::string>>& rows) {
  std::string h = "<table>\n";
  for (const auto& [name, value] : rows) h += "<tr><th>" + html_escape(name) + "</th><td>" + html_escape(value) + "</td></tr>\n";
  return h + "</table>\n";
}

std::string open_section(const std::string& id, const std::string& heading) {
  return "<section id=\"" + id + "\">\n<h2>" + html_escape(heading) + "</h2>\n";
}

/// One device's memory: its name, kind, capacity and the four parts of what it holds.
struct Memory {
  std::string device, kind;
  double capacity = 0.0;
  std::vector<double> parts;  // weights, optimiser state, cache, activations (bytes)
  double used() const {
    double u = 0.0;
    for (double p : parts) u += p;
    return u;
  }
  double fill() const { return capacity > 0.0 ? used() / capacity : 0.0; }
};

const std::vector<std::string> kMemoryParts = {"weights", "optimiser state", "cache", "activations"};

std::vector<double> as_percent(const std::vector<double>& parts, double capacity) {
  std::vector<double> out;
  for (double p : parts) out.push_back(capacity > 0.0 ? 100.0 * p / capacity : 0.0);
  return out;
}

std::string split_note(const Memory& m) {
  return bytes(m.used()) + " of " + bytes(m.capacity) + " (" + percent(m.fill()) + "): w " + bytes(m.parts[0]) +
         ", opt " + bytes(m.parts[1]) + ", cache " + bytes(m.parts[2]) + ", act " + bytes(m.parts[3]);
}

}  // namespace

std::string with_prefix(double v, const std::string& unit) {
  std::string n = tick_label(v);
  if (!n.empty() && std::isalpha(static_cast<unsigned char>(n.back())) && n != "nan" && n != "inf" && n != "-inf") {
    return n.substr(0, n.size() - 1) + " " + n.back() + unit;
  }
  return n + " " + unit;
}

std::string step_time_section(const json& run, const std::string& source) {
  struct Row {
    std::string category;
    double busy, exposed, critical;
  };
  std::vector<Row> rows;
  double longest = 0.0;
  for (const auto& [category, b] : need(run, "breakdown", source).items()) {
    const double busy = b.contains("busy_s") ? number(b, "busy_s", source) : 0.0;
    const Row r{category, busy, number(b, "exposed_s", source), number(b, "critical_path_s", source)};
    if (r.busy <= 0.0 && r.exposed <= 0.0 && r.critical <= 0.0) continue;
    longest = std::max({longest, r.busy, r.exposed, r.critical});
    rows.push_back(r);
  }
  const auto [unit, factor] = time_unit(longest);
  BarChart chart{"Per category, per step (step time " + seconds(number(run, "step_time_s", source)) + ")",
                 "time per step (" + unit + ")", {"busy", "exposed", "critical path"}, {}, 0.0, false};
  for (const Row& r : rows) {
    chart.bars.push_back({r.category, {r.busy * factor, r.exposed * factor, r.critical * factor},
                          "busy " + seconds(r.busy) + ", exposed " + seconds(r.exposed) + ", critical " +
                              seconds(r.critical)});
  }
  return open_section("step-time", "Where the step time goes") +
         "<p>busy: time some activity of the category runs; exposed: what the category alone adds to the step; "
         "critical path: the step's time spent waiting on it.</p>\n" +
         bar_chart_svg(chart) + "</section>\n";
}

std::string memory_section(const json& run, const std::string& source) {
  std::vector<Memory> devices;
  for (const json& m : need(run, "memory", source)) {
    Memory d{text(m, "device", source), m.contains("kind") ? text(m, "kind", source) : "device",
             number(m, "capacity_bytes", source),
             {number(m, "weights_bytes", source), number(m, "optimizer_state_bytes", source),
              number(m, "cache_bytes", source), number(m, "activations_bytes", source)}};
    if (d.used() > 0.0) devices.push_back(std::move(d));
  }
  BarChart chart{"Used, % of each device's capacity", "% of the device's capacity", kMemoryParts, {}, 100.0, true};
  std::string extremes;
  if (devices.size() <= kListedRows) {
    for (const Memory& m : devices) chart.bars.push_back({m.device, as_percent(m.parts, m.capacity), split_note(m)});
  } else {
    // One row per device kind: the mean of its devices' parts (as % of capacity), and a
    // table of its fullest and emptiest device.
    std::map<std::string, std::vector<const Memory*>> kinds;
    for (const Memory& m : devices) kinds[m.kind].push_back(&m);
    extremes = "<table id=\"memory-extremes\">\n<tr><th>kind</th><th>devices</th><th>fullest</th><th>emptiest</th></tr>\n";
    for (const auto& [kind, members] : kinds) {
      std::vector<double> mean(kMemoryParts.size(), 0.0);
      for (const Memory* m : members) {
        const auto p = as_percent(m->parts, m->capacity);
        for (std::size_t i = 0; i < mean.size(); ++i) mean[i] += p[i] / static_cast<double>(members.size());
      }
      // The first of equally full devices, for the fullest as for the emptiest.
      const auto by_fill = [](const Memory* a, const Memory* b) { return a->fill() < b->fill(); };
      const auto lo = std::min_element(members.begin(), members.end(), by_fill);
      const auto hi = std::max_element(members.begin(), members.end(), by_fill);
      double mean_total = 0.0;
      for (double v : mean) mean_total += v;
      chart.bars.push_back({kind + " (mean of " + std::to_string(members.size()) + ")", mean,
                            "mean " + format_number(mean_total, 3) + " %; from " + percent((*lo)->fill()) + " to " +
                                percent((*hi)->fill())});
      extremes += "<tr><td>" + html_escape(kind) + "</td><td>" + std::to_string(members.size()) + "</td><td>" +
                  html_escape((*hi)->device + ": " + split_note(**hi)) + "</td><td>" +
                  html_escape((*lo)->device + ": " + split_note(**lo)) + "</td></tr>\n";
    }
    extremes += "</table>\n";
  }
  std::string h = open_section("memory", "Memory per device");
  h += "<p>What each device holds: embedding weights, optimiser state, cache and activations (with the dense "
       "replica), stacked against its capacity";
  if (!extremes.empty()) h += "; " + std::to_string(devices.size()) + " devices hold something, summarised per kind";
  return h + ".</p>\n" + bar_chart_svg(chart) + extremes + "</section>\n";
}

std::string power_section(const json& run, const std::string& source) {
  const json& p = need(run, "power", source);
  std::string h = open_section("power", "Power and energy");
  if (!need(p, "modelled", source).get<bool>()) h += "<p>Power is not modelled for every device of this platform.</p>\n";
  h += pairs_table({{"job average", with_prefix(number(p, "job_average_w", source), "W")},
                    {"job peak", with_prefix(number(p, "job_peak_w", source), "W")},
                    {"facility average (PUE " + format_number(number(p, "pue", source), 3) + ")",
                     with_prefix(number(p, "facility_average_w", source), "W")},
                    {"energy per step (facility)", with_prefix(number(p, "energy_per_step_j", source), "J")},
                    {"energy per step (IT)", with_prefix(number(p, "it_energy_per_step_j", source), "J")},
                    {"energy per sample", with_prefix(number(p, "energy_per_sample_j", source), "J")},
                    {"energy per training run of " + format_number(number(p, "training_samples", source), 4) + " samples",
                     with_prefix(number(p, "energy_per_training_run_j", source) / 3600.0, "Wh")}});
  // Per node, or per node template with the extremes for a large cluster.
  const json& nodes = need(p, "nodes", source);
  h += "<table id=\"power-nodes\">\n";
  if (nodes.size() <= kListedRows) {
    h += "<tr><th>node</th><th>template</th><th>average</th><th>peak</th><th>idle</th><th>max</th></tr>\n";
    for (const json& n : nodes) {
      h += "<tr><td>" + html_escape(text(n, "node", source)) + "</td><td>" + html_escape(text(n, "template", source)) +
           "</td><td>" + with_prefix(number(n, "average_w", source), "W") + "</td><td>" +
           with_prefix(number(n, "peak_w", source), "W") + "</td><td>" + with_prefix(number(n, "idle_w", source), "W") +
           "</td><td>" + with_prefix(number(n, "max_w", source), "W") + "</td></tr>\n";
    }
  } else {
    std::map<std::string, std::vector<const json*>> templates;
    for (const json& n : nodes) templates[text(n, "template", source)].push_back(&n);
    h += "<tr><th>template</th><th>nodes</th><th>mean average</th><th>least drawing</th><th>most drawing</th></tr>\n";
    for (const auto& [name, members] : templates) {
      double mean = 0.0;
      for (const json* n : members) mean += number(*n, "average_w", source) / static_cast<double>(members.size());
      const auto [lo, hi] = std::minmax_element(members.begin(), members.end(), [&](const json* a, const json* b) {
        return number(*a, "average_w", source) < number(*b, "average_w", source);
      });
      h += "<tr><td>" + html_escape(name) + "</td><td>" + std::to_string(members.size()) + "</td><td>" +
           with_prefix(mean, "W") + "</td><td>" + html_escape(text(**lo, "node", source)) + " " +
           with_prefix(number(**lo, "average_w", source), "W") + "</td><td>" + html_escape(text(**hi, "node", source)) +
           " " + with_prefix(number(**hi, "average_w", source), "W") + "</td></tr>\n";
    }
  }
  h += "</table>\n<table id=\"power-kinds\">\n<tr><th>device kind</th><th>count</th><th>activity</th><th>average</th></tr>\n";
  for (const auto& [kind, k] : need(p, "kinds", source).items()) {
    h += "<tr><td>" + html_escape(kind) + "</td><td>" + text(k, "count", source) + "</td><td>" +
         percent(number(k, "activity", source)) + "</td><td>" + with_prefix(number(k, "average_w", source), "W") +
         "</td></tr>\n";
  }
  return h + "</table>\n</section>\n";
}

std::string cost_section(const json& run, const std::string& source) {
  const json& c = need(run, "cost", source);
  std::string h = open_section("cost", "Cost");
  const std::string ttt = app::format_duration(Seconds(number(c, "time_to_train_s", source)));
  const std::string samples = format_number(number(c, "training_samples", source), 4);
  if (!need(c, "available", source).get<bool>()) {
    return h + pairs_table({{"time to train " + samples + " samples", ttt},
                            {"cost", "not computed: " + text(c, "reason", source)}}) +
           "</section>\n";
  }
  const std::string currency = " " + text(c, "currency", source);
  auto money = [&](const char* key) { return format_number(number(c, key, source), 4) + currency; };
  return h + pairs_table({{"time to train " + samples + " samples", ttt},
                          {"per hour (" + text(c, "pricing", source) + ")", money("per_hour")},
                          {"hardware per hour", money("hardware_per_hour")},
                          {"energy per hour", money("energy_per_hour")},
                          {"per million samples", money("per_million_samples")},
                          {"per training run", money("per_training_run")},
                          {"prices", text(c, "sources", source)}}) +
         "</section>\n";
}

std::string goodput_section(const json& run, const std::string& source) {
  if (!run.contains("goodput")) return "";
  const json& g = run["goodput"];
  const json& ck = need(g, "checkpoint", source);
  std::string h = open_section("goodput", "Goodput (failures, checkpoints, restarts)");
  h += pairs_table(
      {{"goodput", with_prefix(number(g, "goodput_samples_per_s", source), "samples/s") + " (" +
                       percent(number(g, "goodput_fraction", source)) + " of throughput)"},
       {"checkpoint interval" + std::string(need(g, "interval_given", source).get<bool>() ? " (given)" : " (best)"),
        seconds(number(need(g, "chosen", source), "checkpoint_interval_s", source))},
       {"best interval", seconds(number(need(g, "best", source), "checkpoint_interval_s", source)) + ", goodput " +
                             with_prefix(number(need(g, "best", source), "goodput_samples_per_s", source), "samples/s")},
       {"Young's interval", seconds(number(g, "young_interval_s", source))},
       {"job failures per hour", format_number(number(g, "job_failures_per_hour", source), 4)},
       {"job MTBF", app::format_duration(Seconds(number(g, "job_mtbf_s", source)))},
       {"checkpoint written", bytes(number(ck, "written_bytes", source)) + " of " + bytes(number(ck, "full_bytes", source)) +
                                  " in " + seconds(number(ck, "checkpoint_time_s", source))},
       {"restart", seconds(number(ck, "restart_time_s", source))},
       {"time for " + format_number(number(g, "samples", source), 4) + " samples",
        app::format_duration(Seconds(number(g, "expected_time_s", source))) + " (failure-free " +
            app::format_duration(Seconds(number(g, "failure_free_time_s", source))) + "), " +
            format_number(number(g, "expected_failures", source), 3) + " failures expected"}});
  h += "<table id=\"goodput-components\">\n<tr><th>component</th><th>count</th><th>failures per hour each</th>"
       "<th>job failures per hour</th><th>source</th></tr>\n";
  for (const json& c : need(g, "components", source)) {
    h += "<tr><td>" + html_escape(text(c, "component", source)) + "</td><td>" + text(c, "count", source) + "</td><td>" +
         format_number(number(c, "failures_per_hour_each", source), 3) + "</td><td>" +
         format_number(number(c, "job_failures_per_hour", source), 3) + "</td><td>" + html_escape(text(c, "source", source)) +
         "</td></tr>\n";
  }
  return h + "</table>\n</section>\n";
}

std::string planner_statistics_section(const json& run, const std::string& source) {
  const json& placement = need(run, "placement", source);
  if (!placement.contains("statistics")) return "";
  const json& st = placement["statistics"];
  static constexpr const char* kFigures[] = {"hbm_bytes",          "dram_bytes",       "forward_compute_s",
                                             "forward_comms_s",    "backward_compute_s", "backward_comms_s",
                                             "total_s",            "received_bytes",   "sent_bytes"};
  static constexpr const char* kLabels[] = {"HBM",         "DRAM",      "fwd compute",   "fwd comms",       "bwd compute",
                                            "bwd comms",   "total",     "all-to-all received", "all-to-all sent"};
  auto cell = [&](const json& o, std::size_t f) {
    const double v = number(o, kFigures[f], source);
    return std::string(kFigures[f]).ends_with("_s") ? seconds(v) : bytes(v);
  };
  auto row = [&](const std::string& name, const json& o, const std::string& shards) {
    std::string r = "<tr><td>" + html_escape(name) + "</td>";
    for (std::size_t f = 0; f < std::size(kFigures); ++f) r += "<td>" + cell(o, f) + "</td>";
    return r + "<td>" + html_escape(shards) + "</td></tr>\n";
  };
  auto shard_text = [&](const json& o) {
    std::string t;
    for (const auto& [type, n] : need(o, "shards", source).items()) t += (t.empty() ? "" : " ") + type + ": " + n.dump();
    return t.empty() ? std::string("-") : t;
  };
  std::string h = open_section("planner-statistics", "Planner statistics");
  h += "<p>Per step of " + text(st, "global_batch", source) +
       " samples, as TorchRec's planner statistics: memory per owner, the planner's estimate split into forward and "
       "backward compute and communication, the all-to-all bytes each owner receives (ids, gradients) and sends "
       "(pooled outputs).</p>\n<table id=\"planner-owners\">\n<tr><th>device</th>";
  for (const char* l : kLabels) h += std::string("<th>") + l + "</th>";
  h += "<th>shards</th></tr>\n";
  std::map<std::string, std::vector<const json*>> kinds;
  for (const json& o : need(st, "owners", source)) kinds[text(o, "kind", source)].push_back(&o);
  std::map<std::string, const json*> imbalance;
  for (const json& im : need(st, "imbalance", source)) imbalance[text(im, "kind", source)] = &im;
  for (const auto& [kind, members] : kinds) {
    if (members.size() <= kListedRows) {
      for (const json* o : members) h += row(text(*o, "name", source), *o, shard_text(*o));
      continue;
    }
    const auto found = imbalance.find(kind);
    if (found == imbalance.end()) throw ConfigError(source + ": placement.statistics.imbalance lacks kind " + kind);
    const json& im = *found->second;
    json mean = need(im, "mean", source);
    mean["shards"] = json::object();
    h += row(kind + " (mean of " + std::to_string(members.size()) + ")", mean, "");
    for (const char* end : {"max_device", "min_device"}) {
      const std::string name = text(need(im, end, source), "total_s", source);
      for (const json* o : members) {
        if (text(*o, "name", source) == name) {
          h += row(std::string(end == std::string("max_device") ? "largest: " : "smallest: ") + name, *o, shard_text(*o));
          break;
        }
      }
    }
  }
  h += "</table>\n<table id=\"planner-imbalance\">\n<tr><th>imbalance (max / mean)</th>";
  for (const char* l : kLabels) h += std::string("<th>") + l + "</th>";
  h += "</tr>\n";
  for (const json& im : need(st, "imbalance", source)) {
    h += "<tr><td>" + text(im, "devices", source) + " " + html_escape(text(im, "kind", source)) + "</td>";
    const json& r = need(im, "max_over_mean", source);
    for (const char* f : kFigures) {
      const double v = number(r, f, source);
      h += "<td>" + (v > 0.0 ? format_number(v, 3) : std::string("-")) + "</td>";
    }
    h += "</tr>\n";
  }
  h += "</table>\n";
  std::vector<const json*> tables;
  for (const json& t : need(st, "tables", source)) tables.push_back(&t);
  const std::size_t all = tables.size();
  if (tables.size() > kListedRows) {
    std::stable_sort(tables.begin(), tables.end(), [&](const json* a, const json* b) {
      return number(*a, "estimated_time_s", source) > number(*b, "estimated_time_s", source);
    });
    tables.resize(kListedRows);
  }
  h += "<table id=\"planner-tables\">\n<tr><th>table</th><th>pooling factor</th><th>compute kernel</th><th>shard type</th>"
       "<th>shards</th><th>owners</th><th>estimate</th></tr>\n";
  for (const json* t : tables) {
    h += "<tr><td>" + html_escape(text(*t, "name", source)) + "</td><td>" +
         format_number(number(*t, "pooling_factor", source), 4) + "</td><td>" +
         html_escape(text(*t, "compute_kernel", source)) + "</td><td>" + html_escape(text(*t, "shard_type", source)) +
         "</td><td>" + text(*t, "shards", source) + "</td><td>" + text(*t, "owners", source) + "</td><td>" +
         seconds(number(*t, "estimated_time_s", source)) + "</td></tr>\n";
  }
  h += "</table>\n";
  if (all > tables.size()) h += "<p>The " + std::to_string(tables.size()) + " largest estimates of " + std::to_string(all) + " tables.</p>\n";
  return h + "</section>\n";
}

std::string stragglers_section(const json& run, const std::string& source) {
  if (!run.contains("stragglers")) return "";
  const json& st = run["stragglers"];
  std::string h = open_section("stragglers", "Stragglers");
  const std::size_t steps = need(st, "steps", source).size();
  h += pairs_table({{"measured steps", std::to_string(steps)},
                    {"step time p50", seconds(number(st, "step_time_p50_s", source))},
                    {"step time p99", seconds(number(st, "step_time_p99_s", source))},
                    {"step time max", seconds(number(st, "step_time_max_s", source))},
                    {"step time mean", seconds(number(st, "step_time_mean_s", source))}});
  // Who was waited for: the most frequent first, as `run` lists them; the rest counted.
  std::vector<std::pair<std::string, long long>> counts;
  for (const auto& [who, n] : need(st, "waited_for_steps", source).items()) counts.emplace_back(who, n.get<long long>());
  std::stable_sort(counts.begin(), counts.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
  std::size_t nobody = 0;
  for (const json& s : st["steps"]) nobody += s.contains("waited_for") && s["waited_for"].is_null() ? 1 : 0;
  h += "<table id=\"waited-for\">\n<tr><th>waited for</th><th>steps</th></tr>\n";
  const std::size_t shown = std::min<std::size_t>(counts.size(), kListedRows);
  for (std::size_t i = 0; i < shown; ++i) {
    h += "<tr><td>" + html_escape(counts[i].first) + "</td><td>" + std::to_string(counts[i].second) + "</td></tr>\n";
  }
  if (counts.size() > shown) h += "<tr><td>" + std::to_string(counts.size() - shown) + " more</td><td></td></tr>\n";
  h += "<tr><td>nobody slow</td><td>" + std::to_string(nobody) + "</td></tr>\n";
  return h + "</table>\n</section>\n";
}

}  // namespace dlrmsim::tools
