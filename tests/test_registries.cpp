// Tests of the registries: the tables that map a configuration name to its implementation
// (training modes, models/training_mode.hpp; placement policies, placement/placement.hpp;
// engine backends, sim/backend.hpp). What every registry must do is checked as properties,
// not by restating its list: each name is unique, described, and found again by the lookup
// function; an unknown name is an error naming every known one; and every implementation in
// the source folder is registered (read from the source tree at test time), since an
// implementation missing from its table is silently unavailable (the Ramulator 2 lesson).
// What each mode and policy does is tested in test_training_mode.cpp,
// test_persia_modes.cpp, test_placement_policies.cpp and test_placement_search.cpp.
#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <set>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "regex.hpp"

#include "models/training_mode.hpp"
#include "placement/placement.hpp"
#include "sim/backend.hpp"
#include "file_fixtures.hpp"
#include "paths.hpp"

namespace fs = std::filesystem;
using dlrmsim::testing::kRoot;
using dlrmsim::testing::read_text;

namespace {

/// The properties every registry has: at least one entry; names unique, non-empty and in
/// the lower_snake_case of configuration values; a description and an implementation for
/// each; lookup(name) gives back that very entry; and each of `unknown` (names that are not
/// registered: a near miss, a prefix, the empty name) is refused with std::invalid_argument
/// whose message quotes it and names every registered name.
template <class Info, class Implementation>
void check_registry(std::span<const Info> entries, const Info& (*lookup)(std::string_view),
                    Implementation implementation, const std::vector<std::string>& unknown) {
  REQUIRE(!entries.empty());
  std::set<std::string_view> names;
  for (const Info& entry : entries) {
    CAPTURE(entry.name);
    CHECK(names.insert(entry.name).second);
    CHECK(std::regex_match(std::string(entry.name), std::regex("[a-z][a-z0-9_]*")));
    CHECK(!entry.description.empty());
    CHECK(entry.description != entry.name);
    CHECK((implementation(entry) != nullptr));
    CHECK(&lookup(entry.name) == &entry);
  }
  for (const std::string& name : unknown) {
    CAPTURE(name);
    REQUIRE(names.count(name) == 0);
    try {
      (void)lookup(name);
      FAIL("an unknown name must be refused");
    } catch (const std::invalid_argument& e) {
      const std::string message = e.what();
      CHECK(message.find("'" + name + "'") != std::string::npos);
      for (std::string_view known : names) {
        CAPTURE(known);
        CHECK(message.find(known) != std::string::npos);
      }
    }
  }
}

/// The .cpp files of `folder` (relative to the source root) whose name matches `pattern`,
/// read from the source tree; at least one, or the glob itself is wrong.
std::vector<fs::path> sources(const std::string& folder, const std::string& pattern) {
  std::vector<fs::path> out;
  const std::regex re(pattern);
  for (const auto& entry : fs::directory_iterator(fs::path(kRoot) / folder)) {
    const std::string name = entry.path().filename().string();
    if (entry.path().extension() == ".cpp" && std::regex_match(name, re)) out.push_back(entry.path());
  }
  std::sort(out.begin(), out.end());
  CAPTURE(folder);
  CAPTURE(pattern);
  REQUIRE(!out.empty());
  return out;
}

/// The first capture group of every match of `pattern` in `text`.
std::set<std::string> captures(const std::string& text, const std::string& pattern) {
  std::set<std::string> out;
  const std::regex re(pattern);
  for (auto it = std::sregex_iterator(text.begin(), text.end(), re); it != std::sregex_iterator(); ++it) {
    out.insert((*it)[1]);
  }
  return out;
}

/// Whether `file` (a path in the source tree) is one of the sources its folder's
/// CMakeLists.txt compiles (named by its path relative to `folder`).
bool compiled(const std::string& folder, const fs::path& file) {
  const std::string cmake = read_text(fs::path(kRoot) / folder / "CMakeLists.txt");
  const std::string relative = fs::relative(file, fs::path(kRoot) / folder).generic_string();
  return std::regex_search(cmake, std::regex("[\\s(]" + std::regex_replace(relative, std::regex("\\."), "\\.") + "[\\s)]"));
}

/// The names that the definitions matching `pattern` (its first capture) give in the .cpp
/// files of `folder`; every file holding one must be compiled.
std::set<std::string> defined_in(const std::string& folder, const std::string& pattern) {
  std::set<std::string> defined;
  for (const fs::path& file : sources(folder, R"(.*\.cpp)")) {
    const std::set<std::string> in_file = captures(read_text(file), pattern);
    if (in_file.empty()) continue;
    CAPTURE(file.string());
    CHECK(compiled(folder, file));
    defined.insert(in_file.begin(), in_file.end());
  }
  return defined;
}

/// "a, b, c": sets compared as text, so that a failure prints both sides.
std::string joined(const std::set<std::string>& names) {
  std::string out;
  for (const auto& n : names) out += (out.empty() ? "" : ", ") + n;
  return out;
}

std::set<std::string> registered_names(auto entries) {
  std::set<std::string> out;
  for (const auto& e : entries) out.emplace(e.name);
  return out;
}

}  // namespace

