// Sweeps: grid and zip expansion, range axes, deterministic CSV order, failures as rows,
// resume after an interruption (and what resume refuses to trust), and errors for
// malformed sweep files.
#include <doctest/doctest.h>

#include "approx.hpp"

#include <unistd.h>
#include <sys/wait.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#include "common/files.hpp"
#include "app/scenario_runner.hpp"
#include "app/sweep.hpp"
#include "file_fixtures.hpp"

using namespace dlrmsim;
using namespace dlrmsim::app;
namespace fs = std::filesystem;
using dlrmsim::testing::read_text;
using dlrmsim::testing::ScratchDir;

namespace {

const char* kBase = "platform:\n  nic: 100 Gbit/s\nmodel:\n  batch: 1024\n";

// A stand-in for the simulator: the "throughput" is nic (Gbit/s) x batch, and a batch of
// 3000 is refused; it exercises the sweep machinery, not the models.
PointOutcome fake_runner(const SweepPoint& point) {
  YAML::Node tree = YAML::Clone(point.scenario);
  for (const auto& o : point.overrides) apply_override(tree, o);
  const ConfigNode n(tree, "point");
  const double nic = n.child("platform").get<BytesPerSecond>("nic").value() / 1.25e8;
  const int batch = n.child("model").get<int>("batch");
  if (batch == 3000) throw std::invalid_argument("batch 3000 is refused");
  PointOutcome out;
  out.outputs["throughput_samples_per_s"] = std::to_string(static_cast<long long>(nic * batch));
  return out;
}
const std::vector<std::string> kOutputs{"throughput_samples_per_s"};

}  // namespace

TEST_CASE("grid expansion is the cartesian product with the last axis fastest") {
  // 2 NIC speeds x 3 batch sizes = 6 points: (100,1024) (100,2048) (100,3000) (400,1024) ...
  ScratchDir s;
  s.write("base.yaml", kBase);
  const std::string sweep_file = s.write("sweep.yaml",
      "base: base.yaml\naxes:\n  - key: platform.nic\n    values: [100 Gbit/s, 400 Gbit/s]\n"
      "  - key: model.batch\n    values: [1024, 2048, 3000]\n");
  const Sweep sweep = load_sweep(sweep_file);
  REQUIRE(sweep.size() == 6);
  CHECK(sweep.point(1).label == "platform.nic=100 Gbit/s;model.batch=2048");
  CHECK(sweep.point(3).label == "platform.nic=400 Gbit/s;model.batch=1024");
  CHECK(sweep.point(5).overrides == std::vector<std::string>{"platform.nic=400 Gbit/s", "model.batch=3000"});
}

TEST_CASE("zip expansion pairs values and range axes generate numbers with units") {
  // range 100..400 step 100 with unit Gbit/s -> 4 values, zipped with 4 batch values.
  ScratchDir s;
  s.write("base.yaml", kBase);
  const std::string sweep_file = s.write("sweep.yaml",
      "base: base.yaml\ncombine: zip\naxes:\n  - key: platform.nic\n    range: {from: 100, to: 400, step: 100, unit: Gbit/s}\n"
      "  - key: model.batch\n    values: [1, 2, 3, 4]\n");
  const Sweep sweep = load_sweep(sweep_file);
  REQUIRE(sweep.size() == 4);
  CHECK(sweep.point(2).inputs[0].second == "300 Gbit/s");
  CHECK(sweep.point(2).inputs[1].second == "3");
}

TEST_CASE("a failing point becomes a row and the others still run; -j gives the same file as -j 1") {
  ScratchDir s;
  s.write("base.yaml", kBase);
  const std::string sweep_file = s.write("sweep.yaml",
      "base: base.yaml\naxes:\n  - key: platform.nic\n    values: [100 Gbit/s, 400 Gbit/s]\n"
      "  - key: model.batch\n    values: [1024, 3000, 2048]\n");
  const Sweep sweep = load_sweep(sweep_file);
  SweepOptions one{(s.dir / "one.csv").string(), 1, false, {}, {}};
  SweepOptions four{(s.dir / "four.csv").string(), 4, false, {}, {}};
  CHECK(run_sweep(sweep, fake_runner, kOutputs, one) == 2);
  CHECK(run_sweep(sweep, fake_runner, kOutputs, four) == 2);
  const std::string csv = read_text(one.output_path);
  CHECK(csv == read_text(four.output_path));
  CHECK(csv.find("point,label,platform.nic,model.batch,status,error,throughput_samples_per_s,fingerprint\n") == 0);
  CHECK(csv.find("\n1,platform.nic=100 Gbit/s;model.batch=3000,100 Gbit/s,3000,error,batch 3000 is refused,," +
                 sweep.fingerprint(1) + "\n") != std::string::npos);
  CHECK(csv.find("\n5,platform.nic=400 Gbit/s;model.batch=2048,400 Gbit/s,2048,ok,,819200," + sweep.fingerprint(5) +
                 "\n") != std::string::npos);
}

