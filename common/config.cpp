#include "common/config.hpp"

#include "common/files.hpp"

#include <yaml-cpp/depthguard.h>
#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/parser.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <cstdio>
#include <map>
#include <sstream>

namespace dlrmsim {

namespace {

/// Edits (insert, delete, replace a character, or swap two adjacent ones: the optimal string
/// alignment distance) that turn `a` into `b`; "mdoe" is one edit from "mode".
std::size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::size_t> before(b.size() + 1), prev(b.size() + 1), cur(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) prev[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    cur[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t subst = prev[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1);
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, subst});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) cur[j] = std::min(cur[j], before[j - 2] + 1);
    }
    std::swap(before, prev);
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

namespace {

std::string location(const std::string& source, const YAML::Mark& mark) {
  return source + ":" + std::to_string(mark.line + 1) + ":" + std::to_string(mark.column + 1);
}

std::string control_character_name(unsigned char c) {
  static constexpr const char* kNames[32] = {"NUL", "SOH", "STX", "ETX", "EOT", "ENQ", "ACK", "BEL", "BS",  "TAB", "LF",
                                             "VT",  "FF",  "CR",  "SO",  "SI",  "DLE", "DC1", "DC2", "DC3", "DC4", "NAK",
                                             "SYN", "ETB", "CAN", "EM",  "SUB", "ESC", "FS",  "GS",  "RS",  "US"};
  char hex[8];
  std::snprintf(hex, sizeof hex, "0x%02X", c);
  return std::string(hex) + " (" + (c < 32 ? kNames[c] : "DEL") + ")";
}

// YAML allows no C0 control character but tab, line feed and carriage return, nor DEL. yaml-cpp
// does not say so: it takes NUL bytes near the start for UTF-16 or UTF-32 and then reports
// whatever the misread text looks like ("unknown escape character: m").
void refuse_control_characters(const std::string& text, const std::string& source) {
  int line = 1, column = 1;
  for (const char ch : text) {
    const auto c = static_cast<unsigned char>(ch);
    if ((c < 0x20 && c != '\t' && c != '\n' && c != '\r') || c == 0x7F) {
      std::string msg = source + ":" + std::to_string(line) + ":" + std::to_string(column) + ": control character " +
                        control_character_name(c) + " in the text; a configuration file is plain UTF-8 text";
      if (c == 0) msg += " (a UTF-16 or UTF-32 file is full of NUL bytes: save it as UTF-8)";
      throw ConfigError(msg);
    }
    if (c == '\n') {
      ++line;
      column = 1;
    } else {
      ++column;
    }
  }
}

// `text` with each control character (C0, DEL, C1) shown as \xHH, for a message that quotes
// text from a file.
std::string printable(const std::string& text) {
  std::string out;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    const bool c1 = c == 0xC2 && i + 1 < text.size() && static_cast<unsigned char>(text[i + 1]) >= 0x80 &&
                    static_cast<unsigned char>(text[i + 1]) <= 0x9F;
    if (c < 0x20 || c == 0x7F || c1) {
      char hex[8];
      std::snprintf(hex, sizeof hex, "\\x%02X", c1 ? static_cast<unsigned>(static_cast<unsigned char>(text[++i])) : c);
      out += hex;
    } else {
      out += text[i];
    }
  }
  return out;
}

