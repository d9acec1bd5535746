#include <iostream>

#include "sim/backend.hpp"
#include "tools/commands.hpp"

namespace dlrmsim::tools {

int cmd_list(const std::vector<std::string>& /*args*/) {
  std::cout << "engine backends:\n";
  for (const auto& b : sim::backends()) std::cout << "  " << b.name << ": " << b.description << "\n";
  return kExitOk;
}

}  // namespace dlrmsim::tools
