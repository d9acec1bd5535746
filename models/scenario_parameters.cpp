// The scenario keys read by models/scenario.cpp and the option readers it calls, in the order
// `dlrmsim list --keys` shows them: the rows written here by hand (jobs) and those the
// readers of the top level, `training`, `goodput`, `stragglers`, `cost` and `run` give, most
// written from their typed parameters (common/param.hpp). Defaults are those of the Scenario and option structs'
// member initialisers.
#include "models/scenario_parameters.hpp"

namespace dlrmsim::models {
namespace {

constexpr Parameter kJobs[] = {
    // jobs (load_jobs, models/scenario.cpp; models/jobs.hpp)
    {"jobs", "", "none (one job)", "a list of jobs",
     "Several jobs sharing the platform's fabric, each on its own nodes; replaces the top-level model, training and software."},
    {"jobs.*.name", "", "required", "unique among the jobs", "The job's name in the report."},
    {"jobs.*.nodes", "", "required", "node names, or {group, count} for a group's first free nodes", "The nodes the job runs on."},
    {"jobs.*.model", "", "required", "a file path or a mapping", "The job's model (as `model`)."},
    {"jobs.*.training", "", "required", "a mapping", "The job's training (as `training`; nodes: every node)."},
    {"jobs.*.training.*", "", "as `training`", "as `training`", "A key of the job's training, as under `training`."},
    {"jobs.*.software", "", "torchrec-fbgemm", "a file path or a mapping", "The job's software stack (as `software`)."},
    {"jobs.*.placement", "", "the top-level placement", "a mapping", "The job's placement (as `placement`)."},
};

}  // namespace

std::span<const Parameter> scenario_parameters() {
  static const ParameterTable table = [] {
    std::vector<ParameterRow> rows = top_level_parameter_rows();
    for (auto& r : training_parameter_rows()) rows.push_back(std::move(r));
    for (auto& r : goodput_parameter_rows()) rows.push_back(std::move(r));
    rows.insert(rows.end(), std::begin(kJobs), std::end(kJobs));
    for (auto& r : straggler_parameter_rows()) rows.push_back(std::move(r));
    for (auto& r : cost_parameter_rows()) rows.push_back(std::move(r));
    for (auto& r : run_parameter_rows()) rows.push_back(std::move(r));
    return ParameterTable(std::move(rows));
  }();
  return table.parameters();
}

}  // namespace dlrmsim::models
