#include <iostream>

#include "models/training_mode.hpp"
#include "placement/placement.hpp"
#include "sim/backend.hpp"
#include "tools/commands.hpp"

namespace dlrmsim::tools {

int cmd_list(const std::vector<std::string>& /*args*/) {
  std::cout << "engine backends (run.backend):\n";
  for (const auto& b : sim::backends()) std::cout << "  " << b.name << ": " << b.description << "\n";
  std::cout << "\ntraining modes (training.mode):\n";
  for (const auto& m : models::training_modes()) std::cout << "  " << m.name << ": " << m.description << "\n";
  std::cout << "\nplacement policies (placement.policy):\n";
  for (const auto& p : placement::placement_policies()) std::cout << "  " << p.name << ": " << p.description << "\n";
  return kExitOk;
}

}  // namespace dlrmsim::tools
