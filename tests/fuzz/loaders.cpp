#include "tests/fuzz/loaders.hpp"

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <stdexcept>

#include "common/config.hpp"
#include "common/units.hpp"
#include "topologies/device_profile.hpp"
#include "models/model_spec.hpp"
#include "models/scenario.hpp"
#include "sim/activity_graph.hpp"
#include "topologies/platform_loader.hpp"
#include "tools/plot.hpp"
#include "app/scenario_runner.hpp"
#include "app/sweep.hpp"

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
  (void)app::load_sweep(write_scratch("sweep.yaml", text));
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
  // Named as if in configs/calibration/, so `from_file:` references of the seeds resolve.
  (void)topo::parse_device_profile(ConfigNode::load_string(text, DLRMSIM_SOURCE_DIR "/configs/calibration/fuzzed.yaml"));
}

/// The sweep that the fuzzed result files are read against (loaded once; not modified).
const app::Sweep& nine_point_sweep() {
  static const app::Sweep sweep = app::load_sweep(DLRMSIM_SOURCE_DIR "/tests/data/sweep_nine_points.yaml");
  return sweep;
}

/// The reader behind `sweep --resume`: every row it keeps must be a row of the sweep.
void load_sweep_result(const std::string& text) {
  const app::Sweep& sweep = nine_point_sweep();
  const auto& columns = app::scenario_output_columns();
  const std::size_t fields = app::sweep_columns(sweep, columns).size();
  const app::ResultRows found = app::read_result_rows(write_scratch("result.csv", text), sweep, columns);
  for (const auto& [index, line] : found.rows) {
    const auto parsed = app::csv_split_strict(line);
    if (index >= sweep.size() || !parsed || parsed->size() != fields || (*parsed)[0] != std::to_string(index)) {
      throw std::logic_error("resume kept a row that is not a row of the sweep: " + line);
    }
  }
}

/// plot's CSV reader and the SVG it draws: no attribute value may be nan or inf (user text
/// is only ever element content, so any such attribute comes from a computed coordinate).
void load_plot_csv(const std::string& text) {
  const tools::Chart chart =
      tools::chart_from_csv(write_scratch("plot.csv", text), "model.global_batch_size", "throughput_samples_per_s",
                            "platform.node_templates.dgx-h100.devices.0.hbm_bandwidth");
  const std::string svg = tools::render_svg(chart);
  for (std::size_t at = svg.find("=\""); at != std::string::npos; at = svg.find("=\"", at + 2)) {
    const std::string value = svg.substr(at + 2, svg.find('"', at + 2) - at - 2);
    if (value.find("nan") != std::string::npos || value.find("inf") != std::string::npos) {
      throw std::logic_error("plot drew a coordinate that is not finite: " + value);
    }
  }
}

}  // namespace

const std::vector<Loader>& loaders() {
  static const std::vector<Loader> kLoaders{
      {"units", &load_units},          {"sweep", &load_sweep_file}, {"platform", &load_platform_text},
      {"model", &load_model_text},     {"scenario", &load_scenario_text}, {"profile", &load_profile_text},
      {"sweep_resume", &load_sweep_result}, {"plot_csv", &load_plot_csv},
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
