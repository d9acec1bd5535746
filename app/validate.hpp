// Validation against published results: `dlrmsim validate [DIR]`: the metric (a simulated
// scenario's output column) and the table and JSON of the results (tools/cmd_validate.cpp
// draws their chart). The cases, their format and their evaluation are
// validation/case_runner.hpp.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <yaml-cpp/yaml.h>

#include "validation/case_runner.hpp"

namespace dlrmsim::app {

using validation::ValidationResult;

/// The metric function of `dlrmsim validate`: simulates the scenario (app/scenario_runner.hpp)
/// and returns the named output column.
std::optional<double> scenario_metric(const YAML::Node& scenario, const std::string& source,
                                      const std::vector<std::string>& overrides, const std::string& metric,
                                      std::string& why);

std::string validation_table(const std::vector<ValidationResult>& results);
/// The results as JSON: {"cases": [{"file", "case", "kind", "predicted", "published",
/// "predicted_value" (value and ratio cases, 17 digits), "candidates" ({name: metric or null},
/// best and largest cases), "error", "tolerance" (value and ratio), "passed", "source",
/// "failure" (when the case could not be evaluated)}], "median_abs_error", "worst_abs_error",
/// "failed"}. The error, tolerance and summary carry 4 significant digits.
std::string validation_json(const std::vector<ValidationResult>& results);

}  // namespace dlrmsim::app
