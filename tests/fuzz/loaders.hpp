// The loaders under fuzzing, by name. Each takes arbitrary text and must either accept it or
// refuse it with one of the project's input errors (ConfigError, UnitError, GraphError,
// InfeasibleJob-like std::invalid_argument / std::runtime_error subclasses listed below).
// Used by the libFuzzer targets (fuzz_target.cpp) and by the regression test that replays
// every committed reproducer (tests/test_fuzz_regressions.cpp).
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace dlrmsim::fuzz {

struct Loader {
  std::string_view name;
  void (*load)(const std::string& text);  // throws only expected input errors
};

/// Every fuzzed loader.
const std::vector<Loader>& loaders();

/// Runs `loader` on `text`; returns an empty string when it accepted or refused the input
/// properly, otherwise a description of the defect (an unexpected exception type).
std::string check_loader(const Loader& loader, const std::string& text);

}  // namespace dlrmsim::fuzz
