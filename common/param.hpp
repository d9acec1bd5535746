// Typed configuration parameters: one declaration that the reader consumes and that writes
// the parameter registry's row (common/parameters.hpp), so that a key's name, unit, default,
// valid range and meaning are written once and the documentation cannot drift from the checks.
//
//   const Param<int> kWorkers{.key_path = "software.host.loader.workers", .unit = "count",
//                             .fallback = 1, .range = {.min = Bound<int>{0, false},
//                             .max = Bound<int>{1024, true, "expected at most 1024 loader threads"}},
//                             .meaning = "Loader threads per trainer."};
//   s.loader_workers = kWorkers.read(loader);   // 1 when absent; located errors out of range
//   kWorkers.row();                             // default "1", range "> 0, <= 1024"
//
// `read` asks the parent mapping for the key path's last segment (so the key log and
// finish() see it as ConfigNode's own getters would) and gives the messages the readers gave
// before: a broken lower bound of 0 is ConfigNode::check_positive's "value V must be positive"
// (or "zero or positive"); a bound with its own message fails with that message, located at
// the value. A Choice maps the words of a key to values (enums, bools, optionals).
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "common/config.hpp"
#include "common/parameters.hpp"
#include "common/units.hpp"

namespace dlrmsim {

/// A registry row that owns its text (a Param's default and range are written at run time).
struct ParameterRow {
  std::string key_path, unit, default_value, range, meaning;
  ParameterRow(std::string_view k, std::string_view u, std::string d, std::string r, std::string_view m)
      : key_path(k), unit(u), default_value(std::move(d)), range(std::move(r)), meaning(m) {}
  /// A row written by hand (a section such as "software.host": "the defaults below").
  ParameterRow(const Parameter& p)  // NOLINT(google-explicit-constructor): tables mix both
      : ParameterRow(p.key_path, p.unit, std::string(p.default_value), std::string(p.range), p.meaning) {}
};

/// The rows of one configuration kind, viewed as the registry's Parameters.
class ParameterTable {
 public:
  explicit ParameterTable(std::vector<ParameterRow> rows);
  ParameterTable(const ParameterTable&) = delete;
  ParameterTable& operator=(const ParameterTable&) = delete;
  [[nodiscard]] std::span<const Parameter> parameters() const { return views_; }

 private:
  std::vector<ParameterRow> rows_;
  std::vector<Parameter> views_;  // into rows_
};

/// How the registry writes a typed value: "25 MiB", "5.3 us", "0.2", "1e18", "true"; text as
/// it is, or in quotes when empty or holding a space ("\"\"", "\"torchrec-fbgemm (modified)\"").
std::string param_text(bool v);
std::string param_text(int v);
std::string param_text(std::int64_t v);
std::string param_text(double v);
std::string param_text(const std::string& v);
std::string param_text(Bytes v);
std::string param_text(Seconds v);
std::string param_text(BytesPerSecond v);

/// One end of a valid range. `message`: the error when a value breaks it (empty: for a lower
/// bound of 0, or of 1 for whole numbers, check_positive's "value V must be positive" / "zero
/// or positive"; otherwise "value V must be >= B", with the bound's comparison).
template <class T>
struct Bound {
  T value;
  bool inclusive = true;
  std::string_view message = {};
};

template <class T>
struct Range {
  std::optional<Bound<T>> min = {};
  std::optional<Bound<T>> max = {};
  bool interval = false;       // written "[0, 1)" rather than ">= 0, < 1"
  std::string_view note = {};  // appended as written: "; tiers must include host_dram" after ">= 0"
};

namespace param_detail {

template <class T>
double magnitude(const T& v) {
  if constexpr (std::is_arithmetic_v<T>) {
    return static_cast<double>(v);
  } else {
    return v.value();
  }
}

/// A bound's value as a range writes it: "0" for zero whatever the unit, else param_text.
template <class T>
std::string bound_text(const T& v) {
  return magnitude(v) == 0.0 ? std::string("0") : param_text(v);
}

/// "> 0, <= 1024", "[0, 1)", "" (no bound), with the range's note.
template <class T>
std::string range_text(const Range<T>& r) {
  std::string out;
  if (r.interval && r.min && r.max) {
    out = std::string(r.min->inclusive ? "[" : "(") + bound_text(r.min->value) + ", " + bound_text(r.max->value) +
          (r.max->inclusive ? "]" : ")");
  } else {
    if (r.min) out = std::string(r.min->inclusive ? ">= " : "> ") + bound_text(r.min->value);
    if (r.max) out += (out.empty() ? "" : ", ") + std::string(r.max->inclusive ? "<= " : "< ") + bound_text(r.max->value);
  }
  out += r.note;
  return out;
}

/// Fails at `c` (the value) when `v` breaks `r`.
template <class T>
void check(const ConfigNode& c, const T& v, const Range<T>& r) {
  if constexpr (!std::is_same_v<T, bool> && !std::is_same_v<T, std::string>) {
    const double x = magnitude(v);
    if (r.min) {
      const double lo = magnitude(r.min->value);
      // Whole numbers >= 1 are the positive ones: check_positive's message, as for > 0.
      const bool positive = lo == 0.0 || (std::is_integral_v<T> && lo == 1.0 && r.min->inclusive);
      if (r.min->message.empty() && positive) {
        c.check_positive(x, lo == 0.0 && r.min->inclusive);
      } else if (!(r.min->inclusive ? x >= lo : x > lo)) {
        c.fail(r.min->message.empty() ? "value " + c.yaml().as<std::string>("?") + " must be " +
                                            (r.min->inclusive ? ">= " : "> ") + bound_text(r.min->value)
                                      : std::string(r.min->message));
      }
    }
    if (r.max) {
      const double hi = magnitude(r.max->value);
      if (!(r.max->inclusive ? x <= hi : x < hi)) {
        c.fail(r.max->message.empty() ? "value " + c.yaml().as<std::string>("?") + " must be " +
                                            (r.max->inclusive ? "<= " : "< ") + bound_text(r.max->value)
                                      : std::string(r.max->message));
      }
    }
  }
}

/// The last segment of a key path: the key a reader asks its mapping for.
std::string_view last_segment(std::string_view key_path);

}  // namespace param_detail

/// A key with a value of type T (bool, int, std::int64_t, double, std::string or a quantity).
template <class T>
struct Param {
  std::string_view key_path;            // "software.collectives.allreduce_bucket"
  std::string_view unit = {};           // "bytes (\"25 MiB\")"; "" for text and choices
  std::optional<T> fallback = {};       // the value when absent; nullopt: see `absent`
  std::string_view auto_word = {};      // a word standing for "the program chooses" ("auto"): read_optional's nullopt
  std::string_view default_note = {};   // after the written default: "25 MiB (PyTorch DDP's bucket_cap_mb)"
  std::string_view absent = "required"; // the written default without a fallback: "none (feature off)"
  Range<T> range = {};
  std::string_view meaning = {};

