// dlrmsim: simulate the training of deep-learning recommendation models on datacenter clusters.
#include <array>
#include <exception>
#include <iostream>
#include <string>
#include <vector>

#include <boost/program_options/errors.hpp>

#include "app/failure.hpp"
#include "common/config.hpp"
#include "common/files.hpp"
#include "common/version.hpp"
#include "tools/commands.hpp"

namespace dlrmsim::tools {
namespace {

constexpr std::array kCommands{
    Command{"list", "list the registered engine backends and other implementations", &cmd_list},
    Command{"run", "simulate a scenario: throughput, step time, breakdown, utilisation, memory, placement", &cmd_run},
    Command{"fit-profile", "fit a device profile to calibration measurements (dlrmsim-calibrate)", &cmd_fit_profile},
    Command{"platform", "describe a hardware platform file: nodes, devices, links, bandwidths", &cmd_platform},
    Command{"place", "plan the embedding placement of a scenario: tiers, sharding, memory per device", &cmd_place},
    Command{"sweep", "run many what-if points of a scenario (grid or zip of axes) into a CSV file", &cmd_sweep},
    Command{"plot", "draw a line or bar chart from a sweep's CSV file (SVG or PNG)", &cmd_plot},
    Command{"compare", "run two scenarios side by side: throughput, breakdown, memory, power, cost, verdict", &cmd_compare},
    Command{"plan", "search a space for the cheapest configuration meeting a throughput target; Pareto front", &cmd_plan},
    Command{"validate", "compare predictions with published results (validation/cases/)", &cmd_validate},
    Command{"report", "write a self-contained HTML page of a run: charts of time, utilisation, memory; placement", &cmd_report},
    Command{"completion", "print a bash completion script: dlrmsim completion bash", &cmd_completion},
};

void usage(std::ostream& out) {
  out << "usage: dlrmsim COMMAND [ARGS...]   (dlrmsim --version: the version)\n\ncommands:\n";
  for (const Command& c : kCommands) out << "  " << c.name << std::string(12 - c.name.size(), ' ') << c.summary << "\n";
  out << "\n'dlrmsim COMMAND --help' describes a command's options.\n"
         "exit status: 0 success, 1 infeasible job, 2 bad input, 3 internal error, 4 an output could not be\n"
         "written, 5 (validate) a prediction outside its case's tolerance\n";
}

int dispatch(int argc, char** argv) {
  if (argc < 2) {
    usage(std::cerr);
    return kExitBadInput;
  }
  const std::string name = argv[1];
  if (name == "--help" || name == "-h" || name == "help") {
    usage(std::cout);
    return kExitOk;
  }
  if (name == "--version" || name == "version") {
    std::cout << "dlrmsim " << version() << "\n";
    return kExitOk;
  }
  const std::vector<std::string> args(argv + 2, argv + argc);
  std::vector<std::string> names;
  for (const Command& c : kCommands) {
    if (c.name == name) return c.run(args);
    names.emplace_back(c.name);
  }
  std::cerr << "dlrmsim: unknown command '" << name << "'";
  if (auto guess = did_you_mean(name, names)) std::cerr << "; did you mean '" << *guess << "'?";
  std::cerr << "\n";
  usage(std::cerr);
  return kExitBadInput;
}

}  // namespace

std::span<const Command> command_table() { return kCommands; }

}  // namespace dlrmsim::tools

int main(int argc, char** argv) {
  using namespace dlrmsim;
  try {
    const int status = tools::dispatch(argc, argv);
    flush_standard_output();
    return status;
  } catch (const boost::program_options::error& e) {  // a bad option: bad input
    std::cerr << "error: " << e.what() << "\n";
    return app::kExitBadInput;
  } catch (const std::exception& e) {
    const app::Failure failure = app::classify_failure(e);
    std::cerr << failure.label() << ": " << failure.message << "\n";
    return failure.exit_status();
  }
}
