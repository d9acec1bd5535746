// dlrmsim validate [DIR] [--json PATH] [--plot PATH]: runs the validation cases against
// published results (validation/cases/ by default) and prints the table.
#include <cstdlib>
#include <fstream>
#include <iostream>

#include <boost/program_options.hpp>

#include "tools/commands.hpp"
#include "tools/scenario_runner.hpp"
#include "tools/validate.hpp"

namespace po = boost::program_options;

namespace dlrmsim::tools {

std::optional<double> scenario_metric(const YAML::Node& scenario, const std::string& source,
                                      const std::vector<std::string>& overrides, const std::string& metric,
                                      std::string& why) {
  const PointOutcome outcome = run_scenario(scenario, source, overrides);
  if (outcome.status == "infeasible") {
    why = outcome.error;
    return std::nullopt;
  }
  const auto it = outcome.outputs.find(metric);
  if (it == outcome.outputs.end()) {
    throw std::invalid_argument("unknown metric '" + metric + "'; a run reports throughput_samples_per_s, step_time_s, ...");
  }
  return std::stod(it->second);
}

int cmd_validate(const std::vector<std::string>& args) {
  po::options_description opts("dlrmsim validate [DIR] [options]");
  opts.add_options()("help,h", "show this help")("dir", po::value<std::string>()->default_value("validation/cases"),
                                                  "directory of validation cases")(
      "json", po::value<std::string>(), "write the table as JSON to PATH ('-' for stdout)")(
      "plot", po::value<std::string>(), "write predicted vs published (log-log) to PATH.svg or PATH.png");
  po::positional_options_description pos;
  pos.add("dir", 1);
  po::variables_map vm;
  po::store(po::command_line_parser(args).options(opts).positional(pos).run(), vm);
  if (vm.count("help")) {
    std::cout << opts;
    return kExitOk;
  }
  const auto results = run_validation_dir(vm["dir"].as<std::string>(), scenario_metric);
  if (vm.count("json")) {
    const std::string path = vm["json"].as<std::string>();
    if (path == "-") {
      std::cout << validation_json(results);
    } else {
      std::ofstream(path) << validation_json(results);
    }
  }
  if (!vm.count("json") || vm["json"].as<std::string>() != "-") std::cout << validation_table(results);
  if (vm.count("plot")) write_validation_plot(results, vm["plot"].as<std::string>());
  return summarize(results).failed == 0 ? kExitOk : kExitInfeasible;
}

}  // namespace dlrmsim::tools
