// The shipped validation table cannot drift: the cases of validation/cases/ are run in process
// (validation/case_runner.hpp and app/validate.hpp, the same runner and metric as `dlrmsim
// validate`) and their JSON is compared with validation/expected.json, the table docs/validation.md shows. A prediction that moves
// by more than kTolerance, a verdict that flips, a different winner of a qualitative case, a
// case that now fails to evaluate, or a case added or removed without updating the file fails
// the test with a table of what moved.
//
// A change that moves accuracy is a deliberate, reviewed update of that file. To re-record it
// (then check the diff, and write docs/validation.md's table from it):
//   build/dlrmsim validate validation/cases --json validation/expected.json
//   python3 tools/validation_table.py . --update
// (exit status 1 while some cases are outside their tolerance; the file is written anyway).
#include <doctest/doctest.h>

#include <cmath>
#include <cstdio>
#include <map>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/files.hpp"
#include "app/validate.hpp"
#include "paths.hpp"

using namespace dlrmsim;
using nlohmann::json;

namespace {

using dlrmsim::testing::kRoot;

// 0.5 %: the simulation is deterministic (integer picosecond clock, ties broken by insertion
// order), so the same code gives the same predictions bit for bit; the tolerance only absorbs
// floating-point differences between compilers and flags (the sanitizer build, -O0, another
// libm). The metrics reach the table with 6 significant digits (app/scenario_runner.cpp),
// far finer than 0.5 %. When the table was recorded, every verdict was more than 10 % from
// flipping (the closest: finding 1, HBM 549k against UVM 496k samples/s; finding 4's ratio
// 12 points inside its tolerance), so none can flip within this tolerance; a flip is reported
// on its own anyway.
constexpr double kTolerance = 0.005;

struct Change {
  std::string file;
  std::string what;
  std::string expected;
  std::string now;
  std::string change;
};

std::string text(const json& v) {
  if (v.is_null()) return "null";
  if (v.is_string()) return v.get<std::string>();
  char buf[32];
  if (v.is_number()) {
    std::snprintf(buf, sizeof buf, "%.6g", v.get<double>());
    return buf;
  }
  return v.dump();
}

std::string relative_change(double expected, double now) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%+.3f %%", 100.0 * (now / expected - 1.0));
  return buf;
}

/// Whether two metric values (numbers, or null for infeasible) agree within kTolerance.
bool same_value(const json& expected, const json& now) {
  if (expected.is_null() || now.is_null()) return expected.is_null() && now.is_null();
  const double e = expected.get<double>(), n = now.get<double>();
  return std::fabs(n - e) <= kTolerance * std::fabs(e);
}

/// The winner of a qualitative case: its predicted text up to " (".
std::string winner(const json& c) {
  const std::string p = c.value("predicted", "");
  return p.substr(0, p.find(" ("));
}

std::map<std::string, json> by_file(const json& table) {
  std::map<std::string, json> cases;
  for (const json& c : table.at("cases")) cases[c.at("file").get<std::string>()] = c;
  return cases;
}

/// Every difference between two validation tables (the JSON of `dlrmsim validate`).
std::vector<Change> compare_tables(const json& expected_table, const json& now_table) {
  std::vector<Change> changes;
  const auto expected = by_file(expected_table), now = by_file(now_table);
  for (const auto& [file, e] : expected) {
    if (!now.count(file)) changes.push_back({file, "case", "present", "removed", ""});
  }
  for (const auto& [file, n] : now) {
    const auto it = expected.find(file);
    if (it == expected.end()) {
      changes.push_back({file, "case", "absent", "added", ""});
      continue;
    }
    const json& e = it->second;
    if (e.value("kind", "") != n.value("kind", "")) {
      changes.push_back({file, "kind", e.value("kind", ""), n.value("kind", ""), ""});
    }
    if (e.value("passed", false) != n.value("passed", false)) {
      changes.push_back({file, "within tolerance", text(e.value("passed", false)), text(n.value("passed", false)),
                         "verdict flipped"});
    }
    if (e.value("failure", "") != n.value("failure", "")) {
      changes.push_back({file, "failure", e.value("failure", "-"), n.value("failure", "-"), ""});
    }
    const json ev = e.value("predicted_value", json()), nv = n.value("predicted_value", json());
    if (!same_value(ev, nv)) {
      changes.push_back({file, "predicted", text(ev), text(nv),
                         ev.is_number() && nv.is_number() ? relative_change(ev.get<double>(), nv.get<double>()) : ""});
    }
    if (winner(e) != winner(n)) changes.push_back({file, "winner", winner(e), winner(n), "verdict of the finding"});
    const json ec = e.value("candidates", json::object()), nc = n.value("candidates", json::object());
    std::set<std::string> names;
    for (const auto& [name, v] : ec.items()) names.insert(name);
    for (const auto& [name, v] : nc.items()) names.insert(name);
    for (const std::string& name : names) {
      if (!ec.contains(name) || !nc.contains(name)) {
        changes.push_back({file, "candidate " + name, ec.contains(name) ? "present" : "absent",
                           nc.contains(name) ? "present" : "absent", ""});
      } else if (!same_value(ec[name], nc[name])) {
        const bool numbers = ec[name].is_number() && nc[name].is_number();
        changes.push_back({file, "candidate " + name, text(ec[name]), text(nc[name]),
                           numbers ? relative_change(ec[name].get<double>(), nc[name].get<double>()) : "feasibility"});
      }
    }
  }
  return changes;
}

