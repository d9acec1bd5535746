// Sweeps: many what-if points from one base scenario.
//
// A sweep file is
//   base: ../scenarios/default.yaml   # a scenario file (relative to the sweep file) or an inline mapping
//   combine: grid                     # grid (cartesian product, first axis slowest) or zip
//   axes:
//     - key: platform.nic_bandwidth   # a key path, as for --set
//       values: ["100 Gbit/s", "400 Gbit/s"]
//     - key: model.global_batch_size
//       range: {from: 1024, to: 8192, step: 1024}      # numbers; `unit: "Gbit/s"` appends a unit
//     - keys: [training.mode, placement.tiers]         # linked keys vary together:
//       values: [[hybrid_parallel_sync, [gpu_hbm]], [parameter_server, [remote_ps]]]
// or, instead of base/axes, a list of scenario files or a directory of them:
//   points: [a.yaml, b.yaml]          # or   points_dir: ../scenarios
//
// Points are numbered in expansion order; the result file has one row per point, sorted by
// that number, so the output does not depend on -j or on how often the sweep was resumed.
// Rows are appended and flushed as soon as a point finishes (an interrupted sweep loses no
// finished row); the file is rewritten in order at the end. `resume` keeps the rows already
// in the file and runs only the missing points. A point that fails becomes a row with its
// error and the sweep goes on.
//
// Resume trusts nothing it finds: each row kept must be the row this sweep would write for
// the point it claims to be - a point number within the sweep, as many fields as the header,
// well-formed CSV quoting, a known status, and the label and axis values of that point. A
// row that fails (the sweep file was edited since, the file was damaged) is not kept: its
// point is run again, and stderr says how many rows were dropped, where the first is and
// why. Rerunning rather than refusing was chosen because the rows are results this program
// can always recompute, and refusing would leave the user to edit a CSV file by hand; a
// file whose header differs (other axes or outputs) is refused, since then no row can match.
//
// The result file must be a regular file (it is appended to and read back); it is read
// through common/files.hpp read_input_file within result_file_limit(sweep): the file is the
// program's own, so its bound is derived from the sweep (64 KiB a point), not the 256 MiB
// of other inputs (about 400,000 rows of a scenario sweep).
#pragma once

#include <yaml-cpp/yaml.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "common/config.hpp"

namespace dlrmsim::topo {
class DeviceProfileFiles;
}

namespace dlrmsim::app {

/// One point: a scenario and the overrides (as --set) that make it differ from the base.
/// The overrides are applied by the scenario loader, so a key path may reach into the
/// platform or model file that the scenario references (platform.node_templates...).
struct SweepPoint {
  std::size_t index = 0;
  std::string label;  // "key=value;key=value" or the scenario file name
  std::vector<std::pair<std::string, std::string>> inputs;  // varied key -> value text
  std::string fingerprint;  // Sweep::fingerprint(index): what the row was computed from
  YAML::Node scenario;
  std::string scenario_source;  // file name for error messages and relative paths
  std::vector<std::string> overrides;  // "key.path=value"
  /// The running worker's parsed device-profile files, kept across its points (run_points
  /// sets it; a runner passes it to models::RunOptions::profile_files); null outside a sweep.
  topo::DeviceProfileFiles* profile_files = nullptr;
};

struct SweepAxis {
  std::string key;
  std::vector<std::string> values;
  std::size_t group = 0;  // axes of one group (a linked `keys:` axis) vary together
  std::string location;   // where the key is written: "FILE:LINE:COL: axes.N.key"
};

/// What identifies a point in its result row: its label and its input values.
struct PointInputs {
  std::string label;
  std::vector<std::pair<std::string, std::string>> inputs;
};

/// An expanded sweep. Points are materialised one at a time (point(i)), so a sweep of
/// millions of points costs memory for its axes only.
class Sweep {
 public:
  [[nodiscard]] std::size_t size() const { return size_; }
  [[nodiscard]] SweepPoint point(std::size_t index) const;
  /// The label and inputs of point(index), without building its scenario (cheap).
  [[nodiscard]] PointInputs point_inputs(std::size_t index) const;
  /// The files this sweep reads that are known without loading a point: the sweep file, the
  /// base scenario and the platform and model files it names, or the listed scenarios.
  [[nodiscard]] const std::vector<std::string>& input_files() const { return input_files_; }
  /// What point `index`'s row is computed from, as 16 hexadecimal digits: a hash of the
  /// program version, the sweep file, the base scenario, the content of every file in
  /// input_files() (and the scenario files of a list), and the point's label. Each row carries
  /// it (column `fingerprint`); `--resume` reruns a row whose fingerprint differs, so a row
  /// computed before an input file changed is not kept.
  [[nodiscard]] std::string fingerprint(std::size_t index) const;
  /// The axes' key paths, or {"scenario"} for a list of scenario files.
  [[nodiscard]] const std::vector<std::string>& input_keys() const { return input_keys_; }
  /// Whether some point may have the scenario section `key` (e.g. "goodput"): the base
  /// scenario (or a listed scenario file) has it at the top level, or an axis sets a key in it.
  [[nodiscard]] bool uses_section(const std::string& key) const;

