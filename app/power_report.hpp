// The power, energy and cost part of a run report, as text and as JSON (shared by `run` and
// `compare`; the numbers are defined in models/power.hpp and models/cost.hpp).
#pragma once

#include <ostream>
#include <string>

#include "common/json.hpp"
#include "models/simulation.hpp"

namespace dlrmsim::app {

/// The text section: power per node (the first few) and for the job, energy per step, sample
/// and training run, and the cost (or why there is none).
void print_power_and_cost(std::ostream& out, const models::RunReport& r);

/// JSON objects for the keys "power" and "cost" of the run report:
///   power: {modelled, pue, job_average_w, job_peak_w, facility_average_w, energy_per_step_j,
///           it_energy_per_step_j, energy_per_sample_j, energy_per_training_run_j,
///           training_samples, devices_without_figures, nodes: [{node, template, average_w,
///           peak_w, idle_w, max_w}], kinds: {KIND: {count, activity, average_w}}}
///   cost:  {available, reason | currency, pricing, sources, per_hour, hardware_per_hour,
///           energy_per_hour, per_sample, per_million_samples, per_training_run,
///           time_to_train_s, training_samples}
Json power_json(const models::PowerReport& p);
Json cost_json(const models::CostReport& c);

/// "3.2 h", "4.1 days": a duration for people.
std::string format_duration(Seconds s);

}  // namespace dlrmsim::app
