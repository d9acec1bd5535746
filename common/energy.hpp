// Power, energy and money as types (the companions of common/units.hpp for power and cost
// reports).
//
// Watts and Joules are kept apart from the byte/second/FLOP Quantity of units.hpp: energy is
// a fourth base dimension that only the power and cost models use. Watts x Seconds is Joules
// and Joules / Seconds is Watts; adding Watts to Joules does not compile.
//
// Money carries its currency ("USD", "EUR": three capital letters, ISO 4217 form); sums of
// different currencies are refused (std::invalid_argument) rather than silently added: no
// exchange rates are modelled.
//
// Text forms (parse_*): power "700 W", "1.2 kW", "0.5 MW"; a price "250000 USD" (an amount),
// "98.32 USD/h" (per hour), "0.12 USD/kWh" (per kilowatt-hour; also /MWh). A missing or
// unknown unit or currency is a UnitError that says what was expected.
#pragma once

#include "common/enum_names.hpp"

#include <compare>
#include <string>
#include <string_view>

#include "common/units.hpp"

namespace dlrmsim {

/// Energy (TimeExp 0, joules) and power (TimeExp -1, watts) in base SI units.
template <int TimeExp>
class EnergyQuantity {
 public:
  constexpr EnergyQuantity() = default;
  constexpr explicit EnergyQuantity(double v) : value_(v) {}
  [[nodiscard]] constexpr double value() const { return value_; }
  constexpr EnergyQuantity operator+(EnergyQuantity o) const { return EnergyQuantity(value_ + o.value_); }
  constexpr EnergyQuantity operator-(EnergyQuantity o) const { return EnergyQuantity(value_ - o.value_); }
  constexpr EnergyQuantity& operator+=(EnergyQuantity o) { value_ += o.value_; return *this; }
  constexpr EnergyQuantity operator*(double k) const { return EnergyQuantity(value_ * k); }
  constexpr EnergyQuantity operator/(double k) const { return EnergyQuantity(value_ / k); }
  friend constexpr EnergyQuantity operator*(double k, EnergyQuantity q) { return EnergyQuantity(k * q.value_); }
  constexpr double operator/(EnergyQuantity o) const { return value_ / o.value_; }
  constexpr auto operator<=>(const EnergyQuantity&) const = default;

 private:
  double value_ = 0.0;
};

using Joules = EnergyQuantity<0>;
using Watts = EnergyQuantity<-1>;

constexpr Joules operator*(Watts p, Seconds t) { return Joules(p.value() * t.value()); }
constexpr Joules operator*(Seconds t, Watts p) { return Joules(p.value() * t.value()); }
constexpr Watts operator/(Joules e, Seconds t) { return Watts(e.value() / t.value()); }

/// Joules in one kilowatt-hour.
inline constexpr double kJoulesPerKilowattHour = 3.6e6;

/// An amount of money in one currency.
struct Money {
  double amount = 0.0;
  std::string currency;  // "USD"

  Money operator+(const Money& o) const;  // std::invalid_argument for different currencies
  Money operator*(double k) const { return Money{amount * k, currency}; }
};

/// What a price is per: nothing (a purchase), an hour of use, or a kilowatt-hour of energy.
enum class PriceUnit { amount, per_hour, per_kilowatt_hour };

struct Price {
  double amount = 0.0;  // in `currency` per `unit` (a per-MWh text is converted to per kWh)
  std::string currency;
  PriceUnit unit = PriceUnit::amount;
};

/// "700 W", "1.2 kW", "0.5 MW", "250 mW". UnitError unless it has one of those units; negative
/// values parse (callers decide what is allowed).
Watts parse_watts(std::string_view text);
/// "<number> <CUR>[/h|/kWh|/MWh]"; UnitError for a missing currency, a currency not written
/// as three capital letters, or an unknown "/unit".
Price parse_price(std::string_view text);

/// "700 W", "10.2 kW", "1.5 MW".
std::string format_watts(Watts p);
/// "12.3 J", "4.56 kJ", "7.8 MJ", and kWh / MWh from 3.6 MJ on ("1.23 MWh").
std::string format_joules(Joules e);
/// "1,234.56 USD" style is avoided for machine use: "1234.56 USD" with 2 decimals above 1,
/// 4 significant digits below.
std::string format_money(const Money& m);
/// "h", "kWh" or "" for the unit part of a price.
inline constexpr auto kPriceUnitNames = enum_names<PriceUnit>(
    {{PriceUnit::amount, ""}, {PriceUnit::per_hour, "h"}, {PriceUnit::per_kilowatt_hour, "kWh"}});
inline std::string_view to_string(PriceUnit u) { return kPriceUnitNames.name(u); }

}  // namespace dlrmsim

#include "common/config.hpp"

namespace dlrmsim {

/// The node's value as a power ('700 W'); a located ConfigError for a bad text, and for a
/// negative value ("a power cannot be negative").
Watts read_watts(const ConfigNode& node);
/// The node's value as a price; a located ConfigError for a bad text or a negative amount.
Price read_price(const ConfigNode& node);

}  // namespace dlrmsim
