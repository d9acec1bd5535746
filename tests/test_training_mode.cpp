// Tests of the training-mode registry (models/training_mode.hpp).
#include <doctest/doctest.h>

#include <set>
#include <string>

#include "models/training_mode.hpp"

using namespace dlrmsim::models;

// The registry lists every implementation (an implementation missing from the list would be
// silently unavailable): the four modes of the specification and Persia's synchronous and
// asynchronous modes, each with a description and a build function, names unique.
TEST_CASE("the registry lists every training mode") {
  std::set<std::string> names;
  for (const auto& m : training_modes()) {
    names.emplace(m.name);
    CHECK(!m.description.empty());
    CHECK(static_cast<bool>(m.build));
  }
  CHECK(names == std::set<std::string>{"hybrid_parallel_sync", "cpu_only", "parameter_server", "persia_hybrid",
                                       "persia_sync", "persia_async"});
  CHECK(training_modes().size() == 6);
}

TEST_CASE("modes are found by name; an unknown name lists the known ones") {
  CHECK(training_mode("persia_hybrid").name == "persia_hybrid");
  CHECK(training_mode("cpu_only").cpu_trainers);
  CHECK_FALSE(training_mode("hybrid_parallel_sync").cpu_trainers);
  // parameter_server and persia_hybrid keep the tables on the servers unless told otherwise.
  REQUIRE(training_mode("parameter_server").default_tiers.size() == 1);
  CHECK(training_mode("parameter_server").default_tiers[0] == dlrmsim::placement::Tier::remote_ps);
  try {
    training_mode("hybrid");
    FAIL("expected an error");
  } catch (const std::invalid_argument& e) {
    CHECK(std::string(e.what()).find("hybrid_parallel_sync") != std::string::npos);
  }
}
