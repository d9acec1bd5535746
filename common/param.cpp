#include "common/param.hpp"

#include <charconv>
#include <cstdio>

namespace dlrmsim {

ParameterTable::ParameterTable(std::vector<ParameterRow> rows) : rows_(std::move(rows)) {
  views_.reserve(rows_.size());
  for (const ParameterRow& r : rows_) views_.push_back({r.key_path, r.unit, r.default_value, r.range, r.meaning});
}

std::string param_text(bool v) { return v ? "true" : "false"; }
std::string param_text(int v) { return std::to_string(v); }
std::string param_text(std::int64_t v) { return std::to_string(v); }
std::string param_text(double v) {
  char buf[64];
  const auto end = std::to_chars(buf, buf + sizeof buf, v).ptr;  // the shortest text that reads back as v
  std::string out(buf, end);
  if (const auto plus = out.find("e+"); plus != std::string::npos) out.erase(plus + 1, 1);  // "1e18", as a file writes it
  return out;
}
std::string param_text(const std::string& v) {
  return v.empty() || v.find(' ') != std::string::npos ? "\"" + v + "\"" : v;
}
std::string param_text(Bytes v) { return format_binary_bytes(v); }
std::string param_text(Seconds v) { return format_seconds(v); }
std::string param_text(BytesPerSecond v) { return format_rate(v); }

namespace param_detail {

std::string_view last_segment(std::string_view key_path) {
  const auto dot = key_path.rfind('.');
  return dot == std::string_view::npos ? key_path : key_path.substr(dot + 1);
}

}  // namespace param_detail
}  // namespace dlrmsim
