// The scenario keys read by models/scenario.cpp and the option readers it calls
// (TrainingOptions, GoodputOptions, StragglerOptions, CostOptions). Defaults are those of the
// Scenario and option structs' member initialisers.
#include "models/scenario_parameters.hpp"

namespace dlrmsim::models {
namespace {

constexpr Parameter kScenarioParameters[] = {
    {"name", "", "required", "text", "Name of the scenario, shown in reports."},
    {"description", "", "\"\"", "text", "Free text."},
    {"set", "", "none", "a list of \"key.path=value\"", "Overrides applied before the command line's --set."},
    {"platform", "", "required", "a platform file path (next to the scenario, then the data search path) or a mapping",
     "The hardware (platform keys)."},
    {"model", "", "required", "a model file path or a mapping", "The model (model keys)."},
    {"software", "", "the built-in stack (torchrec-fbgemm)", "a software file path or a mapping",
     "The training software (software keys)."},
    // training (TrainingOptions::from_config, models/step_builder.cpp)
    {"training", "", "required", "a mapping", "How the model is trained."},
    {"training.mode", "", "required", "a training mode of `dlrmsim list`", "The training mode."},
    {"training.nodes", "", "auto", "auto | representative | all",
     "Every node simulated, or one trainer node standing for all (symmetric clusters); auto: every node up to 64 trainer nodes."},
    {"training.communication", "", "aggregated", "aggregated | per_pair",
     "One flow per destination node, or one per pair of endpoints."},
    {"training.embedding_overlap", "", "serial", "serial | concurrent",
     "Embedding kernels on the GPU's one compute stream (pessimistic), or on a stream of their own (optimistic)."},
    {"training.staleness", "steps", "1 (Persia's bounded staleness, smallest bound)", ">= 0",
     "persia_hybrid: steps the embedding pipeline may run ahead of the applied updates."},
    {"training.averaging_period", "steps", "required by persia_async", "> 0",
     "persia_async: steps between two averages of the dense parameters (refused under other modes)."},
    {"training.cpu", "", "none", "{dense_efficiency, access_granule}", "CPU settings: dense layers on CPU trainers, row reads from DRAM."},
    {"training.cpu.dense_efficiency", "fraction of peak", "required by CPU trainers", "(0, 1]", "Dense layers on CPUs: fraction of peak FLOP/s."},
    {"training.cpu.access_granule", "bytes", "64 B (x86 cache line)", "> 0", "Granule of CPU row reads."},
    {"training.pods", "", "none (whole nodes)", "{parameter_server, embedding_worker}",
     "Pods a role runs, as a Kubernetes deployment gives them: CPU rates scale with the share of the node they use."},
    {"training.pods.parameter_server", "", "none", "{count, cpus, memory}", "The parameter servers' pods."},
    {"training.pods.parameter_server.count", "count", "required", "> 0, a multiple of the role's nodes",
     "Pods, spread evenly over the role's nodes."},
    {"training.pods.parameter_server.cpus", "count", "required", "> 0", "Logical CPUs of one pod."},
    {"training.pods.parameter_server.memory", "bytes", "0 (no limit of its own)", ">= 0",
     "Memory of one pod: the tables a node may hold."},
    {"training.pods.embedding_worker", "", "none", "{count, cpus}", "The embedding workers' pods."},
    {"training.pods.embedding_worker.count", "count", "required", "> 0, a multiple of the role's nodes",
     "Pods, spread evenly over the role's nodes."},
    {"training.pods.embedding_worker.cpus", "count", "required", "> 0", "Logical CPUs of one pod."},
    {"training.roles", "", "groups named by their role", "{trainer, parameter_server, embedding_worker}",
     "Names of the platform groups playing each role."},
    {"training.roles.trainer", "", "trainer", "a group role or name", "Trainers' group."},
    {"training.roles.parameter_server", "", "parameter_server", "a group role or name", "Parameter servers' group."},
    {"training.roles.embedding_worker", "", "embedding_worker", "a group role or name", "Embedding workers' group."},
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
    // cost (CostOptions::from_config, models/cost.cpp)
    {"cost", "", "the defaults below", "{pue, energy_price, training_samples}", "Cost of a training run (models/cost.hpp)."},
    {"cost.pue", "ratio", "1 (IT power only)", "[1, 10]", "Facility power over IT power."},
    {"cost.energy_price", "money per kWh (\"0.12 USD/kWh\")", "none (required for owned nodes' cost)", "> 0",
     "Price of energy for owned nodes."},
    {"cost.training_samples", "samples", "4195197692 (one epoch of Criteo 1TB)", "> 0, <= 1e18",
     "Samples of one training run."},
    // run (models/scenario.cpp)
    {"run", "", "the defaults below", "a mapping", "How the simulation runs."},
    {"run.warmup_steps", "steps", "2", "[0, 1000]", "Steps simulated before measuring."},
    {"run.steps", "steps", "3", "[1, 1000]", "Measured steps."},
    {"run.backend", "", "native", "native | simgrid", "Engine backend."},
    {"run.calibration", "", "../calibration", "a directory (next to the scenario, then the data search path)",
     "Where the device profiles are."},
};

}  // namespace

std::span<const Parameter> scenario_parameters() { return kScenarioParameters; }

}  // namespace dlrmsim::models
