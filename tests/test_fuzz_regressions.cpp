// Replays every input in tests/fuzz/regressions/<loader>/ through that loader: each once
// crashed a loader or let an unexpected exception escape, and must now be accepted or
// refused with a proper input error. The corpus itself is checked too: it must exist and
// hold reproducers, each in the folder of a loader, and every file of the directory listing
// is replayed. Also checks that every fuzzed loader handles the files it is seeded with
// (the shipped configuration files and tests/fuzz/seeds/) and that the fuzzing dictionary
// is one libFuzzer reads.
#include <doctest/doctest.h>

#include "regex.hpp"

#include <algorithm>
#include <filesystem>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "tests/fuzz/loaders.hpp"
#include "file_fixtures.hpp"
#include "paths.hpp"

namespace fs = std::filesystem;
using namespace dlrmsim::fuzz;
using dlrmsim::testing::read_text;
using dlrmsim::testing::ScratchDir;

namespace {

const fs::path kFuzz = fs::path(dlrmsim::testing::kRoot) / "tests/fuzz";

const Loader* find_loader(std::string_view name) {
  const auto it = std::find_if(loaders().begin(), loaders().end(), [&](const Loader& l) { return l.name == name; });
  return it == loaders().end() ? nullptr : &*it;
}

/// The reproducers of a corpus directory (ROOT/<loader>/<file>), sorted, and what makes the
/// corpus unfit to be replayed: a missing or empty ROOT, a folder that names no loader, a
/// file outside a loader's folder or nested below it, something that is not a regular file.
/// Each of those would otherwise be skipped silently, and a test that replays nothing passes.
struct Corpus {
  std::vector<std::pair<const Loader*, fs::path>> reproducers;
  std::vector<std::string> problems;
};

Corpus read_corpus(const fs::path& root) {
  Corpus c;
  if (!fs::is_directory(root)) {
    c.problems.push_back(root.string() + ": no such directory");
    return c;
  }
  for (const auto& entry : fs::recursive_directory_iterator(root)) {
    const fs::path relative = fs::relative(entry.path(), root);
    const auto depth = std::distance(relative.begin(), relative.end());
    const Loader* loader = find_loader(relative.begin()->string());
    if (depth == 1 && entry.is_directory()) {
      if (!loader) c.problems.push_back(entry.path().string() + ": a folder that names no fuzzed loader");
      continue;
    }
    if (depth != 2 || !loader) {
      c.problems.push_back(entry.path().string() + ": not directly in the folder of a fuzzed loader");
      continue;
    }
    if (!entry.is_regular_file()) {
      c.problems.push_back(entry.path().string() + ": not a regular file");
      continue;
    }
    c.reproducers.emplace_back(loader, entry.path());
  }
  if (c.reproducers.empty()) c.problems.push_back(root.string() + ": holds no reproducer");
  std::sort(c.reproducers.begin(), c.reproducers.end(),
            [](const auto& a, const auto& b) { return a.second < b.second; });
  return c;
}

/// Every entry below `root` that is not a directory, as the file system lists them.
std::size_t files_listed(const fs::path& root) {
  std::size_t n = 0;
  for (const auto& entry : fs::recursive_directory_iterator(root)) n += entry.is_directory() ? 0 : 1;
  return n;
}

}  // namespace

// System: the committed corpus, tests/fuzz/regressions/ (five reproducers when this was
// written: platform, profile and sweep crashes, and alias cycles, `a: &a [*a]`, in a scenario
// and a model). Expected: no problem with the corpus, every file of
// the directory listing replayed, and each handled as an input error. It fails when the
// corpus is missing or empty, when a file sits where no loader reads it, and when a
// reproducer makes its loader crash or throw anything but an input error.
TEST_CASE("every committed fuzz reproducer is replayed and handled as an input error") {
  const fs::path root = kFuzz / "regressions";
  const Corpus corpus = read_corpus(root);
  for (const std::string& problem : corpus.problems) FAIL_CHECK(problem);
  REQUIRE(fs::is_directory(root));
  const std::size_t listed = files_listed(root);
  std::size_t replayed = 0;
  for (const auto& [loader, path] : corpus.reproducers) {
    CAPTURE(path.string());
    CHECK(check_loader(*loader, read_text(path)).empty());
    ++replayed;
  }
  CHECK(replayed > 0);
  CHECK(replayed == listed);
  MESSAGE(replayed << " of the " << listed << " files in " << root.string() << " replayed");
}

