// The program's version: one source, the CMake project's VERSION (CMakeLists.txt), compiled into
// common/version.cpp alone. `dlrmsim --version`, the JSON outputs and the Python module's
// __version__ print it; CHANGELOG.md says what each version changed.
#pragma once

#include <string_view>

namespace dlrmsim {

/// "MAJOR.MINOR.PATCH" of this build.
std::string_view version();

}  // namespace dlrmsim
