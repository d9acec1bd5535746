#include "common/config.hpp"

#include "common/files.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>

namespace dlrmsim {

namespace {

std::size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::size_t> prev(b.size() + 1), cur(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) prev[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    cur[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t subst = prev[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1);
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, subst});
    }
    std::swap(prev, cur);
  }
  return prev[b.size()];
}

std::string quote_list(const std::vector<std::string>& items) {
  std::string out;
  for (const auto& s : items) {
    if (!out.empty()) out += ", ";
    out += "'" + s + "'";
  }
  return out;
}

}  // namespace

std::optional<std::string> did_you_mean(std::string_view word, const std::vector<std::string>& candidates) {
  std::optional<std::string> best;
  std::size_t best_distance = std::numeric_limits<std::size_t>::max();
  for (const auto& c : candidates) {
    const std::size_t d = edit_distance(word, c);
    if (d < best_distance) {
      best_distance = d;
      best = c;
    }
  }
  // A likely typo: at most a third of the word differs (and at least one edit is allowed).
  if (best && best_distance <= std::max<std::size_t>(1, std::max(word.size(), best->size()) / 3)) return best;
  return std::nullopt;
}

ConfigNode::ConfigNode(YAML::Node node, std::string source_name, std::string key_path)
    : ConfigNode(std::move(node), std::make_shared<const std::string>(std::move(source_name)), std::move(key_path),
                 std::make_shared<std::set<std::string>>()) {}

ConfigNode::ConfigNode(YAML::Node node, std::shared_ptr<const std::string> source, std::string path,
                       std::shared_ptr<std::set<std::string>> seen)
    : node_(std::move(node)), source_(std::move(source)), path_(std::move(path)), seen_(std::move(seen)) {}

ConfigNode ConfigNode::load_file(const std::string& path) { return load_string(read_input_file(path), path); }

ConfigNode ConfigNode::load_string(const std::string& text, const std::string& source_name) {
  try {
    return ConfigNode(YAML::Load(text), source_name);
  } catch (const YAML::Exception& e) {
    throw ConfigError(source_name + ":" + std::to_string(e.mark.line + 1) + ":" + std::to_string(e.mark.column + 1) +
                      ": YAML syntax error: " + e.msg);
  }
}

std::string ConfigNode::source_dir() const {
  const auto parent = std::filesystem::path(*source_).parent_path();
  return parent.string();
}

std::string ConfigNode::where() const {
  std::string out = *source_;
  const YAML::Mark mark = node_.Mark();
  if (mark.line >= 0) out += ":" + std::to_string(mark.line + 1) + ":" + std::to_string(mark.column + 1);
  out += ": ";
  out += path_.empty() ? std::string("(top level)") : path_;
  return out;
}

void ConfigNode::fail(const std::string& message) const { throw ConfigError(where() + ": " + message); }

std::string ConfigNode::key_of(const YAML::Node& key) const {
  if (!key.IsScalar()) {
    ConfigNode(key, source_, path_, seen_).fail("a key must be a plain name, not a list or a mapping");
  }
  return key.Scalar();
}

std::string ConfigNode::child_path(std::string_view key) const {
  return path_.empty() ? std::string(key) : path_ + "." + std::string(key);
}

bool ConfigNode::has(std::string_view key) const {
  if (!node_.IsMap()) return false;
  seen_->insert(std::string(key));
  return static_cast<bool>(node_[std::string(key)]);
}

std::optional<ConfigNode> ConfigNode::optional_child(std::string_view key) const {
  if (!node_.IsMap()) {
    if (node_.IsNull() || !node_.IsDefined()) return std::nullopt;
    fail("expected a mapping of keys to values");
  }
  const std::string k(key);
  seen_->insert(k);
  YAML::Node c = node_[k];
  if (!c) return std::nullopt;
  return ConfigNode(c, source_, child_path(key), std::make_shared<std::set<std::string>>());
}

ConfigNode ConfigNode::child(std::string_view key) const {
  auto c = optional_child(key);
  if (!c) {
    if (!node_.IsMap()) fail("missing required key '" + std::string(key) + "' (expected a mapping)");
    fail("missing required key '" + std::string(key) + "'");
  }
  return *c;
}

