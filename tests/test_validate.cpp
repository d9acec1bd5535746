// Validation cases (validation/case_runner.hpp, and the JSON of app/validate.hpp): value,
// ratio and best-of cases against a stand-in metric, the summary
// (median and worst absolute error), failures outside tolerance and infeasible candidates, and
// the JSON table (read back with nlohmann::json).
#include <doctest/doctest.h>

#include "approx.hpp"

#include <nlohmann/json.hpp>

#include "common/config.hpp"
#include "app/validate.hpp"
#include "file_fixtures.hpp"

using namespace dlrmsim;
using namespace dlrmsim::app;
using namespace dlrmsim::validation;
using dlrmsim::testing::ScratchDir;

namespace {
// Stand-in metric: the scenario's `speed` key, or infeasible when `fits: false`.
std::optional<double> fake_metric(const YAML::Node& base, const std::string&, const std::vector<std::string>& overrides,
                                  const std::string& metric, std::string& why) {
  YAML::Node scenario = YAML::Clone(base);
  for (const auto& o : overrides) apply_override(scenario, o);
  if (scenario["fits"] && !scenario["fits"].as<bool>()) {
    why = "gpu0 overflows by 5 GB";
    return std::nullopt;
  }
  if (metric != "throughput_samples_per_s") {
    if (!scenario[metric]) throw dlrmsim::validation::UnknownMetric("unknown metric '" + metric + "'");
    return scenario[metric].as<double>();
  }
  return scenario["speed"].as<double>();
}
}  // namespace

TEST_CASE("validate --match picks case files by shell pattern and --set overrides after each case's own") {
  // Case b sets speed=95 itself; an extra speed=120 comes after it, so b predicts 120 (+20 %),
  // as does a (110 without it). The pattern 'b*' keeps b alone; 'z*' matches nothing.
  ScratchDir d;
  d.write("scen/s.yaml", "speed: 110\n");
  d.write("a.yaml", "case: A\nsource: paper\nkind: value\nscenario: scen/s.yaml\npublished: 100\ntolerance: 0.25\n");
  d.write("b.yaml", "case: B\nsource: paper\nkind: value\nscenario: scen/s.yaml\nset: [speed=95]\npublished: 100\ntolerance: 0.25\n");
  const auto only_b = run_validation_dir(d.dir.string(), fake_metric, {}, "b*");
  REQUIRE(only_b.size() == 1);
  CHECK(*only_b[0].error == dlrmsim::rel(-0.05));
  const auto moved = run_validation_dir(d.dir.string(), with_overrides(fake_metric, {"speed=120"}));
  REQUIRE(moved.size() == 2);
  CHECK(*moved[0].error == dlrmsim::rel(0.20));
  CHECK(*moved[1].error == dlrmsim::rel(0.20));
  CHECK_THROWS_WITH_AS(run_validation_dir(d.dir.string(), fake_metric, {}, "z*"),
                       (d.dir.string() + ": no *.yaml validation cases match 'z*'").c_str(), ConfigError);
}

TEST_CASE("value, ratio and best cases with a summary of absolute errors") {
  // Predicted 110 vs 100 (+10 %), 95 vs 100 (-5 %), ratio 110/55 = 2 vs 2.5 (-20 %, tolerance
  // 10 %: fails). Median |error| of 10, 5, 20 % is 10 %, worst 20 %.
  ScratchDir d;
  d.write("scen/s.yaml", "speed: 110\n");
  d.write("scen/t.yaml", "speed: 95\n");
  d.write("scen/u.yaml", "speed: 55\n");
  d.write("scen/big.yaml", "speed: 1\nfits: false\n");
  d.write("a.yaml", "case: A\nsource: paper\nkind: value\nscenario: scen/s.yaml\npublished: 100\ntolerance: 0.25\n");
  d.write("b.yaml", "case: B\nsource: paper\nkind: value\nscenario: scen/s.yaml\nset: [speed=95]\npublished: 100\ntolerance: 0.25\n");
  d.write("c.yaml", "case: C\nsource: paper\nkind: ratio\nnumerator: {scenario: scen/s.yaml}\ndenominator: {scenario: scen/u.yaml}\n"
                    "published: 2.5\ntolerance: 0.1\n");
  d.write("d.yaml", "case: D\nsource: paper\nkind: best\ncandidates:\n  hbm: {scenario: scen/big.yaml}\n  remote: {scenario: scen/u.yaml}\n"
                    "  host: {scenario: scen/t.yaml}\nexpect: host\n");
  const auto results = run_validation_dir(d.dir.string(), fake_metric);
  REQUIRE(results.size() == 4);
  CHECK(*results[0].error == dlrmsim::rel(0.10));
  CHECK(*results[1].error == dlrmsim::rel(-0.05));
  CHECK(*results[2].error == dlrmsim::rel(-0.20));
  CHECK_FALSE(results[2].passed);
  CHECK(results[3].passed);
  CHECK(results[3].predicted.find("hbm infeasible") != std::string::npos);
  const ValidationSummary s = summarize(results);
  CHECK(s.numeric_cases == 3);
  CHECK(s.median_abs_error == dlrmsim::rel(0.10));
  CHECK(s.worst_abs_error == dlrmsim::rel(0.20));
  CHECK(s.failed == 1);
  CHECK(validation_table(results).find("median absolute error 10.0 %, worst 20.0 %; 1 outside tolerance") !=
        std::string::npos);
  // The JSON carries the same figures: the summary, each value case's full-precision
  // prediction and each best case's candidates (null for the infeasible one).
  const nlohmann::json json = nlohmann::json::parse(validation_json(results));
  CHECK(json["failed"] == 1);
  CHECK(json["median_abs_error"].get<double>() == dlrmsim::rel(0.10));
  REQUIRE(json["cases"].size() == 4);
  CHECK(json["cases"][0]["predicted_value"].get<double>() == 110.0);
  CHECK(json["cases"][0]["error"].get<double>() == dlrmsim::rel(0.10));
  CHECK(json["cases"][2]["passed"] == false);
  CHECK(json["cases"][3]["candidates"]["hbm"].is_null());
  CHECK(json["cases"][3]["candidates"]["remote"].get<double>() == 55.0);
  CHECK(json["cases"][3]["candidates"]["host"].get<double>() == 95.0);
  CHECK_FALSE(json["cases"][3].contains("predicted_value"));
}