std::string format_changes(const std::vector<Change>& changes) {
  std::string out = "what moved (tolerance 0.5 %):\n";
  char line[512];
  std::snprintf(line, sizeof line, "  %-46s %-34s %-14s %-14s %s\n", "case file", "what", "expected", "now", "change");
  out += line;
  for (const auto& c : changes) {
    std::snprintf(line, sizeof line, "  %-46s %-34s %-14s %-14s %s\n", c.file.c_str(), c.what.c_str(),
                  c.expected.substr(0, 14).c_str(), c.now.substr(0, 14).c_str(), c.change.c_str());
    out += line;
  }
  return out +
         "If the change is intended, re-record the table and review its diff:\n"
         "  build/dlrmsim validate validation/cases --json validation/expected.json\n"
         "and write it into docs/validation.md: python3 tools/validation_table.py . --update\n";
}

}  // namespace

// The shipped cases (21 when this was written: 6 HPCA 2021 findings, 2 MLPerf, 13 Persia)
// against validation/expected.json: no change at all is expected (see kTolerance).
TEST_CASE("the shipped validation cases give the recorded table") {
  const json expected = json::parse(read_input_file(kRoot + "/validation/expected.json"));
  const auto results = validation::run_validation_dir(kRoot + "/validation/cases", app::scenario_metric);
  const json now = json::parse(app::validation_json(results));
  const std::vector<Change> changes = compare_tables(expected, now);
  if (!changes.empty()) FAIL_CHECK(format_changes(changes));
}

// The comparison itself, on a two-case table: a value case predicted 100 (passed) and a best
// case won by "a" (a 10, b 5, c infeasible). Moving the prediction by 0.4 % is no change;
// by 1 % it is one; a flipped verdict, another winner, a candidate that becomes feasible, an
// added and a removed case are each reported.
TEST_CASE("the comparison reports each kind of drift and nothing else") {
  const json base = json::parse(R"json({"cases": [
    {"file": "v.yaml", "kind": "value", "predicted": "100", "predicted_value": 100.0, "passed": true},
    {"file": "b.yaml", "kind": "best", "predicted": "a (a 10, b 5, c infeasible)",
     "candidates": {"a": 10.0, "b": 5.0, "c": null}, "passed": true}]})json");
  CHECK(compare_tables(base, base).empty());

  json within = base;
  within["cases"][0]["predicted_value"] = 100.4;
  within["cases"][1]["candidates"]["b"] = 4.99;
  CHECK(compare_tables(base, within).empty());

  json moved = base;
  moved["cases"][0]["predicted_value"] = 101.0;
  auto changes = compare_tables(base, moved);
  REQUIRE(changes.size() == 1);
  CHECK(changes[0].what == "predicted");
  CHECK(changes[0].change == "+1.000 %");

  json flipped = base;
  flipped["cases"][0]["passed"] = false;
  flipped["cases"][1]["predicted"] = "b (a 4, b 5, c infeasible)";
  flipped["cases"][1]["candidates"]["a"] = 4.0;
  flipped["cases"][1]["candidates"]["c"] = 1.0;
  changes = compare_tables(base, flipped);
  std::set<std::string> kinds;
  for (const auto& c : changes) kinds.insert(c.file + " " + c.what);
  CHECK(kinds == std::set<std::string>{"v.yaml within tolerance", "b.yaml winner", "b.yaml candidate a",
                                       "b.yaml candidate c"});

  json renamed = base;
  renamed["cases"][0]["file"] = "w.yaml";
  changes = compare_tables(base, renamed);
  REQUIRE(changes.size() == 2);
  CHECK(format_changes(changes).find("v.yaml") != std::string::npos);
  CHECK(format_changes(changes).find("removed") != std::string::npos);
  CHECK(format_changes(changes).find("added") != std::string::npos);
}
