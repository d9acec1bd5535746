#include "tools/scenario_command.hpp"

namespace dlrmsim::tools {

ScenarioArguments parse_scenario_arguments(const std::vector<std::string>& args,
                                           boost::program_options::options_description& desc, std::string_view usage) {
  namespace po = boost::program_options;
  ScenarioArguments a;
  desc.add_options()("help,h", "describe the options")(
      "set", po::value(&a.overrides)->composing(), "override a scenario key: key.path=value (repeatable)")(
      "scenario", po::value(&a.scenario), "the scenario file");
  po::positional_options_description pos;
  pos.add("scenario", 1);
  po::store(po::command_line_parser(args).options(desc).positional(pos).run(), a.vm);
  po::notify(a.vm);
  if (!a.help() && a.scenario.empty()) throw po::error("missing the scenario file: " + std::string(usage));
  return a;
}

std::vector<OutputPath> given_outputs(const boost::program_options::variables_map& vm,
                                      std::initializer_list<std::pair<std::string_view, std::string_view>> options) {
  std::vector<OutputPath> out;
  for (const auto& [shown, name] : options) {
    if (vm.count(std::string(name))) out.push_back({std::string(shown), vm[std::string(name)].as<std::string>()});
  }
  return out;
}

}  // namespace dlrmsim::tools
