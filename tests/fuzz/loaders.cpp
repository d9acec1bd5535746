#include "tests/fuzz/loaders.hpp"

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <stdexcept>

#include "common/config.hpp"
#include "common/units.hpp"
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

}  // namespace

const std::vector<Loader>& loaders() {
  static const std::vector<Loader> kLoaders{
      {"units", &load_units},
      {"sweep", &load_sweep_file},
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
