#include "app/validate.hpp"

#include <cstdio>
#include <sstream>
#include <stdexcept>

#include "common/config.hpp"
#include "common/json.hpp"
#include "common/text.hpp"
#include "app/scenario_runner.hpp"

namespace dlrmsim::app {

using validation::summarize;
using validation::ValidationSummary;

std::optional<double> scenario_metric(const YAML::Node& scenario, const std::string& source,
                                      const std::vector<std::string>& overrides, const std::string& metric,
                                      std::string& why) {
  const PointOutcome outcome = run_scenario(scenario, source, overrides);
  if (outcome.status == "infeasible") {
    why = outcome.error;
    return std::nullopt;
  }
  const auto it = outcome.outputs.find(metric);
  if (it == outcome.outputs.end()) {
    std::vector<std::string> known;
    for (const auto& [name, value] : outcome.outputs) known.push_back(name);
    std::string message = "unknown metric '" + metric + "'";
    if (auto guess = did_you_mean(metric, known)) message += "; did you mean '" + *guess + "'?";
    throw validation::UnknownMetric(message + "; a run reports throughput_samples_per_s, step_time_s, ... (the columns "
                                    "of dlrmsim sweep's CSV file)");
  }
  return std::stod(it->second);
}

std::string validation_table(const std::vector<ValidationResult>& results) {
  std::ostringstream out;
  char line[512];
  std::snprintf(line, sizeof line, "%-44s %-12s %-12s %8s %6s  %s\n", "case", "predicted", "published", "error", "ok",
                "");
  out << line;
  for (const auto& r : results) {
    const std::string err = r.error ? format_number(*r.error * 100.0, 4) + " %" : "";
    const std::string predicted = r.failure.empty() ? r.predicted : "failed";
    const bool qualitative = r.kind == "best" || r.kind == "largest";
    std::snprintf(line, sizeof line, "%-44s %-12s %-12s %8s %6s", r.title.substr(0, 44).c_str(),
                  qualitative ? predicted.substr(0, predicted.find(' ')).c_str() : predicted.c_str(),
                  r.published.c_str(), err.c_str(), r.passed ? "yes" : "NO");
    out << line;
    if (qualitative && r.failure.empty()) {
      out << "  " << predicted.substr(predicted.find(' ') + 1) << "; decided by " << r.decided_by;
    }
    if (!r.failure.empty()) out << "  " << r.failure;
    out << "\n";
  }
  const ValidationSummary s = summarize(results);
  std::snprintf(line, sizeof line,
                "%zu cases (%zu numeric): median absolute error %.1f %%, worst %.1f %%; %zu outside tolerance\n",
                results.size(), s.numeric_cases, s.median_abs_error * 100.0, s.worst_abs_error * 100.0, s.failed);
  out << line;
  return out.str();
}

std::string validation_json(const std::vector<ValidationResult>& results) {
  Json cases = Json::array();
  for (const auto& r : results) {
    Json c = {{"file", r.file}, {"case", r.title}, {"kind", r.kind}, {"predicted", r.predicted}, {"published", r.published}};
    if (r.predicted_value) c["predicted_value"] = json_number(*r.predicted_value);
    if (!r.candidates.empty()) {
      Json& candidates = c["candidates"] = Json::object();
      for (const auto& [name, value] : r.candidates) candidates[name] = value ? json_number(*value) : Json();
    }
    if (r.error) {
      c["error"] = json_number(*r.error, 4);
      c["tolerance"] = json_number(r.tolerance, 4);
    }
    c["passed"] = r.passed;
    c["source"] = r.source;
    if (!r.decided_by.empty()) c["decided_by"] = r.decided_by;
    if (!r.failure.empty()) c["failure"] = r.failure;
    cases.push_back(std::move(c));
  }
  const ValidationSummary s = summarize(results);
  Json doc;
  doc["cases"] = std::move(cases);
  doc["median_abs_error"] = json_number(s.median_abs_error, 4);
  doc["worst_abs_error"] = json_number(s.worst_abs_error, 4);
  doc["failed"] = s.failed;
  return json_text(doc);
}

}  // namespace dlrmsim::app
