// `dlrmsim compare A.yaml B.yaml [--set key=value]... [--set-a ...] [--set-b ...] [--json PATH|-]`
//
// Runs the same job on two scenarios (two platforms, stacks or placements) and prints them side
// by side with B - A and B / A (app/compare.hpp defines every row) and a one-line verdict.
// `--set` applies to both, `--set-a` / `--set-b` to one. An infeasible scenario ends the
// command with exit status 1 naming which one (A or B).
#include <filesystem>
#include <iostream>

#include <boost/program_options.hpp>

#include "common/config.hpp"
#include "common/files.hpp"
#include "models/scenario.hpp"
#include "models/simulation.hpp"
#include "tools/commands.hpp"
#include "app/compare.hpp"
#include "app/scenario_run.hpp"
#include "tools/scenario_command.hpp"

namespace dlrmsim::tools {

using app::compare_runs;
using app::Comparison;
using app::comparison_json;
using app::comparison_text;

int cmd_compare(const std::vector<std::string>& args) {
  namespace po = boost::program_options;
  po::options_description desc("dlrmsim compare A.yaml B.yaml [options]");
  std::vector<std::string> both, only_a, only_b, files;
  std::string json_path;
  desc.add_options()("help,h", "describe the options")(
      "set", po::value(&both)->composing(), "override a key of both scenarios: key.path=value (repeatable)")(
      "set-a", po::value(&only_a)->composing(), "override a key of scenario A only (repeatable)")(
      "set-b", po::value(&only_b)->composing(), "override a key of scenario B only (repeatable)")(
      "json", po::value(&json_path), "write the comparison as JSON to PATH ('-' for standard output)")(
      "scenario", po::value(&files)->composing(), "the two scenario files");
  po::positional_options_description pos;
  pos.add("scenario", 2);
  po::variables_map vm;
  po::store(po::command_line_parser(args).options(desc).positional(pos).run(), vm);
  po::notify(vm);
  if (vm.count("help")) {
    std::cout << desc
              << "\nexit status: 0 success, 1 a scenario does not fit, 2 bad input, 4 an output could not be written\n";
    return kExitOk;
  }
  if (files.size() != 2) throw po::error("expected two scenario files: dlrmsim compare A.yaml B.yaml");

  // An error in an override of one scenario names the option it was given with (the loader
  // calls every command-line override --set).
  auto load = [](const std::string& path, std::vector<std::string> overrides, const std::vector<std::string>& extra,
                 const std::string& option) {
    overrides.insert(overrides.end(), extra.begin(), extra.end());
    try {
      return models::load_scenario(path, overrides);
    } catch (const ConfigError& e) {
      const std::string message = e.what();
      for (const std::string& o : extra) {
        const std::string given = "--set '" + o + "'";
        if (message.rfind(given, 0) == 0) throw ConfigError(option + " '" + o + "'" + message.substr(given.size()));
      }
      throw;
    }
  };
  const models::Scenario scenario_a = load(files[0], both, only_a, "--set-a");
  const models::Scenario scenario_b = load(files[1], both, only_b, "--set-b");
  std::vector<std::filesystem::path> inputs(scenario_a.files.begin(), scenario_a.files.end());
  inputs.insert(inputs.end(), scenario_b.files.begin(), scenario_b.files.end());
  check_outputs(given_outputs(vm, {{"--json", "json"}}), inputs);
  auto run = [](const models::Scenario& sc, const char* which) {
    return std::pair{app::run_job(sc, {}, std::string("scenario ") + which + " does not fit"), sc.platform.nodes().size()};
  };
  const auto [a, nodes_a] = run(scenario_a, "A");
  const auto [b, nodes_b] = run(scenario_b, "B");
  const Comparison c = compare_runs(a, nodes_a, b, nodes_b);
  if (json_path != "-") std::cout << comparison_text(c);
  if (!json_path.empty()) write_output_file(json_path, json_text(comparison_json(c)));
  return kExitOk;
}

}  // namespace dlrmsim::tools
