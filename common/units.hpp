// Physical quantities as types.
//
// A Quantity carries its dimension as exponents of three base units: bytes, seconds and
// floating-point operations. Multiplying and dividing quantities adds and subtracts the
// exponents at compile time, so `Bytes / BytesPerSecond` is `Seconds` and adding bytes to
// seconds does not compile. A quantity whose exponents are all zero is a plain double.
// Values are stored in base units (bytes, seconds, FLOP); the decimal and binary prefixes
// of the text form ("80 GiB", "900 GB/s", "100 Gbit/s", "2 us", "989 TFLOP/s") are applied
// only when parsing and printing (see parse_quantity below).
//
// Simulated time is an integer number of picoseconds (SimTime) so that every run is
// bit-for-bit repeatable; Seconds is the floating-point view used by cost models.
#pragma once

#include <cmath>
#include <compare>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>
#include <string_view>

namespace dlrmsim {

template <int ByteExp, int SecondExp, int FlopExp>
class Quantity {
 public:
  constexpr Quantity() = default;
  constexpr explicit Quantity(double value) : value_(value) {}

  /// The value in base units (bytes, seconds, FLOP and their products).
  [[nodiscard]] constexpr double value() const { return value_; }

  constexpr Quantity operator+(Quantity o) const { return Quantity(value_ + o.value_); }
  constexpr Quantity operator-(Quantity o) const { return Quantity(value_ - o.value_); }
  constexpr Quantity operator-() const { return Quantity(-value_); }
  constexpr Quantity& operator+=(Quantity o) { value_ += o.value_; return *this; }
  constexpr Quantity& operator-=(Quantity o) { value_ -= o.value_; return *this; }
  constexpr Quantity operator*(double k) const { return Quantity(value_ * k); }
  constexpr Quantity operator/(double k) const { return Quantity(value_ / k); }
  constexpr Quantity& operator*=(double k) { value_ *= k; return *this; }
  friend constexpr Quantity operator*(double k, Quantity q) { return Quantity(k * q.value_); }
  constexpr auto operator<=>(const Quantity&) const = default;

  template <int B, int S, int F>
  constexpr auto operator*(Quantity<B, S, F> o) const {
    if constexpr (ByteExp + B == 0 && SecondExp + S == 0 && FlopExp + F == 0) {
      return value_ * o.value();
    } else {
      return Quantity<ByteExp + B, SecondExp + S, FlopExp + F>(value_ * o.value());
    }
  }
  template <int B, int S, int F>
  constexpr auto operator/(Quantity<B, S, F> o) const {
    if constexpr (ByteExp - B == 0 && SecondExp - S == 0 && FlopExp - F == 0) {
      return value_ / o.value();
    } else {
      return Quantity<ByteExp - B, SecondExp - S, FlopExp - F>(value_ / o.value());
    }
  }

 private:
  double value_ = 0.0;
};

using Bytes = Quantity<1, 0, 0>;
using Seconds = Quantity<0, 1, 0>;
using Flops = Quantity<0, 0, 1>;
using BytesPerSecond = Quantity<1, -1, 0>;
using FlopsPerSecond = Quantity<0, -1, 1>;
using Hertz = Quantity<0, -1, 0>;

/// Reciprocal of a quantity with no byte or FLOP part: 1 / Seconds is Hertz.
constexpr Hertz per(Seconds s) { return Hertz(1.0 / s.value()); }

namespace unit_literals {
constexpr Bytes operator""_B(long double v) { return Bytes(static_cast<double>(v)); }
constexpr Bytes operator""_B(unsigned long long v) { return Bytes(static_cast<double>(v)); }
constexpr Bytes operator""_GiB(unsigned long long v) { return Bytes(static_cast<double>(v) * 1073741824.0); }
constexpr Seconds operator""_s(long double v) { return Seconds(static_cast<double>(v)); }
constexpr Seconds operator""_s(unsigned long long v) { return Seconds(static_cast<double>(v)); }
constexpr Seconds operator""_us(long double v) { return Seconds(static_cast<double>(v) * 1e-6); }
constexpr Seconds operator""_us(unsigned long long v) { return Seconds(static_cast<double>(v) * 1e-6); }
constexpr BytesPerSecond operator""_GBps(long double v) { return BytesPerSecond(static_cast<double>(v) * 1e9); }
constexpr BytesPerSecond operator""_GBps(unsigned long long v) { return BytesPerSecond(static_cast<double>(v) * 1e9); }
}  // namespace unit_literals

/// Simulated time: an integer count of picoseconds (range about +-106 days).
class SimTime {
 public:
  constexpr SimTime() = default;
  static constexpr SimTime from_ps(std::int64_t ps) { return SimTime(ps); }
  /// Rounds to the nearest picosecond; throws for negative, NaN or out-of-range values.
  static SimTime from_seconds(Seconds s) {
    const double ps = s.value() * 1e12;
    if (!(ps >= 0.0) || ps > 9.0e18) {
      throw std::invalid_argument("time " + std::to_string(s.value()) +
                                  " s is negative, not a number or beyond the simulated range");
    }
    return SimTime(static_cast<std::int64_t>(std::llround(ps)));
  }
  [[nodiscard]] constexpr std::int64_t ps() const { return ps_; }
  [[nodiscard]] constexpr Seconds seconds() const { return Seconds(static_cast<double>(ps_) * 1e-12); }
  constexpr SimTime operator+(SimTime o) const { return SimTime(ps_ + o.ps_); }
  constexpr SimTime operator-(SimTime o) const { return SimTime(ps_ - o.ps_); }
  constexpr auto operator<=>(const SimTime&) const = default;

