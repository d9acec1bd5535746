#include "common/units.hpp"

#include <array>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <optional>
#include <utility>

namespace dlrmsim {
namespace {

struct UnitEntry {
  std::string_view symbol;
  double factor;  // base units per one of this unit
};

constexpr double kKi = 1024.0;
constexpr std::array kByteUnits{
    UnitEntry{"B", 1.0},           UnitEntry{"byte", 1.0},      UnitEntry{"bytes", 1.0},
    UnitEntry{"kB", 1e3},          UnitEntry{"KB", 1e3},        UnitEntry{"MB", 1e6},
    UnitEntry{"GB", 1e9},          UnitEntry{"TB", 1e12},       UnitEntry{"PB", 1e15},
    UnitEntry{"KiB", kKi},         UnitEntry{"MiB", kKi * kKi}, UnitEntry{"GiB", kKi * kKi * kKi},
    UnitEntry{"TiB", kKi * kKi * kKi * kKi}, UnitEntry{"PiB", kKi * kKi * kKi * kKi * kKi},
    UnitEntry{"bit", 0.125},       UnitEntry{"kbit", 125.0},    UnitEntry{"Kbit", 125.0},
    UnitEntry{"Mbit", 1.25e5},     UnitEntry{"Gbit", 1.25e8},   UnitEntry{"Tbit", 1.25e11},
};
constexpr std::array kBitRateUnits{
    UnitEntry{"bps", 0.125}, UnitEntry{"kbps", 125.0}, UnitEntry{"Mbps", 1.25e5},
    UnitEntry{"Gbps", 1.25e8}, UnitEntry{"Tbps", 1.25e11},
};
constexpr std::array kTimeUnits{
    UnitEntry{"ps", 1e-12}, UnitEntry{"ns", 1e-9}, UnitEntry{"us", 1e-6},
    UnitEntry{"\xC2\xB5s", 1e-6}, UnitEntry{"ms", 1e-3}, UnitEntry{"s", 1.0},
    UnitEntry{"min", 60.0}, UnitEntry{"h", 3600.0},
};
constexpr std::array kFlopUnits{
    UnitEntry{"FLOP", 1.0},   UnitEntry{"kFLOP", 1e3},  UnitEntry{"MFLOP", 1e6},
    UnitEntry{"GFLOP", 1e9},  UnitEntry{"TFLOP", 1e12}, UnitEntry{"PFLOP", 1e15},
    UnitEntry{"EFLOP", 1e18},
};
constexpr std::array kHertzUnits{
    UnitEntry{"Hz", 1.0}, UnitEntry{"kHz", 1e3}, UnitEntry{"MHz", 1e6}, UnitEntry{"GHz", 1e9},
};

template <std::size_t N>
const UnitEntry* find_unit(const std::array<UnitEntry, N>& table, std::string_view symbol) {
  for (const auto& u : table) {
    if (u.symbol == symbol) return &u;
  }
  return nullptr;
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

std::optional<double> lookup(std::string_view unit, Dimension dim) {
  auto factor = [](const UnitEntry* e) { return e ? std::optional<double>(e->factor) : std::nullopt; };
  switch (dim) {
    case Dimension::bytes:
      return factor(find_unit(kByteUnits, unit));
    case Dimension::seconds:
      return factor(find_unit(kTimeUnits, unit));
    case Dimension::flops:
      return factor(find_unit(kFlopUnits, unit));
    case Dimension::hertz:
      return factor(find_unit(kHertzUnits, unit));
    case Dimension::bytes_per_second:
      if (unit.size() > 2 && unit.ends_with("/s")) return factor(find_unit(kByteUnits, unit.substr(0, unit.size() - 2)));
      return factor(find_unit(kBitRateUnits, unit));
    case Dimension::flops_per_second:
      if (unit.size() > 2 && unit.ends_with("/s")) return factor(find_unit(kFlopUnits, unit.substr(0, unit.size() - 2)));
      if (unit.size() > 1 && unit.ends_with('S')) return factor(find_unit(kFlopUnits, unit.substr(0, unit.size() - 1)));
      return std::nullopt;
  }
  return std::nullopt;
}

std::string_view base_unit(Dimension dim) {
  switch (dim) {
    case Dimension::bytes: return "B";
    case Dimension::seconds: return "s";
    case Dimension::flops: return "FLOP";
    case Dimension::bytes_per_second: return "B/s";
    case Dimension::flops_per_second: return "FLOP/s";
    case Dimension::hertz: return "Hz";
  }
  return "";
}

// number x factor in scientific notation, also when the product overflows a double.
std::string scaled_text(double number, double factor, Dimension dim) {
  char buf[96];
  const double product = number * factor;
  if (std::isfinite(product)) {
    std::snprintf(buf, sizeof buf, "%.6g %.*s", product, static_cast<int>(base_unit(dim).size()), base_unit(dim).data());
    return buf;
  }
  const double exponent10 = std::log10(std::fabs(number)) + std::log10(factor);
  const double exponent = std::floor(exponent10);
  const double mantissa = std::copysign(std::pow(10.0, exponent10 - exponent), number);
  std::snprintf(buf, sizeof buf, "%.6ge+%.0f %.*s", mantissa, exponent, static_cast<int>(base_unit(dim).size()),
                base_unit(dim).data());
  return buf;
}

}  // namespace

void check_range(std::string_view text, double number, double factor, Dimension dim) {
  const double value = number * factor;
  const std::string head = "value '" + std::string(trim(text)) + "' is out of range: " + scaled_text(number, factor, dim);
  if (!std::isfinite(value)) throw UnitError(head + " is not a finite number");
  if (dim == Dimension::seconds) {
    if (std::fabs(value) > kMaxSeconds) {
      char limit[32];
      std::snprintf(limit, sizeof limit, "%.3g", kMaxSeconds);
      throw UnitError(head + " is beyond the simulated time range (simulated time counts picoseconds in 64 bits: " +
                      limit + " s, about 106 days)");
    }
  } else if ((dim == Dimension::bytes_per_second || dim == Dimension::flops_per_second) && value != 0.0 &&
             std::fabs(value) < 1.0) {
    // 5e-324 B/s is a positive rate, but a single byte at it takes longer than the simulated
    // time range: the engine would be the first to notice, far from the file.
    throw UnitError(head + " is below 1 " + std::string(base_unit(dim)) +
                    ", the smallest nonzero rate dlrmsim accepts (work at a slower rate would not end within the "
                    "simulated time range)");
  } else if (std::fabs(value) > kMaxMagnitude) {
    char limit[32];
    std::snprintf(limit, sizeof limit, "%.0e", kMaxMagnitude);
    throw UnitError(head + " is more than " + limit + " " + std::string(base_unit(dim)) +
                    ", the largest quantity dlrmsim accepts (totals over a cluster must stay finite)");
  }
}

std::string describe(Dimension d) {
  switch (d) {
    case Dimension::bytes: return "a data size with a unit, such as '80 GiB' or '512 B'";
    case Dimension::seconds: return "a time with a unit, such as '2 us' or '1.5 ms'";
    case Dimension::flops: return "an amount of work with a unit, such as '3 GFLOP'";
    case Dimension::bytes_per_second: return "a bandwidth with a unit, such as '900 GB/s' or '100 Gbit/s'";
    case Dimension::flops_per_second: return "a compute rate with a unit, such as '989 TFLOP/s'";
    case Dimension::hertz: return "a frequency with a unit, such as '2.1 GHz'";
  }
  return "a quantity";
}

double parse_quantity(std::string_view text, Dimension dim) {
  const std::string_view s = trim(text);
  double number = 0.0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), number);
  if (ec == std::errc::result_out_of_range) {
    throw UnitError("number out of range in '" + std::string(text) +
                    "': a number must be 0 or between 1e-307 and 1e308 in magnitude");
  }
  if (ec != std::errc() || end == s.data()) {
    throw UnitError("'" + std::string(text) + "' does not start with a number; expected " + describe(dim));
  }
  if (!std::isfinite(number)) {
    throw UnitError("'" + std::string(text) + "' is not a finite number; expected " + describe(dim));
  }
  const std::string_view unit = trim(std::string_view(end, static_cast<std::size_t>(s.data() + s.size() - end)));
  if (unit.empty()) {
    throw UnitError("'" + std::string(text) + "' has no unit; expected " + describe(dim));
  }
  if (unit == "Gb" || unit == "Mb" || unit == "Tb" || unit == "Gb/s" || unit == "Mb/s" || unit == "Tb/s") {
    throw UnitError("unit '" + std::string(unit) + "' is ambiguous (bits or bytes?); write '" +
                    std::string(unit.substr(0, 1)) + "bit" + std::string(unit.substr(2)) + "' or '" +
                    std::string(unit.substr(0, 1)) + "B" + std::string(unit.substr(2)) + "'");
  }
  const auto factor = lookup(unit, dim);
  if (!factor) {
    throw UnitError("unknown unit '" + std::string(unit) + "' in '" + std::string(text) + "'; expected " +
                    describe(dim));
  }
  const double value = number * *factor;
  check_range(text, number, *factor, dim);
  return value;
}

