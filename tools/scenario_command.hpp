// Command-line parsing shared by the commands that take one scenario file (`run`, `place`):
// the positional SCENARIO.yaml and the repeatable `--set key.path=value` overrides.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include <boost/program_options.hpp>

namespace dlrmsim::tools {

struct ScenarioArguments {
  std::string scenario;
  std::vector<std::string> overrides;
  boost::program_options::variables_map vm;
  [[nodiscard]] bool help() const { return vm.count("help") != 0; }
};

/// Adds --help, --set and the positional scenario to `desc` (which holds the command's own
/// options) and parses `args`. Unless --help was given, a missing scenario throws
/// boost::program_options::error naming `usage` ("dlrmsim run SCENARIO.yaml").
ScenarioArguments parse_scenario_arguments(const std::vector<std::string>& args,
                                           boost::program_options::options_description& desc, std::string_view usage);

}  // namespace dlrmsim::tools