 private:
  constexpr explicit SimTime(std::int64_t ps) : ps_(ps) {}
  std::int64_t ps_ = 0;
};

/// The physical dimension a text value must have.
enum class Dimension { bytes, seconds, flops, bytes_per_second, flops_per_second, hertz };

/// Name and example of a dimension, for error messages ("a data size such as '80 GiB'").
std::string describe(Dimension d);

/// Thrown for a malformed quantity; the message says what was expected.
class UnitError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

/// The largest time a value may give: simulated time is an integer count of picoseconds in
/// 64 bits (SimTime), 9.22e6 s or about 106 days; a single time beyond it cannot be simulated.
inline constexpr double kMaxSeconds = 9.2e6;
/// The largest magnitude of any other quantity, in base units (1e30 B is a million times all
/// the storage on Earth; the fastest machine runs 1e18 FLOP/s). Sums and products of such
/// values over a cluster of up to a million devices stay finite.
inline constexpr double kMaxMagnitude = 1e30;

/// UnitError unless number x factor (a value in base units of `dim`) is finite and within
/// kMaxSeconds (times) or kMaxMagnitude (everything else): "value '1e308 TB/s' is out of
/// range: 1e+320 B/s is not a finite number". `text` is the value as written.
void check_range(std::string_view text, double number, double factor, Dimension dim);

/// Parses "<number> <unit>" into base units of `dim` and checks its range (check_range). Accepted units:
///   bytes: B, kB, MB, GB, TB, PB (powers of 1000), KiB, MiB, GiB, TiB, PiB (powers of 1024),
///          bit, kbit, Mbit, Gbit, Tbit (1/8 byte times powers of 1000);
///   bytes/s: any byte unit followed by "/s", and bps, kbps, Mbps, Gbps, Tbps;
///   seconds: ps, ns, us, ms, s, min, h;   flops: FLOP, kFLOP ... PFLOP;
///   FLOP/s: kFLOP/s ... EFLOP/s (also written TFLOPS);   hertz: Hz, kHz, MHz, GHz.
/// "Gb" and "Gb/s" are refused as ambiguous (bits or bytes?).
double parse_quantity(std::string_view text, Dimension dim);

template <class Q>
constexpr Dimension dimension_of();
template <> constexpr Dimension dimension_of<Bytes>() { return Dimension::bytes; }
template <> constexpr Dimension dimension_of<Seconds>() { return Dimension::seconds; }
template <> constexpr Dimension dimension_of<Flops>() { return Dimension::flops; }
template <> constexpr Dimension dimension_of<BytesPerSecond>() { return Dimension::bytes_per_second; }
template <> constexpr Dimension dimension_of<FlopsPerSecond>() { return Dimension::flops_per_second; }
template <> constexpr Dimension dimension_of<Hertz>() { return Dimension::hertz; }

template <class Q>
Q parse(std::string_view text) {
  return Q(parse_quantity(text, dimension_of<Q>()));
}

/// Human-readable forms with SI prefixes: "1.50 GB", "2.00 us", "900 GB/s", "989 TFLOP/s".
std::string format_bytes(Bytes b);
std::string format_binary_bytes(Bytes b);  // "80.0 GiB"
std::string format_seconds(Seconds s);
std::string format_rate(BytesPerSecond r);
std::string format_flop_rate(FlopsPerSecond r);

}  // namespace dlrmsim
