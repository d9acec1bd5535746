// What a training step is built from: the model, the platform, the placement problem and
// plan, the device profiles and the training options, as references (models/step_context.hpp
// holds them for every piece of the step builder).
#pragma once

#include "models/model_spec.hpp"
#include "models/training_options.hpp"
#include "placement/placement.hpp"
#include "topologies/device_profile.hpp"
#include "topologies/platform.hpp"

namespace dlrmsim::models {

/// What a step is built from. The references must outlive the builder.
struct StepInputs {
  const ModelSpec& model;
  const topo::Platform& platform;
  const placement::PlacementProblem& problem;
  const placement::PlacementPlan& plan;
  const topo::DeviceProfileSet& profiles;
  const TrainingOptions& options;
};

}  // namespace dlrmsim::models
