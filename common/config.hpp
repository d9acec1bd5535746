// Reading YAML configuration with errors that name the file, line, column and key path.
//
// A ConfigNode wraps one yaml-cpp node with where it came from (file and key path). Readers
// ask for the keys they understand (`get`, `get_or`, `child`, ...); every key asked for is
// remembered, and `finish()` then rejects any key nobody asked for with a "did you mean"
// suggestion drawn from the keys that were asked for. That way each parameter is declared
// exactly once, next to the code that reads it, and a misspelt key can never be silently
// ignored (ASTRA-sim's silent defaults are the failure this prevents).
//
// Error format (one line): `FILE:LINE:COL: KEY.PATH: what was wrong; expected ...`.
#pragma once

#include <yaml-cpp/yaml.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "common/units.hpp"

namespace dlrmsim {

/// Bad input: a message naming file, line, column, key path and the expected form.
class ConfigError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// The closest candidate to `word` by edit distance (an adjacent swap is one edit), if it is
/// close enough to be a likely typo: at most a third of the longer word's characters differ.
std::optional<std::string> did_you_mean(std::string_view word, const std::vector<std::string>& candidates);

/// The deepest nesting of lists and mappings a file may have. dlrmsim's files need fewer
/// than ten levels; yaml-cpp and every reader here recurse once per level, so a bound keeps
/// a hostile file ("[[[[...") from exhausting the stack.
inline constexpr int kMaxYamlDepth = 256;

/// Parses YAML text into a tree, refusing what yaml-cpp would accept silently or report
/// poorly: a control character (NUL included; a UTF-16 file is full of them), nesting deeper
/// than kMaxYamlDepth, and a key given twice in one mapping (yaml-cpp keeps the first and
/// drops the second). Every message is located: "SOURCE:LINE:COL: ...".
YAML::Node parse_yaml(const std::string& text, const std::string& source_name);

/// A value that did not come from the text of the file it sits in: an override given with
/// `--set` or in a `set:` list. Nodes at or under `key_path` (as ConfigNode::path() names
/// them) are located by `origin` ("--set 'run.steps=4'") instead of a line of the file, and
/// their key path is shown with `shown_prefix` in front ("model." when the override reached
/// into a referenced model file).
struct OverrideOrigin {
  std::string key_path;
  std::string origin;
  std::string shown_prefix;
};

/// The key paths readers asked for, collected across files: a test loads every shipped
/// configuration with one and checks each path against the parameter registry
/// (common/parameters.hpp). Paths are as `--set` names them ("platform.cluster.groups.0.count").
using KeyLog = std::set<std::string>;

class ConfigNode {
 public:
  /// Loads a YAML file; syntax errors become ConfigError with the file's line and column.
  static ConfigNode load_file(const std::string& path);
  /// Parses YAML text; `source_name` stands for the file name in messages.
  static ConfigNode load_string(const std::string& text, const std::string& source_name);
  /// Wraps an already parsed node (for example one edited by apply_override); `overrides`
  /// say which of its values came from overrides, so that errors point at them.
  ConfigNode(YAML::Node node, std::string source_name, std::string key_path = {},
             std::vector<OverrideOrigin> overrides = {});

  /// This node (and every node reached from it) with each key a reader asks for recorded in
  /// `log` as `prefix` + its key path; a null log records nothing. Loaders that read a
  /// referenced file pass their own log on with `key_log()`, so that one log covers a
  /// scenario with its platform, model and software files.
  [[nodiscard]] ConfigNode recording_into(std::shared_ptr<KeyLog> log, std::string prefix) const;
  [[nodiscard]] const std::shared_ptr<KeyLog>& key_log() const { return source_->log; }

  [[nodiscard]] const std::string& source() const { return source_->name; }
  /// Directory of the source file ("" for strings), to resolve relative paths.
  [[nodiscard]] std::string source_dir() const;
  [[nodiscard]] const std::string& path() const { return path_; }
  [[nodiscard]] const YAML::Node& yaml() const { return node_; }
  [[nodiscard]] bool is_map() const { return node_.IsMap(); }
  [[nodiscard]] bool is_sequence() const { return node_.IsSequence(); }
  [[nodiscard]] bool is_scalar() const { return node_.IsScalar(); }

  /// Whether the mapping has `key` (marks the key as known).
  bool has(std::string_view key) const;
  /// The child at `key`; an error if missing.
  ConfigNode child(std::string_view key) const;
  std::optional<ConfigNode> optional_child(std::string_view key) const;
  /// Elements of a sequence (an error if this is not a sequence).
  std::vector<ConfigNode> elements() const;
  /// Keys of a mapping in file order, with their values (all marked as known).
  std::vector<std::pair<std::string, ConfigNode>> entries() const;

