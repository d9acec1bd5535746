// The subcommands of the `dlrmsim` program. Each lives in its own cmd_<name>.cpp and is
// listed once in main.cpp's command table.
//
// Exit status (the same for every command, app/failure.hpp): 0 success, 1 an infeasible job
// (it does not fit or cannot run as described), 2 bad input (a malformed file, an unknown key,
// a bad option), 4 an output could not be written (disk full, missing directory, no permission).
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "app/failure.hpp"

namespace dlrmsim::tools {

// The exit statuses and InfeasibleJob (app/failure.hpp classifies what a command throws).
using app::InfeasibleJob;
using app::kExitBadInput;
using app::kExitInfeasible;
using app::kExitOk;
using app::kExitOutputFailed;
using app::kExitOutsideTolerance;

struct Command {
  std::string_view name;
  std::string_view summary;
  int (*run)(const std::vector<std::string>& args);  // args exclude the program and command names
};

int cmd_list(const std::vector<std::string>& args);
int cmd_run(const std::vector<std::string>& args);
int cmd_fit_profile(const std::vector<std::string>& args);
int cmd_platform(const std::vector<std::string>& args);
int cmd_place(const std::vector<std::string>& args);
int cmd_sweep(const std::vector<std::string>& args);
int cmd_plot(const std::vector<std::string>& args);
int cmd_validate(const std::vector<std::string>& args);
int cmd_completion(const std::vector<std::string>& args);
int cmd_report(const std::vector<std::string>& args);

/// Every command, in the order `dlrmsim --help` lists them (main.cpp).
std::span<const Command> command_table();
int cmd_compare(const std::vector<std::string>& args);
int cmd_plan(const std::vector<std::string>& args);

}  // namespace dlrmsim::tools
