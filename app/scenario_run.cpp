#include "app/scenario_run.hpp"

#include <iomanip>
#include <sstream>

#include "app/failure.hpp"
#include "app/run_report.hpp"
#include "common/config.hpp"
#include "common/units.hpp"
#include "topologies/device_profile.hpp"

namespace dlrmsim::app {

std::string infeasible_placement_message(const placement::InfeasiblePlacement& e, std::string_view what_fails) {
  std::ostringstream msg;
  if (e.device().empty()) {
    msg << "the job cannot be placed: " << e.what();
  } else {
    msg << what_fails << ": device '" << e.device() << "' overflows by " << std::fixed << std::setprecision(0)
        << e.overflow().value() << " bytes (" << format_bytes(e.overflow()) << "): " << e.what();
  }
  return msg.str();
}

models::RunReport run_job(const models::Scenario& scenario, const models::RunOptions& options,
                          std::string_view what_fails) {
  try {
    return models::run_scenario(scenario, options);
  } catch (const placement::InfeasiblePlacement& e) {
    throw InfeasibleJob(infeasible_placement_message(e, what_fails));
  }
}

models::JobsReport run_job_mix(const models::Scenario& scenario) {
  try {
    return models::run_jobs(scenario);
  } catch (const placement::InfeasiblePlacement& e) {
    throw InfeasibleJob(infeasible_placement_message(e, "a job does not fit on its nodes"));
  }
}

std::string run_report_json(const models::Scenario& scenario) {
  if (!scenario.jobs.empty()) return jobs_json(run_job_mix(scenario));
  return run_json(run_job(scenario));
}

models::PlacedScenario place_job(const models::Scenario& scenario, const std::string& source) {
  if (!scenario.jobs.empty()) {
    throw ConfigError(source + ": the scenario lists jobs; `dlrmsim run` places each job on its own nodes");
  }
  const topo::DeviceProfileSet profiles(scenario.calibration_dir);
  try {
    return models::place_scenario(scenario, profiles);
  } catch (const placement::InfeasiblePlacement& e) {
    throw InfeasibleJob(infeasible_placement_message(e, "the tables do not fit"));
  }
}

}  // namespace dlrmsim::app
