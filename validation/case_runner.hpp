// Validation cases against published results: loading and evaluating them (the command
// `dlrmsim validate` is app/validate.hpp).
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

#include <cstddef>
#include <functional>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <yaml-cpp/yaml.h>

namespace dlrmsim::validation {

/// A metric name that runs do not report: thrown by a MetricFunction, it is bad input of the
/// case that names it (a ConfigError located at its `metric` or `metrics` key).
class UnknownMetric : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

/// Simulates a scenario tree (relative paths against `source`) and returns a named metric,
/// or nullopt with `why` set when the job is infeasible (it does not fit the platform);
/// UnknownMetric when no run reports `metric`.
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

/// `metric` with `extra` overrides applied after each case's own (`dlrmsim validate --set`: how
/// the table moves when an assumption does).
MetricFunction with_overrides(MetricFunction metric, std::vector<std::string> extra);

/// Loads and evaluates one case file.
ValidationResult run_validation_case(const std::string& path, const MetricFunction& metric);
/// Every *.yaml in `dir` whose file name matches the shell pattern `match` ("*" for all;
/// fnmatch), sorted by file name; `on_case(done, total)` is called after each case (a
/// progress line). No matching file is a ConfigError naming the pattern.
std::vector<ValidationResult> run_validation_dir(
    const std::string& dir, const MetricFunction& metric,
    const std::function<void(std::size_t done, std::size_t total)>& on_case = {}, const std::string& match = "*");

struct ValidationSummary {
  std::size_t numeric_cases = 0;
  double median_abs_error = 0.0;
  double worst_abs_error = 0.0;
  std::size_t failed = 0;
};
/// How many numeric cases, their median and worst absolute error, and how many failed.
ValidationSummary summarize(const std::vector<ValidationResult>& results);

}  // namespace dlrmsim::validation