  /// This node's value converted to T. T is std::string, bool, double, std::int64_t, int, or a
  /// Quantity (Bytes, Seconds, BytesPerSecond, Flops, FlopsPerSecond, Hertz: a string with a unit).
  template <class T>
  T as() const;
  template <class T>
  T get(std::string_view key) const { return child(key).as<T>(); }
  template <class T>
  T get_or(std::string_view key, T fallback) const {
    auto c = optional_child(key);
    return c ? c->as<T>() : fallback;
  }
  template <class T>
  std::optional<T> get_optional(std::string_view key) const {
    auto c = optional_child(key);
    return c ? std::optional<T>(c->as<T>()) : std::nullopt;
  }
  /// Like get, but the value must be > 0 (or >= 0 when allow_zero).
  template <class T>
  T get_positive(std::string_view key, bool allow_zero = false) const {
    auto c = child(key);
    T v = c.as<T>();
    c.check_positive(magnitude(v), allow_zero);
    return v;
  }
  template <class T>
  T get_positive_or(std::string_view key, T fallback, bool allow_zero = false) const {
    auto c = optional_child(key);
    if (!c) return fallback;
    T v = c->as<T>();
    c->check_positive(magnitude(v), allow_zero);
    return v;
  }
  /// One of `allowed` (with a did-you-mean on a near miss).
  std::string get_choice(std::string_view key, const std::vector<std::string>& allowed) const;
  std::string get_choice_or(std::string_view key, const std::vector<std::string>& allowed,
                            std::string fallback) const;

  /// Rejects keys of this mapping that no reader asked for.
  void finish() const;

  /// Throws ConfigError located at this node: "FILE:LINE:COL: PATH: message".
  [[noreturn]] void fail(const std::string& message) const;
  /// Location prefix "FILE:LINE:COL: PATH" used by fail.
  [[nodiscard]] std::string where() const;

  void check_positive(double v, bool allow_zero) const;

 private:
  template <class Q>
  static double magnitude(Q q) {
    if constexpr (std::is_arithmetic_v<Q>) {
      return static_cast<double>(q);
    } else {
      return q.value();
    }
  }
  struct Source {
    std::string name;
    std::vector<OverrideOrigin> overrides;
    std::shared_ptr<KeyLog> log;  // where asked-for keys are recorded (null: nowhere)
    std::string log_prefix;       // put before this file's key paths in the log
  };
  /// Marks `key` as known and records it in the key log, if any.
  void ask(std::string_view key) const;
  ConfigNode(YAML::Node node, std::shared_ptr<const Source> source, std::string path,
             std::shared_ptr<std::set<std::string>> seen);
  /// The override this node's value came from, if any (the last one applied at or above it).
  const OverrideOrigin* override_origin() const;
  std::string child_path(std::string_view key) const;
  /// The text of a mapping key; a ConfigError when the key is not a scalar.
  std::string key_of(const YAML::Node& key) const;

  YAML::Node node_;
  std::shared_ptr<const Source> source_;
  std::string path_;
  std::shared_ptr<std::set<std::string>> seen_;  // keys of this mapping asked for by readers
};

// The conversions ConfigNode::as<T> supports (defined in config.cpp).
template <> std::string ConfigNode::as<std::string>() const;
template <> bool ConfigNode::as<bool>() const;
template <> double ConfigNode::as<double>() const;
template <> std::int64_t ConfigNode::as<std::int64_t>() const;
template <> int ConfigNode::as<int>() const;
template <> Bytes ConfigNode::as<Bytes>() const;
template <> Seconds ConfigNode::as<Seconds>() const;
template <> Flops ConfigNode::as<Flops>() const;
template <> BytesPerSecond ConfigNode::as<BytesPerSecond>() const;
template <> FlopsPerSecond ConfigNode::as<FlopsPerSecond>() const;
template <> Hertz ConfigNode::as<Hertz>() const;

/// One "a.b.c=value" assignment (the `--set` option, `set:` lists and sweep axes), parsed.
struct Override {
  std::string text;               // as given: "model.global_batch_size=65536"
  std::vector<std::string> path;  // {"model", "global_batch_size"}
  YAML::Node value;               // the value parsed as YAML: "8", "true", "[1, 2]", "80 GiB"
  /// The key path from element `first` on, joined with dots ("global_batch_size" for 1).
  [[nodiscard]] std::string key_path(std::size_t first = 0) const;
};

/// Parses "a.b.c=value". ConfigError (naming the assignment) for a missing '=', an empty key
/// ("a..b", ".a", "a."), or a value that is not valid YAML.
Override parse_override(std::string_view assignment);

/// Sets the value at o.path[first..] in `root`; a null value ("~") removes the key from its
/// mapping instead (a sweep point that leaves a key unset). Intermediate mappings are created; a sequence
/// element is addressed by its index ("tables.3.rows"). ConfigError naming the assignment
/// when the path runs through a plain value or past the end of a list. Returns the key path
/// (from `first`) of the outermost node it created or replaced: what the override accounts
/// for (OverrideOrigin::key_path).
std::string apply_override(YAML::Node& root, const Override& o, std::size_t first = 0);
/// parse_override, then apply_override.
void apply_override(YAML::Node& root, std::string_view assignment);

}  // namespace dlrmsim
