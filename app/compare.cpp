#include "app/compare.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iomanip>
#include <sstream>

#include "common/text.hpp"
#include "app/power_report.hpp"

namespace dlrmsim::app {
namespace {

std::string bound_of(const models::RunReport& r) {
  std::string best = "idle";
  double most = r.critical_idle.value();
  for (const auto& b : r.breakdown) {
    if (b.critical.value() > most) {
      most = b.critical.value();
      best = b.category;
    }
  }
  return best;
}

struct Headroom {
  double free_fraction = 1.0;
  std::string device;
};

Headroom headroom_of(const models::RunReport& r) {
  Headroom h;
  for (const auto& m : r.memory) {
    if (m.capacity.value() <= 0.0 || m.used().value() <= 0.0) continue;
    const double free = 1.0 - m.used() / m.capacity;
    if (h.device.empty() || free < h.free_fraction) {
      h.free_fraction = free;
      h.device = m.device;
    }
  }
  return h;
}

std::string ratio_text(double r) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3gx", r);
  return buf;
}

/// A value for the table in its unit.
std::string value_text(double v, const std::string& unit) {
  if (unit == "s") return format_seconds(Seconds(v));
  if (unit == "W") return format_watts(Watts(v));
  if (unit == "J") return format_joules(Joules(v));
  if (unit == "B") return format_bytes(Bytes(v));
  if (unit == "%") {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.1f %%", v * 100.0);
    return buf;
  }
  char buf[48];
  if (unit == "samples/s") {
    if (std::fabs(v) >= 1e6) std::snprintf(buf, sizeof buf, "%.4g M/s", v / 1e6);
    else if (std::fabs(v) >= 1e3) std::snprintf(buf, sizeof buf, "%.4g k/s", v / 1e3);
    else std::snprintf(buf, sizeof buf, "%.4g /s", v);
    return buf;
  }
  if (unit.size() == 3 && unit != "sps") {
    // A currency.
    std::snprintf(buf, sizeof buf, std::fabs(v) >= 1.0 ? "%.2f %s" : "%.4g %s", v, unit.c_str());
    return buf;
  }
  std::snprintf(buf, sizeof buf, "%.4g", v);
  return unit.empty() ? std::string(buf) : std::string(buf) + " " + unit;
}

}  // namespace

std::optional<double> ComparisonRow::delta() const {
  if (!a || !b) return std::nullopt;
  // Below a billionth of the values the difference is rounding (times are whole picoseconds
  // divided by the measured steps), not a change.
  const double d = *b - *a;
  if (unit == "s" && std::fabs(d) < 1e-12) return 0.0;  // below a picosecond per step
  return std::fabs(d) <= 1e-9 * std::max(std::fabs(*a), std::fabs(*b)) ? 0.0 : d;
}

std::optional<double> ComparisonRow::ratio() const {
  if (!a || !b || *a == 0.0) return std::nullopt;
  return *b / *a;
}

