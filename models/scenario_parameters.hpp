// The declarations of the scenario's own keys (models/scenario_parameters.cpp): its top level,
// `training`, `goodput`, `stragglers`, `cost` and `run`. Its `placement` keys are declared by
// placement::placement_parameters(); `platform`, `model` and `software` files have tables of
// their own (common/parameters.hpp says how key paths are written).
#pragma once

#include <span>

#include "common/parameters.hpp"

namespace dlrmsim::models {

std::span<const Parameter> scenario_parameters();

}  // namespace dlrmsim::models
