// Scenario files: what to simulate (configs/scenarios/*.yaml).
//
//   name: dcnv2_dgx_h100                       # required
//   description: "..."                         # optional
//   platform: ../platforms/dgx-h100.yaml       # a path (relative to this file) or an inline mapping
//   model: ../models/dlrm_dcnv2_criteo_4tb.yaml   # a path or an inline mapping (model_spec.hpp)
//   software: ../software/pytorch-eager.yaml   # optional, a path or an inline mapping
//                                              # (software_stack.hpp; default torchrec-fbgemm)
//   training:                                  # TrainingOptions (training_options.hpp)
//     mode: hybrid_parallel_sync               # hybrid_parallel_sync | cpu_only | parameter_server | persia_hybrid
//     nodes: representative                    # representative | all
//     communication: aggregated                # aggregated | per_pair
//     embedding_overlap: serial                # serial | concurrent (embedding kernels on their own stream)
//     staleness: 1                             # persia_hybrid
//     cpu: {dense_efficiency: 0.5}             # modes with CPU trainers
//     roles: {trainer: trainer, parameter_server: parameter_server, embedding_worker: embedding_worker}
//   placement: {policy: cost_greedy, ...}      # read by placement::PlacementOptions::from_config
//   set: ["model.global_batch_size=65536"]   # optional overrides applied before the command line's
//   goodput: {samples: 4.0e12, failure_rates: {preset: llama3_16k_h100}, restart: 10 min}
//                                              # optional: failures, checkpoints and goodput over a
//                                              # training run (models/goodput.hpp); needs the
//                                              # platform's storage.checkpoint_bandwidth
//   stragglers: {slowdown: {dgx3: 2}, random: {per: node, distribution: bernoulli, probability: 0.01,
//                slowdown: 2, seed: 1}}        # optional: slow members (models/stragglers.hpp)
//   cost: {pue: 1.2, energy_price: 0.12 USD/kWh, training_samples: 4e9}   # optional (models/cost.hpp)
//   run:
//     warmup_steps: 2                          # steps simulated before measuring (default 2)
//     steps: 3                                 # measured steps (default 3)
//     backend: native                          # native | simgrid
//     calibration: ../calibration              # device-profile directory (default: ../calibration
//                                              # next to the scenario's folder)
//
// Several jobs on one platform (models/jobs.hpp): instead of top-level model/training/software,
// a scenario may list
//   jobs:
//     - name: a                                # required, unique
//       model: ../models/x.yaml                # a path or an inline mapping
//       training: {mode: hybrid_parallel_sync} # nodes: is always `all` for jobs sharing a fabric
//       software: ../software/y.yaml           # optional
//       placement: {policy: cost_greedy}       # optional (default: the scenario's placement)
//       nodes: [dgx0, dgx1]                    # node names, or {group: g, count: n} (the group's
//                                              # first n nodes no earlier job took), or a list of both
// The jobs run at once on disjoint nodes and share the fabric; each also runs alone.
//
// Referenced files and the calibration directory are found next to the scenario first, then
// in the data search path (DLRMSIM_DATA, the installed share directory, the source tree:
// common/data_paths.hpp), so a scenario copied anywhere still finds the shipped parts.
//
// Overrides (`--set key.path=value`) address any key of the scenario; when `model`,
// `platform` or `software` is a path, `model.x.y=...` edits the referenced file's content (it is loaded
// first), so every model and platform key can be swept without copying files. Errors keep
// naming the file (scenario or referenced) and line.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "common/config.hpp"
#include "models/goodput.hpp"
#include "models/stragglers.hpp"
#include "models/cost.hpp"
#include "models/model_spec.hpp"
#include "models/training_options.hpp"
#include "placement/placement.hpp"
#include "topologies/platform.hpp"

namespace dlrmsim::models {

/// One job of a multi-job scenario (see above).
struct JobSpec {
  std::string name;
  ModelSpec model;
  TrainingOptions training;
  placement::PlacementOptions placement;
  std::vector<topo::NodeId> nodes;  // the platform nodes it runs on, in platform order
};

struct Scenario {
  std::string name;
  std::string description;
  std::string source;  // file it was read from ("" for inline)
  /// Every file read to build it: the scenario file and the platform, model and software
  /// files it names (its jobs' too). An output of the command may not be one of them.
  std::vector<std::string> files;
  topo::Platform platform;
  ModelSpec model;
  TrainingOptions training;
  placement::PlacementOptions placement;
  int warmup_steps = 2;
  int steps = 3;
  /// `run.stop_when_steady`: a run of more than kSteadyProbeSteps measured steps simulates that
  /// many first and stops there when they are steady (models/simulation.hpp, run_scenario).
  bool stop_when_steady = true;
  std::string backend = "native";
  std::string calibration_dir;
  std::optional<GoodputOptions> goodput;  // the scenario's `goodput:` section, if any
  std::optional<StragglerOptions> stragglers;  // the scenario's `stragglers:` section, if any
  CostOptions cost;  // `cost:` (models/cost.hpp): PUE, energy price, samples of a training run
  /// `jobs:` (several jobs sharing the platform); empty for a single-job scenario. When set,
  /// model/training/placement above are the first job's.
  std::vector<JobSpec> jobs;
  /// The nodes this (single-job) scenario runs on: empty = the whole platform. Set for one job
  /// of a multi-job scenario run alone (models/jobs.hpp).
  std::vector<topo::NodeId> job_nodes;
};

/// Reads a scenario file, applying `overrides` ("a.b.c=value") first. With a `log`, every key
/// path read (of the scenario and of the files it references) is recorded there.
Scenario load_scenario(const std::string& path, const std::vector<std::string>& overrides = {},
                       const std::shared_ptr<KeyLog>& log = nullptr);
/// Reads a scenario from YAML text (`source_name` stands for the file in messages; relative
/// paths resolve against `base_dir`). `profile_files`, if given, serves the CPU profiles the
/// platform names (a sweep worker's, kept across its points).
Scenario load_scenario_text(const std::string& text, const std::string& source_name, const std::string& base_dir,
                            const std::vector<std::string>& overrides = {},
                            const std::shared_ptr<KeyLog>& log = nullptr,
                            topo::DeviceProfileFiles* profile_files = nullptr);

}  // namespace dlrmsim::models
