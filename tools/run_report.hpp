// The JSON form of a run's report, shared by `dlrmsim run --json` (tools/cmd_run.cpp, which
// documents the keys) and the Python module's run().
#pragma once

#include <string>

#include "models/jobs.hpp"
#include "models/simulation.hpp"

namespace dlrmsim::tools {

/// The report as JSON text, keys in the documented order, numbers to 10 significant digits.
std::string run_json(const models::RunReport& report);
/// The report of a scenario with `jobs:` as JSON (`dlrmsim run --json`; keys in
/// tools/cmd_run.cpp's header).
std::string jobs_json(const models::JobsReport& report);

/// The simulated steps as a Chrome / Perfetto trace (`dlrmsim run --trace`; the report must
/// have been run with RunOptions::keep_graph). Every event's args carry its `step` and, where
/// the mode names it, its `role` (models::BuiltSteps).
std::string trace_json(const models::RunReport& report);

}  // namespace dlrmsim::tools
