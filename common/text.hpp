// Small text helpers shared by the writers of YAML and text output (JSON: common/json.hpp).
#pragma once

#include <string>
#include <string_view>

namespace dlrmsim {

/// `s` as a double-quoted YAML scalar, as yaml-cpp's emitter writes it: quotes, backslashes
/// and control characters escaped; an invalid UTF-8 sequence becomes U+FFFD.
std::string yaml_quoted(std::string_view s);

/// `v` with at most `significant_digits` significant digits, as printf's %g writes it.
std::string format_number(double v, int significant_digits);

}  // namespace dlrmsim
