// Shipped scenarios for the tests that run them: paths into the source tree.
#pragma once

#include <string>
#include <vector>

#include "models/scenario.hpp"
#include "paths.hpp"

namespace dlrmsim::models::testing {

using dlrmsim::testing::kRoot;
inline const std::string kCalibration = kRoot + "/configs/calibration";

/// configs/scenarios/NAME.yaml with `overrides` applied as --set would.
inline Scenario shipped(const std::string& name, const std::vector<std::string>& overrides = {}) {
  return load_scenario(kRoot + "/configs/scenarios/" + name + ".yaml", overrides);
}

}  // namespace dlrmsim::models::testing
