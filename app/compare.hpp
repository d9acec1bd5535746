// Side-by-side comparison of two runs (`dlrmsim compare A.yaml B.yaml`): throughput, step
// time, breakdown and critical path per category, memory headroom, power, energy and cost,
// each with B - A and B / A, and a one-line verdict.
//
//   Comparison c = compare_runs(report_a, report_b);
//   c.rows (in print order), c.verdict
//
// Definitions:
//  - per server: throughput / nodes of the platform (a DGX is one server);
//  - memory headroom: the smallest free fraction (1 - used / capacity) over the devices that
//    hold something, and its device;
//  - bound by: the breakdown category with the most critical-path time per step (or "idle"
//    when the gaps on the path are longer than any category);
//  - verdict: "B is 1.20x faster per server and 1.05x per dollar; the step stays bound by
//    dense_compute" ("slower" for ratios below 1; "per dollar" compares cost per sample and
//    is left out when either run has no cost; "moves from X to Y" when the bound changes).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "common/json.hpp"
#include "models/simulation.hpp"

namespace dlrmsim::app {

struct ComparisonRow {
  std::string section;  // "throughput", "breakdown", "memory", "power", "cost"
  std::string name;     // "samples/s", "dense_compute critical path", ...
  std::string unit;     // "samples/s", "s", "W", "J", "USD", "fraction", ...
  std::optional<double> a;
  std::optional<double> b;
  /// b - a and b / a when both are present (ratio only when a != 0).
  [[nodiscard]] std::optional<double> delta() const;
  [[nodiscard]] std::optional<double> ratio() const;
};

struct Comparison {
  std::string scenario_a, scenario_b;
  std::string platform_a, platform_b;
  std::string bound_a, bound_b;      // the category each step is bound by
  std::string headroom_device_a, headroom_device_b;
  std::vector<ComparisonRow> rows;
  std::string verdict;
};

/// `nodes_a`, `nodes_b`: the node counts of the two platforms (for per-server figures).
Comparison compare_runs(const models::RunReport& a, std::size_t nodes_a, const models::RunReport& b,
                        std::size_t nodes_b);

/// The comparison as a text table and as JSON ({scenario_a, scenario_b, platform_a,
/// platform_b, bound_a, bound_b, verdict, rows: [{section, name, unit, a, b, delta, ratio}]}).
std::string comparison_text(const Comparison& c);
Json comparison_json(const Comparison& c);

}  // namespace dlrmsim::app
