// Tests of the data search path (common/data_paths.hpp): which file a reference names.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "common/data_paths.hpp"
#include "paths.hpp"

using namespace dlrmsim;
namespace fs = std::filesystem;

namespace {

/// A fresh temporary directory, removed at the end of the test.
struct TempDir {
  fs::path dir;
  explicit TempDir(const std::string& name) : dir(fs::temp_directory_path() / ("dlrmsim_data_paths_" + name)) {
    fs::remove_all(dir);
    fs::create_directories(dir);
  }
  ~TempDir() { fs::remove_all(dir); }
  void file(const std::string& relative) const {
    fs::create_directories((dir / relative).parent_path());
    std::ofstream(dir / relative) << "x\n";
  }
};

}  // namespace

// System: DLRMSIM_DATA = "A::B" (an empty entry between), an installed and a source-tree
// candidate, of which only A, the installed one and the source tree exist.
// Expected: roots A, B, installed, source tree in that order, B marked missing, the empty
// entry dropped: the documented order, with nothing silently removed from the listing.
TEST_CASE("the search path is DLRMSIM_DATA's entries, then the installed tree, then the source tree") {
  TempDir t("order");
  fs::create_directories(t.dir / "a");
  fs::create_directories(t.dir / "installed");
  fs::create_directories(t.dir / "src");
  const std::string env = (t.dir / "a").string() + "::" + (t.dir / "b").string();
  const auto roots = data_search_path(env, t.dir / "installed", t.dir / "src");
  REQUIRE(roots.size() == 4);
  CHECK(roots[0].origin == "DLRMSIM_DATA");
  CHECK(roots[0].dir == t.dir / "a");
  CHECK(roots[0].exists);
  CHECK(roots[1].dir == t.dir / "b");
  CHECK_FALSE(roots[1].exists);
  CHECK(roots[2].origin == "installed");
  CHECK(roots[3].origin == "source tree");
  CHECK(roots[3].exists);
  // Unset DLRMSIM_DATA and no installed tree: the source tree alone.
  const auto alone = data_search_path(std::nullopt, {}, t.dir / "src");
  REQUIRE(alone.size() == 1);
  CHECK(alone[0].origin == "source tree");
}

// System: a scenario in S/scenarios referring to ../platforms/p.yaml; roots R1 (has
// platforms/p.yaml and platforms/q.yaml) and R2 (has platforms/q.yaml and platforms/r.yaml).
// Expected: p.yaml next to the scenario wins over R1 (the scenario's own reference first);
// q.yaml comes from R1 (first root wins), r.yaml from R2; "../platforms/none.yaml", found
// nowhere, comes back as written so that the error names what the file asked for; an
// absolute path is never searched for.
TEST_CASE("a reference is found next to its file first, then in the first root that has it") {
  TempDir t("resolve");
  t.file("s/platforms/p.yaml");
  fs::create_directories(t.dir / "s/scenarios");
  t.file("r1/platforms/p.yaml");
  t.file("r1/platforms/q.yaml");
  t.file("r2/platforms/q.yaml");
  t.file("r2/platforms/r.yaml");
  const std::vector<DataRoot> roots{{"DLRMSIM_DATA", t.dir / "r1", true}, {"installed", t.dir / "r2", true}};
  const std::string base = (t.dir / "s/scenarios").string();
  CHECK(resolve_data_path("../platforms/p.yaml", base, roots) == (t.dir / "s/platforms/p.yaml").string());
  CHECK(resolve_data_path("../platforms/q.yaml", base, roots) == (t.dir / "r1/platforms/q.yaml").string());
  CHECK(resolve_data_path("./../platforms/r.yaml", base, roots) == (t.dir / "r2/platforms/r.yaml").string());
  CHECK(resolve_data_path("../platforms/none.yaml", base, roots) == "../platforms/none.yaml");
  CHECK(resolve_data_path("/nonexistent/platforms/q.yaml", base, roots) == "/nonexistent/platforms/q.yaml");
  // A root marked missing is not searched, even when the file has appeared since.
  const std::vector<DataRoot> missing{{"DLRMSIM_DATA", t.dir / "r2", false}};
  CHECK(resolve_data_path("../platforms/r.yaml", base, missing) == "../platforms/r.yaml");
  // The calibration directory is a reference like any other.
  fs::create_directories(t.dir / "r2/calibration");
  CHECK(resolve_data_path("../calibration", base, roots) == (t.dir / "r2/calibration").string());
}

// System: this test program, built in the build tree (not in PREFIX/bin).
// Expected: no installed share directory is claimed, and the default search path ends with
// the source tree's configs/ folder, which exists (the tests run from the source tree).
TEST_CASE("a program in the build tree searches the source tree's configs") {
  CHECK(installed_data_dir().empty());
  const auto roots = data_search_path();
  REQUIRE_FALSE(roots.empty());
  CHECK(roots.back().origin == "source tree");
  CHECK(roots.back().dir == fs::path(dlrmsim::testing::kRoot) / "configs");
  CHECK(roots.back().exists);
}

// System: a scenario in S/scenarios referring to ../platforms/dgx-h10.yaml (misspelt); S has
// platforms/dgx-h100.yaml, the root R (installed) has platforms/other.yaml, a root marked
// missing is skipped. Expected: the message names the two folders searched, in search order
// (S/platforms, then R/platforms with its origin), not the missing root, and suggests
// 'dgx-h100.yaml', one edit away from the name asked for (the nearest existing name).
TEST_CASE("a file found nowhere is said so with the places searched and the nearest name") {
  TempDir t("not_found");
  t.file("s/platforms/dgx-h100.yaml");
  fs::create_directories(t.dir / "s/scenarios");
  t.file("r/platforms/other.yaml");
  const std::vector<DataRoot> roots{{"DLRMSIM_DATA", t.dir / "gone", false}, {"installed", t.dir / "r", true}};
  const std::string message = data_file_not_found("../platforms/dgx-h10.yaml", (t.dir / "s/scenarios").string(), roots);
  CHECK(message == "'../platforms/dgx-h10.yaml' is not in any of: " + (t.dir / "s/platforms").string() + ", " +
                       (t.dir / "r/platforms").string() + " (installed); did you mean 'dgx-h100.yaml'?");
  // Nothing close: no suggestion.
  const std::string far = data_file_not_found("../platforms/zzzzzzzzzzzz.yaml", (t.dir / "s/scenarios").string(), roots);
  CHECK(far.find("did you mean") == std::string::npos);
}
