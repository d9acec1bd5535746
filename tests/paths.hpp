// Where the tests find the source tree (the shipped configs, scenarios and validation cases).
#pragma once

#include <string>

namespace dlrmsim::testing {

/// The repository root, as CMake passes it to every test (tests/CMakeLists.txt).
inline const std::string kRoot = DLRMSIM_SOURCE_DIR;

}  // namespace dlrmsim::testing
