// Small text helpers shared by every writer of JSON and YAML output.
#pragma once

#include <string>
#include <string_view>

namespace dlrmsim {

/// `s` as a double-quoted JSON string (quotes, backslashes and control characters escaped).
/// The result is also a valid double-quoted YAML scalar.
std::string json_string(std::string_view s);

/// `v` with at most `significant_digits` significant digits, as printf's %g writes it.
std::string format_number(double v, int significant_digits);

}  // namespace dlrmsim