// System: the training-mode table. Inputs: every registered name, and as unknown names
// "hybrid" (a prefix of hybrid_parallel_sync), "persia", a registered name with a trailing
// space and "". Expected: the registry properties.
TEST_CASE("training modes: names unique, described and found by name, unknown ones refused with the known ones") {
  using namespace dlrmsim::models;
  check_registry(training_modes(), &training_mode, [](const TrainingModeInfo& m) { return m.build; },
                 {"hybrid", "persia", "hybrid_parallel_sync ", ""});
}

// System: models/modes/*.cpp, the implementations of the training modes, and the table in
// models/training_mode.cpp. Expected: every file is compiled (models/CMakeLists.txt) and
// defines at least one step builder (void build_*_steps(StepBuilder&, int), the signature of
// TrainingModeInfo::build); every such builder is named in the table; and the table holds
// as many distinct builders as the files define. Fails when a mode's file is added but not
// compiled, or its builder is not registered.
TEST_CASE("training modes: every implementation in models/modes/ is registered") {
  using namespace dlrmsim::models;
  const std::string builder = R"(\bvoid\s+(build_\w+_steps)\s*\(\s*StepBuilder\s*&\s*\w*\s*,\s*int\s*\w*\s*\)\s*\{)";
  std::set<std::string> defined;
  for (const fs::path& file : sources("models/modes", R"(.*\.cpp)")) {
    CAPTURE(file.string());
    CHECK(compiled("models", file));
    const std::set<std::string> in_file = captures(read_text(file), builder);
    CHECK(!in_file.empty());
    defined.insert(in_file.begin(), in_file.end());
  }
  const std::set<std::string> referenced =
      captures(read_text(fs::path(kRoot) / "models/training_mode.cpp"), R"(&\s*(build_\w+_steps)\b)");
  CHECK(joined(defined) == joined(referenced));
  std::set<void (*)(StepBuilder&, int)> builders;
  for (const auto& m : training_modes()) builders.insert(m.build);
  CHECK(builders.size() == defined.size());
}

// System: the placement-policy table. Inputs: every registered name, and as unknown names
// "cost_gredy" (a typo), "all" (a prefix), "Cost_Greedy" (names are case-sensitive) and "".
// Expected: the registry properties.
TEST_CASE("placement policies: names unique, described and found by name, unknown ones refused with the known ones") {
  using namespace dlrmsim::placement;
  check_registry(placement_policies(), &placement_policy, [](const PolicyInfo& p) { return p.plan; },
                 {"cost_gredy", "all", "Cost_Greedy", ""});
}

// System: placement/*.cpp. Expected: the policies the sources define (PlacementPlan plan_X(
// const PlacementProblem&, const PlacementOptions&, const StepTimeEvaluator&), the signature
// of PolicyInfo::plan) are exactly the registered ones, by name (policy X is plan_X), and a
// policy with a file of its own (placement/X_policy.cpp) is compiled and registered as X.
TEST_CASE("placement policies: every policy defined in placement/ is registered, and only those") {
  using namespace dlrmsim::placement;
  const std::string policy =
      R"(\bPlacementPlan\s+plan_(\w+)\s*\(\s*const\s+PlacementProblem\s*&[^;{]*const\s+StepTimeEvaluator\s*&[^;{)]*\)\s*\{)";
  CHECK(joined(defined_in("placement", policy)) == joined(registered_names(placement_policies())));
  for (const fs::path& file : sources("placement", R"(\w+_policy\.cpp)")) {
    CAPTURE(file.string());
    CHECK(compiled("placement", file));
    const std::string stem = file.stem().string();
    CHECK(registered_names(placement_policies()).count(stem.substr(0, stem.size() - std::string("_policy").size())) == 1);
  }
}

// System: the engine-backend table. Inputs: every registered name, and as unknown names
// "simgird" (a typo), "sim" (a prefix), "NATIVE" (names are case-sensitive) and "".
// Expected: the registry properties.
TEST_CASE("engine backends: names unique, described and found by name, unknown ones refused with the known ones") {
  using namespace dlrmsim::sim;
  check_registry(backends(), &backend, [](const BackendInfo& b) { return b.run; }, {"simgird", "sim", "NATIVE", ""});
}

// System: sim/*.cpp. Expected: the backends the sources define (SimResult simulate_X(const
// ActivityGraph&), the signature of BackendInfo::run) are exactly the registered ones, by
// name, and each file defining one is compiled (sim/CMakeLists.txt).
TEST_CASE("engine backends: every backend defined in sim/ is registered, and only those") {
  using namespace dlrmsim::sim;
  const std::string runner = R"(\bSimResult\s+simulate_(\w+)\s*\(\s*const\s+ActivityGraph\s*&\s*\w*\s*\)\s*\{)";
  CHECK(joined(defined_in("sim", runner)) == joined(registered_names(backends())));
}
