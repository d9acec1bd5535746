// Command-line parsing shared by the commands that take one scenario file (`run`, `place`):
// the positional SCENARIO.yaml and the repeatable `--set key.path=value` overrides.
#pragma once

#include <initializer_list>
#include <string>
#include <utility>
#include <string_view>
#include <vector>

#include <boost/program_options.hpp>

#include "common/files.hpp"

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

/// The output options among `options` that were given in `vm`, for check_outputs
/// (common/files.hpp): each {as shown in messages ("--json"), its name in `vm` ("json")}.
std::vector<OutputPath> given_outputs(const boost::program_options::variables_map& vm,
                                      std::initializer_list<std::pair<std::string_view, std::string_view>> options);

}  // namespace dlrmsim::tools
