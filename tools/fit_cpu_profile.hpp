// `dlrmsim fit-profile` for a raw file of the CPU kind (written by dlrmsim-calibrate --cpu):
// fits the CPU profile (validation/cpu/cpu_profile_fit.hpp), prints the fit error per model and
// writes the profile.
#pragma once

#include <string>

#include "common/config.hpp"

namespace dlrmsim::tools {

/// `root` is the parsed raw file at `raw_path`; writes the profile to `output` ("-": standard
/// output). A raw file that cannot determine a model is bad input (ConfigError, exit status 2).
int fit_cpu_profile_file(const ConfigNode& root, const std::string& raw_path, const std::string& output);

}  // namespace dlrmsim::tools