Comparison compare_runs(const models::RunReport& a, std::size_t nodes_a, const models::RunReport& b,
                        std::size_t nodes_b) {
  Comparison c;
  c.scenario_a = a.scenario;
  c.scenario_b = b.scenario;
  c.platform_a = a.platform;
  c.platform_b = b.platform;
  c.bound_a = bound_of(a);
  c.bound_b = bound_of(b);
  auto row = [&](std::string section, std::string name, std::string unit, std::optional<double> va,
                 std::optional<double> vb) {
    c.rows.push_back({std::move(section), std::move(name), std::move(unit), va, vb});
  };
  const double per_server_a = a.throughput_samples_per_s / static_cast<double>(std::max<std::size_t>(nodes_a, 1));
  const double per_server_b = b.throughput_samples_per_s / static_cast<double>(std::max<std::size_t>(nodes_b, 1));
  row("throughput", "throughput", "samples/s", a.throughput_samples_per_s, b.throughput_samples_per_s);
  row("throughput", "per server", "samples/s", per_server_a, per_server_b);
  row("throughput", "servers", "", static_cast<double>(nodes_a), static_cast<double>(nodes_b));
  row("throughput", "step time", "s", a.step_time.value(), b.step_time.value());
  // Breakdown: categories of either run, in A's order, then B's extra ones.
  std::vector<std::string> categories;
  for (const auto& e : a.breakdown) categories.push_back(e.category);
  for (const auto& e : b.breakdown) {
    if (std::find(categories.begin(), categories.end(), e.category) == categories.end()) categories.push_back(e.category);
  }
  auto find = [](const models::RunReport& r, const std::string& cat) -> const models::BreakdownEntry* {
    for (const auto& e : r.breakdown) {
      if (e.category == cat) return &e;
    }
    return nullptr;
  };
  std::vector<std::string> used;
  for (const auto& cat : categories) {
    const auto* ea = find(a, cat);
    const auto* eb = find(b, cat);
    const double busy_a = ea ? ea->busy.value() : 0.0, busy_b = eb ? eb->busy.value() : 0.0;
    if (busy_a <= 0.0 && busy_b <= 0.0) continue;
    used.push_back(cat);
    row("breakdown (busy / exposed per step)", cat + " busy", "s", busy_a, busy_b);
    row("breakdown (busy / exposed per step)", cat + " exposed", "s", ea ? ea->exposed.value() : 0.0,
        eb ? eb->exposed.value() : 0.0);
  }
  for (const auto& cat : used) {
    const auto* ea = find(a, cat);
    const auto* eb = find(b, cat);
    row("critical path per step", cat, "s", ea ? ea->critical.value() : 0.0, eb ? eb->critical.value() : 0.0);
  }
  row("critical path per step", "idle (gaps)", "s", a.critical_idle.value(), b.critical_idle.value());
  const Headroom ha = headroom_of(a), hb = headroom_of(b);
  c.headroom_device_a = ha.device;
  c.headroom_device_b = hb.device;
  row("memory", "headroom (fullest device free)", "%", ha.free_fraction, hb.free_fraction);
  auto power = [](const models::RunReport& r, double v) { return r.power.modelled ? std::optional<double>(v) : std::nullopt; };
  row("power", "job average (IT)", "W", power(a, a.power.job_average.value()), power(b, b.power.job_average.value()));
  row("power", "job peak (IT)", "W", power(a, a.power.job_peak.value()), power(b, b.power.job_peak.value()));
  row("power", "per server average", "W", power(a, a.power.job_average.value() / static_cast<double>(std::max<std::size_t>(nodes_a, 1))),
      power(b, b.power.job_average.value() / static_cast<double>(std::max<std::size_t>(nodes_b, 1))));
  row("power", "energy per sample (facility)", "J", power(a, a.power.energy_per_sample.value()),
      power(b, b.power.energy_per_sample.value()));
  row("cost", "time to train", "s", a.cost.time_to_train.value(), b.cost.time_to_train.value());
  const bool costs = a.cost.available && b.cost.available && a.cost.currency == b.cost.currency;
  const std::string cur = costs ? a.cost.currency : std::string("");
  auto money = [&](const models::RunReport& r, double v) { return costs && r.cost.available ? std::optional<double>(v) : std::nullopt; };
  row("cost", "per hour", cur, money(a, a.cost.per_hour.amount), money(b, b.cost.per_hour.amount));
  row("cost", "per million samples", cur, money(a, a.cost.per_million_samples.amount), money(b, b.cost.per_million_samples.amount));
  row("cost", "per training run", cur, money(a, a.cost.per_training_run.amount), money(b, b.cost.per_training_run.amount));

  // Verdict.
  std::string v = "B is ";
  const double speed = per_server_a > 0.0 ? per_server_b / per_server_a : 0.0;
  if (std::fabs(speed - 1.0) < 5e-4) {
    v += "as fast per server";
  } else if (speed > 1.0) {
    v += ratio_text(speed) + " faster per server";
  } else {
    v += ratio_text(speed > 0.0 ? 1.0 / speed : 0.0) + " slower per server";
  }
  if (costs && a.cost.per_sample.amount > 0.0 && b.cost.per_sample.amount > 0.0) {
    const double per_dollar = a.cost.per_sample.amount / b.cost.per_sample.amount;
    v += " and " + (std::fabs(per_dollar - 1.0) < 5e-4 ? std::string("1x") : ratio_text(per_dollar)) + " per " + cur +
         " (samples per " + cur + ")";
  }
  if (a.power.modelled && b.power.modelled && b.power.energy_per_sample.value() > 0.0) {
    const double per_joule = a.power.energy_per_sample / b.power.energy_per_sample;
    if (std::fabs(per_joule - 1.0) >= 5e-4) {
      v += ", " + ratio_text(per_joule >= 1.0 ? per_joule : 1.0 / per_joule) + (per_joule >= 1.0 ? " less" : " more") +
           " energy per sample";
    }
  }
  v += c.bound_a == c.bound_b ? "; the step stays bound by " + c.bound_a
                              : "; the step's bound moves from " + c.bound_a + " to " + c.bound_b;
  c.verdict = v;
  return c;
}

std::string comparison_text(const Comparison& c) {
  std::ostringstream out;
  out << "A  " << c.scenario_a << " (" << c.platform_a << ")\n";
  out << "B  " << c.scenario_b << " (" << c.platform_b << ")\n\n";
  out << std::left << std::setw(40) << "" << std::setw(18) << "A" << std::setw(18) << "B" << std::setw(18) << "B - A"
      << "B / A\n";
  std::string section;
  for (const auto& r : c.rows) {
    if (r.section != section) {
      section = r.section;
      out << section << "\n";
    }
    const std::string unit = r.unit == "%" ? "%" : r.unit;
    out << "  " << std::setw(38) << r.name << std::setw(18) << (r.a ? value_text(*r.a, unit) : "-") << std::setw(18)
        << (r.b ? value_text(*r.b, unit) : "-");
    const auto d = r.delta();
    std::string dt = "-";
    if (d) dt = (*d > 0.0 ? "+" : "") + value_text(*d, unit);
    out << std::setw(18) << dt;
    const auto q = r.ratio();
    out << (q ? ratio_text(*q) : std::string("-")) << "\n";
  }
  out << "\nfullest device: A " << (c.headroom_device_a.empty() ? "-" : c.headroom_device_a) << ", B "
      << (c.headroom_device_b.empty() ? "-" : c.headroom_device_b) << "\n";
  out << "bound by (most critical-path time): A " << c.bound_a << ", B " << c.bound_b << "\n\n";
  out << c.verdict << "\n";
  return out.str();
}

Json comparison_json(const Comparison& c) {
  Json j;
  j["scenario_a"] = c.scenario_a;
  j["scenario_b"] = c.scenario_b;
  j["platform_a"] = c.platform_a;
  j["platform_b"] = c.platform_b;
  j["bound_a"] = c.bound_a;
  j["bound_b"] = c.bound_b;
  j["verdict"] = c.verdict;
  Json& rows = j["rows"] = Json::array();
  auto opt = [](std::optional<double> v) { return v ? json_number(*v, 10) : Json(nullptr); };
  for (const auto& r : c.rows) {
    rows.push_back({{"section", r.section},
                    {"name", r.name},
                    {"unit", r.unit},
                    {"a", opt(r.a)},
                    {"b", opt(r.b)},
                    {"delta", opt(r.delta())},
                    {"ratio", opt(r.ratio())}});
  }
  return j;
}

}  // namespace dlrmsim::app