  [[nodiscard]] std::string_view key() const { return param_detail::last_segment(key_path); }

  /// The value at key() in `parent`, checked against the range; the fallback when absent (a
  /// "missing key" error from ConfigNode::child when there is none).
  [[nodiscard]] T read(const ConfigNode& parent) const {
    auto c = parent.optional_child(key());
    if (c) return checked(*c);
    if (fallback) return *fallback;
    return checked(parent.child(key()));
  }
  /// The value at key(), or nullopt when absent or written as the auto word.
  [[nodiscard]] std::optional<T> read_optional(const ConfigNode& parent) const {
    auto c = parent.optional_child(key());
    if (!c) return fallback;
    if (!auto_word.empty() && c->is_scalar() && c->template as<std::string>() == auto_word) return std::nullopt;
    return checked(*c);
  }
  /// The registry's row: default and range written from the typed values.
  [[nodiscard]] ParameterRow row() const {
    std::string d = fallback ? param_text(*fallback) : std::string(auto_word.empty() ? absent : auto_word);
    if (!default_note.empty()) d += " (" + std::string(default_note) + ")";
    std::string r = range_text();
    if (!auto_word.empty()) r = std::string(auto_word) + " | " + r;
    return {key_path, unit, d, r, meaning};
  }

 private:
  [[nodiscard]] T checked(const ConfigNode& c) const {
    T v = c.template as<T>();
    param_detail::check(c, v, range);
    return v;
  }
  [[nodiscard]] std::string range_text() const {
    if constexpr (std::is_same_v<T, bool>) {
      return "true | false";
    } else if constexpr (std::is_same_v<T, std::string>) {
      return range.note.empty() ? "text" : std::string(range.note);
    } else {
      return param_detail::range_text(range);
    }
  }
};

/// A key whose value is one of a list of words, each standing for a value of type E.
template <class E>
struct Choice {
  std::string_view key_path;
  std::vector<std::pair<std::string_view, E>> words;  // in the order messages list them
  E fallback;
  std::string_view meaning = {};

  [[nodiscard]] std::string_view key() const { return param_detail::last_segment(key_path); }

  /// The value of the word at key() (a did-you-mean error for another word); the fallback when absent.
  [[nodiscard]] E read(const ConfigNode& parent) const {
    if (!parent.has(key())) return fallback;
    const std::string w = parent.get_choice(key(), word_list());
    for (const auto& [word, value] : words) {
      if (word == w) return value;
    }
    return fallback;  // unreachable: get_choice accepts only the words
  }
  [[nodiscard]] ParameterRow row() const {
    std::string range;
    for (const auto& [word, value] : words) range += (range.empty() ? "" : " | ") + std::string(word);
    return {key_path, "", std::string(word_of(fallback)), range, meaning};
  }
  /// The word of `value`; std::logic_error when no word stands for it (a defect of the declaration).
  [[nodiscard]] std::string_view word_of(const E& value) const {
    for (const auto& [word, v] : words) {
      if (v == value) return word;
    }
    throw std::logic_error("configuration key '" + std::string(key_path) + "' has no word for its default");
  }

 private:
  [[nodiscard]] std::vector<std::string> word_list() const {
    std::vector<std::string> out;
    for (const auto& w : words) out.emplace_back(w.first);
    return out;
  }
};

}  // namespace dlrmsim