// System: scratch corpora built here. Expected: a missing directory, an empty one, one whose
// loader folders are empty, a folder that names no loader, a file beside the loader folders
// and one nested below a loader's folder are each reported; a well-formed corpus of two
// reproducers is not, and lists both. Why: the replay above relies on these reports; were
// they silent, an emptied or misfiled corpus would pass with nothing replayed.
TEST_CASE("a missing, empty or misfiled corpus is reported, a well-formed one is read whole") {
  const ScratchDir scratch("dlrmsim_fuzz_corpus");
  const auto problems_of = [&](const std::string& name) {
    CAPTURE(name);
    const Corpus c = read_corpus(scratch.dir / name);
    CHECK(c.reproducers.empty());
    return c.problems;
  };
  CHECK(problems_of("missing") == std::vector<std::string>{(scratch.dir / "missing").string() + ": no such directory"});
  fs::create_directories(scratch.dir / "empty");
  CHECK(problems_of("empty") == std::vector<std::string>{(scratch.dir / "empty").string() + ": holds no reproducer"});
  fs::create_directories(scratch.dir / "empty_loaders/platform");
  fs::create_directories(scratch.dir / "empty_loaders/sweep");
  CHECK(problems_of("empty_loaders") ==
        std::vector<std::string>{(scratch.dir / "empty_loaders").string() + ": holds no reproducer"});
  scratch.write("unknown/platfrom/crash-1", "a: 1\n");
  CHECK(problems_of("unknown").size() == 3);  // the folder, its file, and nothing to replay
  scratch.write("loose/crash-1", "a: 1\n");
  CHECK(problems_of("loose").size() == 2);
  scratch.write("nested/model/deeper/crash-1", "a: 1\n");
  CHECK(problems_of("nested").size() == 3);  // the nested folder, its file, nothing to replay

  scratch.write("good/model/crash-1", "name: m\n");
  scratch.write("good/units/crash-2", "80 GiB");
  const Corpus good = read_corpus(scratch.dir / "good");
  CHECK(good.problems.empty());
  REQUIRE(good.reproducers.size() == 2);
  CHECK(good.reproducers[0].first->name == "model");
  CHECK(good.reproducers[1].first->name == "units");
  CHECK(files_listed(scratch.dir / "good") == 2);
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
      CHECK_NOTHROW(it->load(read_text(entry.path())));
      ++files;
    }
    CHECK(files > 0);
  }
}

// System: tests/fuzz/seeds/<loader>/, the seeds tools/fuzz adds to the shipped files: YAML
// written with anchors (&name) and aliases (*name), which no shipped file uses, so that the
// fuzzers start from inputs that reach the alias handling of common/config.cpp.
// Expected: a folder of seeds for every YAML loader, each folder naming a loader, and every
// seed accepted by its loader and holding at least one anchor and one alias.
TEST_CASE("every YAML loader has seeds with anchors and aliases, and accepts them") {
  const fs::path root = kFuzz / "seeds";
  REQUIRE(fs::is_directory(root));
  std::set<std::string> seeded;
  for (const auto& folder : fs::directory_iterator(root)) {
    CAPTURE(folder.path().string());
    REQUIRE(folder.is_directory());
    const Loader* loader = find_loader(folder.path().filename().string());
    REQUIRE(loader != nullptr);
    for (const auto& entry : fs::directory_iterator(folder.path())) {
      CAPTURE(entry.path().string());
      const std::string text = read_text(entry.path());
      CHECK_NOTHROW(loader->load(text));
      CHECK(std::regex_search(text, std::regex(R"(&[A-Za-z_]\w*\s)")));   // an anchor
      CHECK(std::regex_search(text, std::regex(R"(\*[A-Za-z_]\w*[\s,\]}])")));  // an alias
      seeded.emplace(loader->name);
    }
  }
  // The loaders that read YAML (units, sweep_resume and plot_csv read other text).
  CHECK(seeded == std::set<std::string>{"model", "platform", "profile", "scenario", "sweep"});
}

// System: tests/fuzz/yaml.dict, the dictionary tools/fuzz gives the YAML loaders' targets.
// Expected: every line blank, a comment or one entry of libFuzzer's format (an optional name,
// then a quoted string with \\, \" and \xHH escapes), and among the entries an anchor, an
// alias and a merge key. Why: libFuzzer refuses to start on a line it cannot parse, and
// tools/fuzz would then report no executions rather than fail.
TEST_CASE("the fuzzing dictionary is in libFuzzer's format and holds anchors, aliases and merge keys") {
  const std::string text = read_text(kFuzz / "yaml.dict");
  const std::regex entry(R"re(^(?:[A-Za-z0-9_]+=)?"((?:[^"\\]|\\[\\"]|\\x[0-9A-Fa-f]{2})+)"\s*$)re");
  std::vector<std::string> values;
  std::size_t line_number = 0;
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    ++line_number;
    if (line.empty() || line[0] == '#') continue;
    CAPTURE(line_number);
    CAPTURE(line);
    std::smatch m;
    REQUIRE(std::regex_match(line, m, entry));
    values.push_back(m[1]);
  }
  const auto holds = [&](const std::string& what) {
    return std::any_of(values.begin(), values.end(), [&](const std::string& v) { return v.find(what) != std::string::npos; });
  };
  CHECK(values.size() >= 10);
  CHECK(holds("&a"));
  CHECK(holds("*a"));
  CHECK(holds("<<:"));
}

TEST_CASE("the result-file loaders accept the sweep result they are seeded with") {
  // tests/data/sweep_nine_points.csv is the output of tests/data/sweep_nine_points.yaml: the
  // resume reader must keep it and plot must draw it, or their fuzzing starts from nothing.
  const std::string seed = read_text(fs::path(dlrmsim::testing::kRoot) / "tests/data/sweep_nine_points.csv");
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