// A control character written as an escape in a quoted scalar ("\e]52;...\a", "\x1b[2K",
// "\u009b"): the raw text holds none (refuse_control_characters passes it), but the decoded
// value would reach a terminal, a CSV row or an HTML page as the character itself, where an
// escape sequence can rewrite the screen or the clipboard. Tab and line breaks are text.
void refuse_decoded_control_characters(const YAML::Node& scalar, const std::string& source, const std::string& path) {
  const std::string& text = scalar.Scalar();
  for (std::size_t i = 0; i < text.size(); ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    const bool c1 = c == 0xC2 && i + 1 < text.size() && static_cast<unsigned char>(text[i + 1]) >= 0x80 &&
                    static_cast<unsigned char>(text[i + 1]) <= 0x9F;
    if ((c < 0x20 && c != '\t' && c != '\n' && c != '\r') || c == 0x7F || c1) {
      char code[16];
      std::snprintf(code, sizeof code, "U+%04X", c1 ? static_cast<unsigned>(static_cast<unsigned char>(text[i + 1])) : c);
      const std::string name = c1 ? std::string(code) + " (a C1 control character)" : control_character_name(c);
      throw ConfigError(location(source, scalar.Mark()) + ": " + (path.empty() ? std::string("(top level)") : printable(path)) +
                        ": control character " + name + " written as an escape in a quoted value; a name or value "
                        "holds printable text only (an escape sequence would act on the terminal it is printed to)");
    }
  }
}

std::string nesting_message() {
  return "lists and mappings nested more than " + std::to_string(kMaxYamlDepth) +
         " levels deep; dlrmsim's files need fewer than ten";
}

// Every mapping once (aliases share their target, which is checked once): a key given twice
// is an error naming both places; nesting deeper than kMaxYamlDepth is refused.
void check_tree(const YAML::Node& root, const std::string& source) {
  struct Item {
    YAML::Node node;
    std::string path;
    int depth;
  };
  std::set<std::pair<std::size_t, int>> visited;  // (text position, node type) of containers
  std::vector<Item> stack{{root, "", 0}};
  const auto child_path = [](const std::string& parent, const std::string& key) {
    return parent.empty() ? key : parent + "." + key;
  };
  while (!stack.empty()) {
    Item item = std::move(stack.back());
    stack.pop_back();
    const YAML::Node& n = item.node;
    if (n.IsScalar()) refuse_decoded_control_characters(n, source, item.path);
    if (!n.IsMap() && !n.IsSequence()) continue;
    const YAML::Mark mark = n.Mark();
    if (item.depth >= kMaxYamlDepth) {  // depth 0 is the first level
      throw ConfigError(location(source, mark) + ": " + nesting_message());
    }
    if (mark.pos >= 0 && !visited.emplace(static_cast<std::size_t>(mark.pos), static_cast<int>(n.Type())).second) {
      continue;
    }
    if (n.IsSequence()) {
      for (std::size_t i = n.size(); i-- > 0;) stack.push_back({n[i], child_path(item.path, std::to_string(i)), item.depth + 1});
      continue;
    }
    std::map<std::string, YAML::Mark> keys;
    std::vector<Item> children;
    for (auto it = n.begin(); it != n.end(); ++it) {
      std::string key = it->first.IsScalar() ? it->first.Scalar() : "?";
      if (it->first.IsScalar()) {
        const auto [first, inserted] = keys.emplace(key, it->first.Mark());
        if (!inserted) {
          throw ConfigError(location(source, it->first.Mark()) + ": " + printable(child_path(item.path, key)) +
                            ": duplicate key '" + printable(key) + "' (first at line " + std::to_string(first->second.line + 1) + ", column " +
                            std::to_string(first->second.column + 1) + ")");
        }
      }
      children.push_back({it->first, child_path(item.path, key), item.depth + 1});
      children.push_back({it->second, child_path(item.path, key), item.depth + 1});
    }
    for (auto c = children.rbegin(); c != children.rend(); ++c) stack.push_back(std::move(*c));
  }
}

// Aliases repeat their target wherever they appear: ten levels of ten aliases each are 10^10
// nodes for readers to walk although the text is a few hundred bytes ("billion laughs").
// The walk counts every node as readers would see it, each distinct container once with
// its expanded size remembered, and refuses a tree that aliases make more than
// kMaxAliasExpansion nodes larger than its text.
constexpr std::uint64_t kMaxAliasExpansion = 1'000'000;

// An alias inside its own anchor's node (`a: &a [*a]`) makes the tree a cycle: its expanded
// size is infinite and every reader that walks it would recurse forever. A container is
// marked while its children are counted; meeting a marked container again is that cycle.
constexpr std::uint64_t kExpanding = std::numeric_limits<std::uint64_t>::max();

