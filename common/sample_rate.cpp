#include "common/sample_rate.hpp"

#include <charconv>
#include <cmath>
#include <string>
#include <utility>

namespace dlrmsim {
namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

}  // namespace

double parse_sample_rate(std::string_view text) {
  const std::string expected = "; expected a rate such as '40M', '40 M samples/s' or '4e7'";
  const std::string_view s = trim(text);
  double number = 0.0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), number);
  if (ec != std::errc() || end == s.data() || !std::isfinite(number)) {
    throw UnitError("'" + std::string(text) + "' does not start with a finite number" + expected);
  }
  std::string_view rest = trim(std::string_view(end, static_cast<std::size_t>(s.data() + s.size() - end)));
  const std::string_view unit = rest;  // as written, prefix included, for the message
  double factor = 1.0;
  constexpr std::pair<char, double> kPrefixes[] = {{'k', 1e3}, {'M', 1e6}, {'G', 1e9}, {'T', 1e12}};
  for (const auto& [prefix, f] : kPrefixes) {
    if (!rest.empty() && rest.front() == prefix) {
      factor = f;
      rest = trim(rest.substr(1));
      break;
    }
  }
  if (!rest.empty() && rest != "samples/s" && rest != "sample/s" && rest != "/s") {
    throw UnitError("unknown unit '" + std::string(unit) + "' in '" + std::string(text) + "'" + expected);
  }
  const double value = number * factor;
  if (!(value > 0.0) || !std::isfinite(value)) {
    throw UnitError("'" + std::string(text) + "' is not a positive finite rate" + expected);
  }
  return value;
}

}  // namespace dlrmsim
