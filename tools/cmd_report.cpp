// dlrmsim report INPUT -o PAGE.html [--set key.path=value]...: one self-contained HTML page
// (tools/report.hpp) of a scenario, simulated here, or of a run saved by `dlrmsim run --json`
// (INPUT ending in .json), or of a sweep's result file (INPUT ending in .csv; --x KEY and one
// chart per --y KEY, default throughput_samples_per_s). The page is written whole or not at
// all (common/files.hpp).
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
#include "app/run_report.hpp"
#include "app/scenario_run.hpp"
#include "tools/scenario_command.hpp"

namespace dlrmsim::tools {

int cmd_report(const std::vector<std::string>& args) {
  namespace po = boost::program_options;
  po::options_description desc("dlrmsim report SCENARIO.yaml|RUN.json|SWEEP.csv -o PAGE.html [options]");
  std::string output, x_key, group_key;
  std::vector<std::string> y_keys;
  desc.add_options()("output,o", po::value(&output), "the HTML page to write ('-' for standard output)")(
      "x", po::value(&x_key), "with a sweep's CSV file: the column on the x axis")(
      "y", po::value(&y_keys)->composing(), "with a sweep's CSV file: a chart of this column (repeatable; default "
                                             "throughput_samples_per_s)")(
      "group", po::value(&group_key), "with a sweep's CSV file: one line per value of this column");
  const ScenarioArguments cli =
      parse_scenario_arguments(args, desc, "dlrmsim report SCENARIO.yaml|RUN.json|SWEEP.csv -o PAGE.html");
  if (cli.help()) {
    std::cout << desc << "\nexit status: 0 success, 1 the job does not fit, 2 bad input, 4 an output could not be written\n";
    return kExitOk;
  }
  if (output.empty()) throw ConfigError("missing -o PAGE.html: dlrmsim report SCENARIO.yaml|RUN.json -o PAGE.html");
  const auto outputs = given_outputs(cli.vm, {{"the page (-o)", "output"}});
  check_outputs(outputs, {cli.scenario});
  auto ends_with = [&](const std::string& tail) {
    return cli.scenario.size() > tail.size() && cli.scenario.compare(cli.scenario.size() - tail.size(), tail.size(), tail) == 0;
  };
  if (ends_with(".csv")) {
    if (x_key.empty()) throw ConfigError("--x KEY: a sweep's page needs the column on the x axis (" + cli.scenario + ")");
    if (y_keys.empty()) y_keys.push_back("throughput_samples_per_s");
    write_output_file(output, sweep_report_html(cli.scenario, x_key, y_keys, group_key));
    return kExitOk;
  }
  if (!x_key.empty() || !y_keys.empty() || !group_key.empty()) {
    throw ConfigError("--x, --y and --group apply to a sweep's CSV file, not to " + cli.scenario);
  }
  nlohmann::json run;
  const bool from_json = ends_with(".json");
  if (from_json) {
    if (!cli.overrides.empty()) throw ConfigError("--set applies to a scenario, not to a saved run (" + cli.scenario + ")");
    try {
      run = nlohmann::json::parse(read_input_file(cli.scenario));
    } catch (const nlohmann::json::exception& e) {
      throw ConfigError(cli.scenario + ": not a JSON document: " + e.what());
    }
  } else {
    const auto sc = models::load_scenario(cli.scenario, cli.overrides);
    check_outputs(outputs, {sc.files.begin(), sc.files.end()});
    run = nlohmann::json::parse(app::run_report_json(sc));
  }
  write_output_file(output, report_html(run, cli.scenario));
  return kExitOk;
}

}  // namespace dlrmsim::tools
