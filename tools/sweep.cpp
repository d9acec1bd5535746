#include "tools/sweep.hpp"
#include "common/text.hpp"
#include "common/files.hpp"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <mutex>
#include <set>
#include <sstream>
#include <thread>

namespace dlrmsim::tools {
namespace fs = std::filesystem;

namespace {


std::string value_text(const ConfigNode& v) {
  if (v.is_scalar()) return v.as<std::string>();
  YAML::Emitter out;
  out << YAML::Flow << v.yaml();
  return out.c_str();
}

/// One entry of `axes:`; a linked axis (`keys: [...]`, each value a list with one element per
/// key) gives several SweepAxis that vary together (same `group`).
std::vector<SweepAxis> read_axis(const ConfigNode& node, std::size_t group) {
  std::vector<SweepAxis> axes;
  if (node.has("keys")) {
    for (const ConfigNode& k : node.child("keys").elements()) axes.push_back(SweepAxis{k.as<std::string>(), {}, group});
    if (axes.empty()) node.child("keys").fail("expected a non-empty list of key paths");
    const ConfigNode values = node.child("values");
    for (const ConfigNode& v : values.elements()) {
      const auto parts = v.elements();
      if (parts.size() != axes.size()) {
        v.fail("expected a list of " + std::to_string(axes.size()) + " values, one per key");
      }
      for (std::size_t i = 0; i < parts.size(); ++i) axes[i].values.push_back(value_text(parts[i]));
    }
    if (axes[0].values.empty()) values.fail("the axis has no values; expected a non-empty list");
    node.finish();
    return axes;
  }
  SweepAxis axis;
  axis.group = group;
  axis.key = node.get<std::string>("key");
  if (axis.key.empty()) node.child("key").fail("the key path is empty");
  const bool has_values = node.has("values");
  const bool has_range = node.has("range");
  if (has_values == has_range) node.fail("an axis needs exactly one of 'values' (a list) or 'range'");
  if (has_values) {
    const ConfigNode values = node.child("values");
    for (const ConfigNode& v : values.elements()) axis.values.push_back(value_text(v));
    if (axis.values.empty()) values.fail("the axis has no values; expected a non-empty list");
    if (axis.values.size() > kMaxAxisValues) values.fail("the axis has more than " + std::to_string(kMaxAxisValues) + " values");
  } else {
    const ConfigNode range = node.child("range");
    const double from = range.get<double>("from");
    const double to = range.get<double>("to");
    const double step = range.get<double>("step");
    const std::string unit = range.get_or<std::string>("unit", "");
    range.finish();
    if (!(step > 0.0)) range.child("step").fail("the step must be positive");
    if (to < from) range.child("to").fail("'to' (" + format_number(to, 15) + ") is below 'from' (" + format_number(from, 15) + ")");
    const double count = std::floor((to - from) / step + 1e-9) + 1.0;
    if (count > static_cast<double>(kMaxAxisValues)) {
      range.fail("the range has " + format_number(count, 15) + " values; the limit is " + std::to_string(kMaxAxisValues));
    }
    for (std::size_t i = 0; i < static_cast<std::size_t>(count); ++i) {
      const double v = from + step * static_cast<double>(i);
      axis.values.push_back(unit.empty() ? format_number(v, 15) : format_number(v, 15) + " " + unit);
    }
  }
  node.finish();
  axes.push_back(std::move(axis));
  return axes;
}

YAML::Node load_base(const ConfigNode& root, std::string& source) {
  const ConfigNode base = root.child("base");
  if (base.is_scalar()) {
    const fs::path path = fs::path(root.source_dir()) / base.as<std::string>();
    if (!path_exists(path)) base.fail("scenario file '" + path.string() + "' does not exist");
    source = path.string();
    return ConfigNode::load_file(source).yaml();
  }
  if (!base.is_map()) base.fail("expected a scenario file name or an inline scenario mapping");
  source = root.source();
  return base.yaml();
}


}  // namespace

Sweep load_sweep(const std::string& path) {
  const ConfigNode root = ConfigNode::load_file(path);
  Sweep sweep;
  if (root.has("points") || root.has("points_dir")) {
    sweep.input_keys_ = {"scenario"};
    if (auto list = root.optional_child("points")) {
      for (const ConfigNode& item : list->elements()) {
        const fs::path p = fs::path(root.source_dir()) / item.as<std::string>();
        if (!regular_file_exists(p)) item.fail("scenario file '" + p.string() + "' does not exist");
        sweep.files_.push_back(p.string());
      }
    }
    if (auto dir = root.optional_child("points_dir")) {
      const fs::path d = fs::path(root.source_dir()) / dir->as<std::string>();
      if (!directory_exists(d)) dir->fail("'" + d.string() + "' is not a directory");
      std::vector<std::string> files;
      for (const auto& entry : fs::directory_iterator(d)) {
        if (entry.path().extension() == ".yaml" || entry.path().extension() == ".yml") files.push_back(entry.path().string());
      }
      std::sort(files.begin(), files.end());
      sweep.files_.insert(sweep.files_.end(), files.begin(), files.end());
    }
    root.finish();
    if (sweep.files_.empty()) root.fail("the sweep has no points");
    sweep.size_ = sweep.files_.size();
    return sweep;
  }

  {
    YAML::Emitter text;
    text << load_base(root, sweep.base_source_);
    sweep.base_text_ = text.c_str();
  }
  sweep.zip_ = root.get_choice_or("combine", {"grid", "zip"}, "grid") == "zip";
  const ConfigNode axes_node = root.child("axes");
  std::size_t groups = 0;
  for (const ConfigNode& a : axes_node.elements()) {
    for (SweepAxis& axis : read_axis(a, groups)) sweep.axes_.push_back(std::move(axis));
    ++groups;
  }
  root.finish();
  if (sweep.axes_.empty()) axes_node.fail("the sweep has no axes; expected a list of {key, values} or {key, range}");
  for (const SweepAxis& a : sweep.axes_) sweep.input_keys_.push_back(a.key);
  const auto& axes = sweep.axes_;
  std::size_t total = 1;
  if (sweep.zip_) {
    total = axes[0].values.size();
    for (const SweepAxis& a : axes) {
      if (a.values.size() != total) {
        axes_node.fail("combine: zip needs axes of equal length; '" + axes[0].key + "' has " +
                       std::to_string(total) + " values, '" + a.key + "' has " + std::to_string(a.values.size()));
      }
    }
  } else {
    for (std::size_t k = 0; k < axes.size(); ++k) {
      const SweepAxis& a = axes[k];
      if (k > 0 && axes[k - 1].group == a.group) continue;  // linked to the previous axis
      if (total > kMaxSweepPoints / a.values.size()) {
        axes_node.fail("the grid has more than " + std::to_string(kMaxSweepPoints) +
                       " points (the limit); split the sweep or use fewer values");
      }
      total *= a.values.size();
    }
  }
  sweep.size_ = total;
  return sweep;
}

SweepPoint Sweep::point(std::size_t index) const {
  SweepPoint p;
  p.index = index;
  if (!files_.empty()) {
    p.label = fs::path(files_[index]).filename().string();
    p.inputs = {{"scenario", files_[index]}};
    p.scenario_source = files_[index];
    p.scenario = ConfigNode::load_file(files_[index]).yaml();
    return p;
  }
  p.scenario_source = base_source_;
  // Each point gets its own tree, parsed from the base's text: points run on several threads
  // and yaml-cpp nodes share their storage between copies.
  p.scenario = YAML::Load(base_text_);
  std::vector<std::size_t> pick(axes_.size());
  std::size_t rest = index;
  for (std::size_t k = axes_.size(); k-- > 0;) {  // last axis fastest; linked axes share a pick
    if (zip_) {
      pick[k] = index;
    } else if (k + 1 < axes_.size() && axes_[k + 1].group == axes_[k].group) {
      pick[k] = pick[k + 1];
    } else {
      pick[k] = rest % axes_[k].values.size();
      rest /= axes_[k].values.size();
    }
  }
  for (std::size_t k = 0; k < axes_.size(); ++k) {
    const std::string& value = axes_[k].values[pick[k]];
    p.overrides.push_back(axes_[k].key + "=" + value);
    p.inputs.emplace_back(axes_[k].key, value);
    p.label += (k ? ";" : "") + axes_[k].key + "=" + value;
  }
  return p;
}

std::string csv_field(const std::string& text) {
  if (text.find_first_of(",\"\n\r") == std::string::npos) return text;
  std::string out = "\"";
  for (char c : text) {
    if (c == '"') out += '"';
    out += (c == '\n' || c == '\r') ? ' ' : c;
  }
  return out + "\"";
}

std::vector<std::string> csv_split(const std::string& line) {
  std::vector<std::string> fields(1);
  bool quoted = false;
  for (std::size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (quoted) {
      if (c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
        fields.back() += '"';
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        fields.back() += c;
      }
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      fields.emplace_back();
    } else {
      fields.back() += c;
    }
  }
  return fields;
}

std::vector<std::string> sweep_columns(const Sweep& sweep, const std::vector<std::string>& output_columns) {
  std::vector<std::string> cols{"point", "label"};
  cols.insert(cols.end(), sweep.input_keys().begin(), sweep.input_keys().end());
  cols.emplace_back("status");
  cols.emplace_back("error");
  cols.insert(cols.end(), output_columns.begin(), output_columns.end());
  return cols;
}

std::string sweep_row(const SweepPoint& point, const PointOutcome& outcome,
                      const std::vector<std::string>& output_columns) {
  std::string line = std::to_string(point.index) + "," + csv_field(point.label);
  for (const auto& [key, value] : point.inputs) line += "," + csv_field(value);
  line += "," + outcome.status + "," + csv_field(outcome.error);
  for (const std::string& col : output_columns) {
    const auto it = outcome.outputs.find(col);
    line += "," + (it == outcome.outputs.end() ? std::string() : csv_field(it->second));
  }
  return line;
}

namespace {
std::string join_header(const std::vector<std::string>& cols) {
  std::string header;
  for (std::size_t i = 0; i < cols.size(); ++i) header += (i ? "," : "") + csv_field(cols[i]);
  return header;
}
}  // namespace

namespace {
// Rows of a result file by point index; a torn last line (no newline: the process died
// while writing it) and lines that are not rows are dropped.
void read_rows(const std::string& path, const std::string& header, std::map<std::size_t, std::string>& rows) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return;
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const auto last_newline = text.rfind('\n');
  text = last_newline == std::string::npos ? std::string() : text.substr(0, last_newline + 1);
  std::istringstream lines(text);
  std::string line;
  bool first = true;
  while (std::getline(lines, line)) {
    if (first) {
      first = false;
      if (line != header) {
        throw ConfigError(path + ":1: the existing result file has other columns than this sweep; expected '" +
                          header + "'");
      }
      continue;
    }
    const auto comma = line.find(',');
    if (line.empty() || comma == std::string::npos || comma == 0 ||
        line.find_first_not_of("0123456789") != comma) {
      continue;
    }
    rows.emplace(std::stoull(line.substr(0, comma)), line);
  }
}
}  // namespace

