// Planning and running one scenario, as the command line (`dlrmsim run`, `place`, `report`,
// `compare`) and the Python module (run(), place()) do: a placement that does not fit becomes
// an InfeasibleJob (app/failure.hpp) whose message names what does not fit.
#pragma once

#include <string>
#include <string_view>

#include "models/jobs.hpp"
#include "models/scenario.hpp"
#include "models/simulation.hpp"
#include "placement/placement.hpp"

namespace dlrmsim::app {

/// The message of an infeasible placement: "<what_fails>: device 'gpu0' overflows by N bytes
/// (...): <reason>" when a device overflows, or "the job cannot be placed: <reason>" when it
/// fails for another reason (no device of the asked-for tier, such as all_remote on a
/// platform without parameter-server nodes).
std::string infeasible_placement_message(const placement::InfeasiblePlacement& e, std::string_view what_fails);

/// models::run_scenario; an infeasible placement throws InfeasibleJob ("<what_fails>: ...").
models::RunReport run_job(const models::Scenario& scenario, const models::RunOptions& options = {},
                          std::string_view what_fails = "the job does not fit");

/// models::run_jobs (a scenario with `jobs:`); "a job does not fit on its nodes" when one
/// does not fit.
models::JobsReport run_job_mix(const models::Scenario& scenario);

/// `dlrmsim run --json`'s document: the jobs' report (app/run_report.hpp jobs_json) for a
/// scenario with `jobs:`, else the run's (run_json).
std::string run_report_json(const models::Scenario& scenario);

/// The embedding placement `dlrmsim place` prints (models::place_scenario with the scenario's
/// device profiles); "the tables do not fit" when they do not. A scenario with `jobs:` is a
/// ConfigError naming `source` (`dlrmsim run` places each job on its own nodes).
models::PlacedScenario place_job(const models::Scenario& scenario, const std::string& source);

}  // namespace dlrmsim::app
