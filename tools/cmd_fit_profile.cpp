// dlrmsim fit-profile RAW.yaml -o PROFILE.yaml [--base BASE.yaml] [--holdout odd]
//
// Fits a device profile to the raw measurements written by dlrmsim-calibrate
// (validation/calibration_fit.hpp), prints the fit error per model and writes the profile.
// With --holdout odd the odd-indexed measurements of every model are held back and predicted;
// the exit status is 1 when one misses by more than --max-holdout-error. The profile is written
// whole or not at all (common/files.hpp); -o naming the measurements or the base profile is
// refused (it would destroy an input). A raw file of the CPU kind (dlrmsim-calibrate --cpu)
// gives a CPU profile instead (tools/fit_cpu_profile.hpp).
#include <boost/program_options.hpp>

#include <cmath>
#include <cstdio>
#include <iostream>

#include "common/files.hpp"
#include "topologies/device_profile.hpp"
#include "tools/commands.hpp"
#include "tools/fit_cpu_profile.hpp"
#include "common/data_paths.hpp"
#include "validation/calibration_fit.hpp"
#include "validation/cpu/cpu_raw_measurements.hpp"
#include "validation/raw_measurements.hpp"

namespace dlrmsim::tools {

int cmd_fit_profile(const std::vector<std::string>& args) {
  namespace po = boost::program_options;
  std::string raw_path, output, base_path = "auto", calibration_dir = "auto", holdout = "none", peak_text, peak_source;
  double max_holdout_error = 0.10;
  po::options_description options("dlrmsim fit-profile RAW.yaml -o PROFILE.yaml: fit a device profile to calibration measurements");
  options.add_options()("help,h", "this help")
      ("raw", po::value(&raw_path)->required(), "raw measurement file written by dlrmsim-calibrate")
      ("output,o", po::value(&output)->required(),
       "profile to write ('-': standard output, the report then goes to standard error)")
      ("base", po::value(&base_path)->default_value("auto"),
       "profile with the datasheet values of this GPU ('auto': found from the GPU name in --calibration-dir)")
      ("calibration-dir", po::value(&calibration_dir)->default_value("auto"),
       "where --base auto looks ('auto': the calibration folder of the data search path, see dlrmsim list --paths)")
      ("holdout", po::value(&holdout)->default_value("none"), "none, or odd: fit even-indexed measurements, predict odd")
      ("max-holdout-error", po::value(&max_holdout_error)->default_value(0.10),
       "with --holdout odd: exit 1 if a held-back prediction misses by more than this fraction")
      ("peak-per-core", po::value(&peak_text),
       "CPU measurements: the measured machine's fp32 peak per core (\"78.25 GFLOP/s\"), which turns the "
       "GEMM rates into efficiencies that other CPUs' datasheet peaks scale (replaces the peak the raw file's "
       "fp32_peak runs measured); needs --peak-source")
      ("peak-source", po::value(&peak_source), "where the --peak-per-core figure comes from");
  po::positional_options_description positional;
  positional.add("raw", 1);
  po::variables_map vm;
  po::store(po::command_line_parser(args).options(options).positional(positional).run(), vm);
  if (vm.count("help")) {
    std::cout << options << "\n";
    return kExitOk;
  }
  po::notify(vm);
  if (holdout != "none" && holdout != "odd") {
    throw ConfigError("--holdout: expected 'none' or 'odd', found '" + holdout + "'");
  }
  if (!std::isfinite(max_holdout_error) || max_holdout_error < 0.0) {
    char found[32];
    std::snprintf(found, sizeof found, "%g", max_holdout_error);
    throw ConfigError(std::string("--max-holdout-error: expected a finite fraction of at least 0, such as 0.1 for 10 %, found ") +
                      found);
  }

  refuse_output_over_inputs(output, {raw_path}, "the profile to write (-o)");
  // A raw file of the CPU kind (dlrmsim-calibrate --cpu) is fitted to a CPU profile.
  if (const ConfigNode root = ConfigNode::load_file(raw_path); validation::is_cpu_raw_measurements(root)) {
    if (holdout != "none" || !vm["base"].defaulted()) throw ConfigError("--holdout and --base apply to GPU measurements only");
    std::optional<CpuPeak> peak;
    if (vm.count("peak-per-core")) {
      if (peak_source.empty()) throw ConfigError("--peak-per-core needs --peak-source: where the peak figure comes from");
      const auto rate = parse<FlopsPerSecond>(peak_text);
      if (!(rate.value() > 0.0)) throw ConfigError("--peak-per-core: expected a positive FLOP rate, found '" + peak_text + "'");
      peak = CpuPeak{rate, peak_source};
    }
    return fit_cpu_profile_file(root, raw_path, output, peak);
  }
  if (vm.count("peak-per-core")) throw ConfigError("--peak-per-core applies to CPU measurements only");
  const validation::RawMeasurements raw = validation::load_raw_measurements(raw_path);
  if (calibration_dir == "auto") {
    calibration_dir = "calibration";  // as written in messages when no data root holds one
    for (const DataRoot& root : data_search_path()) {
      if (root.exists && directory_exists(root.dir / "calibration")) {
        calibration_dir = (root.dir / "calibration").string();
        break;
      }
    }
  }
  const std::string base_file =
      base_path == "auto" ? topo::find_device_profile(topo::gpu_model_from_device_name(raw.machine.gpu), calibration_dir)
                          : base_path;
  refuse_output_over_inputs(output, {base_file}, "the profile to write (-o)");
  const topo::DeviceProfile base = topo::load_device_profile(base_file);
  validation::FitOptions fit_options;
  fit_options.holdout = holdout == "odd" ? validation::Holdout::odd : validation::Holdout::none;
  fit_options.raw_name = raw_path;
  validation::CalibrationResult result;
  try {
    result = validation::fit_device_profile(raw, base, fit_options);
  } catch (const std::invalid_argument& e) {
    throw ConfigError(raw_path + ": cannot fit a profile: " + e.what());
  }

  write_output_file(output, "# Device profile fitted by dlrmsim fit-profile from " + raw_path + " (base: " + base_file +
                                ")\n" + topo::device_profile_to_yaml(result.profile));
  // With -o - the profile is standard output; the report then goes to standard error.
  std::ostream& report = output == "-" ? std::cerr : std::cout;
  report << validation::format_fit_report(result);
  if (output != "-") report << "wrote " << output << "\n";
  if (fit_options.holdout == validation::Holdout::odd) {
    const double worst = result.max_held_back_error();
    const bool pass = worst <= max_holdout_error;  // false for a NaN error too
    char line[160];
    std::snprintf(line, sizeof line, "largest held-back error %.2f %% (limit %.2f %%): %s\n", 100.0 * worst,
                  100.0 * max_holdout_error, pass ? "pass" : "FAIL");
    report << line;
    if (!pass) return kExitInfeasible;
  }
  return kExitOk;
}

}  // namespace dlrmsim::tools
