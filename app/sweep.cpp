#include "app/sweep.hpp"
#include "common/data_paths.hpp"
#include "topologies/device_profile.hpp"
#include "common/text.hpp"
#include "common/files.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <limits>
#include <mutex>
#include <set>
#include <thread>

namespace dlrmsim::app {
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
    for (const ConfigNode& k : node.child("keys").elements()) {
      axes.push_back(SweepAxis{k.as<std::string>(), {}, group, k.where()});
    }
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
  axis.location = node.child("key").where();
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
    // Next to the sweep file, else in the data search path (common/data_paths.hpp).
    const fs::path path = resolve_data_path(base.as<std::string>(), root.source_dir(), data_search_path());
    if (!path_exists(path)) {
      base.fail("scenario file '" + (fs::path(root.source_dir()) / base.as<std::string>()).string() +
                "' does not exist");
    }
    if (same_file(path, root.source())) {
      base.fail("the base scenario '" + path.string() + "' is this sweep file itself; expected a scenario file");
    }
    source = path.string();
    return ConfigNode::load_file(source).yaml();
  }
  if (!base.is_map()) base.fail("expected a scenario file name or an inline scenario mapping");
  source = root.source();
  return base.yaml();
}


/// The files a scenario names for its platform, model and software (found as the scenario
/// loader finds them: next to it, then in the data search path), when they are given as paths:
/// inputs that a result file must not overwrite.
std::vector<std::string> referenced_files(const YAML::Node& scenario, const std::string& source) {
  std::vector<std::string> files;
  if (!scenario.IsMap()) return files;
  for (const char* key : {"platform", "model", "software"}) {
    const YAML::Node part = scenario[key];
    if (part && part.IsScalar()) {
      files.push_back(resolve_data_path(part.Scalar(), fs::path(source).parent_path().string(), data_search_path()));
    }
  }
  return files;
}

/// FNV-1a, 64 bits, continued from `hash` over `text` and a separator.
std::uint64_t hash_text(std::uint64_t hash, std::string_view text) {
  for (const char c : text) {
    hash ^= static_cast<unsigned char>(c);
    hash *= 1099511628211ull;
  }
  hash ^= 0xFF;  // a separator no text contains as a byte of UTF-8
  return hash * 1099511628211ull;
}

/// The hash of what a sweep's rows depend on besides the point: the program version, the
/// sweep file, the base scenario as parsed, and the content of each file it reads.
std::uint64_t sweep_digest(const std::string& sweep_path, const std::string& base_text,
                           std::vector<std::string> files) {
  std::uint64_t hash = 14695981039346656037ull;
  hash = hash_text(hash, "dlrmsim " DLRMSIM_VERSION);
  hash = hash_text(hash, base_text);
  files.push_back(sweep_path);
  std::sort(files.begin(), files.end());
  files.erase(std::unique(files.begin(), files.end()), files.end());
  for (const std::string& f : files) {
    hash = hash_text(hash, f);
    try {
      hash = hash_text(hash, read_input_file(f));
    } catch (const ConfigError& e) {  // a point that reads it fails, and says why
      hash = hash_text(hash, e.what());
    }
  }
  return hash;
}

/// "FILE:LINE:COL" and "KEY.PATH" of a ConfigNode::where() text.
std::pair<std::string, std::string> split_where(const std::string& where) {
  const auto colon = where.rfind(": ");
  if (colon == std::string::npos) return {where, ""};
  return {where.substr(0, colon), where.substr(colon + 2)};
}

}  // namespace

Sweep load_sweep(const std::string& path, const std::shared_ptr<KeyLog>& log) {
  return read_sweep(ConfigNode::load_file(path).recording_into(log, ""), path, std::nullopt);
}

Sweep load_sweep_text(const std::string& text, const std::string& source_name) {
  return read_sweep(ConfigNode::load_string(text, source_name), source_name, text);
}

