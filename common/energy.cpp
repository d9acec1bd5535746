#include "common/energy.hpp"

#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <optional>
#include <stdexcept>

namespace dlrmsim {
namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

/// Splits "<number><spaces><rest>"; nullopt when there is no leading number.
std::optional<std::pair<double, std::string_view>> split_number(std::string_view text) {
  text = trim(text);
  double v = 0.0;
  const char* begin = text.data();
  if (!text.empty() && text.front() == '+') ++begin;
  const auto [ptr, ec] = std::from_chars(begin, text.data() + text.size(), v);
  if (ec != std::errc() || ptr == begin) return std::nullopt;
  return std::pair{v, trim(std::string_view(ptr, static_cast<std::size_t>(text.data() + text.size() - ptr)))};
}

/// Values beyond this (in W, J or money) are refused as typing errors: 1e15 W is a thousand
/// times the world's electricity generation capacity.
constexpr double kMaxEnergyMagnitude = 1e15;

void check_finite(std::string_view text, double v) {
  if (!std::isfinite(v) || std::fabs(v) > kMaxEnergyMagnitude) {
    throw UnitError("value '" + std::string(trim(text)) + "' is out of range (at most 1e15 in magnitude)");
  }
}

bool is_currency(std::string_view c) {
  if (c.size() != 3) return false;
  for (char ch : c) {
    if (ch < 'A' || ch > 'Z') return false;
  }
  return true;
}

}  // namespace

Money Money::operator+(const Money& o) const {
  if (currency.empty()) return o.currency.empty() ? Money{amount + o.amount, ""} : Money{amount + o.amount, o.currency};
  if (!o.currency.empty() && o.currency != currency) {
    throw std::invalid_argument("cannot add " + o.currency + " to " + currency + ": dlrmsim does not convert currencies");
  }
  return Money{amount + o.amount, currency};
}

Watts parse_watts(std::string_view text) {
  const auto parts = split_number(text);
  const std::string expected = "expected a power such as '700 W' or '1.2 kW'";
  if (!parts) throw UnitError("'" + std::string(trim(text)) + "' is not a power; " + expected);
  const auto [number, unit] = *parts;
  double factor = 0.0;
  if (unit == "W") factor = 1.0;
  else if (unit == "mW") factor = 1e-3;
  else if (unit == "kW") factor = 1e3;
  else if (unit == "MW") factor = 1e6;
  else if (unit.empty()) throw UnitError("'" + std::string(trim(text)) + "' has no unit; " + expected);
  else throw UnitError("unknown power unit '" + std::string(unit) + "'; " + expected + " (units W, kW, MW, mW)");
  check_finite(text, number * factor);
  return Watts(number * factor);
}

Price parse_price(std::string_view text) {
  const std::string expected = "expected a price with its currency, such as '250000 USD', '98.32 USD/h' or '0.12 USD/kWh'";
  const auto parts = split_number(text);
  if (!parts) throw UnitError("'" + std::string(trim(text)) + "' is not a price; " + expected);
  const auto [number, rest] = *parts;
  if (rest.empty()) throw UnitError("price '" + std::string(trim(text)) + "' has no currency; " + expected);
  const auto slash = rest.find('/');
  const std::string_view currency = trim(rest.substr(0, slash));
  if (!is_currency(currency)) {
    throw UnitError("'" + std::string(currency) + "' in '" + std::string(trim(text)) +
                    "' is not a currency code (three capital letters, such as USD or EUR); " + expected);
  }
  Price p;
  p.currency = std::string(currency);
  p.amount = number;
  if (slash != std::string_view::npos) {
    const std::string_view per = trim(rest.substr(slash + 1));
    if (per == "h" || per == "hour") {
      p.unit = PriceUnit::per_hour;
    } else if (per == "kWh") {
      p.unit = PriceUnit::per_kilowatt_hour;
    } else if (per == "MWh") {
      p.unit = PriceUnit::per_kilowatt_hour;
      p.amount = number / 1000.0;
    } else {
      throw UnitError("unknown price unit '/" + std::string(per) + "' in '" + std::string(trim(text)) +
                      "'; expected /h (per hour of use), /kWh or /MWh (per energy)");
    }
  }
  check_finite(text, p.amount);
  return p;
}

std::string format_watts(Watts p) {
  const double v = p.value();
  const double a = std::fabs(v);
  char buf[64];
  if (a >= 1e6) std::snprintf(buf, sizeof buf, "%.4g MW", v / 1e6);
  else if (a >= 1e3) std::snprintf(buf, sizeof buf, "%.4g kW", v / 1e3);
  else std::snprintf(buf, sizeof buf, "%.4g W", v);
  return buf;
}

std::string format_joules(Joules e) {
  const double v = e.value();
  const double a = std::fabs(v);
  char buf[64];
  if (a >= 3.6e9) std::snprintf(buf, sizeof buf, "%.4g MWh", v / 3.6e9);
  else if (a >= 3.6e6) std::snprintf(buf, sizeof buf, "%.4g kWh", v / 3.6e6);
  else if (a >= 1e3) std::snprintf(buf, sizeof buf, "%.4g kJ", v / 1e3);
  else if (a >= 1.0 || a == 0.0) std::snprintf(buf, sizeof buf, "%.4g J", v);
  else if (a >= 1e-3) std::snprintf(buf, sizeof buf, "%.4g mJ", v * 1e3);
  else std::snprintf(buf, sizeof buf, "%.4g uJ", v * 1e6);
  return buf;
}

std::string format_money(const Money& m) {
  char buf[64];
  if (std::fabs(m.amount) >= 1.0) std::snprintf(buf, sizeof buf, "%.2f", m.amount);
  else std::snprintf(buf, sizeof buf, "%.4g", m.amount);
  return std::string(buf) + (m.currency.empty() ? "" : " " + m.currency);
}

}  // namespace dlrmsim

namespace dlrmsim {

Watts read_watts(const ConfigNode& node) {
  Watts w;
  try {
    w = parse_watts(node.as<std::string>());
  } catch (const UnitError& e) {
    node.fail(e.what());
  }
  if (w.value() < 0.0) node.fail("a power cannot be negative; expected a value such as '700 W'");
  return w;
}

Price read_price(const ConfigNode& node) {
  Price p;
  try {
    p = parse_price(node.as<std::string>());
  } catch (const UnitError& e) {
    node.fail(e.what());
  }
  if (p.amount < 0.0) node.fail("a price cannot be negative");
  return p;
}

}  // namespace dlrmsim