TEST_CASE("resume after a sweep killed half way gives the same CSV as an uninterrupted one") {
  // The child process ends abruptly (_Exit) after 5 of 12 rows, as a kill would; a torn
  // last line is appended too. --resume then runs only the 7 missing points.
  ScratchDir s;
  s.write("base.yaml", kBase);
  const std::string sweep_file = s.write("sweep.yaml",
      "base: base.yaml\naxes:\n  - key: platform.nic\n    values: [100 Gbit/s, 200 Gbit/s, 400 Gbit/s]\n"
      "  - key: model.batch\n    range: {from: 1000, to: 4000, step: 1000}\n");
  const Sweep sweep = load_sweep(sweep_file);
  REQUIRE(sweep.size() == 12);
  const std::string full = (s.dir / "full.csv").string();
  run_sweep(sweep, fake_runner, kOutputs, SweepOptions{full, 1, false, {}, {}});

  const std::string resumed = (s.dir / "resumed.csv").string();
  const pid_t pid = fork();
  if (pid == 0) {
    run_sweep(sweep, fake_runner, kOutputs, SweepOptions{resumed, 2, false, {}, 5});
    std::_Exit(0);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  REQUIRE(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 99);
  std::ofstream(resumed, std::ios::app) << "11,torn li";
  std::size_t ran = 0;
  auto counting = [&](const SweepPoint& p) {
    ++ran;
    return fake_runner(p);
  };
  run_sweep(sweep, counting, kOutputs, SweepOptions{resumed, 1, true, {}, {}});
  CHECK(ran == 7);
  CHECK(read_text(resumed) == read_text(full));
}

TEST_CASE("linked keys vary together inside a grid") {
  // 2 NIC speeds x 2 linked (batch, nic-name) pairs = 4 points; batch and name always match.
  ScratchDir s;
  s.write("base.yaml", kBase);
  const Sweep sweep = load_sweep(s.write("sweep.yaml",
      "base: base.yaml\naxes:\n  - key: platform.nic\n    values: [100 Gbit/s, 400 Gbit/s]\n"
      "  - keys: [model.batch, model.name]\n    values: [[1024, small], [4096, large]]\n"));
  REQUIRE(sweep.size() == 4);
  CHECK(sweep.point(1).label == "platform.nic=100 Gbit/s;model.batch=4096;model.name=large");
  CHECK(sweep.point(2).label == "platform.nic=400 Gbit/s;model.batch=1024;model.name=small");
  CHECK(sweep.input_keys() == std::vector<std::string>{"platform.nic", "model.batch", "model.name"});
}

TEST_CASE("a list of scenario files is a sweep too") {
  ScratchDir s;
  s.write("a.yaml", kBase);
  s.write("b.yaml", "platform:\n  nic: 200 Gbit/s\nmodel:\n  batch: 10\n");
  const Sweep sweep = load_sweep(s.write("sweep.yaml", "points: [a.yaml, b.yaml]\n"));
  REQUIRE(sweep.size() == 2);
  CHECK(sweep.point(1).label == "b.yaml");
  CHECK(sweep.input_keys() == std::vector<std::string>{"scenario"});
}

TEST_CASE("malformed sweeps are located errors") {
  ScratchDir s;
  s.write("base.yaml", kBase);
  const std::string empty_axis = s.write("e.yaml", "base: base.yaml\naxes:\n  - key: model.batch\n    values: []\n");
  CHECK_THROWS_WITH_AS(load_sweep(empty_axis), doctest::Contains("e.yaml:4:13: axes.0.values: the axis has no values"),
                       ConfigError);
  const std::string zip = s.write("z.yaml", "base: base.yaml\ncombine: zip\naxes:\n  - key: a\n    values: [1, 2]\n"
                                            "  - key: b\n    values: [1]\n");
  CHECK_THROWS_WITH_AS(load_sweep(zip), doctest::Contains("zip needs axes of equal length"), ConfigError);
  const std::string huge = s.write("h.yaml", "base: base.yaml\naxes:\n  - key: a\n    range: {from: 1, to: 1e9, step: 0.5}\n");
  CHECK_THROWS_WITH_AS(load_sweep(huge), doctest::Contains("the limit is 1000000"), ConfigError);
  // 1000^3 = 10^9 points: refused before anything is expanded.
  const std::string grid = s.write("g.yaml", "base: base.yaml\naxes:\n"
                                             "  - {key: a, range: {from: 1, to: 1000, step: 1}}\n"
                                             "  - {key: b, range: {from: 1, to: 1000, step: 1}}\n"
                                             "  - {key: c, range: {from: 1, to: 1000, step: 1}}\n");
  CHECK_THROWS_WITH_AS(load_sweep(grid), doctest::Contains("more than 100000000 points (the limit)"), ConfigError);
  const std::string typo = s.write("t.yaml", "base: base.yaml\naxis:\n  - key: a\n    values: [1]\n");
  CHECK_THROWS_WITH_AS(load_sweep(typo), doctest::Contains("missing required key 'axes'"), ConfigError);
  const std::string typo2 = s.write("t2.yaml", "base: base.yaml\naxes:\n  - key: a\n    valus: [1]\n");
  CHECK_THROWS_WITH_AS(load_sweep(typo2), doctest::Contains("exactly one of 'values'"), ConfigError);
}

TEST_CASE("CSV quoting round-trips") {
  const std::string line = csv_field("a,b") + "," + csv_field("say \"hi\"") + "," + csv_field("plain");
  CHECK(line == "\"a,b\",\"say \"\"hi\"\"\",plain");
  CHECK(csv_split(line) == std::vector<std::string>{"a,b", "say \"hi\"", "plain"});
}

namespace {
// A finished 2 x 3 sweep (6 points, point 1 and 4 fail with batch 3000) and its CSV text.
struct Finished {
  ScratchDir s;
  std::string csv;
  std::string sweep_file;
  std::string full;
  Finished() {
    s.write("base.yaml", kBase);
    sweep_file = s.write("sweep.yaml",
        "base: base.yaml\naxes:\n  - key: platform.nic\n    values: [100 Gbit/s, 400 Gbit/s]\n"
        "  - key: model.batch\n    values: [1024, 3000, 2048]\n");
    full = (s.dir / "full.csv").string();
    run_sweep(load_sweep(sweep_file), fake_runner, kOutputs, SweepOptions{full, 1, false, {}, {}});
    csv = read_text(full);
  }
  std::string fingerprint(std::size_t index) const { return load_sweep(sweep_file).fingerprint(index); }
  // Resumes `text` as the result file; returns the points run and the stderr text.
  std::pair<std::vector<std::size_t>, std::string> resume(const std::string& text) const {
    const std::string path = s.write("resumed.csv", text);
    std::vector<std::size_t> ran;
    auto recording = [&](const SweepPoint& p) {
      ran.push_back(p.index);
      return fake_runner(p);
    };
    std::ostringstream err;
    struct Restore {  // stderr back to its buffer even when run_sweep throws
      std::streambuf* old;
      ~Restore() { std::cerr.rdbuf(old); }
    } restore{std::cerr.rdbuf(err.rdbuf())};
    run_sweep(load_sweep(sweep_file), recording, kOutputs, SweepOptions{path, 1, true, {}, {}});
    return {ran, err.str()};
  }
};

std::string replace_line(const std::string& text, std::size_t line_number, const std::string& line) {
  std::istringstream in(text);
  std::string out, l;
  for (std::size_t n = 1; std::getline(in, l); ++n) out += (n == line_number ? line : l) + "\n";
  return out;
}
}  // namespace

TEST_CASE("resume reruns a row whose axis values are not those of its point") {
  // Line 5 is point 3 (400 Gbit/s, 1024 -> 409600). Its nic is edited to 200 Gbit/s, as if
  // the sweep file had been changed since: the row is dropped, point 3 alone is rerun, the
  // file ends identical to a fresh run, and stderr names the line and the column.
  Finished f;
  const std::string edited =
      replace_line(f.csv, 5, "3,platform.nic=400 Gbit/s;model.batch=1024,200 Gbit/s,1024,ok,,409600," + f.fingerprint(3));
  REQUIRE(edited != f.csv);
  const auto [ran, err] = f.resume(edited);
  CHECK(ran == std::vector<std::size_t>{3});
  CHECK(read_text((f.s.dir / "resumed.csv").string()) == f.csv);
  CHECK(err == "1 row of " + (f.s.dir / "resumed.csv").string() + " does not match this sweep and is rerun: first at "
               "line 5: column 'platform.nic' of point 3 is '200 Gbit/s'; this sweep has '400 Gbit/s'\n");
}

// System: the finished 6-point sweep whose base scenario names a software file; the file is
// edited after the run, then the sweep resumed twice. Expected: the first resume reruns all 6
// points (every row's fingerprint covers the content of every file the sweep reads, and
// a row computed from the old file would otherwise be kept) and names the fingerprint; the
// file then equals a fresh run's; the second resume reruns nothing.
TEST_CASE("resume reruns the rows computed from a file that changed since (their fingerprint differs)") {
  Finished f;
  f.s.write("software.yaml", "name: before\n");
  f.s.write("base.yaml", std::string(kBase) + "software: software.yaml\n");
  run_sweep(load_sweep(f.sweep_file), fake_runner, kOutputs, SweepOptions{f.full, 1, false, {}, {}});
  const std::string before = read_text(f.full);
  f.s.write("software.yaml", "name: after\n");
  const auto [ran, err] = f.resume(before);
  CHECK(ran == std::vector<std::size_t>{0, 1, 2, 3, 4, 5});
  CHECK(err.find("6 rows of") != std::string::npos);
  CHECK(err.find("first at line 2: the fingerprint of point 0 is") != std::string::npos);
  const std::string resumed = read_text(f.s.dir / "resumed.csv");
  run_sweep(load_sweep(f.sweep_file), fake_runner, kOutputs, SweepOptions{f.full, 1, false, {}, {}});
  CHECK(resumed == read_text(f.full));
  CHECK(resumed != before);
  const auto [again, quiet] = f.resume(resumed);
  CHECK(again.empty());
  CHECK(quiet.empty());
}

// System: a sweep of 8,000 points and a result file of 300 MiB (sparse: zero bytes), above the
// 256 MiB limit of other inputs. Expected: the limit for the sweep's own result file is
// 64 KiB a point (500 MiB here), so the file is read and refused for its header, not for its
// size (a sweep whose CSV outgrew 256 MiB ran every point, then failed to read its own file
// back, blaming it as bad input); a one-point sweep's limit is the input limit.
TEST_CASE("a sweep reads its own result file within a bound derived from the sweep, not the input limit") {
  ScratchDir s;
  s.write("base.yaml", kBase);
  const std::string sweep_file =
      s.write("sweep.yaml", "base: base.yaml\naxes:\n  - key: model.batch\n    range: {from: 1, to: 8000, step: 1}\n");
  const Sweep sweep = load_sweep(sweep_file);
  REQUIRE(sweep.size() == 8000);
  CHECK(result_file_limit(sweep) == 8001 * (std::uintmax_t{64} << 10));
  const fs::path big = s.dir / "big.csv";
  { std::ofstream(big) << "x\n"; }
  fs::resize_file(big, std::uintmax_t{300} << 20);
  CHECK_THROWS_WITH_AS(read_result_rows(big.string(), sweep, kOutputs), doctest::Contains("other columns than this sweep"),
                       ConfigError);
  const std::string one = s.write("one.yaml", "base: base.yaml\naxes:\n  - key: model.batch\n    values: [1]\n");
  CHECK(result_file_limit(load_sweep(one)) == kMaxInputBytes);
}

TEST_CASE("resume reruns a truncated row in the middle of the file") {
  // Line 3 (point 1) is cut after its status: 6 of the 7 fields. It is complete as a line
  // (it ends in a newline), so only the field count reveals it; point 1 is rerun.
  Finished f;
  const auto [ran, err] = f.resume(replace_line(f.csv, 3, "1,platform.nic=100 Gbit/s;model.batch=3000,100 Gbit/s,3000,error"));
  CHECK(ran == std::vector<std::size_t>{1});
  CHECK(read_text((f.s.dir / "resumed.csv").string()) == f.csv);
  CHECK(err.find("first at line 3: it has 5 fields; the header has 8") != std::string::npos);
}

TEST_CASE("resume drops rows numbered beyond the sweep, including numbers too large for 64 bits") {
  // The sweep has 6 points (0-5). Rows claiming points 6 and 10^23 are dropped (the second
  // once ended the program with std::stoull's "out of range"); nothing needs to rerun.
  Finished f;
  const auto [ran, err] =
      f.resume(f.csv + "6,platform.nic=400 Gbit/s;model.batch=9,400 Gbit/s,9,ok,,1,x\n100000000000000000000000,a,b,c,ok,,1,x\n");
  CHECK(ran.empty());
  CHECK(read_text((f.s.dir / "resumed.csv").string()) == f.csv);
  CHECK(err.find("2 rows of") != std::string::npos);
  CHECK(err.find("first at line 8: point 6 is not a point of this sweep (it has 6 points)") != std::string::npos);
}

TEST_CASE("resume drops rows with malformed CSV quoting and unknown statuses") {
  // Line 2 (point 0) gets an unterminated quoted label; line 4 (point 2) a status "done".
  // Both are rerun; a quoted field with a doubled quote inside stays valid CSV.
  Finished f;
  std::string text = replace_line(f.csv, 2, "0,\"platform.nic=100 Gbit/s;model.batch=1024,100 Gbit/s,1024,ok,,102400");
  text = replace_line(text, 4, "2,platform.nic=100 Gbit/s;model.batch=2048,100 Gbit/s,2048,done,,204800," + f.fingerprint(2));
  const auto [ran, err] = f.resume(text);
  CHECK(ran == std::vector<std::size_t>{0, 2});
  CHECK(read_text((f.s.dir / "resumed.csv").string()) == f.csv);
  CHECK(err.find("first at line 2: the CSV quoting is malformed") != std::string::npos);
  CHECK(csv_split_strict("a,\"b \"\"c\"\"\",d") == std::vector<std::string>{"a", "b \"c\"", "d"});
  CHECK_FALSE(csv_split_strict("a,b\"c").has_value());
  CHECK_FALSE(csv_split_strict("a,\"b\"c").has_value());
}

TEST_CASE("resume refuses a result file that is not a regular file, and a file of other columns") {
  // A directory (once "internal error") and /dev/zero (unbounded) are refused by
  // read_input_file's rules; a header of other axes means no row can belong to this sweep.
  Finished f;
  const Sweep sweep = load_sweep(f.sweep_file);
  CHECK_THROWS_WITH_AS(read_result_rows("/dev/zero", sweep, kOutputs), doctest::Contains("/dev/zero: a device"), ConfigError);
  CHECK_THROWS_WITH_AS(read_result_rows(f.s.dir.string(), sweep, kOutputs), doctest::Contains("a directory"), ConfigError);
  CHECK_THROWS_AS(run_sweep(sweep, fake_runner, kOutputs, SweepOptions{f.s.dir.string(), 1, true, {}, {}}), OutputError);
  CHECK_THROWS_WITH_AS(f.resume("point,label,x,status,error\n"), doctest::Contains("other columns than this sweep"),
                       ConfigError);
}

TEST_CASE("the summary of a sweep counts statuses and names the first failure") {
  // The 6-point sweep: 4 ok, points 1 and 4 refused (batch 3000): 2 errors, first point 1.
  Finished f;
  SweepSummary summary;
  run_sweep(load_sweep(f.sweep_file), fake_runner, kOutputs, SweepOptions{f.full, 1, false, {}, {}}, &summary);
  CHECK(summary.rows == 6);
  CHECK(summary.ok == 4);
  CHECK(summary.errors == 2);
  CHECK(summary.infeasible == 0);
  CHECK(summary.first_failed_point == 1);
  CHECK(summary.first_failure == "batch 3000 is refused");
}

TEST_CASE("one key on two axes, and a base that is the sweep file, are located errors") {
  // model.batch is on axis 0 (line 3, column 10) and, linked, on axis 1 (line 5): the
  // message is located at the second and names the first.
  ScratchDir s;
  s.write("base.yaml", kBase);
  const std::string dup = s.write("d.yaml", "base: base.yaml\naxes:\n  - key: model.batch\n    values: [1, 2]\n"
                                            "  - keys: [platform.nic, model.batch]\n    values: [[1 Gbit/s, 3]]\n");
  CHECK_THROWS_WITH_AS(load_sweep(dup),
                       doctest::Contains(("d.yaml:5:26: axes.1.keys.1: the key 'model.batch' is already varied by the "
                                          "axis at " + s.dir.string() + "/d.yaml:3:10 (axes.0.key)").c_str()),
                       ConfigError);
  const std::string self = s.write("self.yaml", "base: self.yaml\naxes:\n  - key: a\n    values: [1]\n");
  CHECK_THROWS_WITH_AS(load_sweep(self), doctest::Contains("self.yaml:1:7: base: the base scenario"), ConfigError);
}

TEST_CASE("a sweep names the files it reads, so that -o cannot overwrite them") {
  // The sweep file, its base scenario and the platform and model files the base names.
  ScratchDir s;
  s.write("base.yaml", "platform: p.yaml\nmodel: m.yaml\n");
  const std::string file = s.write("sweep.yaml", "base: base.yaml\naxes:\n  - key: a\n    values: [1]\n");
  const Sweep sweep = load_sweep(file);
  std::vector<std::string> names;
  for (const auto& f : sweep.input_files()) names.push_back(fs::path(f).filename().string());
  std::sort(names.begin(), names.end());
  CHECK(names == std::vector<std::string>{"base.yaml", "m.yaml", "p.yaml", "sweep.yaml"});
}

TEST_CASE("goodput and straggler columns appear when the sweep's scenarios have those sections") {
  // System: sweeps over the shipped scenarios: DLRM-DCNv2 on 512 GPUs with a goodput section
  // (configs/scenarios/goodput_dcnv2_512gpu.yaml), and DCNv2 on one DGX H200 with an axis
  // that slows the node by 1 and 2 (stragglers.slowdown.dgx-h200), one without either.
  // Expected: the goodput columns only in the first sweep's header, the straggler columns only
  // in the second's, none in the third's (the plain columns are unchanged); a point's goodput
  // columns are the run report's goodput figures, and its straggler p50 is its step time
  // (fixed factors: every measured step alike), more than 1.5x longer at slowdown 2 than at 1
  // (most of DCNv2's step on one DGX H200 is the node's kernels, which take twice as long;
  // the host-device copies and NVLink transfers are not slowed: measured 1.88x).
  ScratchDir s;
  const std::string scenarios = std::string(DLRMSIM_SOURCE_DIR) + "/configs/scenarios/";
  const Sweep goodput = load_sweep(s.write("g.yaml", "base: " + scenarios + "goodput_dcnv2_512gpu.yaml\naxes:\n"
                                                    "  - key: run.steps\n    values: [1]\n"));
  const Sweep slowed = load_sweep(s.write("s.yaml", "base: " + scenarios + "dcnv2_dgx_h200.yaml\naxes:\n"
                                                   "  - key: stragglers.slowdown.dgx-h200\n    values: [1, 2]\n"));
  const Sweep plain = load_sweep(s.write("p.yaml", "base: " + scenarios + "dcnv2_dgx_h200.yaml\naxes:\n"
                                                  "  - key: run.steps\n    values: [1]\n"));
  auto has = [](const std::vector<std::string>& cols, const std::string& c) {
    return std::find(cols.begin(), cols.end(), c) != cols.end();
  };
  const auto g_cols = scenario_output_columns(goodput);
  const auto s_cols = scenario_output_columns(slowed);
  CHECK(has(g_cols, "goodput.samples_per_s"));
  CHECK_FALSE(has(g_cols, "stragglers.p99_step_s"));
  CHECK(has(s_cols, "stragglers.p99_step_s"));
  CHECK_FALSE(has(s_cols, "goodput.samples_per_s"));
  CHECK(scenario_output_columns(plain) == scenario_output_columns());

  const PointOutcome g = run_scenario_point(goodput.point(0));
  REQUIRE(g.status == "ok");
  const double goodput_rate = std::stod(g.outputs.at("goodput.samples_per_s"));
  const double throughput = std::stod(g.outputs.at("throughput_samples_per_s"));
  CHECK(goodput_rate > 0.0);
  CHECK(goodput_rate < throughput);  // failures cost something
  CHECK(std::stod(g.outputs.at("goodput.fraction")) == dlrmsim::rel(goodput_rate / throughput).epsilon(1e-5));
  const PointOutcome one = run_scenario_point(slowed.point(0));
  const PointOutcome two = run_scenario_point(slowed.point(1));
  const double p50_one = std::stod(one.outputs.at("stragglers.p50_step_s"));
  CHECK(p50_one == dlrmsim::rel(std::stod(one.outputs.at("step_time_s"))).epsilon(1e-5));
  CHECK(std::stod(two.outputs.at("stragglers.p50_step_s")) > 1.5 * p50_one);
  CHECK(one.outputs.at("stragglers.waited_steps") == "0");
  CHECK(two.outputs.at("stragglers.most_waited_for") == "dgx-h200");
}