Sweep read_sweep(const ConfigNode& root, const std::string& path, const std::optional<std::string>& inline_text) {
  // A sweep given as text is no input file; its text enters the rows' fingerprint instead.
  const std::vector<std::string> own_file = inline_text ? std::vector<std::string>{} : std::vector<std::string>{path};
  const std::string own_text = inline_text.value_or("");
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
    sweep.input_files_ = sweep.files_;
    sweep.input_files_.insert(sweep.input_files_.end(), own_file.begin(), own_file.end());
    sweep.digest_ = sweep_digest(path, own_text, sweep.input_files_);
    return sweep;
  }

  {
    const YAML::Node base = load_base(root, sweep.base_source_);
    YAML::Emitter text;
    text << base;
    sweep.base_text_ = text.c_str();
    sweep.input_files_ = referenced_files(base, sweep.base_source_);
    sweep.input_files_.insert(sweep.input_files_.end(), own_file.begin(), own_file.end());
    if (sweep.base_source_ != path) sweep.input_files_.push_back(sweep.base_source_);
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
  // One key on two axes would give two columns of the same name and points whose value is
  // the last axis's: refused, naming both places.
  std::map<std::string, const SweepAxis*> axis_of_key;
  for (const SweepAxis& a : sweep.axes_) {
    const auto [it, inserted] = axis_of_key.emplace(a.key, &a);
    if (!inserted) {
      const auto [first_place, first_path] = split_where(it->second->location);
      throw ConfigError(a.location + ": the key '" + a.key + "' is already varied by the axis at " + first_place +
                        " (" + first_path + "); a key may be varied by one axis only");
    }
    sweep.input_keys_.push_back(a.key);
  }
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
  // An axis that chooses the platform, model or software file reads each file it names.
  const std::vector<DataRoot> roots = data_search_path();
  const std::string base_dir = fs::path(sweep.base_source_).parent_path().string();
  for (const SweepAxis& a : sweep.axes_) {
    if (a.key != "platform" && a.key != "model" && a.key != "software") continue;
    for (const std::string& v : a.values) sweep.input_files_.push_back(resolve_data_path(v, base_dir, roots));
  }
  sweep.digest_ = sweep_digest(path, own_text + sweep.base_text_, sweep.input_files_);
  return sweep;
}

std::vector<std::size_t> Sweep::picks(std::size_t index) const {
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
  return pick;
}

bool Sweep::uses_section(const std::string& key) const {
  for (const auto& axis : axes_) {
    if (axis.key == key || axis.key.rfind(key + ".", 0) == 0) return true;
  }
  if (!files_.empty()) {
    for (const auto& f : files_) {
      const YAML::Node root = ConfigNode::load_file(f).yaml();
      if (root.IsMap() && root[key]) return true;
    }
    return false;
  }
  const YAML::Node base = YAML::Load(base_text_);
  return base.IsMap() && static_cast<bool>(base[key]);
}

PointInputs Sweep::point_inputs(std::size_t index) const {
  PointInputs p;
  if (!files_.empty()) {
    p.label = fs::path(files_[index]).filename().string();
    p.inputs = {{"scenario", files_[index]}};
    return p;
  }
  const std::vector<std::size_t> pick = picks(index);
  for (std::size_t k = 0; k < axes_.size(); ++k) {
    const std::string& value = axes_[k].values[pick[k]];
    p.inputs.emplace_back(axes_[k].key, value);
    p.label += (k ? ";" : "") + axes_[k].key + "=" + value;
  }
  return p;
}

std::string Sweep::fingerprint(std::size_t index) const {
  const std::uint64_t hash = hash_text(hash_text(digest_, std::to_string(index)), point_inputs(index).label);
  char text[17];
  std::snprintf(text, sizeof text, "%016llx", static_cast<unsigned long long>(hash));
  return text;
}