TEST_CASE("a largest case names the metric that dominates one scenario") {
  // lookup 3 > dense 2 > comm 1: the expected 'lookup' is the largest.
  ScratchDir d;
  d.write("scen/m.yaml", "speed: 1\nlookup: 3\ndense: 2\ncomm: 1\n");
  d.write("l.yaml", "case: L\nsource: paper\nkind: largest\nscenario: scen/m.yaml\nmetrics: [dense, lookup, comm]\n"
                    "expect: lookup\n");
  const auto r = run_validation_case((d.dir / "l.yaml").string(), fake_metric);
  CHECK(r.passed);
  CHECK(r.predicted == "lookup (dense 2, lookup 3, comm 1)");
}

// System: a value case naming a metric no run reports, a best case whose expected answer is
// no candidate, and a largest case whose expected answer is none of its metrics. Expected:
// each a ConfigError located at the key (bad input, exit status 2); they once gave a NO
// verdict (exit status 1), as if the simulation disagreed with the published finding.
TEST_CASE("an unknown metric and an expected answer that is not an option are located errors") {
  ScratchDir d;
  d.write("scen/s.yaml", "speed: 1\nlookup: 3\n");
  d.write("m.yaml", "case: M\nsource: s\nkind: value\nscenario: scen/s.yaml\nmetric: lookpu\npublished: 1\n"
                    "tolerance: 0.1\n");
  CHECK_THROWS_WITH_AS(run_validation_case((d.dir / "m.yaml").string(), fake_metric),
                       doctest::Contains("m.yaml:5:9: metric: unknown metric 'lookpu'"), ConfigError);
  d.write("b.yaml", "case: B\nsource: s\nkind: best\ncandidates:\n  a: {scenario: scen/s.yaml}\n"
                    "  b: {scenario: scen/s.yaml}\nexpect: c\n");
  CHECK_THROWS_WITH_AS(run_validation_case((d.dir / "b.yaml").string(), fake_metric),
                       doctest::Contains("b.yaml:7:9: expect: 'c' is not one of the candidates 'a', 'b'"), ConfigError);
  d.write("l.yaml", "case: L\nsource: s\nkind: largest\nscenario: scen/s.yaml\nmetrics: [speed, lookup]\n"
                    "expect: lookpu\n");
  CHECK_THROWS_WITH_AS(run_validation_case((d.dir / "l.yaml").string(), fake_metric),
                       doctest::Contains("expect: 'lookpu' is not one of the metrics 'speed', 'lookup'; did you mean "
                                         "'lookup'?"),
                       ConfigError);
}

TEST_CASE("a malformed case is a located error") {
  ScratchDir d;
  d.write("scen/s.yaml", "speed: 1\n");
  d.write("x.yaml", "case: X\nsource: s\nkind: valu\nscenario: scen/s.yaml\npublished: 1\ntolerance: 0.1\n");
  CHECK_THROWS_WITH_AS(run_validation_case((d.dir / "x.yaml").string(), fake_metric),
                       doctest::Contains("x.yaml:3:7: kind: 'valu' is not one of"), ConfigError);
  d.write("y.yaml", "case: Y\nsource: s\nkind: value\nscenario: scen/s.yaml\npublished: 1\ntolerence: 0.1\n");
  CHECK_THROWS_WITH_AS(run_validation_case((d.dir / "y.yaml").string(), fake_metric),
                       doctest::Contains("missing required key 'tolerance'"), ConfigError);
}
