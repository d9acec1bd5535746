#include "sim/backend.hpp"

#include <array>
#include <stdexcept>
#include <string>

#include "sim/native_engine.hpp"
#include "sim/simgrid_backend.hpp"

namespace dlrmsim::sim {

std::span<const BackendInfo> backends() {
  static constexpr std::array kBackends{
      BackendInfo{"native", "dlrmsim's event engine with incremental max-min flow sharing", &simulate_native},
      BackendInfo{"simgrid", "the same activity graph replayed on SimGrid 3.32 (CM02 model, S4U actors)",
                  &simulate_simgrid},
  };
  return kBackends;
}

const BackendInfo& backend(std::string_view name) {
  std::string known;
  for (const BackendInfo& b : backends()) {
    if (b.name == name) return b;
    known += (known.empty() ? "" : ", ") + std::string(b.name);
  }
  throw std::invalid_argument("unknown engine backend '" + std::string(name) + "'; known: " + known);
}

}  // namespace dlrmsim::sim
