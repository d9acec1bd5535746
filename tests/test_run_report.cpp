// The run command's CSV outputs (app/run_report.hpp).
#include <doctest/doctest.h>

#include "app/run_report.hpp"
#include "models/stragglers.hpp"

using namespace dlrmsim;

// System: a straggler report of two measured steps, the first waiting for a device whose name
// holds a comma and a quote (names come from the platform file), the second for nobody.
// Expected: --steps-csv's text quotes that name as CSV does ("gpu,0 ""a""") so each row keeps
// its 4 fields; it was written raw and the row split in two at the comma.
TEST_CASE("--steps-csv quotes a device name holding a comma or a quote") {
  models::StragglerReport st;
  st.step_times = {Seconds(0.002), Seconds(0.001)};
  st.waited_for = {"node0.gpu,0 \"a\"", ""};
  st.waited_factor = {1.5, 1.0};
  CHECK(app::steps_csv(st) ==
        "step,step_time_ms,waited_for,slowest_factor_on_path\n"
        "0,2,\"node0.gpu,0 \"\"a\"\"\",1.5\n"
        "1,1,-,1\n");
}