struct ExpansionWalk {
  const std::string& source;
  std::map<std::pair<std::size_t, int>, std::uint64_t> memo;  // (text position, type) -> size
  std::uint64_t distinct = 0;

  std::uint64_t size_of(const YAML::Node& n) {
    if (!n.IsMap() && !n.IsSequence()) {
      ++distinct;
      return 1;
    }
    const YAML::Mark mark = n.Mark();
    const std::pair<std::size_t, int> key{static_cast<std::size_t>(std::max(mark.pos, 0)), static_cast<int>(n.Type())};
    if (mark.pos >= 0) {
      const auto [it, fresh] = memo.emplace(key, kExpanding);
      if (!fresh && it->second == kExpanding) {
        throw ConfigError(location(source, mark) +
                          ": alias cycle: an alias (*name) inside the node its anchor (&name) names repeats that node "
                          "within itself without end; expected an alias after its anchor's node, not inside it");
      }
      if (!fresh) return it->second;
    }
    ++distinct;
    std::uint64_t total = 1;
    const auto add = [&](std::uint64_t v) { total = std::min<std::uint64_t>(total + v, std::uint64_t{1} << 62); };
    if (n.IsSequence()) {
      for (std::size_t i = 0; i < n.size(); ++i) add(size_of(n[i]));
    } else {
      for (auto it = n.begin(); it != n.end(); ++it) {
        add(size_of(it->first));
        add(size_of(it->second));
      }
    }
    if (mark.pos >= 0) memo[key] = total;
    return total;
  }
};

// The most nodes (values, lists, mappings and aliases, as written) one YAML text may hold:
// 2^20. The largest shipped file holds a few thousand; a parsed node takes about 300 bytes, so
// the bound keeps a file from taking more than about 300 MB before any reader sees it.
constexpr std::uint64_t kMaxYamlNodes = std::uint64_t{1} << 20;

// Counts the nodes of the text's first document as the parser meets them, building nothing,
// and stops at the first node past kMaxYamlNodes; a second document is refused where it
// starts. yaml-cpp's tree takes about 300 bytes per node, so the count is taken before it.
class NodeCounter : public YAML::EventHandler {
 public:
  explicit NodeCounter(const std::string& source) : source_(source) {}

  void OnDocumentStart(const YAML::Mark& mark) override {
    if (++documents_ > 1) {
      throw ConfigError(location(source_, mark) +
                        ": a second YAML document (after '---'); a configuration file holds one document, "
                        "expected nothing after the first");
    }
  }
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark& mark, YAML::anchor_t) override { count(mark); }
  void OnAlias(const YAML::Mark& mark, YAML::anchor_t) override { count(mark); }
  void OnScalar(const YAML::Mark& mark, const std::string&, YAML::anchor_t, const std::string&) override { count(mark); }
  void OnSequenceStart(const YAML::Mark& mark, const std::string&, YAML::anchor_t, YAML::EmitterStyle::value) override {
    count(mark);
  }
  void OnSequenceEnd() override {}
  void OnMapStart(const YAML::Mark& mark, const std::string&, YAML::anchor_t, YAML::EmitterStyle::value) override {
    count(mark);
  }
  void OnMapEnd() override {}

 private:
  void count(const YAML::Mark& mark) {
    if (++nodes_ > kMaxYamlNodes) {
      throw ConfigError(location(source_, mark) + ": more than " + std::to_string(kMaxYamlNodes) +
                        " values, lists and mappings in one file (too large); dlrmsim's files hold a few thousand");
    }
  }
  const std::string& source_;
  int documents_ = 0;
  std::uint64_t nodes_ = 0;
};

}  // namespace

