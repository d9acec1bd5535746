// The declarations of the scenario's own keys (models/scenario_parameters.cpp): its top level,
// `training`, `goodput`, `stragglers`, `cost` and `run` (rows given by their readers, most
// written from typed parameters, common/param.hpp). Its `placement` keys are declared by
// placement::placement_parameters(); `platform`, `model` and `software` files have tables of
// their own (common/parameters.hpp says how key paths are written).
#pragma once

#include <span>
#include <vector>

#include "common/param.hpp"
#include "common/parameters.hpp"

namespace dlrmsim::models {

std::span<const Parameter> scenario_parameters();

/// The rows of the keys declared where they are read (most as typed parameters), which
/// scenario_parameters() puts among its own: the top level (models/scenario.cpp), `training`
/// (models/training_options.cpp), `goodput` (models/goodput.cpp), `stragglers`
/// (models/stragglers.cpp), `cost` (models/cost.cpp) and `run` (models/scenario.cpp).
std::vector<ParameterRow> top_level_parameter_rows();
std::vector<ParameterRow> training_parameter_rows();
std::vector<ParameterRow> goodput_parameter_rows();
std::vector<ParameterRow> straggler_parameter_rows();
std::vector<ParameterRow> cost_parameter_rows();
std::vector<ParameterRow> run_parameter_rows();

}  // namespace dlrmsim::models