std::string sweep_header(const Sweep& sweep, const std::vector<std::string>& output_columns) {
  return join_header(sweep_columns(sweep, output_columns));
}

std::set<std::size_t> finished_points(const std::string& path, const std::string& header) {
  std::map<std::size_t, std::string> rows;
  read_rows(path, header, rows);
  std::set<std::size_t> out;
  for (const auto& [index, line] : rows) out.insert(index);
  return out;
}

std::size_t collect_sweep_csv(const std::string& path, const std::vector<std::string>& parts,
                              const std::string& header) {
  std::map<std::size_t, std::string> rows;
  read_rows(path, header, rows);
  for (const std::string& part : parts) read_rows(part, header, rows);
  const std::string tmp = path + ".tmp";
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    out << header << "\n";
    for (const auto& [index, line] : rows) out << line << "\n";
    if (!out) throw ConfigError(tmp + ": cannot write the result file");
  }
  fs::rename(tmp, path);
  for (const std::string& part : parts) fs::remove(part);
  return rows.size();
}

std::size_t run_points(const Sweep& sweep, const std::vector<std::size_t>& todo, const PointRunner& runner,
                       const std::vector<std::string>& output_columns, const std::string& append_path,
                       const SweepOptions& options) {
  FILE* out = std::fopen(append_path.c_str(), "ab");
  if (!out) throw ConfigError(append_path + ": cannot append to the result file");
  std::mutex mutex;
  std::atomic<std::size_t> next{0};
  std::size_t written = 0;
  std::size_t failed = 0;
  const auto t0 = std::chrono::steady_clock::now();

  auto worker = [&] {
    while (true) {
      const std::size_t k = next.fetch_add(1);
      if (k >= todo.size()) return;
      PointOutcome outcome;
      SweepPoint point;
      point.index = todo[k];
      point.inputs.assign(sweep.input_keys().size(), {});
      try {
        point = sweep.point(todo[k]);
        outcome = runner(point);
      } catch (const std::exception& e) {
        outcome.status = "error";
        outcome.error = e.what();
      }
      const std::string line = sweep_row(point, outcome, output_columns) + "\n";
      std::lock_guard lock(mutex);
      std::fwrite(line.data(), 1, line.size(), out);
      std::fflush(out);
      ++written;
      if (outcome.status != "ok") ++failed;
      if (options.progress) {
        const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        const double rate = static_cast<double>(written) / std::max(elapsed, 1e-9);
        const double left = static_cast<double>(todo.size() - written) / std::max(rate, 1e-9);
        std::fprintf(stderr, "\r%zu/%zu points, %.1f points/s, %.0f s left   ", written, todo.size(), rate, left);
      }
      if (options.stop_after && written >= *options.stop_after) std::_Exit(99);  // a simulated interruption
    }
  };
  const unsigned threads = std::max(1u, std::min<unsigned>(options.threads, static_cast<unsigned>(todo.size())));
  std::vector<std::thread> pool;
  for (unsigned t = 1; t < threads; ++t) pool.emplace_back(worker);
  worker();
  for (auto& t : pool) t.join();
  std::fclose(out);
  if (options.progress) std::fprintf(stderr, "\n");
  return failed;
}

std::vector<std::size_t> points_to_run(const Sweep& sweep, const std::set<std::size_t>& finished, int rank, int ranks) {
  std::vector<std::size_t> todo;
  for (std::size_t i = static_cast<std::size_t>(rank); i < sweep.size(); i += static_cast<std::size_t>(ranks)) {
    if (!finished.count(i)) todo.push_back(i);
  }
  return todo;
}

std::size_t run_sweep(const Sweep& sweep, const PointRunner& runner, const std::vector<std::string>& output_columns,
                      const SweepOptions& options) {
  const std::string header = sweep_header(sweep, output_columns);
  std::set<std::size_t> finished;
  if (options.resume && path_exists(options.output_path)) {
    collect_sweep_csv(options.output_path, {}, header);
    finished = finished_points(options.output_path, header);
  } else {
    std::ofstream out(options.output_path, std::ios::binary | std::ios::trunc);
    out << header << "\n";
    if (!out) throw ConfigError(options.output_path + ": cannot write the result file");
  }
  const std::size_t failed =
      run_points(sweep, points_to_run(sweep, finished, 0, 1), runner, output_columns, options.output_path, options);
  collect_sweep_csv(options.output_path, {}, header);
  return failed;
}

}  // namespace dlrmsim::tools
