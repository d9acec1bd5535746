// A run's report as files: the JSON document of `dlrmsim run --json` (and of the Python
// module's run()), the one of a scenario with `jobs:`, and the goodput and step CSV files.
//
// run_json's keys, in this order: scenario, model, platform, training_mode, software,
// device_profiles (each GPU profile the costs came from: name, measured, provenance), backend,
// fidelity, global_batch_size, trainers, simulated_trainers, warmup_steps, measured_steps,
// throughput_samples_per_s, step_time_s, step_time_spread, steady_state, step_end_times_s,
// breakdown (busy, exposed, overlapped and critical-path time per category, and idle),
// utilization (per resource class), memory (per device), placement (policy, tables, statistics: app/plan_report.hpp), stragglers (with a
// `stragglers:` section; models/stragglers.hpp), goodput (with a `goodput:` section;
// models/goodput.hpp), power and cost (app/power_report.hpp), engine, dlrmsim_version (the
// program's, common/version.hpp). models/simulation.hpp defines every number.
//
// jobs_json (models/jobs.hpp): {"scenario", "platform", "backend", "warmup_steps",
// "measured_steps", "jobs": [{"name", "model", "mode", "software", "nodes", "trainers",
// "global_batch", "built_steps", "step_time_s", "throughput_samples_per_s",
// "alone_step_time_s", "alone_throughput_samples_per_s", "slowdown", "contended_throughout"}],
// "activities", "events", "simulated_time_s", "dlrmsim_version"}.
#pragma once

#include <string>

#include "models/jobs.hpp"
#include "models/simulation.hpp"

namespace dlrmsim::app {

/// The report as JSON text, keys in the order above, numbers to 10 significant digits.
std::string run_json(const models::RunReport& report);
/// The report of a scenario with `jobs:` as JSON text (keys above).
std::string jobs_json(const models::JobsReport& report);

/// Goodput against checkpoint interval as CSV (`dlrmsim run --goodput-csv`, for `dlrmsim plot`).
std::string goodput_csv(const models::GoodputReport& goodput);
/// Each measured step's time and who it waited for as CSV (`dlrmsim run --steps-csv`).
std::string steps_csv(const models::StragglerReport& stragglers);

}  // namespace dlrmsim::app
