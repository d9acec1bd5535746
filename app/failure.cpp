#include "app/failure.hpp"

#include "common/config.hpp"
#include "common/files.hpp"
#include "placement/placement.hpp"
#include "sim/activity_graph.hpp"

#include <new>
#include <stdexcept>
#include <string>

namespace dlrmsim::app {

int Failure::exit_status() const {
  switch (kind) {
    case FailureKind::bad_input:
      return kExitBadInput;
    case FailureKind::infeasible:
      return kExitInfeasible;
    case FailureKind::output_failed:
      return kExitOutputFailed;
    case FailureKind::internal:
      break;
  }
  return kExitInternal;
}

std::string_view Failure::label() const {
  switch (kind) {
    case FailureKind::bad_input:
    case FailureKind::output_failed:
      return "error";
    case FailureKind::infeasible:
      return "infeasible";
    case FailureKind::internal:
      break;
  }
  return "internal error";
}

Failure classify_failure(const std::exception& e) {
  FailureKind kind = FailureKind::internal;
  if (dynamic_cast<const OutputError*>(&e)) {
    kind = FailureKind::output_failed;
  } else if (dynamic_cast<const ConfigError*>(&e) || dynamic_cast<const sim::GraphError*>(&e)) {
    kind = FailureKind::bad_input;
  } else if (dynamic_cast<const placement::InfeasiblePlacement*>(&e) || dynamic_cast<const InfeasibleJob*>(&e)) {
    kind = FailureKind::infeasible;
  } else if (dynamic_cast<const std::invalid_argument*>(&e)) {
    kind = FailureKind::bad_input;
  } else if (dynamic_cast<const std::bad_alloc*>(&e) || dynamic_cast<const std::length_error*>(&e)) {
    // Sizes read from input are bounded where they are read; what still exhausts memory is a
    // job too large for this machine, not a bug.
    return {FailureKind::infeasible,
            std::string("the simulation needs more memory than this machine can give it (") + e.what() +
                "); simulate fewer nodes (training.nodes: representative), fewer steps or a smaller model"};
  }
  return {kind, e.what()};
}

}  // namespace dlrmsim::app
