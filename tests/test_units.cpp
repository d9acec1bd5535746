// Units: parsing of quantities with units, dimensional arithmetic, simulated time.
#include <doctest/doctest.h>

#include "approx.hpp"

#include "common/units.hpp"

using namespace dlrmsim;

TEST_CASE("decimal and binary byte prefixes differ") {
  // 1 GB = 10^9 B, 1 GiB = 2^30 B = 1,073,741,824 B (IEC 80000-13).
  CHECK(parse<Bytes>("1 GB").value() == 1e9);
  CHECK(parse<Bytes>("1 GiB").value() == 1073741824.0);
  CHECK(parse<Bytes>("80 GiB").value() == 80.0 * 1073741824.0);
  CHECK(parse<Bytes>("512 B").value() == 512.0);
  CHECK(parse<Bytes>("2 TB").value() == 2e12);
}

TEST_CASE("bits and bytes per second") {
  // 100 Gbit/s = 12.5 GB/s; 900 GB/s = 9e11 B/s; Gbps is the same as Gbit/s.
  CHECK(parse<BytesPerSecond>("100 Gbit/s").value() == dlrmsim::rel(12.5e9));
  CHECK(parse<BytesPerSecond>("100 Gbps").value() == dlrmsim::rel(12.5e9));
  CHECK(parse<BytesPerSecond>("900 GB/s").value() == 9e11);
  CHECK(parse<BytesPerSecond>("1.5 GiB/s").value() == 1.5 * 1073741824.0);
}

TEST_CASE("times, compute rates and frequencies") {
  CHECK(parse<Seconds>("2 us").value() == dlrmsim::rel(2e-6));
  CHECK(parse<Seconds>("1.5 ms").value() == dlrmsim::rel(1.5e-3));
  CHECK(parse<Seconds>("250 ns").value() == dlrmsim::rel(250e-9));
  CHECK(parse<FlopsPerSecond>("989 TFLOP/s").value() == dlrmsim::rel(989e12));
  CHECK(parse<FlopsPerSecond>("19.5 TFLOPS").value() == dlrmsim::rel(19.5e12));
  CHECK(parse<Flops>("3 GFLOP").value() == dlrmsim::rel(3e9));
  CHECK(parse<Hertz>("2.1 GHz").value() == dlrmsim::rel(2.1e9));
}

TEST_CASE("a missing, unknown, ambiguous or wrong-dimension unit is an error that says what was expected") {
  CHECK_THROWS_WITH_AS(parse<Bytes>("80"), doctest::Contains("has no unit"), UnitError);
  CHECK_THROWS_WITH_AS(parse<Bytes>("80 GiBs"), doctest::Contains("unknown unit 'GiBs'"), UnitError);
  CHECK_THROWS_WITH_AS(parse<BytesPerSecond>("100 Gb/s"), doctest::Contains("ambiguous"), UnitError);
  CHECK_THROWS_WITH_AS(parse<Seconds>("5 GB"), doctest::Contains("a time with a unit"), UnitError);
  CHECK_THROWS_WITH_AS(parse<Bytes>("lots"), doctest::Contains("does not start with a number"), UnitError);
}

TEST_CASE("dimensional arithmetic") {
  // 1 GB over 10 GB/s is 0.1 s; 1 TFLOP at 100 TFLOP/s is 10 ms; bandwidth x time is bytes.
  const Seconds t = parse<Bytes>("1 GB") / parse<BytesPerSecond>("10 GB/s");
  CHECK(t.value() == dlrmsim::rel(0.1));
  const Seconds c = parse<Flops>("1 TFLOP") / parse<FlopsPerSecond>("100 TFLOP/s");
  CHECK(c.value() == dlrmsim::rel(0.01));
  const Bytes b = parse<BytesPerSecond>("2 GB/s") * Seconds(3.0);
  CHECK(b.value() == dlrmsim::rel(6e9));
  const double ratio = Bytes(3.0) / Bytes(2.0);  // dimensionless results are plain numbers
  CHECK(ratio == 1.5);
}

TEST_CASE("simulated time is integer picoseconds, rounded to nearest") {
  CHECK(SimTime::from_seconds(Seconds(1e-6)).ps() == 1'000'000);
  CHECK(SimTime::from_seconds(Seconds(1.4e-12)).ps() == 1);
  CHECK(SimTime::from_seconds(Seconds(2.6e-12)).ps() == 3);
  CHECK_THROWS(SimTime::from_seconds(Seconds(-1.0)));
  CHECK(format_seconds(Seconds(2.5e-3)) == "2.5 ms");
  CHECK(format_bytes(Bytes(1.5e9)) == "1.5 GB");
  CHECK(format_binary_bytes(parse<Bytes>("80 GiB")) == "80 GiB");
}

TEST_CASE("a value is checked finite and in range after its unit scales it") {
  // 1e308 is a finite double, 1e308 TB/s = 1e320 B/s is not; 1e400 is not a double at all.
  CHECK_THROWS_WITH_AS(parse<BytesPerSecond>("1e308 TB/s"),
                       "value '1e308 TB/s' is out of range: 1e+320 B/s is not a finite number", UnitError);
  CHECK_THROWS_WITH_AS(parse<Bytes>("1e400 GB"), doctest::Contains("number out of range"), UnitError);
  // Simulated time is int64 picoseconds (9.2e6 s): a latency of 1e7 s cannot be simulated.
  CHECK_THROWS_WITH_AS(parse<Seconds>("1e7 s"), doctest::Contains("1e+07 s is beyond the simulated time range"), UnitError);
  CHECK(parse<Seconds>("1e6 s").value() == 1e6);
  // Other quantities stop at 1e30 base units, so sums over a million devices stay finite.
  CHECK_THROWS_WITH_AS(parse<Bytes>("2e18 TB"), doctest::Contains("2e+30 B is more than 1e+30 B"), UnitError);
  CHECK(parse<Bytes>("1e18 TB").value() == 1e30);
}