YAML::Node parse_yaml(const std::string& text, const std::string& source_name) {
  refuse_control_characters(text, source_name);
  YAML::Node root;
  try {
    std::istringstream in(text);
    YAML::Parser events(in);
    NodeCounter counter(source_name);
    while (events.HandleNextDocument(counter)) {
    }
    root = YAML::Load(text);
  } catch (const YAML::DeepRecursion& e) {
    throw ConfigError(location(source_name, e.mark) + ": " + nesting_message());
  } catch (const YAML::Exception& e) {
    // yaml-cpp takes a key of more than 1024 characters on one line for no key at all, and
    // then reports its ':' as an "illegal map value": said as what it is.
    if (e.msg == YAML::ErrorMsg::MAP_VALUE && e.mark.pos > 0 && static_cast<std::size_t>(e.mark.pos) <= text.size()) {
      const std::size_t colon = static_cast<std::size_t>(e.mark.pos);
      const std::size_t line_start = text.rfind('\n', colon - 1) == std::string::npos ? 0 : text.rfind('\n', colon - 1) + 1;
      std::size_t key_start = line_start;
      while (key_start < colon && (text[key_start] == ' ' || text[key_start] == '-' || text[key_start] == '?')) ++key_start;
      const std::size_t length = colon - key_start;
      if (length > 1024) {
        throw ConfigError(location(source_name, e.mark) + ": a key of " + std::to_string(length) +
                          " characters; a YAML key on one line has at most 1024 characters: write it shorter");
      }
    }
    throw ConfigError(location(source_name, e.mark) + ": YAML syntax error: " + e.msg);
  }
  check_tree(root, source_name);  // bounds the depth, so the expansion walk may recurse
  ExpansionWalk walk{source_name, {}, 0};
  const std::uint64_t expanded = walk.size_of(root);
  const std::uint64_t distinct = walk.distinct;
  if (expanded > distinct + kMaxAliasExpansion) {
    throw ConfigError(source_name + ": aliases (*name) repeat " + std::to_string(distinct) + " nodes into " +
                      std::to_string(expanded) + "; at most " + std::to_string(kMaxAliasExpansion) +
                      " more nodes than the text holds are accepted");
  }
  return root;
}

ConfigNode::ConfigNode(YAML::Node node, std::string source_name, std::string key_path,
                       std::vector<OverrideOrigin> overrides)
    : ConfigNode(std::move(node), std::make_shared<const Source>(Source{std::move(source_name), std::move(overrides), nullptr, ""}),
                 std::move(key_path), std::make_shared<std::set<std::string>>()) {}

ConfigNode::ConfigNode(YAML::Node node, std::shared_ptr<const Source> source, std::string path,
                       std::shared_ptr<std::set<std::string>> seen)
    : node_(std::move(node)), source_(std::move(source)), path_(std::move(path)), seen_(std::move(seen)) {}

ConfigNode ConfigNode::load_file(const std::string& path) { return load_string(read_input_file(path), path); }

ConfigNode ConfigNode::load_string(const std::string& text, const std::string& source_name) {
  return ConfigNode(parse_yaml(text, source_name), source_name);
}

ConfigNode ConfigNode::recording_into(std::shared_ptr<KeyLog> log, std::string prefix) const {
  Source source = *source_;
  source.log = std::move(log);
  source.log_prefix = std::move(prefix);
  return ConfigNode(node_, std::make_shared<const Source>(std::move(source)), path_, seen_);
}

void ConfigNode::ask(std::string_view key) const {
  seen_->insert(std::string(key));
  if (source_->log) source_->log->insert(source_->log_prefix + child_path(key));
}

std::string ConfigNode::source_dir() const {
  const auto parent = std::filesystem::path(source_->name).parent_path();
  return parent.string();
}

const OverrideOrigin* ConfigNode::override_origin() const {
  const OverrideOrigin* found = nullptr;
  for (const OverrideOrigin& o : source_->overrides) {
    const std::string& k = o.key_path;
    const bool under = k.empty() || path_ == k ||
                       (path_.size() > k.size() && path_.compare(0, k.size(), k) == 0 && path_[k.size()] == '.');
    if (under) found = &o;  // the last applied wins: it replaced what earlier ones set
  }
  return found;
}

