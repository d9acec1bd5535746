// Where the tests find the source tree (the shipped configs, scenarios and validation cases).
#pragma once

#include <string>

namespace dlrmsim::testing {

/// The repository root, as CMake passes it to every test (tests/CMakeLists.txt).
inline const std::string kRoot = DLRMSIM_SOURCE_DIR;
/// The shipped device and CPU profiles (a scenario's run.calibration).
inline const std::string kCalibration = kRoot + "/configs/calibration";

}  // namespace dlrmsim::testing
