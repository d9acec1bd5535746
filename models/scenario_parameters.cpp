// The scenario keys read by models/scenario.cpp and the option readers it calls, in the order
// `dlrmsim list --keys` shows them: the rows written here by hand (the top level, goodput,
// jobs, stragglers) and those of the typed parameters declared by the readers of `training`,
// `cost` and `run` (common/param.hpp). Defaults are those of the Scenario and option structs'
// member initialisers.
#include "models/scenario_parameters.hpp"

namespace dlrmsim::models {
namespace {

constexpr Parameter kTopLevel[] = {
    {"name", "", "required", "text", "Name of the scenario, shown in reports."},
    {"description", "", "\"\"", "text", "Free text."},
    {"set", "", "none", "a list of \"key.path=value\"", "Overrides applied before the command line's --set."},
    {"platform", "", "required", "a platform file path (next to the scenario, then the data search path) or a mapping",
     "The hardware (platform keys)."},
    {"model", "", "required", "a model file path or a mapping", "The model (model keys)."},
    {"software", "", "the built-in stack (torchrec-fbgemm)", "a software file path or a mapping",
     "The training software (software keys)."},
};

constexpr Parameter kSections[] = {
    // goodput (GoodputOptions::from_config, models/goodput.cpp)
    {"goodput", "", "none (no goodput report)", "a mapping; the platform needs storage",
     "Failures, checkpoints and goodput over a training run (models/goodput.hpp)."},
    {"goodput.samples", "samples", "required", "> 0, finite", "Samples of the whole training run."},
    {"goodput.failure_rates", "", "required", "a mapping of component to rate",
     "Failure rates of one component each; components not given fail never (or as the preset says)."},
    {"goodput.failure_rates.preset", "", "none", "llama3_16k_h100", "Published rates to start from."},
    {"goodput.failure_rates.gpu", "failures per time (\"1 per 80000 h\")", "0 per h (or the preset's)", ">= 0", "Per GPU."},
    {"goodput.failure_rates.host", "failures per time", "0 per h (or the preset's)", ">= 0", "Per node."},
    {"goodput.failure_rates.link", "failures per time", "0 per h (or the preset's)", ">= 0", "Per NIC."},
    {"goodput.failure_rates.switch", "failures per time", "0 per h (or the preset's)", ">= 0", "Per network switch."},
    {"goodput.failure_rates.software", "failures per time", "0 per h (or the preset's)", ">= 0", "Per GPU."},
    {"goodput.checkpoint", "", "the defaults below", "{interval, embedding_fraction_written}", "Checkpointing."},
    {"goodput.checkpoint.interval", "s (\"30 min\")", "best", "best | > 0", "Time between checkpoints; best: the optimum."},
    {"goodput.checkpoint.embedding_fraction_written", "fraction", "1", "[0, 1]",
     "Fraction of the embedding bytes one checkpoint writes."},
    {"goodput.restart", "s (\"10 min\")", "required", ">= 0", "Time to restart after a failure, besides reading the checkpoint."},
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
    // stragglers (StragglerOptions::from_config, models/stragglers.cpp)
    {"stragglers", "", "none (no slow members)", "{slowdown, random}", "Slow members (models/stragglers.hpp)."},
    {"stragglers.applies_to", "", "[compute, memory]", "a list of compute, memory, links",
     "What a slow member's factor slows: compute tasks, memory-bound work (lookups, pooling, updates), transfers over its links."},
    {"stragglers.slowdown", "", "none", "a mapping of node or device names to factors", "Fixed slow members."},
    {"stragglers.slowdown.*", "factor", "required", "> 0, <= 1000", "How many times slower the named node or device is."},
    {"stragglers.random", "", "none", "a mapping", "Members slowed at random, drawn per step."},
    {"stragglers.random.per", "", "node", "node | gpu", "What is drawn."},
    {"stragglers.random.distribution", "", "required", "bernoulli | uniform | lognormal", "Distribution of the slowdown."},
    {"stragglers.random.probability", "probability", "required (bernoulli)", "[0, 1]", "Chance of being slow."},
    {"stragglers.random.slowdown", "factor", "required (bernoulli)", "> 0, <= 1000", "Slowdown when slow."},
    {"stragglers.random.min", "factor", "required (uniform)", "> 0", "Smallest slowdown."},
    {"stragglers.random.max", "factor", "required (uniform)", ">= min, <= 1000", "Largest slowdown."},
    {"stragglers.random.sigma", "", "required (lognormal)", "[0, 2]", "Standard deviation of the log of the slowdown."},
    {"stragglers.random.median", "factor", "1", "> 0, <= 1000", "Median slowdown (lognormal)."},
    {"stragglers.random.seed", "", "1", ">= 0", "Seed of the draws (runs are repeatable)."},
};

}  // namespace

std::span<const Parameter> scenario_parameters() {
  static const ParameterTable table = [] {
    std::vector<ParameterRow> rows(std::begin(kTopLevel), std::end(kTopLevel));
    for (auto& r : training_parameter_rows()) rows.push_back(std::move(r));
    rows.insert(rows.end(), std::begin(kSections), std::end(kSections));
    for (auto& r : cost_parameter_rows()) rows.push_back(std::move(r));
    for (auto& r : run_parameter_rows()) rows.push_back(std::move(r));
    return ParameterTable(std::move(rows));
  }();
  return table.parameters();
}

}  // namespace dlrmsim::models
