// The sections of a run's report page, each drawn from its part of the run's JSON document
// (app/run_report.hpp names the keys; the numbers are the ones `dlrmsim run` prints, never
// recomputed here). Each section is an HTML <section> with an id, so that a reader (and the
// browser test) finds it; a part the document lacks (no `stragglers:` or `goodput:` in the
// scenario) gives no section. Missing or mistyped keys are ConfigErrors naming `source`.
//
// Large clusters are summarised: with more than kListedRows devices (or nodes) the section
// shows one row per group (device kind, node template) with its mean and its extremes (the
// fullest and emptiest device, the most and least drawing node) instead of one row each.
#pragma once

#include <cstddef>
#include <string>

#include <nlohmann/json.hpp>

namespace dlrmsim::tools {

/// The most devices or nodes listed one per row; beyond it they are summarised per group.
inline constexpr std::size_t kListedRows = 16;

/// Step-time breakdown: busy, exposed and critical-path time per category (and idle), as a
/// chart with a time axis in a unit chosen for the step (s, ms, us), values at each row's end.
std::string step_time_section(const nlohmann::json& run, const std::string& source);

/// Memory per device: weights, optimiser state, cache and activations stacked as % of the
/// device's capacity, with used / capacity in bytes; per device kind beyond kListedRows.
std::string memory_section(const nlohmann::json& run, const std::string& source);

/// Power (job average and peak, facility average, PUE; per node, or per node template beyond
/// kListedRows; per device kind) and energy per step, sample and training run.
std::string power_section(const nlohmann::json& run, const std::string& source);

/// Cost per hour (hardware and energy), per million samples and per training run, the time
/// to train and the price sources; or why no cost was computed.
std::string cost_section(const nlohmann::json& run, const std::string& source);

/// Goodput under failures, checkpoints and restarts; empty without a `goodput` key.
std::string goodput_section(const nlohmann::json& run, const std::string& source);

/// Step-time distribution and who was waited for; empty without a `stragglers` key.
std::string stragglers_section(const nlohmann::json& run, const std::string& source);

/// Planner statistics (placement.statistics, app/plan_report.hpp): per owner HBM, DRAM, the
/// estimate's forward and backward compute and communication, all-to-all bytes received and
/// sent, shards per type; per owner kind the imbalance (max / mean) of each; per table its
/// pooling factor, compute kernel and shard type. Beyond kListedRows devices of a kind, the
/// kind's mean and the devices of the largest and smallest estimate; beyond kListedRows
/// tables, the largest estimates. Empty without placement.statistics.
std::string planner_statistics_section(const nlohmann::json& run, const std::string& source);

/// "12.3 kW": `v` with an SI prefix (tools/tick_label.hpp) and then `unit`.
std::string with_prefix(double v, const std::string& unit);

}  // namespace dlrmsim::tools
