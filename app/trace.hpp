// The simulated steps of a run as a Chrome / Perfetto trace (`dlrmsim run --trace`).
#pragma once

#include <string>

#include "models/simulation.hpp"

namespace dlrmsim::app {

/// The trace-event document (traceEvents) of a report run with RunOptions::keep_graph. Every
/// event's args carry its `step` and, where the mode names it, its `role` (models::BuiltSteps).
std::string trace_json(const models::RunReport& report);

}  // namespace dlrmsim::app
