#include "validation/case_runner.hpp"

#include <fnmatch.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <stdexcept>

#include "common/config.hpp"
#include "common/files.hpp"
#include "common/text.hpp"

namespace dlrmsim::validation {
namespace fs = std::filesystem;

namespace {

/// A scenario reference: {scenario: PATH, set: [...]} resolved against the case file.
std::optional<double> evaluate(const ConfigNode& ref, const std::string& metric_name, const MetricFunction& metric,
                               std::string& why) {
  const ConfigNode scenario_node = ref.child("scenario");
  const fs::path path = fs::path(ref.source_dir()) / scenario_node.as<std::string>();
  if (!path_exists(path)) scenario_node.fail("scenario file '" + path.string() + "' does not exist");
  const YAML::Node tree = ConfigNode::load_file(path.string()).yaml();
  std::vector<std::string> overrides;
  if (auto set = ref.optional_child("set")) {
    for (const ConfigNode& s : set->elements()) {
      overrides.push_back(s.as<std::string>());
      if (overrides.back().find('=') == std::string::npos) s.fail("expected key.path=value");
    }
  }
  return metric(tree, path.string(), overrides, metric_name, why);
}

double evaluate_feasible(const ConfigNode& ref, const std::string& metric_name, const MetricFunction& metric) {
  std::string why;
  const auto v = evaluate(ref, metric_name, metric, why);
  if (!v) throw std::runtime_error("infeasible: " + why);
  return *v;
}

}  // namespace

ValidationResult run_validation_case(const std::string& path, const MetricFunction& metric) {
  const ConfigNode root = ConfigNode::load_file(path);
  ValidationResult r;
  r.file = fs::path(path).filename().string();
  r.title = root.get<std::string>("case");
  r.source = root.get<std::string>("source");
  r.kind = root.get_choice("kind", {"value", "ratio", "best", "largest"});
  const std::string metric_name = root.get_or<std::string>("metric", "throughput_samples_per_s");
  if (r.kind == "largest" && root.has("metric")) root.child("metric").fail("a 'largest' case names its 'metrics'");
  // The published answer of a comparison must be one of the options compared, or the case
  // can only ever say NO.
  if (r.kind == "largest" || r.kind == "best") {
    std::vector<std::string> options;
    if (r.kind == "largest") {
      for (const ConfigNode& m : root.child("metrics").elements()) options.push_back(m.as<std::string>());
    } else {
      for (const auto& [name, ref] : root.child("candidates").entries()) options.push_back(name);
    }
    const ConfigNode expect = root.child("expect");
    const std::string expected = expect.as<std::string>();
    if (std::find(options.begin(), options.end(), expected) == options.end()) {
      std::string list;
      for (const auto& o : options) list += (list.empty() ? "'" : ", '") + o + "'";
      std::string message = "'" + expected + "' is not one of the " +
                            (r.kind == "largest" ? std::string("metrics") : std::string("candidates")) + " " + list;
      if (auto guess = did_you_mean(expected, options)) message += "; did you mean '" + *guess + "'?";
      expect.fail(message);
    }
  }
  try {
    if (r.kind == "largest") {
      const std::string expect = root.get<std::string>("expect");
      std::string winner, detail;
      double best = -1.0;
      for (const ConfigNode& m : root.child("metrics").elements()) {
        const std::string name = m.as<std::string>();
        const double v = evaluate_feasible(root, name, metric);
        r.candidates.emplace_back(name, v);
        detail += (detail.empty() ? "" : ", ") + name + " " + format_number(v, 4);
        if (v > best) {
          best = v;
          winner = name;
        }
      }
      r.predicted = winner + " (" + detail + ")";
      r.published = expect;
      r.passed = winner == expect;
      r.decided_by = "simulation";
    } else if (r.kind == "best") {
      const std::string expect = root.get<std::string>("expect");
      std::string winner;
      double best = -1.0;
      std::string detail;
      for (const auto& [name, ref] : root.child("candidates").entries()) {
        std::string why;
        const auto v = evaluate(ref, metric_name, metric, why);
        ref.finish();
        r.candidates.emplace_back(name, v);
        detail += (detail.empty() ? "" : ", ") + name + " " + (v ? format_number(*v, 4) : std::string("infeasible"));
        if (v && *v > best) {
          best = *v;
          winner = name;
        }
      }
      // Options the finding did not compare: simulated and shown, never part of the verdict.
      std::string beaten_by;
      if (auto also = root.optional_child("also")) {
        for (const auto& [name, ref] : also->entries()) {
          std::string why;
          const auto v = evaluate(ref, metric_name, metric, why);
          ref.get<std::string>("why");
          ref.finish();
          detail += "; not compared: " + name + " " + (v ? format_number(*v, 4) : std::string("infeasible"));
          if (v && *v > best && beaten_by.empty()) beaten_by = name;
        }
      }
      r.predicted = winner + " (" + detail + ")";
      r.published = expect;
      r.passed = winner == expect;
      if (winner.empty()) r.failure = "no candidate is feasible";
      const auto feasible = static_cast<std::size_t>(std::count_if(
          r.candidates.begin(), r.candidates.end(), [](const auto& c) { return c.second.has_value(); }));
      const std::size_t candidates = r.candidates.size();
      if (!beaten_by.empty()) {
        r.decided_by = "candidate list (" + beaten_by + ", not compared, would win)";
      } else if (feasible == 1 && candidates > 1) {
        r.decided_by = "capacity (only " + winner + " fits)";
      } else {
        r.decided_by = "simulation (" + std::to_string(feasible) + " of " + std::to_string(candidates) +
                       " candidates fit)";
      }
    } else {
      const ConfigNode published = root.child("published");
      r.published_value = published.as<double>();
      published.check_positive(*r.published_value, false);
      r.tolerance = root.get_positive<double>("tolerance");
      if (r.kind == "value") {
        r.predicted_value = evaluate_feasible(root, metric_name, metric);
      } else {
        const ConfigNode num = root.child("numerator");
        const ConfigNode den = root.child("denominator");
        r.predicted_value =
            evaluate_feasible(num, metric_name, metric) / evaluate_feasible(den, metric_name, metric);
        num.finish();
        den.finish();
      }
      r.predicted = format_number(*r.predicted_value, 4);
      r.published = format_number(*r.published_value, 4);
      r.error = *r.predicted_value / *r.published_value - 1.0;
      r.passed = std::fabs(*r.error) <= r.tolerance;
    }
  } catch (const ConfigError&) {
    throw;
  } catch (const UnknownMetric& e) {
    const auto at = root.optional_child(r.kind == "largest" ? "metrics" : "metric");
    (at ? *at : root).fail(e.what());
  } catch (const std::exception& e) {
    r.failure = e.what();
    r.passed = false;
  }
  root.finish();
  return r;
}

MetricFunction with_overrides(MetricFunction metric, std::vector<std::string> extra) {
  return [metric = std::move(metric), extra = std::move(extra)](const YAML::Node& scenario, const std::string& source,
                                                                const std::vector<std::string>& overrides,
                                                                const std::string& name, std::string& why) {
    std::vector<std::string> all = overrides;
    all.insert(all.end(), extra.begin(), extra.end());
    return metric(scenario, source, all, name, why);
  };
}

std::vector<ValidationResult> run_validation_dir(const std::string& dir, const MetricFunction& metric,
                                                 const std::function<void(std::size_t, std::size_t)>& on_case,
                                                 const std::string& match) {
  if (!directory_exists(dir)) throw ConfigError(dir + ": not a directory of validation cases");
  std::vector<fs::path> files;
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    if (it->path().extension() == ".yaml" && fnmatch(match.c_str(), it->path().filename().c_str(), 0) == 0) {
      files.push_back(it->path());
    }
  }
  // A directory that cannot be listed (no permission) is the input's problem, said as such.
  if (ec) throw ConfigError(dir + ": cannot list the validation cases: " + ec.message());
  std::sort(files.begin(), files.end());
  if (files.empty()) throw ConfigError(dir + ": no *.yaml validation cases match '" + match + "'");
  std::vector<ValidationResult> out;
  for (const auto& f : files) {
    out.push_back(run_validation_case(f.string(), metric));
    if (on_case) on_case(out.size(), files.size());
  }
  return out;
}

ValidationSummary summarize(const std::vector<ValidationResult>& results) {
  ValidationSummary s;
  std::vector<double> errors;
  for (const auto& r : results) {
    if (!r.passed) ++s.failed;
    if (r.error) errors.push_back(std::fabs(*r.error));
  }
  s.numeric_cases = errors.size();
  if (!errors.empty()) {
    std::sort(errors.begin(), errors.end());
    const std::size_t n = errors.size();
    s.median_abs_error = n % 2 ? errors[n / 2] : 0.5 * (errors[n / 2 - 1] + errors[n / 2]);
    s.worst_abs_error = errors.back();
  }
  return s;
}

}  // namespace dlrmsim::validation
