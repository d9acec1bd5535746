// dlrmsim report INPUT -o PAGE.html [--set key.path=value]...: one self-contained HTML page
// (tools/report.hpp) of a scenario, simulated here, or of a run saved by `dlrmsim run --json`
// (INPUT ending in .json). The page is written whole or not at all (common/files.hpp).
#include <iostream>

#include <boost/program_options.hpp>
#include <nlohmann/json.hpp>

#include "common/config.hpp"
#include "common/files.hpp"
#include "models/scenario.hpp"
#include "models/simulation.hpp"
#include "placement/placement.hpp"
#include "tools/commands.hpp"
#include "tools/report.hpp"
#include "tools/run_report.hpp"
#include "tools/scenario_command.hpp"

namespace dlrmsim::tools {

int cmd_report(const std::vector<std::string>& args) {
  namespace po = boost::program_options;
  po::options_description desc("dlrmsim report SCENARIO.yaml|RUN.json -o PAGE.html [options]");
  std::string output;
  desc.add_options()("output,o", po::value(&output), "the HTML page to write ('-' for standard output)");
  const ScenarioArguments cli = parse_scenario_arguments(args, desc, "dlrmsim report SCENARIO.yaml|RUN.json -o PAGE.html");
  if (cli.help()) {
    std::cout << desc << "\nexit status: 0 success, 1 the job does not fit, 2 bad input, 4 an output could not be written\n";
    return kExitOk;
  }
  if (output.empty()) throw ConfigError("missing -o PAGE.html: dlrmsim report SCENARIO.yaml|RUN.json -o PAGE.html");
  refuse_output_over_inputs(output, {cli.scenario}, "the page (-o)");
  nlohmann::json run;
  const bool from_json = cli.scenario.size() > 5 && cli.scenario.substr(cli.scenario.size() - 5) == ".json";
  if (from_json) {
    if (!cli.overrides.empty()) throw ConfigError("--set applies to a scenario, not to a saved run (" + cli.scenario + ")");
    try {
      run = nlohmann::json::parse(read_input_file(cli.scenario));
    } catch (const nlohmann::json::exception& e) {
      throw ConfigError(cli.scenario + ": not a JSON document: " + e.what());
    }
  } else {
    const auto sc = models::load_scenario(cli.scenario, cli.overrides);
    try {
      run = nlohmann::json::parse(run_json(models::run_scenario(sc)));
    } catch (const placement::InfeasiblePlacement& e) {
      throw InfeasibleJob(infeasible_placement_message(e, "the job does not fit"));
    }
  }
  write_output_file(output, report_html(run, cli.scenario));
  return kExitOk;
}

}  // namespace dlrmsim::tools
