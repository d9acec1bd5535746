// dlrmsim completion bash: prints a bash completion script for every command and its options
// (tools/completion.hpp), read from each command's own `--help`.
#include <iostream>
#include <sstream>

#include "common/config.hpp"
#include "tools/commands.hpp"
#include "tools/completion.hpp"

namespace dlrmsim::tools {
namespace {

/// What `dlrmsim NAME --help` prints on standard output, captured (std::cout is restored
/// however the command returns).
std::string help_of(const Command& command) {
  std::ostringstream captured;
  struct Restore {
    std::streambuf* saved;
    ~Restore() { std::cout.rdbuf(saved); }
  } restore{std::cout.rdbuf(captured.rdbuf())};
  command.run({"--help"});
  return captured.str();
}

}  // namespace

int cmd_completion(const std::vector<std::string>& args) {
  if (args.size() == 1 && (args[0] == "--help" || args[0] == "-h")) {
    std::cout << "dlrmsim completion bash: print a bash completion script for dlrmsim's commands and options\n"
                 "  (source it, or install it as share/bash-completion/completions/dlrmsim)\n";
    return kExitOk;
  }
  if (args.size() != 1 || args[0] != "bash") {
    throw ConfigError("completion: expected the shell's name: dlrmsim completion bash (bash is the only one supported)");
  }
  std::vector<CompletionCommand> commands;
  for (const Command& c : command_table()) {
    CompletionCommand entry{std::string(c.name), {}};
    if (c.name != "completion") entry.options = options_from_help(help_of(c));
    commands.push_back(std::move(entry));
  }
  std::cout << bash_completion_script(commands);
  return kExitOk;
}

}  // namespace dlrmsim::tools
