// What went wrong, as the command line and the Python module both report it: the kind of
// failure an exception stands for, its exit status and its message.
//
//   kind           exit status  exceptions
//   bad input      2            ConfigError (a malformed file, an unknown key, a bad option),
//                               sim::GraphError, std::invalid_argument
//   infeasible     1            placement::InfeasiblePlacement, InfeasibleJob (the job does not
//                               fit or cannot run as described); std::bad_alloc and
//                               std::length_error (the simulation itself does not fit this
//                               machine's memory: sizes read from input are bounded where read)
//   output failed  4            OutputError (disk full, missing directory, no permission)
//   internal       3            any other std::exception (a bug)
//
// The message is the exception's own text (for input errors the located
// "FILE:LINE:COL: key: ..." text): the command line prints it after "error: ",
// "infeasible: " or "internal error: "; Python raises BadInput, Infeasible or OutputFailed
// with it. The command line's own option errors (Boost.Program_options) are bad input too;
// tools/main.cpp classifies those, the only layer that parses options.
#pragma once

#include <exception>
#include <stdexcept>
#include <string>
#include <string_view>

namespace dlrmsim::app {

inline constexpr int kExitOk = 0;
inline constexpr int kExitInfeasible = 1;
inline constexpr int kExitBadInput = 2;
inline constexpr int kExitInternal = 3;
inline constexpr int kExitOutputFailed = 4;
/// `dlrmsim validate`: every case was evaluated and at least one prediction lies outside its
/// case's tolerance (a finding about the model, not an infeasible job nor bad input).
inline constexpr int kExitOutsideTolerance = 5;

/// Thrown for a job that cannot run as described (exit status 1).
struct InfeasibleJob : std::runtime_error {
  using std::runtime_error::runtime_error;
};

enum class FailureKind { bad_input, infeasible, output_failed, internal };

struct Failure {
  FailureKind kind = FailureKind::internal;
  std::string message;  // the exception's what()

  /// The process exit status of this kind (the table above).
  [[nodiscard]] int exit_status() const;
  /// The command line's prefix before the message: "error", "infeasible" or "internal error".
  [[nodiscard]] std::string_view label() const;
};

/// The kind of `e` (the table above) and its message.
Failure classify_failure(const std::exception& e);

}  // namespace dlrmsim::app
