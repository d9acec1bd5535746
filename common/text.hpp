// Small text helpers shared by every writer of JSON and YAML output.
#pragma once

#include <string>
#include <string_view>

namespace dlrmsim {

/// `s` as a double-quoted JSON string (quotes, backslashes and control characters escaped).
/// The result is also a valid double-quoted YAML scalar.
std::string json_string(std::string_view s);

}  // namespace dlrmsim
