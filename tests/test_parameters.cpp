// The parameter registry (common/parameters.hpp, tools/parameter_registry.hpp) against the
// readers: every key a reader asks for while loading the shipped configuration files is
// declared, every declared key is asked for, and documented defaults are the code's.
#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "models/scenario.hpp"
#include "models/software_stack.hpp"
#include "topologies/platform_loader.hpp"
#include "tools/parameter_registry.hpp"
#include "app/sweep.hpp"

namespace dlrmsim::tools {
namespace {

namespace fs = std::filesystem;

const std::string kConfigs = std::string(DLRMSIM_SOURCE_DIR) + "/configs";

std::vector<std::string> yaml_files(const std::string& dir) {
  std::vector<std::string> out;
  for (const auto& e : fs::directory_iterator(kConfigs + "/" + dir)) {
    if (e.path().extension() == ".yaml") out.push_back(e.path().string());
  }
  std::sort(out.begin(), out.end());
  return out;
}

/// Keys that no shipped file uses but users may write, set on the default scenario (as --set
/// would) so that the readers are seen asking for them too.
const std::vector<std::vector<std::string>> kRareKeys = {
    {"model.embedding_tables.0.lookups_per_sample={distribution: fixed, value: 2}"},
    {"model.embedding_tables.0.lookups_per_sample={distribution: poisson, mean: 20}"},
    {"model.embedding_tables.0.access={kind: hit_rate_curve, points: [[0.1, 0.5], [0.5, 0.9]]}"},
    {"software.host.loader={per_sample: 1 us, workers: 2}",
     "training.roles={trainer: trainer, parameter_server: parameter_server, embedding_worker: embedding_worker}",
     "stragglers={slowdown: {gpu0: 1.5}, random: {distribution: lognormal, sigma: 0.1, median: 1.1}}"},
    {"stragglers.random={distribution: uniform, min: 1, max: 2}"},
};
/// A node with a network switch in it (shipped platforms have them only in fabrics).
const std::string kSwitchInANode =
    "name: t\nnode_templates:\n  box:\n    devices:\n"
    "      - {name: tor, kind: network_switch, port_bandwidth: 400 Gbit/s, ports: 32}\n";

/// The key paths readers asked for while loading every shipped file and kRareKeys: `scenario`
/// for scenarios (with the files they reference), platforms, models, software stacks and the
/// first point of every sweep; `sweep` for the sweep files themselves.
struct ShippedKeys {
  std::shared_ptr<KeyLog> scenario = std::make_shared<KeyLog>();
  std::shared_ptr<KeyLog> sweep = std::make_shared<KeyLog>();
};

ShippedKeys record_shipped_keys() {
  ShippedKeys keys;
  for (const auto& f : yaml_files("scenarios")) models::load_scenario(f, {}, keys.scenario);
  for (const auto& overrides : kRareKeys) {
    models::load_scenario(kConfigs + "/scenarios/default.yaml", overrides, keys.scenario);
  }
  topo::load_platform(ConfigNode::load_string(kSwitchInANode, "t.yaml").recording_into(keys.scenario, "platform."));
  for (const auto& f : yaml_files("platforms")) {
    topo::load_platform(ConfigNode::load_file(f).recording_into(keys.scenario, "platform."));
  }
  for (const auto& f : yaml_files("models")) models::load_model(ConfigNode::load_file(f).recording_into(keys.scenario, "model."));
  for (const auto& f : yaml_files("software")) {
    models::SoftwareStack::from_config(ConfigNode::load_file(f).recording_into(keys.scenario, "software."));
  }
  for (const auto& f : yaml_files("sweeps")) {
    const app::Sweep sweep = app::load_sweep(f, keys.sweep);
    const app::SweepPoint p = sweep.point(0);
    YAML::Emitter text;
    text << p.scenario;
    models::load_scenario_text(text.c_str(), p.scenario_source, fs::path(p.scenario_source).parent_path().string(),
                               p.overrides, keys.scenario);
  }
  return keys;
}

const ShippedKeys& shipped_keys() {
  static const ShippedKeys keys = record_shipped_keys();  // loaded once, read-only after
  return keys;
}

std::vector<Parameter> scenario_side(const std::vector<ParameterKind>& kinds) {
  std::vector<Parameter> out;
  for (const ParameterKind& k : kinds) {
    if (k.name != "sweep") out.insert(out.end(), k.parameters.begin(), k.parameters.end());
  }
  return out;
}

std::vector<Parameter> sweep_side(const std::vector<ParameterKind>& kinds) {
  for (const ParameterKind& k : kinds) {
    if (k.name == "sweep") return k.parameters;
  }
  return {};
}

std::string joined(const std::vector<std::string>& items) {
  std::string out;
  for (const auto& i : items) out += (out.empty() ? "" : ", ") + i;
  return out;
}

/// The recorded paths that no declaration among `declared` matches.
std::vector<std::string> undeclared(const KeyLog& recorded, const std::vector<Parameter>& declared) {
  std::vector<std::string> out;
  for (const std::string& path : recorded) {
    if (!find_parameter(declared, path)) out.push_back(path);
  }
  return out;
}

/// The declarations of `kinds` that match no recorded path.
std::vector<std::string> unread(const std::vector<ParameterKind>& kinds, const ShippedKeys& keys) {
  std::vector<std::string> dead;
  for (const ParameterKind& kind : kinds) {
    const KeyLog& log = kind.name == "sweep" ? *keys.sweep : *keys.scenario;
    for (const Parameter& p : kind.parameters) {
      const bool recorded =
          std::any_of(log.begin(), log.end(), [&](const std::string& k) { return key_path_matches(p.key_path, k); });
      if (!recorded) dead.emplace_back(p.key_path);
    }
  }
  return dead;
}

// System: every shipped file under configs/ loaded with a key log. Expected: each key path a
// reader asked for (a key present or probed) matches a declaration of its kind, so that
// `dlrmsim list --keys` and docs/configuration.md name every key the program reads.
TEST_CASE("every key the readers ask for in the shipped files is declared") {
  const auto kinds = parameter_kinds();
  const ShippedKeys& keys = shipped_keys();
  CHECK(keys.scenario->size() > 300);  // the log works: hundreds of paths (list indices apart)
  CHECK(joined(undeclared(*keys.scenario, scenario_side(kinds))) == "");
  CHECK(joined(undeclared(*keys.sweep, sweep_side(kinds))) == "");
}

// System: the same log, the other way. Expected: every declaration is asked for while loading
// the shipped files or kRareKeys; a declaration nobody reads (a key renamed in the reader but
// not in the table) fails here.
TEST_CASE("every declared key is read by some reader") { CHECK(joined(unread(parameter_kinds(), shipped_keys())) == ""); }

// System: the check above with one declaration added that no reader knows ("run.stepz").
// Expected: it alone is reported - the check can fail.
TEST_CASE("a declaration nobody reads is reported") {
  auto kinds = parameter_kinds();
  kinds.front().parameters.push_back({"run.stepz", "steps", "3", ">= 1", "A misspelt declaration."});
  CHECK(unread(kinds, shipped_keys()) == std::vector<std::string>{"run.stepz"});
}

// System: the check of the first test with one declaration removed (run.steps, which every
// shipped scenario sets). Expected: the recorded "run.steps" is then reported undeclared -
// the check can fail.
TEST_CASE("a missing declaration is reported") {
  std::vector<Parameter> declared = scenario_side(parameter_kinds());
  const auto before = declared.size();
  std::erase_if(declared, [](const Parameter& p) { return p.key_path == "run.steps"; });
  REQUIRE(declared.size() == before - 1);
  const auto missing = undeclared(*shipped_keys().scenario, declared);
  CHECK(missing == std::vector<std::string>{"run.steps"});
}

// System: key_path_matches. Inputs and expected: `*` matches one segment, list index or free
// name; segment counts must agree; an empty segment never matches.
TEST_CASE("key paths match declarations segment by segment") {
  CHECK(key_path_matches("platform.node_templates.*.devices.*.count", "platform.node_templates.dgx.devices.0.count"));
  CHECK_FALSE(key_path_matches("platform.node_templates.*.devices.*.count", "platform.node_templates.dgx.devices.0"));
  CHECK_FALSE(key_path_matches("platform.node_templates.*", "platform.node_templates.dgx.devices"));
  CHECK(key_path_matches("run.steps", "run.steps"));
  CHECK_FALSE(key_path_matches("run.steps", "run.step"));
  CHECK_FALSE(key_path_matches("*", ""));
  CHECK_FALSE(key_path_matches("run.*", "run."));
}

// System: what readers take from a declaration. Input: the declaration of
// software.embeddings.kernel. Expected: the key "kernel" (the last segment) and the choices
// of its range in order, table_batched then per_table - the order error messages list them in.
TEST_CASE("a reader takes its key and choices from the declaration") {
  const Parameter& p = declared(models::software_parameters(), "software.embeddings.kernel");
  CHECK(parameter_key(p) == "kernel");
  CHECK(parameter_choices(p) == std::vector<std::string>{"table_batched", "per_table"});
  CHECK(parameter_key(Parameter{"run", "", "", "", ""}) == "run");
  CHECK_THROWS_AS(declared(models::software_parameters(), "software.embeddings.kernal"), std::logic_error);
}

/// The leading value of a documented default: "25 MiB (PyTorch DDP's bucket_cap_mb)" -> "25 MiB".
std::string default_literal(std::string_view d) {
  const auto paren = d.find(" (");
  return std::string(d.substr(0, paren));
}

// System: the software stack's reader. Input: for each software key with a plain default, a
// stack that sets only that key to its documented default. Expected: the stack equals the one
// read from an empty mapping (all defaults) but for the name, so the documented defaults are
// the ones the code uses.
TEST_CASE("documented software defaults are the reader's defaults") {
  const auto empty = models::SoftwareStack::from_config(ConfigNode::load_string("{}", "empty.yaml"));
  int checked = 0;
  for (const Parameter& p : models::software_parameters()) {
    const std::string value = default_literal(p.default_value);
    const auto dot = p.key_path.rfind('.');
    if (value.empty() || value.front() == '"' || value.starts_with("the ") || std::count(p.key_path.begin(), p.key_path.end(), '.') < 2) {
      continue;
    }
    CAPTURE(p.key_path);
    YAML::Node root(YAML::NodeType::Map);
    apply_override(root, std::string(p.key_path.substr(std::string_view("software.").size())) + "=" + value);
    (void)dot;
    auto stack = models::SoftwareStack::from_config(ConfigNode(root, "default.yaml"));
    stack.name = empty.name;
    CHECK(stack == empty);
    ++checked;
  }
  CHECK(checked >= 15);
}

// System: the scenario's run and placement readers. Input: the default scenario as shipped
// but with run.* / placement.* keys at their documented defaults. Expected: the same values as
// Scenario's and PlacementOptions' member initialisers.
TEST_CASE("documented run and placement defaults are the reader's defaults") {
  const models::Scenario none = models::load_scenario_text(
      "name: t\nplatform: ../platforms/dgx-h100.yaml\nmodel: ../models/dlrm_mlperf_criteo_1tb.yaml\n"
      "training: {mode: hybrid_parallel_sync}\n",
      "t.yaml", kConfigs + "/scenarios");
  const auto doc = [](std::string_view key) {
    return default_literal(find_parameter(parameter_kinds().front().parameters, key)->default_value);
  };
  CHECK(std::to_string(none.warmup_steps) == doc("run.warmup_steps"));
  CHECK(std::to_string(none.steps) == doc("run.steps"));
  CHECK(none.backend == doc("run.backend"));
  CHECK(none.placement.policy == doc("placement.policy"));
  CHECK(std::string(to_string(none.placement.cache_model)) == doc("placement.cache_model"));
  CHECK(none.placement.uvm_cache_fraction == std::stod(doc("placement.uvm_cache_fraction")));
  CHECK(none.placement.memory_reserve_fraction == std::stod(doc("placement.memory_reserve_fraction")));
  CHECK(std::to_string(none.placement.search_exhaustive_limit) == doc("placement.search_exhaustive_limit"));
  CHECK(std::to_string(none.placement.search_max_evaluations) == doc("placement.search_max_evaluations"));
  CHECK(std::to_string(none.training.staleness) == doc("training.staleness"));
  CHECK(none.cost.pue == std::stod(doc("cost.pue")));
  CHECK(none.cost.training_samples == std::stod(doc("cost.training_samples")));
}

}  // namespace
}  // namespace dlrmsim::tools