std::vector<ConfigNode> ConfigNode::elements() const {
  if (!node_.IsSequence()) fail("expected a list");
  std::vector<ConfigNode> out;
  out.reserve(node_.size());
  for (std::size_t i = 0; i < node_.size(); ++i) {
    out.push_back(ConfigNode(node_[i], source_, child_path(std::to_string(i)), std::make_shared<std::set<std::string>>()));
  }
  return out;
}

std::vector<std::pair<std::string, ConfigNode>> ConfigNode::entries() const {
  if (!node_.IsMap()) fail("expected a mapping of keys to values");
  std::vector<std::pair<std::string, ConfigNode>> out;
  for (auto it = node_.begin(); it != node_.end(); ++it) {
    const std::string key = key_of(it->first);
    seen_->insert(key);
    out.emplace_back(key, ConfigNode(it->second, source_, child_path(key), std::make_shared<std::set<std::string>>()));
  }
  return out;
}

void ConfigNode::finish() const {
  if (!node_.IsMap()) return;
  const std::vector<std::string> known(seen_->begin(), seen_->end());
  for (auto it = node_.begin(); it != node_.end(); ++it) {
    const std::string key = key_of(it->first);
    if (seen_->count(key)) continue;
    ConfigNode at(it->first, source_, child_path(key), seen_);
    std::string msg = "unknown key '" + key + "'";
    if (auto guess = did_you_mean(key, known)) {
      msg += "; did you mean '" + *guess + "'?";
    } else if (!known.empty()) {
      msg += "; expected one of " + quote_list(known);
    }
    at.fail(msg);
  }
}

void ConfigNode::check_positive(double v, bool allow_zero) const {
  if (std::isnan(v) || v < 0.0 || (!allow_zero && v == 0.0)) {
    fail("value " + node_.as<std::string>("?") + " must be " + (allow_zero ? "zero or positive" : "positive"));
  }
}

std::string ConfigNode::get_choice(std::string_view key, const std::vector<std::string>& allowed) const {
  auto c = child(key);
  const auto v = c.as<std::string>();
  if (std::find(allowed.begin(), allowed.end(), v) == allowed.end()) {
    std::string msg = "'" + v + "' is not one of " + quote_list(allowed);
    if (auto guess = did_you_mean(v, allowed)) msg += "; did you mean '" + *guess + "'?";
    c.fail(msg);
  }
  return v;
}

std::string ConfigNode::get_choice_or(std::string_view key, const std::vector<std::string>& allowed,
                                      std::string fallback) const {
  return has(key) ? get_choice(key, allowed) : fallback;
}

template <>
std::string ConfigNode::as<std::string>() const {
  if (!node_.IsScalar()) fail("expected a single value (a string), found a " + std::string(node_.IsMap() ? "mapping" : node_.IsSequence() ? "list" : "null"));
  return node_.Scalar();
}

template <>
bool ConfigNode::as<bool>() const {
  const std::string s = as<std::string>();
  if (s == "true" || s == "yes" || s == "on") return true;
  if (s == "false" || s == "no" || s == "off") return false;
  fail("expected true or false, found '" + s + "'");
}

template <>
double ConfigNode::as<double>() const {
  const std::string s = as<std::string>();
  double v = 0.0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || end != s.data() + s.size() || !std::isfinite(v)) {
    fail("expected a plain number, found '" + s + "'");
  }
  return v;
}

template <>
std::int64_t ConfigNode::as<std::int64_t>() const {
  const std::string s = as<std::string>();
  std::int64_t v = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec == std::errc() && end == s.data() + s.size()) return v;
  // Accept integral values written in scientific notation ("1e9").
  double d = 0.0;
  const auto [dend, dec] = std::from_chars(s.data(), s.data() + s.size(), d);
  if (dec == std::errc() && dend == s.data() + s.size() && std::floor(d) == d && std::fabs(d) < 9.2e18) {
    return static_cast<std::int64_t>(d);
  }
  fail("expected a whole number, found '" + s + "'");
}