std::string ConfigNode::where() const {
  if (const OverrideOrigin* o = override_origin()) {
    const std::string shown = o->shown_prefix + path_;
    return o->origin + ": " + (shown.empty() ? std::string("(top level)") : shown);
  }
  std::string out = source_->name;
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
  ask(key);
  return static_cast<bool>(node_[std::string(key)]);
}

std::optional<ConfigNode> ConfigNode::optional_child(std::string_view key) const {
  if (!node_.IsMap()) {
    if (node_.IsNull() || !node_.IsDefined()) return std::nullopt;
    fail("expected a mapping of keys to values");
  }
  const std::string k(key);
  ask(k);
  YAML::Node c = node_[k];
  if (!c) return std::nullopt;
  return ConfigNode(c, source_, child_path(key), std::make_shared<std::set<std::string>>());
}

ConfigNode ConfigNode::child(std::string_view key) const {
  auto c = optional_child(key);
  if (!c) {
    if (!node_.IsMap()) fail("missing required key '" + std::string(key) + "' (expected a mapping)");
    // A key present that nobody asked for and that is close to the missing one is likely it, misspelt.
    std::vector<std::string> present;
    for (auto it = node_.begin(); it != node_.end(); ++it) {
      if (it->first.IsScalar() && !seen_->count(it->first.Scalar())) present.push_back(it->first.Scalar());
    }
    if (auto guess = did_you_mean(key, present)) {
      fail("missing required key '" + std::string(key) + "'; found '" + printable(*guess) + "': did you mean '" +
           std::string(key) + "'?");
    }
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
    ask(key);
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
  if (ec == std::errc::result_out_of_range && end == s.data() + s.size()) {
    fail("number '" + s + "' is out of range; a number must be 0 or between 1e-307 and 1e308 in magnitude");
  }
  if (ec == std::errc() && end == s.data() + s.size() && !std::isfinite(v)) {
    fail("'" + s + "' is not a finite number; expected a plain number such as 0.5");
  }
  if (ec != std::errc() || end != s.data() + s.size()) fail("expected a plain number, found '" + s + "'");
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
  const bool number = (dec == std::errc() || dec == std::errc::result_out_of_range) && dend == s.data() + s.size();
  if (number && dec == std::errc() && std::floor(d) == d && std::fabs(d) < 9.2e18) {
    return static_cast<std::int64_t>(d);
  }
  // A number too close to zero for a double ("1e-400") is out of range the other way: no
  // whole number but 0 is that small.
  const std::size_t exponent = s.find_last_of("eE");
  if (number && dec == std::errc::result_out_of_range && exponent != std::string::npos && exponent + 1 < s.size() &&
      s[exponent + 1] == '-') {
    fail("'" + s + "' is closer to zero than a number can be (below 1e-307 in magnitude) and not a whole number; "
         "expected a whole number");
  }
  if (number && (ec == std::errc::result_out_of_range || dec == std::errc::result_out_of_range || std::fabs(d) >= 9.2e18)) {
    fail("whole number '" + s + "' is out of range (at most " + std::to_string(std::numeric_limits<std::int64_t>::max()) +
         " in magnitude)");
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

std::string Override::key_path(std::size_t first) const {
  std::string out;
  for (std::size_t i = first; i < path.size(); ++i) out += (i > first ? "." : "") + path[i];
  return out;
}

Override parse_override(std::string_view assignment) {
  Override o;
  o.text = std::string(assignment);
  const std::string where = "--set '" + printable(o.text) + "'";
  const auto eq = assignment.find('=');
  if (eq == std::string_view::npos || eq == 0) throw ConfigError(where + ": expected KEY.PATH=VALUE");
  const std::string key_path(assignment.substr(0, eq));
  // Split on every dot, keeping empty names, so that ".a", "a." and "a..b" are all refused.
  std::size_t begin = 0;
  while (true) {
    const std::size_t dot = key_path.find('.', begin);
    const std::string part = key_path.substr(begin, dot == std::string::npos ? std::string::npos : dot - begin);
    if (part.empty()) {
      throw ConfigError(where + ": empty name in the key path '" + key_path +
                        "' (a leading, trailing or doubled '.'); expected names joined by single dots, such as run.steps");
    }
    o.path.push_back(part);
    if (dot == std::string::npos) break;
    begin = dot + 1;
  }
  o.value = parse_yaml(std::string(assignment.substr(eq + 1)), where);
  return o;
}

std::string apply_override(YAML::Node& root, const Override& o, std::size_t first) {
  const std::string where = "--set '" + printable(o.text) + "'";
  if (first >= o.path.size()) throw ConfigError(where + ": expected KEY.PATH=VALUE");
  // A list's element by its index, or by its `name` (the one element whose name is k: a
  // device, a link group or a cluster group needs no counting). `at`: the path's position of k.
  const auto index_of = [&](const YAML::Node& list, std::size_t at) {
    const std::string& k = o.path[at];
    std::size_t idx = 0;
    const auto [end, ec] = std::from_chars(k.data(), k.data() + k.size(), idx);
    if (ec == std::errc() && end == k.data() + k.size() && idx < list.size()) return idx;
    std::vector<std::size_t> named;
    std::vector<std::string> names;
    for (std::size_t i = 0; i < list.size(); ++i) {
      const YAML::Node name = list[i].IsMap() ? list[i]["name"] : YAML::Node();
      if (!name || !name.IsScalar()) continue;
      if (name.Scalar() == k) named.push_back(i);
      if (std::find(names.begin(), names.end(), name.Scalar()) == names.end()) names.push_back(name.Scalar());
    }
    if (named.size() == 1) return named.front();
    std::string list_path;
    for (std::size_t i = first; i < at; ++i) list_path += (i > first ? "." : "") + o.path[i];
    std::string known;
    for (const auto& n : names) known += (known.empty() ? "" : ", ") + n;
    throw ConfigError(where + ": '" + k + "' " +
                      (named.size() > 1 ? "names " + std::to_string(named.size()) + " elements"
                                        : std::string("is neither an index nor the name of an element")) +
                      " of the list at '" + list_path + "': give an index (it has " + std::to_string(list.size()) +
                      " elements, numbered from 0)" + (known.empty() ? std::string() : " or one of the names " + known));
  };
  // yaml-cpp nodes are reference-like: walk with a chain of handles and reassign in place.
  std::vector<YAML::Node> chain{root};
  std::size_t outermost = o.path.size() - 1;  // the outermost key created or replaced
  for (std::size_t i = first; i + 1 < o.path.size(); ++i) {
    YAML::Node cur = chain.back();
    const std::string& k = o.path[i];
    if (cur.IsSequence()) {
      chain.push_back(cur[index_of(cur, i)]);
    } else {
      if (cur.IsScalar()) {
        throw ConfigError(where + ": " + (i == first ? std::string("the document") : "'" + o.path[i - 1] + "'") +
                          " holds a value ('" + cur.Scalar() + "'), not a mapping with a key '" + k + "'");
      }
      if (!cur[k]) {
        cur[k] = YAML::Node(YAML::NodeType::Map);
        outermost = std::min(outermost, i);
      }
      chain.push_back(cur[k]);
    }
  }
  YAML::Node last = chain.back();
  const std::string& k = o.path.back();
  if (last.IsSequence()) {
    last[index_of(last, o.path.size() - 1)] = o.value;
  } else if (last.IsScalar()) {
    throw ConfigError(where + ": " + (o.path.size() - first > 1 ? "'" + o.path[o.path.size() - 2] + "'" : std::string("the document")) +
                      " holds a value ('" + last.Scalar() + "'), not a mapping with a key '" + k + "'");
  } else if (o.value.IsNull()) {
    // A null value (KEY=~) removes the key: a sweep point can leave a key unset.
    last.remove(k);
  } else {
    last[k] = o.value;
  }
  std::string created;
  for (std::size_t i = first; i <= outermost; ++i) created += (i > first ? "." : "") + o.path[i];
  return created;
}

void apply_override(YAML::Node& root, std::string_view assignment) { apply_override(root, parse_override(assignment)); }

}  // namespace dlrmsim
