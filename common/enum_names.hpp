// One name table per enum: the words a configuration file, a report and a CSV column use for
// each enumerator, written once beside the enum and read both ways.
//
//   enum class LinkKind { nvlink, pcie, ... };
//   inline constexpr EnumNames kLinkKindNames{enum_names<LinkKind>({{LinkKind::nvlink, "nvlink"}, ...})};
//   inline std::string_view to_string(LinkKind k) { return kLinkKindNames.name(k); }
//
// `name` gives an enumerator's word, `parse` the enumerator a word names (std::nullopt for
// any other word: the reader says what it expected, `choices()`), `choices` the words in the
// table's order ("nvlink | pcie | ..."), for messages and the configuration reference.
// tests/test_enum_names.cpp checks every table: each enumerator of the enum named once, and
// each word once.
#pragma once

#include <array>
#include <cstddef>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace dlrmsim {

template <class E, std::size_t N>
struct EnumNames {
  std::array<std::pair<E, std::string_view>, N> entries{};

  /// The word of `e`. Every enumerator is in its table (the test checks it); a value outside
  /// the enum's enumerators is a defect of the caller.
  [[nodiscard]] constexpr std::string_view name(E e) const {
    for (const auto& [value, word] : entries) {
      if (value == e) return word;
    }
    throw std::logic_error("enum value " + std::to_string(static_cast<long long>(e)) + " has no name");
  }

  /// The enumerator named `word`, or std::nullopt.
  [[nodiscard]] constexpr std::optional<E> parse(std::string_view word) const {
    for (const auto& [value, w] : entries) {
      if (w == word) return value;
    }
    return std::nullopt;
  }

  /// The words in order, joined by `separator`.
  [[nodiscard]] std::string choices(std::string_view separator = " | ") const {
    std::string out;
    for (const auto& [value, word] : entries) {
      if (!out.empty()) out += separator;
      out += word;
    }
    return out;
  }

  /// The words in order (the choices a reader offers).
  [[nodiscard]] std::vector<std::string> words() const {
    std::vector<std::string> out;
    for (const auto& entry : entries) out.emplace_back(entry.second);
    return out;
  }

  [[nodiscard]] static constexpr std::size_t size() { return N; }
};

/// A table from a braced list: enum_names<Tier>({{Tier::gpu_hbm, "gpu_hbm"}, ...}).
template <class E, std::size_t N>
constexpr EnumNames<E, N> enum_names(const std::pair<E, std::string_view> (&list)[N]) {
  EnumNames<E, N> table;
  for (std::size_t i = 0; i < N; ++i) table.entries[i] = list[i];
  return table;
}

}  // namespace dlrmsim
