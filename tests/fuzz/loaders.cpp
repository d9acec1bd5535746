#include "tests/fuzz/loaders.hpp"

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <stdexcept>

#include "common/config.hpp"
#include "common/units.hpp"
#include "models/device_profile.hpp"
#include "models/model_spec.hpp"
#include "models/scenario.hpp"
#include "sim/activity_graph.hpp"
#include "topologies/platform_loader.hpp"
#include "tools/sweep.hpp"

namespace dlrmsim::fuzz {
namespace {

namespace fs = std::filesystem;

/// A per-process scratch directory for loaders that read files.
fs::path scratch() {
  const fs::path dir = fs::temp_directory_path() / ("dlrmsim_fuzz_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  return dir;
}

std::string write_scratch(const std::string& name, const std::string& text) {
  const fs::path p = scratch() / name;
  std::ofstream(p, std::ios::trunc | std::ios::binary) << text;
  return p.string();
}

void load_units(const std::string& text) {
  for (Dimension d : {Dimension::bytes, Dimension::seconds, Dimension::flops, Dimension::bytes_per_second,
                      Dimension::flops_per_second, Dimension::hertz}) {
    try {
      (void)parse_quantity(text, d);
    } catch (const UnitError&) {
    }
  }
}

void load_sweep_file(const std::string& text) {
  write_scratch("base.yaml", "a: 1\nb: {c: 2}\n");
  (void)tools::load_sweep(write_scratch("sweep.yaml", text));
}

void load_platform_text(const std::string& text) {
  // Named as if in configs/platforms/, so `from_file:` references of the seeds resolve.
  (void)topo::load_platform(ConfigNode::load_string(text, DLRMSIM_SOURCE_DIR "/configs/platforms/fuzzed.yaml"));
}

void load_model_text(const std::string& text) { (void)models::load_model(ConfigNode::load_string(text, "model.yaml")); }

// Relative paths in a fuzzed scenario resolve against the shipped scenarios, so the seeds
// (configs/scenarios/*.yaml) load their real platform and model files.
void load_scenario_text(const std::string& text) {
  (void)models::load_scenario_text(text, DLRMSIM_SOURCE_DIR "/configs/scenarios/fuzzed.yaml",
                                   DLRMSIM_SOURCE_DIR "/configs/scenarios");
}

void load_profile_text(const std::string& text) {
  (void)models::parse_device_profile(ConfigNode::load_string(text, "profile.yaml"));
}

}  // namespace

const std::vector<Loader>& loaders() {
  static const std::vector<Loader> kLoaders{
      {"units", &load_units},          {"sweep", &load_sweep_file}, {"platform", &load_platform_text},
      {"model", &load_model_text},     {"scenario", &load_scenario_text}, {"profile", &load_profile_text},
  };
  return kLoaders;
}

std::string check_loader(const Loader& loader, const std::string& text) {
  try {
    loader.load(text);
  } catch (const ConfigError&) {
  } catch (const std::invalid_argument&) {
  } catch (const std::exception& e) {
    return std::string(loader.name) + " loader let an unexpected exception escape: " + e.what();
  }
  return {};
}

}  // namespace dlrmsim::fuzz
