// Replays every input in tests/fuzz/regressions/<loader>/ through that loader: each once
// crashed a loader or let an unexpected exception escape, and must now be accepted or
// refused with a proper input error. Also checks that every fuzzed loader handles the
// shipped configuration files it is seeded with.
#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "tests/fuzz/loaders.hpp"
#include "paths.hpp"

namespace fs = std::filesystem;
using namespace dlrmsim::fuzz;

namespace {
std::string read(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}
}  // namespace

TEST_CASE("committed fuzz reproducers are handled as input errors") {
  const fs::path root = fs::path(dlrmsim::testing::kRoot) / "tests/fuzz/regressions";
  std::size_t replayed = 0;
  for (const Loader& loader : loaders()) {
    const fs::path dir = root / std::string(loader.name);
    if (!fs::is_directory(dir)) continue;
    for (const auto& entry : fs::directory_iterator(dir)) {
      CAPTURE(entry.path().string());
      CHECK(check_loader(loader, read(entry.path())).empty());
      ++replayed;
    }
  }
  MESSAGE(replayed << " reproducers replayed");
}

TEST_CASE("every fuzzed loader accepts the shipped files it is seeded with") {
  // The seeds of tools/fuzz: a loader that refused them would make the fuzzing pointless.
  const fs::path configs = fs::path(dlrmsim::testing::kRoot) / "configs";
  const std::vector<std::pair<std::string, std::string>> seeded{
      {"platform", "platforms"}, {"model", "models"}, {"scenario", "scenarios"}, {"profile", "calibration"}};
  for (const auto& [name, dir] : seeded) {
    const auto it = std::find_if(loaders().begin(), loaders().end(), [&](const Loader& l) { return l.name == name; });
    REQUIRE(it != loaders().end());
    std::size_t files = 0;
    for (const auto& entry : fs::directory_iterator(configs / dir)) {
      if (entry.path().extension() != ".yaml") continue;
      // CPU profiles and their raw measurements (cpu-*.yaml) are another format, loaded by
      // tests/test_cpu_calibration.cpp.
      if (dir == "calibration" && entry.path().filename().string().rfind("cpu-", 0) == 0) continue;
      CAPTURE(entry.path().string());
      CHECK_NOTHROW(it->load(read(entry.path())));
      ++files;
    }
    CHECK(files > 0);
  }
}

TEST_CASE("the result-file loaders accept the sweep result they are seeded with") {
  // tests/data/sweep_nine_points.csv is the output of tests/data/sweep_nine_points.yaml: the
  // resume reader must keep it and plot must draw it, or their fuzzing starts from nothing.
  const std::string seed = read(fs::path(dlrmsim::testing::kRoot) / "tests/data/sweep_nine_points.csv");
  REQUIRE(!seed.empty());
  for (const std::string_view name : {"sweep_resume", "plot_csv"}) {
    const auto it = std::find_if(loaders().begin(), loaders().end(), [&](const Loader& l) { return l.name == name; });
    REQUIRE(it != loaders().end());
    CAPTURE(name);
    CHECK_NOTHROW(it->load(seed));
  }
}

TEST_CASE("the loader table has no duplicate names") {
  std::vector<std::string_view> names;
  for (const Loader& l : loaders()) names.push_back(l.name);
  std::sort(names.begin(), names.end());
  CHECK(std::adjacent_find(names.begin(), names.end()) == names.end());
}
