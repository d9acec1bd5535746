#include "common/text.hpp"

#include <charconv>
#include <string>
#include <system_error>

#include <yaml-cpp/yaml.h>

namespace dlrmsim {

std::string yaml_quoted(std::string_view s) {
  YAML::Emitter out;
  out << YAML::DoubleQuoted << std::string(s);
  return out.c_str();
}

std::string format_number(double v, int significant_digits) {
  // std::to_chars writes what printf's %.*g writes in the "C" locale, whatever locale the
  // process has chosen (common/classic_locale.hpp).
  char buf[64];
  const auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::general, significant_digits);
  return ec == std::errc() ? std::string(buf, end) : std::string("nan");
}

}  // namespace dlrmsim