namespace {
std::string with_prefix(double v, std::string_view unit, const char* const* prefixes, int n, double step) {
  int i = 0;
  double a = std::fabs(v);
  while (i + 1 < n && a >= step) {
    a /= step;
    v /= step;
    ++i;
  }
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.3g %s%.*s", v, prefixes[i], static_cast<int>(unit.size()), unit.data());
  return buf;
}
constexpr const char* kSi[] = {"", "k", "M", "G", "T", "P", "E"};
constexpr const char* kBin[] = {"", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei"};
}  // namespace

std::string format_bytes(Bytes b) { return with_prefix(b.value(), "B", kSi, 7, 1000.0); }
std::string format_binary_bytes(Bytes b) { return with_prefix(b.value(), "B", kBin, 7, 1024.0); }
std::string format_rate(BytesPerSecond r) { return with_prefix(r.value(), "B/s", kSi, 7, 1000.0); }
std::string format_flop_rate(FlopsPerSecond r) { return with_prefix(r.value(), "FLOP/s", kSi, 7, 1000.0); }
std::string format_seconds(Seconds s) {
  const double v = s.value();
  const double a = std::fabs(v);
  char buf[64];
  if (a >= 1.0 || a == 0.0) std::snprintf(buf, sizeof buf, "%.4g s", v);
  else if (a >= 1e-3) std::snprintf(buf, sizeof buf, "%.4g ms", v * 1e3);
  else if (a >= 1e-6) std::snprintf(buf, sizeof buf, "%.4g us", v * 1e6);
  else std::snprintf(buf, sizeof buf, "%.4g ns", v * 1e9);
  return buf;
}

}  // namespace dlrmsim