SweepPoint Sweep::point(std::size_t index) const {
  SweepPoint p;
  p.index = index;
  p.fingerprint = fingerprint(index);
  PointInputs inputs = point_inputs(index);
  p.label = std::move(inputs.label);
  p.inputs = std::move(inputs.inputs);
  if (!files_.empty()) {
    p.scenario_source = files_[index];
    p.scenario = ConfigNode::load_file(files_[index]).yaml();
    return p;
  }
  p.scenario_source = base_source_;
  // Each point gets its own tree, parsed from the base's text: points run on several threads
  // and yaml-cpp nodes share their storage between copies.
  p.scenario = YAML::Load(base_text_);
  for (const auto& [key, value] : p.inputs) p.overrides.push_back(key + "=" + value);
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

std::optional<std::vector<std::string>> csv_split_strict(std::string_view line) {
  std::vector<std::string> fields(1);
  std::size_t i = 0;
  while (true) {
    if (i < line.size() && line[i] == '"') {  // a quoted field
      ++i;
      while (true) {
        if (i >= line.size()) return std::nullopt;  // unterminated
        if (line[i] == '"') {
          if (i + 1 < line.size() && line[i + 1] == '"') {
            fields.back() += '"';
            i += 2;
            continue;
          }
          ++i;
          break;
        }
        fields.back() += line[i++];
      }
    } else {
      while (i < line.size() && line[i] != ',') {
        if (line[i] == '"') return std::nullopt;  // a quote inside an unquoted field
        fields.back() += line[i++];
      }
    }
    if (i == line.size()) return fields;
    if (line[i] != ',') return std::nullopt;  // text after a closing quote
    ++i;
    fields.emplace_back();
  }
}

std::vector<std::string> sweep_columns(const Sweep& sweep, const std::vector<std::string>& output_columns) {
  std::vector<std::string> cols{"point", "label"};
  cols.insert(cols.end(), sweep.input_keys().begin(), sweep.input_keys().end());
  cols.emplace_back("status");
  cols.emplace_back("error");
  cols.insert(cols.end(), output_columns.begin(), output_columns.end());
  cols.emplace_back("fingerprint");
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
  return line + "," + point.fingerprint;
}

namespace {
std::string join_header(const std::vector<std::string>& cols) {
  std::string header;
  for (std::size_t i = 0; i < cols.size(); ++i) header += (i ? "," : "") + csv_field(cols[i]);
  return header;
}
}  // namespace

namespace {

/// A value as csv_field writes it and csv_split_strict reads it back (line breaks become
/// spaces).
std::string as_written(const std::string& value) {
  std::string out = value;
  std::replace(out.begin(), out.end(), '\n', ' ');
  std::replace(out.begin(), out.end(), '\r', ' ');
  return out;
}

/// Why `line` is not the row of this sweep that it claims to be, or "" when it is.
std::string row_mismatch(std::string_view line, const Sweep& sweep, std::size_t columns, std::size_t& index) {
  const auto fields = csv_split_strict(line);
  if (!fields) return "the CSV quoting is malformed";
  if (fields->size() != columns) {
    return "it has " + std::to_string(fields->size()) + " fields; the header has " + std::to_string(columns);
  }
  const std::string& number = (*fields)[0];
  const auto [end, ec] = std::from_chars(number.data(), number.data() + number.size(), index);
  if (number.empty() || ec == std::errc::invalid_argument || end != number.data() + number.size()) {
    return "the point number '" + number + "' is not a whole number";
  }
  if (ec == std::errc::result_out_of_range || index >= sweep.size()) {
    return "point " + number + " is not a point of this sweep (it has " + std::to_string(sweep.size()) + " points)";
  }
  const PointInputs expected = sweep.point_inputs(index);
  if ((*fields)[1] != as_written(expected.label)) {
    return "the label of point " + number + " is '" + (*fields)[1] + "'; this sweep's is '" +
           as_written(expected.label) + "'";
  }
  for (std::size_t k = 0; k < expected.inputs.size(); ++k) {
    const auto& [key, value] = expected.inputs[k];
    if ((*fields)[2 + k] != as_written(value)) {
      return "column '" + key + "' of point " + number + " is '" + (*fields)[2 + k] + "'; this sweep has '" +
             as_written(value) + "'";
    }
  }
  const std::string& status = (*fields)[2 + expected.inputs.size()];
  if (status != "ok" && status != "infeasible" && status != "error") {
    return "the status '" + status + "' is not ok, infeasible or error";
  }
  if (fields->back() != sweep.fingerprint(index)) {
    return "the fingerprint of point " + number + " is '" + fields->back() + "'; this sweep's is '" +
           sweep.fingerprint(index) +
           "' (the row was computed from other inputs: a file the sweep reads, its base scenario or the program changed)";
  }
  return {};
}

SweepSummary summarize(const std::map<std::size_t, std::string>& rows, const Sweep& sweep) {
  SweepSummary summary;
  const std::size_t status_column = 2 + sweep.input_keys().size();
  for (const auto& [index, line] : rows) {
    const auto fields = csv_split_strict(line);
    if (!fields || fields->size() <= status_column + 1) continue;  // rows are checked before
    ++summary.rows;
    const std::string& status = (*fields)[status_column];
    if (status == "ok") {
      ++summary.ok;
      continue;
    }
    if (summary.infeasible + summary.errors == 0) {
      summary.first_failed_point = index;
      summary.first_failure = (*fields)[status_column + 1];
    }
    if (status == "infeasible") ++summary.infeasible;
    else ++summary.errors;
  }
  return summary;
}

std::string csv_text(const std::string& header, const std::map<std::size_t, std::string>& rows) {
  std::string text = header + "\n";
  for (const auto& [index, line] : rows) text.append(line).push_back('\n');
  return text;
}

}  // namespace

std::string sweep_header(const Sweep& sweep, const std::vector<std::string>& output_columns) {
  return join_header(sweep_columns(sweep, output_columns));
}

std::uintmax_t result_file_limit(const Sweep& sweep) {
  constexpr std::uintmax_t kRowBytes = std::uintmax_t{64} << 10;
  const std::uintmax_t points = sweep.size() + 1;  // and the header
  if (points > std::numeric_limits<std::uintmax_t>::max() / kRowBytes) return std::numeric_limits<std::uintmax_t>::max();
  return std::max(kMaxInputBytes, points * kRowBytes);
}

ResultRows read_result_rows(const std::string& path, const Sweep& sweep,
                            const std::vector<std::string>& output_columns) {
  ResultRows found;
  if (!path_exists(path)) return found;
  const std::string text = read_input_file(path, result_file_limit(sweep));
  const std::string header = sweep_header(sweep, output_columns);
  const std::size_t columns = sweep_columns(sweep, output_columns).size();
  std::size_t line_number = 0;
  // Only complete lines: what follows the last newline is a torn row of a killed process.
  for (std::size_t start = 0, end; (end = text.find('\n', start)) != std::string::npos; start = end + 1) {
    const std::string_view line(text.data() + start, end - start);
    if (++line_number == 1) {
      if (line != header) {
        throw ConfigError(path + ":1: the existing result file has other columns than this sweep; expected '" +
                          header + "'");
      }
      continue;
    }
    std::size_t index = 0;
    std::string reason = row_mismatch(line, sweep, columns, index);
    if (reason.empty()) {
      found.rows.emplace(index, std::string(line));  // a duplicate of a kept point is ignored
      continue;
    }
    if (found.rejected++ == 0) {
      found.first_rejected_line = line_number;
      found.first_reason = std::move(reason);
    }
  }
  return found;
}

std::string rejected_rows_message(const std::string& path, const ResultRows& found, bool rerun) {
  if (found.rejected == 0) return {};
  const bool one = found.rejected == 1;
  return std::to_string(found.rejected) + (one ? " row of " : " rows of ") + path + (one ? " does" : " do") +
         " not match this sweep and " + (one ? "is " : "are ") + (rerun ? "rerun" : "dropped") + ": first at line " +
         std::to_string(found.first_rejected_line) + ": " + found.first_reason;
}

std::set<std::size_t> finished_points(const std::string& path, const Sweep& sweep,
                                      const std::vector<std::string>& output_columns) {
  std::set<std::size_t> out;
  for (const auto& [index, line] : read_result_rows(path, sweep, output_columns).rows) out.insert(index);
  return out;
}

void check_result_path(const std::string& path) {
  if (path == "-") {
    throw OutputError("-: cannot write the output: a sweep's result file cannot be standard output (it is appended "
                      "to as points finish and read back); expected a file name");
  }
  if (path_exists(path) && !regular_file_exists(path)) {
    throw OutputError(path + ": cannot write the output: " + (directory_exists(path) ? "it is a directory" : "it is not a regular file") +
                      "; a sweep's result file is appended to as points finish and read back, so it must be a "
                      "regular file");
  }
}

SweepSummary collect_sweep_csv(const std::string& path, const std::vector<std::string>& parts, const Sweep& sweep,
                               const std::vector<std::string>& output_columns) {
  std::map<std::size_t, std::string> rows;
  std::vector<std::string> files{path};
  files.insert(files.end(), parts.begin(), parts.end());
  for (const std::string& file : files) {
    ResultRows found = read_result_rows(file, sweep, output_columns);
    if (const std::string message = rejected_rows_message(file, found, false); !message.empty()) {
      std::cerr << message << "\n";
    }
    rows.merge(found.rows);  // a point already collected keeps its first row
  }
  write_output_file(path, csv_text(sweep_header(sweep, output_columns), rows));
  for (const std::string& part : parts) fs::remove(part);
  return summarize(rows, sweep);
}

PointRow run_point_row(const Sweep& sweep, std::size_t index, const PointRunner& runner,
                       const std::vector<std::string>& output_columns, topo::DeviceProfileFiles* profile_files) {
  PointOutcome outcome;
  SweepPoint point;
  point.index = index;
  point.inputs.assign(sweep.input_keys().size(), {});
  point.fingerprint = sweep.fingerprint(index);
  try {
    point = sweep.point(index);
    point.profile_files = profile_files;
    outcome = runner(point);
  } catch (const std::exception& e) {
    outcome.status = "error";
    outcome.error = e.what();
  }
  return {sweep_row(point, outcome, output_columns), outcome.status == "ok"};
}

std::size_t run_points(const Sweep& sweep, const std::vector<std::size_t>& todo, const PointRunner& runner,
                       const std::vector<std::string>& output_columns, const std::string& append_path,
                       const SweepOptions& options) {
  FILE* out = std::fopen(append_path.c_str(), "ab");
  if (!out) throw OutputError(append_path + ": cannot write the output: " + std::strerror(errno));
  std::mutex mutex;
  std::atomic<std::size_t> next{0};
  std::size_t written = 0;
  std::size_t failed = 0;
  int write_error = 0;  // errno of the first failed append

  auto worker = [&] {
    // The GPU and CPU profile files this worker has parsed, for its later points: every point
    // of a sweep parses the same profile files otherwise (about a tenth of a small point's
    // time each).
    topo::DeviceProfileFiles profile_files;
    while (true) {
      const std::size_t k = next.fetch_add(1);
      if (k >= todo.size()) return;
      const PointRow row = run_point_row(sweep, todo[k], runner, output_columns, &profile_files);
      const std::string line = row.line + "\n";
      std::lock_guard lock(mutex);
      if (write_error) return;  // the file cannot take more rows: stop
      if (std::fwrite(line.data(), 1, line.size(), out) != line.size() || std::fflush(out) != 0) {
        write_error = errno ? errno : EIO;
        next = todo.size();
        return;
      }
      ++written;
      if (!row.ok) ++failed;
      if (options.on_point) options.on_point(written, todo.size());
      if (options.stop_after && written >= *options.stop_after) std::_Exit(99);  // a simulated interruption
    }
  };
  const unsigned threads = std::max(1u, std::min<unsigned>(options.threads, static_cast<unsigned>(todo.size())));
  std::vector<std::thread> pool;
  for (unsigned t = 1; t < threads; ++t) pool.emplace_back(worker);
  worker();
  for (auto& t : pool) t.join();
  // Rows appended to a file that was removed or replaced meanwhile are lost: said here,
  // before the rows are collected into a result that would lack them.
  struct stat appended {}, named {};
  const bool same = ::fstat(::fileno(out), &appended) == 0 && ::stat(append_path.c_str(), &named) == 0 &&
                    appended.st_dev == named.st_dev && appended.st_ino == named.st_ino;
  const bool closed = std::fclose(out) == 0;
  if (!write_error && closed && !same) {
    throw OutputError(append_path + ": cannot write the output: the file was removed or replaced while the sweep "
                      "appended its rows; they are lost (run the sweep again)");
  }
  if (write_error || !closed) {
    throw OutputError(append_path + ": cannot write the output: " + std::strerror(write_error ? write_error : errno));
  }
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
                      const SweepOptions& options, SweepSummary* summary) {
  check_result_path(options.output_path);
  const OutputLock lock(options.output_path);  // held until the result file is complete
  const std::string header = sweep_header(sweep, output_columns);
  std::set<std::size_t> finished;
  if (options.resume && path_exists(options.output_path)) {
    // Only the rows that are this sweep's are kept (the file is rewritten with them alone,
    // so that a dropped row cannot come back at the final collection); the others rerun.
    const ResultRows found = read_result_rows(options.output_path, sweep, output_columns);
    if (const std::string message = rejected_rows_message(options.output_path, found); !message.empty()) {
      std::cerr << message << "\n";
    }
    write_output_file(options.output_path, csv_text(header, found.rows));
    for (const auto& [index, line] : found.rows) finished.insert(index);
  } else {
    write_output_file(options.output_path, header + "\n");
  }
  const std::size_t failed =
      run_points(sweep, points_to_run(sweep, finished, 0, 1), runner, output_columns, options.output_path, options);
  const SweepSummary collected = collect_sweep_csv(options.output_path, {}, sweep, output_columns);
  if (summary) *summary = collected;
  return failed;
}

}  // namespace dlrmsim::app
