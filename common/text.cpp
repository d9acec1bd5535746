#include "common/text.hpp"

#include <cstdio>

#include <yaml-cpp/yaml.h>

namespace dlrmsim {

std::string yaml_quoted(std::string_view s) {
  YAML::Emitter out;
  out << YAML::DoubleQuoted << std::string(s);
  return out.c_str();
}

std::string format_number(double v, int significant_digits) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*g", significant_digits, v);
  return buf;
}

}  // namespace dlrmsim
