// The classification of failures (app/failure.hpp) that the command line's exit status and the
// Python module's exception classes both come from: each exception the layers throw maps to
// its kind, exit status and label, and its own message passes through unchanged.
#include <doctest/doctest.h>

#include <new>
#include <stdexcept>
#include <string>

#include "app/failure.hpp"
#include "app/scenario_run.hpp"
#include "common/config.hpp"
#include "common/files.hpp"
#include "models/scenario.hpp"
#include "placement/placement.hpp"
#include "sim/activity_graph.hpp"

using namespace dlrmsim;
using namespace dlrmsim::app;

namespace {

const std::string kRoot = DLRMSIM_SOURCE_DIR;

/// The classification of what `f` throws (a test failure when it throws nothing).
template <typename F>
Failure failure_of(F&& f) {
  try {
    f();
  } catch (const std::exception& e) {
    return classify_failure(e);
  }
  FAIL("nothing was thrown");
  return {};
}

}  // namespace

// Expected: the documented table. Bad input (a malformed file, an inconsistent graph, an
// argument out of range) is status 2 and "error"; an infeasible job, whether the placement's
// own exception or a command's InfeasibleJob, status 1 and "infeasible"; an output that could
// not be written status 4 and "error"; anything else is a bug: status 3, "internal error".
TEST_CASE("each exception maps to its kind, exit status and label") {
  struct Case {
    Failure failure;
    FailureKind kind;
    int status;
    const char* label;
  };
  const Case cases[] = {
      {classify_failure(ConfigError("f.yaml:1:2: k: bad")), FailureKind::bad_input, 2, "error"},
      {classify_failure(sim::GraphError("a cycle")), FailureKind::bad_input, 2, "error"},
      {classify_failure(std::invalid_argument("-j 0")), FailureKind::bad_input, 2, "error"},
      {classify_failure(placement::InfeasiblePlacement("too big", "gpu0", Bytes(1.0))), FailureKind::infeasible, 1,
       "infeasible"},
      {classify_failure(InfeasibleJob("no point fits")), FailureKind::infeasible, 1, "infeasible"},
      {classify_failure(OutputError("out.csv: disk full")), FailureKind::output_failed, 4, "error"},
      {classify_failure(std::runtime_error("unexpected")), FailureKind::internal, 3, "internal error"},
      {classify_failure(std::logic_error("unexpected")), FailureKind::internal, 3, "internal error"},
      // Memory exhausted by a job too large for the machine is the job's, not a bug.
      {classify_failure(std::bad_alloc()), FailureKind::infeasible, 1, "infeasible"},
      {classify_failure(std::length_error("vector::_M_default_append")), FailureKind::infeasible, 1, "infeasible"},
  };
  for (const Case& c : cases) {
    CAPTURE(c.failure.message);
    CHECK(c.failure.kind == c.kind);
    CHECK(c.failure.exit_status() == c.status);
    CHECK(c.failure.label() == c.label);
  }
  // The out-of-memory message says what to shrink.
  CHECK(classify_failure(std::bad_alloc()).message.find("training.nodes: representative") != std::string::npos);
  // The statuses are the command line's documented ones (tools/main.cpp's usage).
  CHECK(kExitOk == 0);
  CHECK(kExitInfeasible == 1);
  CHECK(kExitBadInput == 2);
  CHECK(kExitInternal == 3);
  CHECK(kExitOutputFailed == 4);
}

// Expected: the message is the exception's text, byte for byte, so the located
// "FILE:LINE:COL: key: ..." of a real load reaches the user; the unknown key of
// tests/errors/scenario_unknown_key.yaml is on line 6, column 17 (its `colour:`), as
// tests/errors/scenario_unknown_key.expected also says.
TEST_CASE("a located input error passes through with its location and kind") {
  const std::string path = kRoot + "/tests/errors/scenario_unknown_key.yaml";
  const Failure f = failure_of([&] { (void)models::load_scenario(path); });
  CHECK(f.kind == FailureKind::bad_input);
  CHECK(f.exit_status() == 2);
  CHECK(f.message == path + ":6:17: run.colour: unknown key 'colour'; expected one of 'backend', 'calibration', "
                            "'steps', 'stop_when_steady', 'warmup_steps'");
}

// Expected: a job whose tables overflow a GPU is an InfeasibleJob from app::run_job, status 1,
// whose message names what does not fit and the overflowing device first
// (tests/errors/scenario_infeasible.expected has the whole text: the M3 model's 1 TB of
// tables on one 141 GB H200 with the all_gpu policy).
TEST_CASE("an infeasible placement becomes an infeasible job naming the device") {
  const auto sc = models::load_scenario(kRoot + "/tests/errors/scenario_infeasible.yaml");
  const Failure f = failure_of([&] { (void)run_job(sc); });
  CHECK(f.kind == FailureKind::infeasible);
  CHECK(f.exit_status() == 1);
  CHECK(f.message.rfind("the job does not fit: device 'gpu0' overflows by 900205136392 bytes (900 GB): ", 0) == 0);
  // `dlrmsim place` says the same of the tables.
  const Failure placed = failure_of([&] { (void)place_job(sc, "s.yaml"); });
  CHECK(placed.kind == FailureKind::infeasible);
  CHECK(placed.message.rfind("the tables do not fit: device 'gpu0'", 0) == 0);
}

// Expected: a scenario with `jobs:` cannot be placed as one job; the refusal is bad input
// naming the source it was given (the command line passes the file, Python the dict's name).
TEST_CASE("placing a scenario with jobs is bad input naming its source") {
  const auto sc = models::load_scenario(kRoot + "/configs/scenarios/two_jobs_fat_tree.yaml");
  REQUIRE_FALSE(sc.jobs.empty());
  const Failure f = failure_of([&] { (void)place_job(sc, "<scenario dict>"); });
  CHECK(f.kind == FailureKind::bad_input);
  CHECK(f.message == "<scenario dict>: the scenario lists jobs; `dlrmsim run` places each job on its own nodes");
}
