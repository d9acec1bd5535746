#include "models/scenario.hpp"
#include "common/data_paths.hpp"
#include "common/files.hpp"

#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <filesystem>
#include <map>
#include <set>
#include <fstream>
#include <sstream>

#include "common/param.hpp"
#include "models/scenario_parameters.hpp"
#include "models/training_mode.hpp"
#include "topologies/device_profile.hpp"
#include "topologies/platform_loader.hpp"

namespace dlrmsim::models {
namespace {

namespace fs = std::filesystem;

// The top-level keys (top_level_parameter_rows() lists them, the scenario's parts by hand).
const Param<std::string> kName{.key_path = "name", .meaning = "Name of the scenario, shown in reports."};
const Param<std::string> kDescription{.key_path = "description", .fallback = "", .meaning = "Free text."};

// The `run:` keys (run_parameter_rows() lists them); the defaults are Scenario's member
// initialisers (tests/test_parameters.cpp checks they agree). Steady state is reached within a
// few steps; thousands only cost time and memory.
const Param<int> kWarmupSteps{
    .key_path = "run.warmup_steps", .unit = "steps", .fallback = 2,
    .range = {.min = Bound<int>{0}, .max = Bound<int>{1000, true, "at most 1000 warm-up steps"}, .interval = true},
    .meaning = "Steps simulated before measuring."};
const Param<int> kSteps{
    .key_path = "run.steps", .unit = "steps", .fallback = 3,
    .range = {.min = Bound<int>{1}, .max = Bound<int>{1000, true, "at most 1000 measured steps"}, .interval = true},
    .meaning = "Measured steps."};
const Param<bool> kStopWhenSteady{
    .key_path = "run.stop_when_steady", .fallback = true,
    .meaning = "Simulate 8 measured steps first and, when they repeat (models/steady_state.hpp: every step as long as "
               "the one a period earlier, within 0.1 % of the mean step), report them instead of all run.steps; false "
               "simulates every step. Runs with stragglers simulate every step."};
const Choice<std::string> kBackend{.key_path = "run.backend", .words = {{"native", "native"}, {"simgrid", "simgrid"}},
                                   .fallback = "native", .meaning = "Engine backend."};
const Param<std::string> kCalibration{
    .key_path = "run.calibration", .fallback = "../calibration",
    .range = {.note = "a directory (next to the scenario, then the data search path)"},
    .meaning = "Where the device profiles are."};

YAML::Node load_yaml_file(const std::string& path, const ConfigNode& referenced_from) {
  std::string text;
  try {
    text = read_input_file(path);
  } catch (const ConfigError& e) {
    referenced_from.fail(e.what());
  }
  return parse_yaml(text, path);
}

/// Whether nothing is at `path` (not one that cannot be examined: that is read, and says why).
bool absent(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) != 0 && (errno == ENOENT || errno == ENOTDIR);
}

/// A referenced part of the scenario (model or platform): its YAML and the file it is in.
struct Part {
  YAML::Node yaml;
  std::string source;
  bool from_file = false;
};

Part load_part(const ConfigNode& scenario, const std::string& key, const std::string& base_dir,
               const std::vector<DataRoot>& data) {
  const auto node = scenario.child(key);
  Part part;
  if (node.is_scalar()) {
    part.source = resolve_data_path(node.as<std::string>(), base_dir, data);
    // Found nowhere: the message lists the places searched and the nearest file name.
    if (absent(part.source)) {
      node.fail(data_file_not_found(node.as<std::string>(), base_dir, data));
    }
    part.yaml = load_yaml_file(part.source, node);
    part.from_file = true;
  } else if (node.is_map()) {
    part.yaml = node.yaml();
    part.source = scenario.source();
  } else {
    node.fail("expected a file path or an inline mapping");
  }
  return part;
}

/// The `jobs:` list (scenario.hpp): each job's parts, and its nodes resolved on the platform.
void parse_jobs(const ConfigNode& jobs, Scenario& s, const std::string& base_dir, const std::vector<DataRoot>& data) {
  const auto list = jobs.elements();
  if (list.empty()) jobs.fail("expected at least one job");
  const auto nodes = s.platform.nodes();
  const auto groups = s.platform.groups();
  // A job's `nodes:` as entries: a node name, or a group and a count.
  struct Want {
    ConfigNode at;
    std::string node;   // a node name, or
    std::string group;  // a group's first `count` free nodes
    std::int64_t count = 0;
  };
  std::vector<std::vector<Want>> wanted(list.size());
  std::size_t total = 0;
  for (std::size_t j = 0; j < list.size(); ++j) {
    const auto nodes_key = list[j].child("nodes");
    const std::vector<ConfigNode> items = nodes_key.is_sequence() ? nodes_key.elements() : std::vector<ConfigNode>{nodes_key};
    if (items.empty()) nodes_key.fail("expected at least one node");
    for (const auto& item : items) {
      Want w{item, "", "", 0};
      if (item.is_scalar()) {
        w.node = item.as<std::string>();
        w.count = 1;
      } else if (item.is_map()) {
        std::vector<std::string> names;
        for (const auto& g : groups) names.push_back(g.name);
        w.group = item.get_choice("group", names);
        w.count = item.get_positive<std::int64_t>("count");
        item.finish();
      } else {
        item.fail("expected a node name or {group: NAME, count: N}");
      }
      wanted[j].push_back(w);
      total += static_cast<std::size_t>(w.count);
    }
  }
  if (total > nodes.size()) {
    jobs.fail("the jobs need " + std::to_string(total) + " nodes together; platform '" + s.platform.name() + "' has " +
              std::to_string(nodes.size()));
  }
  std::vector<std::string> taken_by(nodes.size());
  std::vector<std::string> names;
  for (const auto& n : nodes) names.push_back(n.name);
  for (std::size_t j = 0; j < list.size(); ++j) {
    const auto& e = list[j];
    JobSpec job;
    job.name = e.get<std::string>("name");
    for (const auto& other : s.jobs) {
      if (other.name == job.name) e.child("name").fail("job name '" + job.name + "' is used by an earlier job");
    }
    auto take = [&](const ConfigNode& at, const topo::Node& n) {
      if (!taken_by[n.id.index].empty()) {
        at.fail("node '" + n.name + "' already runs job '" + taken_by[n.id.index] + "'; jobs run on disjoint nodes");
      }
      taken_by[n.id.index] = job.name;
      job.nodes.push_back(n.id);
    };
    for (const auto& w : wanted[j]) {
      if (!w.node.empty()) {
        const auto it = std::find(names.begin(), names.end(), w.node);
        if (it == names.end()) {
          const auto hint = did_you_mean(w.node, names);
          w.at.fail("unknown node '" + w.node + "'" + (hint ? "; did you mean '" + *hint + "'?" : ""));
        }
        take(w.at, nodes[static_cast<std::size_t>(it - names.begin())]);
        continue;
      }
      const auto g = std::find_if(groups.begin(), groups.end(), [&](const topo::NodeGroup& x) { return x.name == w.group; });
      std::int64_t got = 0;
      for (std::uint32_t k = 0; k < g->node_count && got < w.count; ++k) {
        const auto& n = nodes[g->first_node.index + k];
        if (!taken_by[n.id.index].empty()) continue;
        take(w.at, n);
        ++got;
      }
      if (got < w.count) {
        w.at.child("count").fail("group '" + w.group + "' has " + std::to_string(got) + " free node" +
                                 (got == 1 ? "" : "s") + " left of " + std::to_string(g->node_count) + "; the job asks for " +
                                 std::to_string(w.count));
      }
    }
    std::sort(job.nodes.begin(), job.nodes.end(), [](topo::NodeId a, topo::NodeId b) { return a.index < b.index; });
    auto part = [&](const std::string& key) {
      Part p = load_part(e, key, base_dir, data);
      if (p.from_file) s.files.push_back(p.source);
      return p.from_file ? ConfigNode(p.yaml, p.source) : e.child(key);
    };
    job.model = load_model(part("model"));
    const auto training = e.child("training");
    {
      std::vector<std::string> modes;
      for (const auto& m : training_modes()) modes.emplace_back(m.name);
      training.get_choice("mode", modes);
    }
    if (training.optional_child("nodes") && training.get<std::string>("nodes") != "all") {
      training.child("nodes").fail("jobs sharing a fabric simulate every node; use `all` or leave it out");
    }
    job.training = TrainingOptions::from_config(training);
    job.training.nodes = TrainingOptions::NodeFidelity::all;
    if (e.has("software")) job.training.software = SoftwareStack::from_config(part("software"));
    job.model.compute_precision = job.training.software.dense_compute_precision(job.model.compute_precision);
    if (auto p = e.optional_child("placement")) job.placement = placement::PlacementOptions::from_config(*p);
    e.finish();
    s.jobs.push_back(std::move(job));
  }
}

/// Adds to `s.files` what running `s` reads besides its own parts: the files its platform's
/// loading read (node templates from other files, CPU profiles), an explicit placement's plan
/// file, and the device profile of
/// each of its GPU models in the calibration directory, so that no output overwrites them.
void record_platform_files(Scenario& s) {
  auto add = [&](const std::string& f) {
    if (std::find(s.files.begin(), s.files.end(), f) == s.files.end()) s.files.push_back(f);
  };
  for (const std::string& f : s.platform.files_read()) add(f);
  if (!s.placement.explicit_plan_file.empty()) add(s.placement.explicit_plan_file);
  for (const auto& job : s.jobs) {
    if (!job.placement.explicit_plan_file.empty()) add(job.placement.explicit_plan_file);
  }
  std::set<std::string> models;
  for (const topo::DeviceId g : s.platform.all_gpus()) models.insert(s.platform.gpu_spec(g).model);
  for (const std::string& model : models) {
    try {
      add(topo::find_device_profile(model, s.calibration_dir));
    } catch (const ConfigError&) {
      // No profile for this model: the run reports it where it needs one.
    }
  }
}

// placement.tiers naming ssd or cxl on a platform whose CPU sockets have no NVMe drives or no
// CXL expanders: the entry is bad input (a tier the platform cannot hold).
void check_storage_tiers(const ConfigNode& placement, const placement::PlacementOptions& o, const topo::Platform& platform) {
  const auto tiers = placement.optional_child("tiers");
  if (!tiers) return;
  bool nvme = false;
  bool cxl = false;
  for (const auto& n : platform.nodes()) {
    for (topo::DeviceId c : n.cpus) {
      nvme = nvme || platform.cpu_spec(c).nvme.has_value();
      cxl = cxl || platform.cpu_spec(c).cxl.has_value();
    }
  }
  const auto entries = tiers->elements();
  for (std::size_t i = 0; i < entries.size() && i < o.tiers.size(); ++i) {
    if (o.tiers[i] == placement::Tier::ssd && !nvme) {
      entries[i].fail("platform '" + platform.name() + "' has no NVMe drives for the ssd tier: give a CPU device `nvme: "
                      "{model, capacity, ...}` (as configs/platforms/dgx-h100-nvme-cxl.yaml does), or leave ssd out");
    }
    if (o.tiers[i] == placement::Tier::cxl && !cxl) {
      entries[i].fail("platform '" + platform.name() + "' has no CXL memory for the cxl tier: give a CPU device `cxl: "
                      "{model, capacity, ...}` (as configs/platforms/dgx-h100-nvme-cxl.yaml does), or leave cxl out");
    }
  }
}

Scenario parse(YAML::Node root, const std::string& source_name, const std::string& base_dir,
               const std::vector<std::string>& command_line_overrides, const std::shared_ptr<KeyLog>& log,
               topo::DeviceProfileFiles* profile_files) {
  // The scenario's own `set:` list applies first, then the command line's. Each remembers
  // where it came from, so that an error in a value it set points at it, not at the file.
  struct Assignment {
    Override o;
    std::string origin;
  };
  std::vector<Assignment> overrides;
  if (root.IsMap() && root["set"]) {
    const ConfigNode set(root["set"], source_name, "set");
    for (const auto& e : set.elements()) {
      const auto v = e.as<std::string>();
      if (v.find('=') == std::string::npos) e.fail("expected key.path=value");
      try {
        overrides.push_back({parse_override(v), e.where() + " '" + v + "'"});
      } catch (const ConfigError& error) {
        e.fail(error.what());
      }
    }
  }
  for (const auto& text : command_line_overrides) {
    Override o = parse_override(text);
    if (o.path.front() == "set") {
      // The `set:` list is applied before any --set, so a --set of it would do nothing.
      throw ConfigError("--set '" + o.text + "': the scenario's `set:` list cannot be overridden (it is applied "
                        "first); give each assignment as its own --set KEY.PATH=VALUE");
    }
    overrides.push_back({o, "--set '" + o.text + "'"});
  }
  // Overrides of the scenario itself (including replacing a referenced path) come first;
  // those that reach into a referenced platform, model or software file edit its content.
  std::vector<OverrideOrigin> scenario_origins;
  std::map<std::string, std::vector<const Assignment*>> part_overrides;
  for (const auto& a : overrides) {
    const std::string& head = a.o.path.front();
    if ((head == "model" || head == "platform" || head == "software") && a.o.path.size() > 1 && root[head] &&
        root[head].IsScalar()) {
      part_overrides[head].push_back(&a);
      continue;
    }
    scenario_origins.push_back({apply_override(root, a.o), a.origin, ""});
  }
  const ConfigNode scenario = ConfigNode(root, source_name, "", scenario_origins).recording_into(log, "");
  if (!scenario.is_map()) scenario.fail("expected a scenario: a mapping with name, platform, model, training, run");
  Scenario s;
  s.source = source_name;
  const std::vector<DataRoot> data = data_search_path();
  s.name = kName.read(scenario);
  s.description = kDescription.read(scenario);
  scenario.has("set");  // applied above

  // A referenced part: the content of its file with the overrides that reach into it applied,
  // or the scenario's inline mapping.
  auto part_node = [&](const std::string& key) {
    Part part = load_part(scenario, key, base_dir, data);
    if (!part.from_file) return scenario.child(key);
    s.files.push_back(part.source);
    std::vector<OverrideOrigin> origins;
    for (const Assignment* a : part_overrides[key]) {
      origins.push_back({apply_override(part.yaml, a->o, 1), a->origin, key + "."});
    }
    return ConfigNode(part.yaml, part.source, "", origins).recording_into(log, key + ".");
  };
  s.platform = topo::load_platform(part_node("platform"), profile_files);

  // A GPU or CPU socket with no path of links to the rest of its node cannot exchange
  // embeddings, gradients or parameters: the platform file lacks a link. Refused here, at the
  // scenario's platform key, rather than as a routing failure in the middle of a simulation.
  if (const auto unreachable = topo::unreachable_devices(s.platform); !unreachable.empty()) {
    const std::string more = unreachable.size() > 1
                                 ? " (and " + std::to_string(unreachable.size() - 1) + " more such line" +
                                       (unreachable.size() > 2 ? "s" : "") + " in dlrmsim platform's warnings)"
                                 : "";
    scenario.child("platform").fail(unreachable.front() + more +
                                    "; every GPU and CPU socket of a node must have a path of links to the others "
                                    "for a job to run on it");
  }

  if (auto jobs = scenario.optional_child("jobs")) {
    parse_jobs(*jobs, s, base_dir, data);
    for (const char* key : {"model", "training", "software"}) {
      if (scenario.optional_child(key)) {
        scenario.child(key).fail(std::string("with `jobs:`, each job names its own ") + key + "; remove the top-level one");
      }
    }
    if (auto p = scenario.optional_child("placement")) {
      const auto common = placement::PlacementOptions::from_config(*p);
      for (std::size_t j = 0; j < s.jobs.size(); ++j) {
        if (!jobs->elements()[j].optional_child("placement")) s.jobs[j].placement = common;
      }
    }
    for (const char* key : {"goodput", "stragglers"}) {
      if (scenario.optional_child(key)) {
        scenario.child(key).fail(std::string("`") + key + "` applies to a single job; a scenario with `jobs:` "
                                 "cannot have it (run each job as its own scenario for " + key + ")");
      }
    }
    s.model = s.jobs.front().model;
    s.training = s.jobs.front().training;
    s.placement = s.jobs.front().placement;
  } else {
  s.model = load_model(part_node("model"));

  const auto training = scenario.child("training");
  {
    std::vector<std::string> names;
    for (const auto& m : training_modes()) names.emplace_back(m.name);
    training.get_choice("mode", names);  // a did-you-mean for a misspelt mode
  }
  s.training = TrainingOptions::from_config(training);

  // The software stack: built-in defaults (torchrec-fbgemm) unless the scenario names one.
  if (scenario.has("software")) s.training.software = SoftwareStack::from_config(part_node("software"));
  s.model.compute_precision = s.training.software.dense_compute_precision(s.model.compute_precision);

  if (auto p = scenario.optional_child("placement")) {
    s.placement = placement::PlacementOptions::from_config(*p);
    check_storage_tiers(*p, s.placement, s.platform);
  }
  }
  if (auto g = scenario.optional_child("goodput")) {
    s.goodput = GoodputOptions::from_config(*g);
    if (!s.platform.storage() || !s.platform.storage()->checkpoint_bandwidth) {
      g->fail("platform '" + s.platform.name() + "' gives no storage to checkpoint to; add `storage: "
              "{checkpoint_bandwidth: ...}` to the platform (or --set platform.storage.checkpoint_bandwidth=...)");
    }
  }
  if (auto st = scenario.optional_child("stragglers")) s.stragglers = StragglerOptions::from_config(*st, s.platform);
  if (auto c = scenario.optional_child("cost")) s.cost = CostOptions::from_config(*c);
  std::string calibration = *kCalibration.fallback;
  if (auto run = scenario.optional_child("run")) {
    s.warmup_steps = kWarmupSteps.read(*run);
    s.steps = kSteps.read(*run);
    s.stop_when_steady = kStopWhenSteady.read(*run);
    s.backend = kBackend.read(*run);
    calibration = kCalibration.read(*run);
    run->finish();
  }
  // Next to the scenario's folder, else in the data search path (common/data_paths.hpp).
  s.calibration_dir = resolve_data_path(calibration, base_dir, data);
  record_platform_files(s);
  scenario.finish();
  return s;
}

}  // namespace

