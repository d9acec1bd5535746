#include "common/parameters.hpp"

#include <stdexcept>

namespace dlrmsim {

bool key_path_matches(std::string_view pattern, std::string_view path) {
  while (true) {
    const std::size_t p_end = pattern.find('.');
    const std::size_t k_end = path.find('.');
    const std::string_view p = pattern.substr(0, p_end);
    const std::string_view k = path.substr(0, k_end);
    if (k.empty() || (p != "*" && p != k)) return false;
    if (p_end == std::string_view::npos || k_end == std::string_view::npos) {
      return p_end == std::string_view::npos && k_end == std::string_view::npos;
    }
    pattern.remove_prefix(p_end + 1);
    path.remove_prefix(k_end + 1);
  }
}

const Parameter* find_parameter(std::span<const Parameter> parameters, std::string_view path) {
  for (const Parameter& p : parameters) {
    if (key_path_matches(p.key_path, path)) return &p;
  }
  return nullptr;
}

const Parameter& declared(std::span<const Parameter> parameters, std::string_view path) {
  for (const Parameter& p : parameters) {
    if (p.key_path == path) return p;
  }
  throw std::logic_error("configuration key '" + std::string(path) + "' is read but not declared");
}

std::string_view parameter_key(const Parameter& p) {
  const auto dot = p.key_path.rfind('.');
  return dot == std::string_view::npos ? p.key_path : p.key_path.substr(dot + 1);
}

std::vector<std::string> parameter_choices(const Parameter& p) {
  std::vector<std::string> out;
  std::string_view rest = p.range;
  while (true) {
    const auto bar = rest.find(" | ");
    out.emplace_back(rest.substr(0, bar));
    if (bar == std::string_view::npos) return out;
    rest.remove_prefix(bar + 3);
  }
}

}  // namespace dlrmsim
