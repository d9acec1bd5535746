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
#pragma once

#include <yaml-cpp/yaml.h>

#include <cstddef>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "common/config.hpp"

namespace dlrmsim::tools {

/// One point: a scenario and the overrides (as --set) that make it differ from the base.
/// The overrides are applied by the scenario loader, so a key path may reach into the
/// platform or model file that the scenario references (platform.node_templates...).
struct SweepPoint {
  std::size_t index = 0;
  std::string label;  // "key=value;key=value" or the scenario file name
  std::vector<std::pair<std::string, std::string>> inputs;  // varied key -> value text
  YAML::Node scenario;
  std::string scenario_source;  // file name for error messages and relative paths
  std::vector<std::string> overrides;  // "key.path=value"
};

struct SweepAxis {
  std::string key;
  std::vector<std::string> values;
  std::size_t group = 0;  // axes of one group (a linked `keys:` axis) vary together
};

/// An expanded sweep. Points are materialised one at a time (point(i)), so a sweep of
/// millions of points costs memory for its axes only.
class Sweep {
 public:
  [[nodiscard]] std::size_t size() const { return size_; }
  [[nodiscard]] SweepPoint point(std::size_t index) const;
  /// The axes' key paths, or {"scenario"} for a list of scenario files.
  [[nodiscard]] const std::vector<std::string>& input_keys() const { return input_keys_; }

 private:
  friend Sweep load_sweep(const std::string& path);
  std::vector<std::string> input_keys_;
  std::vector<SweepAxis> axes_;
  bool zip_ = false;
  std::string base_text_;  // the base scenario, as YAML text
  std::string base_source_;
  std::vector<std::string> files_;  // a list of scenario files instead of axes
  std::size_t size_ = 0;
};

/// Refuses sweeps larger than this many points: 10^8 points at the fastest measured rate
/// (~200 points/s per core) is already about a week of two cores.
inline constexpr std::size_t kMaxSweepPoints = 100'000'000;
/// Refuses an axis with more values than this (they are held in memory).
inline constexpr std::size_t kMaxAxisValues = 1'000'000;

/// Reads and expands a sweep file. Errors (empty axis, zip of unequal lengths, bad range,
/// too many points) are ConfigErrors naming the file, line and key.
Sweep load_sweep(const std::string& path);

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
  bool progress = false;  // a progress line on stderr
  /// For tests of interruption: end the process abruptly after this many new rows.
  std::optional<std::size_t> stop_after;
};

/// The CSV columns: point, label, the input keys, status, error, then `output_columns`.
std::vector<std::string> sweep_columns(const Sweep& sweep, const std::vector<std::string>& output_columns);
std::string sweep_header(const Sweep& sweep, const std::vector<std::string>& output_columns);
/// One CSV line (no newline) for a finished point.
std::string sweep_row(const SweepPoint& point, const PointOutcome& outcome, const std::vector<std::string>& output_columns);

/// Runs the whole sweep in this process on `options.threads` threads (see the top of this
/// file for the file handling). Returns the number of points that failed.
std::size_t run_sweep(const Sweep& sweep, const PointRunner& runner, const std::vector<std::string>& output_columns,
                      const SweepOptions& options);

// Pieces for distributed runs (each rank appends to a part file; rank 0 collects):
/// Point indices already in a result file (an absent file has none).
std::set<std::size_t> finished_points(const std::string& path, const std::string& header);
/// The points of this rank (index % ranks == rank) that are not finished, in order.
std::vector<std::size_t> points_to_run(const Sweep& sweep, const std::set<std::size_t>& finished, int rank, int ranks);
/// Runs `todo`, appending one row per finished point to `append_path`. Returns failures.
std::size_t run_points(const Sweep& sweep, const std::vector<std::size_t>& todo, const PointRunner& runner,
                       const std::vector<std::string>& output_columns, const std::string& append_path,
                       const SweepOptions& options);
/// Rewrites `path` with the header and the rows of `path` and `parts` sorted by point index
/// (dropping torn lines and duplicates), then removes the parts. Returns the row count.
std::size_t collect_sweep_csv(const std::string& path, const std::vector<std::string>& parts, const std::string& header);

/// CSV field quoting (RFC 4180): quotes fields holding a comma, quote or newline.
std::string csv_field(const std::string& text);
/// Splits one CSV line into fields (RFC 4180 quoting).
std::vector<std::string> csv_split(const std::string& line);

}  // namespace dlrmsim::tools
