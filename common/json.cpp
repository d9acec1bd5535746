#include "common/json.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace dlrmsim {

Json json_number(double v, int significant_digits) {
  if (!std::isfinite(v)) return nullptr;
  char text[40];
  std::snprintf(text, sizeof text, "%.*g", std::clamp(significant_digits, 1, 17), v);
  return std::strtod(text, nullptr);
}

std::string json_text(const Json& doc, int indent) {
  return doc.dump(indent, ' ', false, Json::error_handler_t::replace) + "\n";
}

}  // namespace dlrmsim
