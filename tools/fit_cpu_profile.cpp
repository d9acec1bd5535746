#include "tools/fit_cpu_profile.hpp"

#include <iostream>
#include <stdexcept>

#include "common/files.hpp"
#include "common/text.hpp"
#include "topologies/cpu_profile.hpp"
#include "tools/commands.hpp"
#include "validation/cpu/cpu_profile_fit.hpp"
#include "validation/cpu/cpu_raw_measurements.hpp"

namespace dlrmsim::tools {

int fit_cpu_profile_file(const ConfigNode& root, const std::string& raw_path, const std::string& output,
                         const std::optional<CpuPeak>& peak) {
  refuse_output_over_inputs(output, {raw_path}, "-o");
  const validation::CpuRawMeasurements raw = validation::parse_cpu_raw_measurements(root);
  validation::CpuFitOptions options;
  options.raw_name = raw_path;
  validation::CpuCalibrationResult result;
  try {
    result = validation::fit_cpu_profile(raw, options);
  } catch (const std::invalid_argument& e) {
    throw ConfigError(raw_path + ": " + e.what());
  }
  if (peak) {
    try {
      result.profile.set_peak(peak->per_core, peak->source);
    } catch (const std::invalid_argument& e) {
      throw ConfigError("--peak-per-core: " + format_number(peak->per_core.value() / 1e9, 4) + " GFLOP/s " + e.what());
    }
  }
  write_output_file(output, "# CPU profile fitted by dlrmsim fit-profile from " + raw_path +
                                " (formulas: topologies/cpu_profile.hpp)\n" + topo::cpu_profile_to_yaml(result.profile));
  // With the profile on standard output the report goes to standard error.
  (output == "-" ? std::cerr : std::cout) << validation::format_cpu_fit_report(result) << "wrote " << output << "\n";
  flush_standard_output();
  return kExitOk;
}

}  // namespace dlrmsim::tools
