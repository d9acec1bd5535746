// The subcommands of the `dlrmsim` program. Each lives in its own cmd_<name>.cpp and is
// listed once in main.cpp's command table.
//
// Exit status (the same for every command): 0 success, 1 an infeasible job (it does not fit
// or cannot run as described), 2 bad input (a malformed file, an unknown key, a bad option),
// 4 an output could not be written (disk full, missing directory, no permission).
#pragma once

#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace dlrmsim::tools {

inline constexpr int kExitOk = 0;
inline constexpr int kExitInfeasible = 1;
inline constexpr int kExitBadInput = 2;
inline constexpr int kExitOutputFailed = 4;

/// Thrown by a command for a job that cannot run as described (exit status 1).
struct InfeasibleJob : std::runtime_error {
  using std::runtime_error::runtime_error;
};

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