template <>
int ConfigNode::as<int>() const {
  const std::int64_t v = as<std::int64_t>();
  if (v < std::numeric_limits<int>::min() || v > std::numeric_limits<int>::max()) {
    fail("value " + std::to_string(v) + " is out of range for a count (at most " +
         std::to_string(std::numeric_limits<int>::max()) + ")");
  }
  return static_cast<int>(v);
}

namespace {
template <class Q>
Q quantity_of(const ConfigNode& n) {
  const std::string s = n.as<std::string>();
  try {
    return parse<Q>(s);
  } catch (const UnitError& e) {
    n.fail(e.what());
  }
}
}  // namespace

template <> Bytes ConfigNode::as<Bytes>() const { return quantity_of<Bytes>(*this); }
template <> Seconds ConfigNode::as<Seconds>() const { return quantity_of<Seconds>(*this); }
template <> Flops ConfigNode::as<Flops>() const { return quantity_of<Flops>(*this); }
template <> BytesPerSecond ConfigNode::as<BytesPerSecond>() const { return quantity_of<BytesPerSecond>(*this); }
template <> FlopsPerSecond ConfigNode::as<FlopsPerSecond>() const { return quantity_of<FlopsPerSecond>(*this); }
template <> Hertz ConfigNode::as<Hertz>() const { return quantity_of<Hertz>(*this); }

void apply_override(YAML::Node& root, std::string_view assignment) {
  const auto eq = assignment.find('=');
  if (eq == std::string_view::npos || eq == 0) {
    throw ConfigError("--set '" + std::string(assignment) + "': expected KEY.PATH=VALUE");
  }
  const std::string key_path(assignment.substr(0, eq));
  const std::string value_text(assignment.substr(eq + 1));
  YAML::Node value;
  try {
    value = YAML::Load(value_text);
  } catch (const YAML::Exception& e) {
    throw ConfigError("--set '" + std::string(assignment) + "': value is not valid YAML: " + e.msg);
  }
  std::vector<std::string> parts;
  std::string part;
  std::stringstream ss(key_path);
  while (std::getline(ss, part, '.')) {
    if (part.empty()) throw ConfigError("--set '" + std::string(assignment) + "': empty key in path '" + key_path + "'");
    parts.push_back(part);
  }
  // yaml-cpp nodes are reference-like: walk with a chain of handles and reassign in place.
  std::vector<YAML::Node> chain{root};
  for (std::size_t i = 0; i + 1 < parts.size(); ++i) {
    YAML::Node cur = chain.back();
    const std::string& k = parts[i];
    if (cur.IsSequence()) {
      std::size_t idx = 0;
      const auto [end, ec] = std::from_chars(k.data(), k.data() + k.size(), idx);
      if (ec != std::errc() || end != k.data() + k.size() || idx >= cur.size()) {
        throw ConfigError("--set '" + key_path + "': '" + k + "' is not an index of the list (it has " +
                          std::to_string(cur.size()) + " elements)");
      }
      chain.push_back(cur[idx]);
    } else {
      if (cur.IsScalar()) {
        throw ConfigError("--set '" + key_path + "': " + (i == 0 ? std::string("the document") : "'" + parts[i - 1] + "'") +
                          " holds a value ('" + cur.Scalar() + "'), not a mapping with a key '" + k + "'");
      }
      if (!cur[k]) cur[k] = YAML::Node(YAML::NodeType::Map);
      chain.push_back(cur[k]);
    }
  }
  YAML::Node last = chain.back();
  const std::string& k = parts.back();
  if (last.IsSequence()) {
    std::size_t idx = 0;
    const auto [end, ec] = std::from_chars(k.data(), k.data() + k.size(), idx);
    if (ec != std::errc() || end != k.data() + k.size() || idx >= last.size()) {
      throw ConfigError("--set '" + key_path + "': '" + k + "' is not an index of the list");
    }
    last[idx] = value;
  } else if (last.IsScalar()) {
    throw ConfigError("--set '" + key_path + "': the key before '" + k + "' holds a value ('" + last.Scalar() +
                      "'), not a mapping");
  } else {
    last[k] = value;
  }
}

}  // namespace dlrmsim
