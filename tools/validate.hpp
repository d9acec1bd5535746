// Validation against published results: `dlrmsim validate [DIR]`.
//
// Each case is one YAML file (validation/cases/*.yaml):
//   case: MLPerf DLRM-DCNv2, 1x DGX H100           # a title
//   source: mlcommons/training_results_v3.0 ...     # where the published figure comes from
//   kind: value          # value: a metric of one scenario against a published number
//                        # ratio: metric(numerator) / metric(denominator) against a number
//                        # best:  which candidate has the highest metric (a qualitative finding)
//   metric: throughput_samples_per_s                # default
//   scenario: ../../configs/scenarios/x.yaml         # value (paths relative to the case file)
//   set: [key.path=value, ...]                       # overrides, as --set
//   numerator: {scenario: ..., set: [...]}           # ratio
//   denominator: {scenario: ..., set: [...]}
//   candidates: {gpu_hbm: {scenario: ..., set: [...]}, remote_ps: {...}}   # best
//   also: {uvm: {scenario: ..., set: [...], why: "not an option of the study"}}   # best: simulated
//                        # and shown, never part of the verdict (options the finding did not compare)
//   expect: gpu_hbm                                  # best, largest
//   metrics: [breakdown.embedding_lookup.exposed_s, breakdown.dense_compute.exposed_s]   # largest
//   published: 14.5e6                                # value / ratio
//   tolerance: 0.25                                  # relative, value / ratio
// A case is a statement about the real system; nothing in it may tune the model to the case.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <yaml-cpp/yaml.h>

namespace dlrmsim::tools {

/// Simulates a scenario tree (relative paths against `source`) and returns a named metric,
/// or nullopt with `why` set when the job is infeasible (it does not fit the platform).
using MetricFunction =
    std::function<std::optional<double>(const YAML::Node& scenario, const std::string& source,
                                        const std::vector<std::string>& overrides, const std::string& metric,
                                        std::string& why)>;

struct ValidationResult {
  std::string file;
  std::string title;
  std::string kind;
  std::string source;
  std::string predicted;   // a number, or the winning candidate for `best`
  std::string published;
  std::optional<double> predicted_value;
  std::optional<double> published_value;
  std::optional<double> error;  // relative, signed: predicted / published - 1
  /// best: each candidate's metric, largest: each metric, in the case's order; nullopt for
  /// an infeasible candidate.
  std::vector<std::pair<std::string, std::optional<double>>> candidates;
  double tolerance = 0.0;
  bool passed = false;
  std::string failure;  // why a case could not be evaluated
  // What decides a qualitative case: "simulation" (the winner is faster among feasible
  // candidates), "capacity" (only the winner fits) or "candidate list" (an option the case
  // does not compare, listed under `also:`, would win).
  std::string decided_by;
};

/// The metric function of `dlrmsim validate`: simulates the scenario (tools/scenario_runner.hpp)
/// and returns the named output column.
std::optional<double> scenario_metric(const YAML::Node& scenario, const std::string& source,
                                      const std::vector<std::string>& overrides, const std::string& metric,
                                      std::string& why);

/// Loads and evaluates one case file.
ValidationResult run_validation_case(const std::string& path, const MetricFunction& metric);
/// Every *.yaml in `dir`, sorted by file name; `progress`: a progress line on stderr
/// (tools/progress.hpp).
std::vector<ValidationResult> run_validation_dir(const std::string& dir, const MetricFunction& metric,
                                                 bool progress = false);

struct ValidationSummary {
  std::size_t numeric_cases = 0;
  double median_abs_error = 0.0;
  double worst_abs_error = 0.0;
  std::size_t failed = 0;
};
ValidationSummary summarize(const std::vector<ValidationResult>& results);

std::string validation_table(const std::vector<ValidationResult>& results);
/// The results as JSON: {"cases": [{"file", "case", "kind", "predicted", "published",
/// "predicted_value" (value and ratio cases, 17 digits), "candidates" ({name: metric or null},
/// best and largest cases), "error", "tolerance" (value and ratio), "passed", "source",
/// "failure" (when the case could not be evaluated)}], "median_abs_error", "worst_abs_error",
/// "failed"}. The error, tolerance and summary carry 4 significant digits.
std::string validation_json(const std::vector<ValidationResult>& results);
/// Log-log chart of predicted against published values (numeric cases).
void write_validation_plot(const std::vector<ValidationResult>& results, const std::string& path);

}  // namespace dlrmsim::tools
