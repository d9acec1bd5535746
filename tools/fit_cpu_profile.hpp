// `dlrmsim fit-profile` for a raw file of the CPU kind (written by dlrmsim-calibrate --cpu):
// fits the CPU profile (validation/cpu/cpu_profile_fit.hpp), prints the fit error per model and
// writes the profile.
#pragma once

#include <optional>
#include <string>

#include "common/config.hpp"
#include "common/units.hpp"

namespace dlrmsim::tools {

/// `root` is the parsed raw file at `raw_path`; writes the profile to `output` ("-": standard
/// output). A raw file that cannot determine a model is bad input (ConfigError, exit status 2).
/// `peak`, when given, is the measured machine's fp32 peak per core with its source
/// (--peak-per-core, --peak-source): written as gemm_fp32.peak_per_core.
struct CpuPeak {
  FlopsPerSecond per_core{0.0};
  std::string source;
};
int fit_cpu_profile_file(const ConfigNode& root, const std::string& raw_path, const std::string& output,
                         const std::optional<CpuPeak>& peak = std::nullopt);

}  // namespace dlrmsim::tools
