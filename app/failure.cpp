#include "app/failure.hpp"

#include "common/config.hpp"
#include "common/files.hpp"
#include "placement/placement.hpp"
#include "sim/activity_graph.hpp"

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
  }
  return {kind, e.what()};
}

}  // namespace dlrmsim::app
