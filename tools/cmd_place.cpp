// `dlrmsim place SCENARIO.yaml [--json PATH|-] [--torchrec-json PATH|-] [--set key.path=value]...`
//
// Plans the embedding placement of a scenario exactly as `dlrmsim run` does (the scenario's
// `placement:` section; when it names no tiers, the training mode's default tiers; the
// `search` policy evaluates candidates with the simulator) and prints it: per table the
// tier, sharding and devices, per device memory used against capacity and estimated load,
// then the planner statistics (app/plan_report.hpp: per owner memory, estimate parts,
// all-to-all bytes; their imbalance; per table pooling factor, kernel and shard type).
// --json writes the plan as JSON (app/plan_report.hpp lists the keys), --torchrec-json as a
// TorchRec sharding plan (placement/torchrec_plan.hpp), each whole or not at all
// (common/files.hpp); '-' is standard output, which then carries that JSON alone.
#include <iomanip>
#include <iostream>
#include <sstream>

#include <boost/program_options.hpp>

#include "app/plan_report.hpp"
#include "app/scenario_run.hpp"
#include "common/files.hpp"
#include "models/scenario.hpp"
#include "placement/placement.hpp"
#include "placement/plan_statistics.hpp"
#include "placement/torchrec_plan.hpp"
#include "tools/commands.hpp"
#include "tools/scenario_command.hpp"

namespace dlrmsim::tools {

int cmd_place(const std::vector<std::string>& args) {
  namespace po = boost::program_options;
  po::options_description desc("dlrmsim place SCENARIO.yaml [options]");
  std::string json_path, torchrec_path;
  desc.add_options()("json", po::value(&json_path), "write the plan as JSON to PATH ('-' for standard output)")(
      "torchrec-json", po::value(&torchrec_path),
      "write the plan as a TorchRec sharding plan (JSON) to PATH ('-' for standard output); "
      "placement.plan reads it back");
  const ScenarioArguments cli = parse_scenario_arguments(args, desc, "dlrmsim place SCENARIO.yaml");
  if (cli.help()) {
    std::cout << desc << "\npolicies (placement.policy):\n";
    for (const auto& p : placement::placement_policies()) std::cout << "  " << p.name << ": " << p.description << "\n";
    std::cout << "\nexit status: 0 success, 1 the tables do not fit, 2 bad input, 4 an output could not be written\n";
    return kExitOk;
  }

  const auto sc = models::load_scenario(cli.scenario, cli.overrides);
  if (json_path == "-" && torchrec_path == "-") {
    throw po::error("--json and --torchrec-json both name standard output ('-'); give one of them a file");
  }
  check_outputs(given_outputs(cli.vm, {{"--json", "json"}, {"--torchrec-json", "torchrec-json"}}),
                {sc.files.begin(), sc.files.end()});
  const auto [problem, plan] = app::place_job(sc, cli.scenario);
  // The TorchRec form first: a plan it cannot express writes nothing.
  std::string torchrec;
  if (!torchrec_path.empty()) torchrec = placement::torchrec_plan_json(problem, plan);
  // Standard output carries the readable plan, unless a JSON goes there instead.
  if (json_path != "-" && torchrec_path != "-") {
    std::cout << "scenario " << sc.name << ": model " << sc.model.name << " on " << sc.platform.name() << ", mode "
              << sc.training.mode << "\n";
    app::print_plan(std::cout, problem, plan);
    std::cout << "\n";
    app::print_plan_statistics(std::cout, placement::plan_statistics(problem, plan));
  }
  if (!json_path.empty()) write_output_file(json_path, app::plan_json(problem, plan));
  if (!torchrec_path.empty()) write_output_file(torchrec_path, torchrec);
  return kExitOk;
}

}  // namespace dlrmsim::tools
