// Shell completion for `dlrmsim`, generated from the commands' option declarations.
//
// Each command declares its options once, with Boost.Program_options, next to the code that
// reads them; `dlrmsim COMMAND --help` prints them in Boost's format. The completion script
// is built from that printed form, so a new option or command appears in completion without
// a second list to keep in step: `  -j [ --jobs ] arg (=1)  text` is the long option --jobs,
// its short form -j, taking a value; `  --resume  text` is a switch.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace dlrmsim::tools {

struct CompletionOption {
  std::string long_name;   // "jobs" (without dashes)
  std::string short_name;  // "j", or ""
  bool takes_value = false;
};

struct CompletionCommand {
  std::string name;
  std::vector<CompletionOption> options;
};

/// The options listed in a Boost.Program_options description as printed by `operator<<`
/// (other lines, such as usage text and wrapped descriptions, are ignored).
std::vector<CompletionOption> options_from_help(std::string_view help);

/// A bash script that completes `dlrmsim`'s commands (first word), each command's options,
/// and file names for option values and positional arguments. Meant to be sourced, or
/// installed as share/bash-completion/completions/dlrmsim.
std::string bash_completion_script(const std::vector<CompletionCommand>& commands);

}  // namespace dlrmsim::tools
