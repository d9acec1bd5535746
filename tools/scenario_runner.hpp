// One sweep point: simulate a scenario tree and report its main outputs as CSV columns.
#pragma once

#include <string>
#include <vector>

#include "tools/sweep.hpp"

namespace dlrmsim::tools {

/// The output columns of a scenario point, in CSV order.
const std::vector<std::string>& scenario_output_columns();

/// Loads `scenario` (relative paths resolved against `source`'s directory), simulates it
/// and fills the output columns; an infeasible job becomes status "infeasible" with the
/// reason, bad input status "error".
PointOutcome run_scenario_point(const YAML::Node& scenario, const std::string& source);

}  // namespace dlrmsim::tools
