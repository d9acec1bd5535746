// The representative node's measured error (models/representative_error.hpp): its rows hold
// (re-measured here for the clusters of at most 64 nodes, two fabrics), the run report states
// the row that speaks for the job, and the row chosen for a fabric and size.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "approx.hpp"
#include "models/representative_error.hpp"
#include "models/simulation.hpp"
#include "scenario_fixtures.hpp"

using namespace dlrmsim;
using namespace dlrmsim::models;
using dlrmsim::models::testing::shipped;

namespace {

/// The shipped scenario of a row's fabric, cut to its nodes, as tools/fidelity_errors.sh runs it.
RunReport run_row(const RepresentativeErrorMeasurement& m, const char* fidelity) {
  const char* scenario =
      m.fabric == topo::FabricKind::rail_optimized ? "dcnv2_superpod_4096gpu" : "goodput_dcnv2_512gpu";
  return run_scenario(shipped(scenario, {"platform.cluster.groups.0.count=" + std::to_string(m.nodes),
                                         "run.warmup_steps=6", "run.steps=4",
                                         std::string("training.nodes=") + fidelity}));
}

}  // namespace

// System: DLRM-DCNv2 on 8, 16 and 64 DGX H100 of the rail-optimised 1:1 SuperPOD fabric and
// 16 and 64 of the 2:1 fat tree (the table's rows of at most 64 nodes), NCCL's latencies on.
// Expected: both strategies predict the step the row records (the simulation is
// deterministic: to the row's 7 digits), so the error the run report states is the error of
// that run; and a representative run states its row.
TEST_CASE("the measured rows of up to 64 nodes hold, and the report states them") {
  int rows = 0;
  for (const auto& m : representative_error_measurements()) {
    if (m.nodes > 64) continue;
    ++rows;
    CAPTURE(m.nodes);
    CAPTURE(topo::to_string(m.fabric));
    const RunReport rep = run_row(m, "representative");
    const RunReport all = run_row(m, "all");
    CHECK(rep.step_time.value() == dlrmsim::rel(m.representative_step_s).epsilon(1e-6));
    CHECK(all.step_time.value() == dlrmsim::rel(m.every_node_step_s).epsilon(1e-6));
    CHECK(rep.fidelity.find(describe(m)) != std::string::npos);
  }
  CHECK(rows == 5);
}

// System: the table. Inputs: fabrics of each kind and sizes between and beyond the rows.
// Expected: the row of the same kind and oversubscription with the largest node count at
// most the job's (the smallest row below all of them), another oversubscription's rows when
// the job's was never measured, and none for a single switch or a single node.
TEST_CASE("the row that speaks for a job") {
  topo::FabricSpec rail;
  rail.kind = topo::FabricKind::rail_optimized;
  rail.oversubscription = 1.0;
  const auto nodes_of = [](const RepresentativeErrorMeasurement* m) { return m ? m->nodes : std::size_t{0}; };
  CHECK(nodes_of(representative_error_for(rail, 4)) == 8);
  CHECK(nodes_of(representative_error_for(rail, 100)) == 64);
  CHECK(nodes_of(representative_error_for(rail, 512)) == 512);
  CHECK(nodes_of(representative_error_for(rail, 2048)) == 512);
  rail.oversubscription = 2.0;  // not measured: the 1:1 rows
  CHECK(nodes_of(representative_error_for(rail, 2048)) == 512);
  topo::FabricSpec tree;
  tree.kind = topo::FabricKind::fat_tree;
  tree.oversubscription = 2.0;
  CHECK(nodes_of(representative_error_for(tree, 32)) == 16);
  CHECK(representative_error_for(tree, 32)->fabric == topo::FabricKind::fat_tree);
  CHECK(representative_error_for(topo::FabricSpec{}, 64) == nullptr);  // single switch
  CHECK(representative_error_for(std::nullopt, 1) == nullptr);
}

// System: docs/engine.md's table of the measured rows. Expected: one line per row of the code's
// table, each figure as the code holds it (so the documented errors cannot drift from those
// the run report states).
TEST_CASE("docs/engine.md shows the table the code holds") {
  std::ifstream in(dlrmsim::testing::kRoot + "/docs/engine.md");
  REQUIRE(in);
  std::stringstream text;
  text << in.rdbuf();
  for (const auto& m : representative_error_measurements()) {
    char row[160];
    std::snprintf(row, sizeof row, "| %s %g:1 | %zu | %.4f ms | %.4f ms | %+.2f %% |", std::string(topo::to_string(m.fabric)).c_str(),
                  m.oversubscription, m.nodes, 1e3 * m.representative_step_s, 1e3 * m.every_node_step_s, 100.0 * m.error());
    CHECK_MESSAGE(text.str().find(row) != std::string::npos, row);
  }
  // The README quotes the SuperPOD's rows of 64 and 512 nodes.
  std::ifstream readme_file(dlrmsim::testing::kRoot + "/README.md");
  REQUIRE(readme_file);
  std::stringstream readme;
  readme << readme_file.rdbuf();
  topo::FabricSpec superpod;
  superpod.kind = topo::FabricKind::rail_optimized;
  char quote[120];
  std::snprintf(quote, sizeof quote, "error is under 5 %% (%+.1f %% at 64 DGX H100, %+.2f %% at 512)",
                100.0 * representative_error_for(superpod, 64)->error(), 100.0 * representative_error_for(superpod, 512)->error());
  CHECK_MESSAGE(readme.str().find(quote) != std::string::npos, quote);
}
