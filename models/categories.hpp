// The categories activities are tagged with: one table with each category's name, its place
// in the run report's breakdown and its place among the sweep CSV's breakdown columns.
//
//   Categories ids = Categories::add_to(graph);   // every category, in table order
//   graph.add_compute(stream, t, deps, ids.dense_compute);
//   kReportedCategories: the breakdown's order (exposed time is charged in this order, see
//   models/simulation.hpp); kSweepColumnCategories: the CSV's order (app/scenario_runner.hpp).
//
// The orders differ for history's sake only: the report, the CSV header and the graph's
// category ids (traces) keep the order they were first published in.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "sim/activity_graph.hpp"

namespace dlrmsim::models {

/// A category's id in one activity graph, per category.
struct Categories {
  std::uint16_t host_device_copy = 0;
  std::uint16_t embedding_lookup = 0;
  std::uint16_t all_to_all = 0;
  std::uint16_t parameter_server_traffic = 0;
  std::uint16_t dense_compute = 0;
  std::uint16_t all_reduce = 0;
  std::uint16_t host_work = 0;  // trainers' host threads and data loaders on CPU cores
  std::uint16_t sync = 0;       // markers

  /// Registers every category of kCategoryTable with `graph`, in table order.
  static Categories add_to(sim::ActivityGraph& graph);
};

struct CategoryInfo {
  std::string_view name;
  std::uint16_t Categories::*id;
  int report_position;  // in the breakdown; -1: not reported (markers carry no time)
  int sweep_position;   // among the sweep CSV's breakdown columns; -1: no column
};

inline constexpr std::array<CategoryInfo, 8> kCategoryTable{{
    {"host_device_copy", &Categories::host_device_copy, 5, 5},
    {"embedding_lookup", &Categories::embedding_lookup, 1, 2},
    {"all_to_all", &Categories::all_to_all, 2, 1},
    {"parameter_server_traffic", &Categories::parameter_server_traffic, 3, 3},
    {"dense_compute", &Categories::dense_compute, 0, 0},
    {"all_reduce", &Categories::all_reduce, 4, 4},
    {"host_work", &Categories::host_work, 6, -1},
    {"sync", &Categories::sync, -1, -1},
}};

namespace detail {
template <int CategoryInfo::*Position>
constexpr std::size_t count_positioned() {
  std::size_t n = 0;
  for (const auto& c : kCategoryTable) n += c.*Position >= 0 ? 1 : 0;
  return n;
}
/// The names of the categories that have a `Position`, in that order; a position out of
/// range or given twice leaves an empty name, which the static_asserts below refuse.
template <int CategoryInfo::*Position>
constexpr auto ordered_names() {
  std::array<std::string_view, count_positioned<Position>()> out{};
  for (const auto& c : kCategoryTable) {
    const int p = c.*Position;
    if (p >= 0 && static_cast<std::size_t>(p) < out.size() && out[static_cast<std::size_t>(p)].empty()) {
      out[static_cast<std::size_t>(p)] = c.name;
    }
  }
  return out;
}
template <std::size_t N>
constexpr bool all_named(const std::array<std::string_view, N>& names) {
  for (const auto& n : names) {
    if (n.empty()) return false;
  }
  return true;
}
}  // namespace detail

/// The categories a breakdown reports, in its order.
inline constexpr auto kReportedCategories = detail::ordered_names<&CategoryInfo::report_position>();
/// The categories with breakdown columns in a sweep's CSV, in column order.
inline constexpr auto kSweepColumnCategories = detail::ordered_names<&CategoryInfo::sweep_position>();
static_assert(detail::all_named(kReportedCategories), "report positions must be 0..n-1, each once");
static_assert(detail::all_named(kSweepColumnCategories), "sweep positions must be 0..n-1, each once");

inline Categories Categories::add_to(sim::ActivityGraph& graph) {
  Categories ids;
  for (const auto& c : kCategoryTable) ids.*(c.id) = graph.add_category(std::string(c.name));
  return ids;
}

}  // namespace dlrmsim::models
