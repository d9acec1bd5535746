#include "tools/tick_label.hpp"

#include <array>
#include <charconv>
#include <cmath>

#include "common/text.hpp"

namespace dlrmsim::tools {

std::string tick_label(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  if (v == 0.0) return "0";
  constexpr std::array<const char*, 7> kPrefixes = {"", "k", "M", "G", "T", "P", "E"};
  const double a = std::fabs(v);
  if (a < 1e-3 || a >= 1e21) return format_number(v, 4);
  std::size_t p = 0;
  double scaled = v;
  while (p + 1 < kPrefixes.size() && std::fabs(scaled) >= 1000.0) {
    scaled /= 1000.0;
    ++p;
  }
  // Four significant digits may round 999.95 up to 1000: that is the next prefix.
  const std::string rounded = format_number(scaled, 4);
  double back = 0.0;
  std::from_chars(rounded.data(), rounded.data() + rounded.size(), back);
  if (std::fabs(back) >= 1000.0 && p + 1 < kPrefixes.size()) {
    scaled /= 1000.0;
    ++p;
  }
  return format_number(scaled, 4) + kPrefixes[p];
}

}  // namespace dlrmsim::tools
