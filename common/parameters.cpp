#include "common/parameters.hpp"

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

}  // namespace dlrmsim
