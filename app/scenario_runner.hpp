// One sweep point: simulate a scenario tree and report its main outputs as CSV columns.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "models/simulation.hpp"
#include "app/sweep.hpp"

namespace dlrmsim::app {

/// The output columns of a scenario point, in CSV order.
const std::vector<std::string>& scenario_output_columns();
/// The columns of a sweep's points: those above, then the goodput columns (goodput.*) when
/// some point has a `goodput:` section and the straggler columns (stragglers.*) when some
/// point has `stragglers:` (Sweep::uses_section); empty in a row whose point has none.
std::vector<std::string> scenario_output_columns(const Sweep& sweep);

/// The output columns' values for a finished run.
std::map<std::string, std::string> report_columns(const models::RunReport& report);

/// Loads `scenario` with `overrides` (relative paths resolved against `source`'s directory),
/// simulates it and fills the output columns; an infeasible job becomes status "infeasible"
/// with the reason; bad input throws (ConfigError). `profile_files`: parsed device-profile
/// files to reuse across calls (models::RunOptions::profile_files), or none.
PointOutcome run_scenario(const YAML::Node& scenario, const std::string& source,
                          const std::vector<std::string>& overrides,
                          topo::DeviceProfileFiles* profile_files = nullptr);
/// The same for a sweep point.
PointOutcome run_scenario_point(const SweepPoint& point);

}  // namespace dlrmsim::app