 private:
  friend Sweep read_sweep(const ConfigNode& root, const std::string& path, const std::optional<std::string>& inline_text);
  std::vector<std::string> input_keys_;
  std::vector<SweepAxis> axes_;
  bool zip_ = false;
  std::string base_text_;  // the base scenario, as YAML text
  std::string base_source_;
  std::vector<std::string> files_;  // a list of scenario files instead of axes
  std::vector<std::string> input_files_;
  std::uint64_t digest_ = 0;  // of everything but the point (fingerprint)
  std::size_t size_ = 0;
  [[nodiscard]] std::vector<std::size_t> picks(std::size_t index) const;
};

/// Refuses sweeps larger than this many points: 10^8 points at the fastest measured rate
/// (~200 points/s per core) is already about a week of two cores.
inline constexpr std::size_t kMaxSweepPoints = 100'000'000;
/// Refuses an axis with more values than this (they are held in memory).
inline constexpr std::size_t kMaxAxisValues = 1'000'000;

/// The most threads a sweep runs at once (-j): far above any machine's useful count, low
/// enough that a mistyped -j cannot exhaust the process's threads.
inline constexpr unsigned kMaxSweepThreads = 1024;

/// Reads and expands a sweep file. Errors (empty axis, zip of unequal lengths, bad range,
/// too many points, one key varied by two axes, a base that is the sweep file itself) are
/// ConfigErrors naming the file, line and key. With a `log`, the sweep file's key paths read
/// are recorded there (the scenarios of its points are read when a point runs).
Sweep load_sweep(const std::string& path, const std::shared_ptr<KeyLog>& log = nullptr);
/// The same from YAML (or JSON) text, as the Python module passes a sweep given as a dict:
/// `source_name` names it in messages; relative file names in it are found from the working
/// directory, then in the data search path.
Sweep load_sweep_text(const std::string& text, const std::string& source_name);
/// The sweep read from its parsed root (`inline_text` when it was given as text, not a file).
Sweep read_sweep(const ConfigNode& root, const std::string& path, const std::optional<std::string>& inline_text);

/// The outcome of one point: status "ok", "infeasible" or "error", and named output values.
struct PointOutcome {
  std::string status = "ok";
  std::string error;
  std::map<std::string, std::string> outputs;
};

/// Evaluates one point.
using PointRunner = std::function<PointOutcome(const SweepPoint& point)>;

struct SweepOptions {
  std::string output_path;
  unsigned threads = 1;
  bool resume = false;
  /// Called after each row this run appends (done, total: rows appended so far and rows
  /// this run appends), one call at a time, for a progress line; none: nothing is reported.
  std::function<void(std::size_t done, std::size_t total)> on_point;
  /// For tests of interruption: end the process abruptly after this many new rows.
  std::optional<std::size_t> stop_after;
};

/// The CSV columns: point, label, the input keys, status, error, then `output_columns`.
std::vector<std::string> sweep_columns(const Sweep& sweep, const std::vector<std::string>& output_columns);
std::string sweep_header(const Sweep& sweep, const std::vector<std::string>& output_columns);
/// One CSV line (no newline) for a finished point.
std::string sweep_row(const SweepPoint& point, const PointOutcome& outcome, const std::vector<std::string>& output_columns);

/// One point's CSV line (no newline) and whether its status is "ok".
struct PointRow {
  std::string line;
  bool ok = false;
};
/// Runs point `index` of `sweep` with `runner` (`profile_files`: SweepPoint::profile_files):
/// a point that cannot be expanded or whose runner throws is a row with status "error" and
/// the exception's message, as in the result file.
PointRow run_point_row(const Sweep& sweep, std::size_t index, const PointRunner& runner,
                       const std::vector<std::string>& output_columns, topo::DeviceProfileFiles* profile_files = nullptr);

/// The rows of a result file that belong to a sweep, by point index, and the lines that
/// were dropped (see the top of this file).
struct ResultRows {
  std::map<std::size_t, std::string> rows;  // point index -> CSV line without its newline
  std::size_t rejected = 0;                  // complete lines that are not a row of this sweep
  std::size_t first_rejected_line = 0;       // 1-based line number of the first of them
  std::string first_reason;
};

/// Reads the result file `path` (an absent file has no rows) and checks every line against
/// `sweep`. A torn last line (no newline: the process died while writing it) is dropped
/// silently; a duplicate of a kept point is ignored. A ConfigError when the file is not a
/// regular file of at most result_file_limit(sweep) bytes or its header is not `sweep_header(...)`.
ResultRows read_result_rows(const std::string& path, const Sweep& sweep, const std::vector<std::string>& output_columns);

/// The most bytes a result file of `sweep` is read up to: 64 KiB per point (a scenario
/// sweep's row takes about 700 bytes), and never less than kMaxInputBytes.
std::uintmax_t result_file_limit(const Sweep& sweep);

/// "N rows of PATH do not match this sweep and are rerun: first at line L: REASON" ("are
/// dropped" when `rerun` is false), or "" when no row was dropped.
std::string rejected_rows_message(const std::string& path, const ResultRows& found, bool rerun = true);

/// The statuses of a finished result file.
struct SweepSummary {
  std::size_t rows = 0, ok = 0, infeasible = 0, errors = 0;
  std::size_t first_failed_point = 0;  // valid when ok < rows
  std::string first_failure;           // that point's error message
};

/// Runs the whole sweep in this process on `options.threads` threads (see the top of this
/// file for the file handling). Returns the number of points that failed in this run;
/// `summary`, when given, receives the statuses of the whole result file.
std::size_t run_sweep(const Sweep& sweep, const PointRunner& runner, const std::vector<std::string>& output_columns,
                      const SweepOptions& options, SweepSummary* summary = nullptr);

// Pieces for distributed runs (each rank appends to a part file; rank 0 collects):
/// Point indices already in a result file and valid for this sweep (an absent file has none).
std::set<std::size_t> finished_points(const std::string& path, const Sweep& sweep,
                                      const std::vector<std::string>& output_columns);
/// The points of this rank (index % ranks == rank) that are not finished, in order.
std::vector<std::size_t> points_to_run(const Sweep& sweep, const std::set<std::size_t>& finished, int rank, int ranks);
/// Runs `todo`, appending one row per finished point to `append_path`. Returns failures.
std::size_t run_points(const Sweep& sweep, const std::vector<std::size_t>& todo, const PointRunner& runner,
                       const std::vector<std::string>& output_columns, const std::string& append_path,
                       const SweepOptions& options);
/// Rewrites `path` (atomically) with the header and the rows of `path` and `parts` sorted by
/// point index, keeping only rows valid for `sweep` (read_result_rows; dropped rows are
/// reported on stderr), then removes the parts. Returns the statuses of the rows kept.
SweepSummary collect_sweep_csv(const std::string& path, const std::vector<std::string>& parts, const Sweep& sweep,
                               const std::vector<std::string>& output_columns);

/// An OutputError unless `path` can be a result file: a regular file or a new name, not
/// standard output ("-"), a directory or a device.
void check_result_path(const std::string& path);

/// CSV field quoting (RFC 4180): quotes fields holding a comma, quote or newline.
std::string csv_field(const std::string& text);
/// Splits one CSV line into fields (RFC 4180 quoting), leniently: stray quotes are kept.
std::vector<std::string> csv_split(const std::string& line);
/// Splits one CSV line as csv_field writes them: a quote only opens a field and, doubled,
/// stands for itself inside a quoted field; the closing quote ends the field. nullopt for
/// anything else (a field with a stray quote, an unterminated quoted field).
std::optional<std::vector<std::string>> csv_split_strict(std::string_view line);

}  // namespace dlrmsim::app