std::vector<ParameterRow> top_level_parameter_rows() {
  return {
      kName.row(),
      kDescription.row(),
      Parameter{"set", "", "none", "a list of \"key.path=value\"", "Overrides applied before the command line's --set."},
      Parameter{"platform", "", "required",
                "a platform file path (next to the scenario, then the data search path) or a mapping",
                "The hardware (platform keys)."},
      Parameter{"model", "", "required", "a model file path or a mapping", "The model (model keys)."},
      Parameter{"software", "", "the built-in stack (torchrec-fbgemm)", "a software file path or a mapping",
                "The training software (software keys)."},
  };
}

std::vector<ParameterRow> run_parameter_rows() {
  return {
      Parameter{"run", "", "the defaults below", "a mapping", "How the simulation runs."},
      kWarmupSteps.row(),
      kSteps.row(),
      kStopWhenSteady.row(),
      kBackend.row(),
      kCalibration.row(),
  };
}

Scenario load_scenario(const std::string& path, const std::vector<std::string>& overrides,
                       const std::shared_ptr<KeyLog>& log) {
  const ConfigNode file = ConfigNode::load_file(path);
  Scenario s = parse(file.yaml(), path, fs::path(path).parent_path().string(), overrides, log, nullptr);
  s.files.insert(s.files.begin(), path);
  return s;
}

Scenario load_scenario_text(const std::string& text, const std::string& source_name, const std::string& base_dir,
                            const std::vector<std::string>& overrides, const std::shared_ptr<KeyLog>& log,
                            topo::DeviceProfileFiles* profile_files) {
  const ConfigNode file = ConfigNode::load_string(text, source_name);
  return parse(file.yaml(), source_name, base_dir, overrides, log, profile_files);
}

}  // namespace dlrmsim::models
