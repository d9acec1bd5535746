// Axis tick labels: SI multiple prefixes instead of printf's exponent form, so that a
// throughput axis reads "600k" rather than "6e+05".
#include <doctest/doctest.h>

#include <limits>

#include "tools/tick_label.hpp"

using dlrmsim::tools::tick_label;

// Inputs are tick values a sweep chart has (steps of 1, 2 or 5 times a power of ten).
// Expected: the value divided by 1000^k for the largest k that leaves it at least 1, with
// the prefix of 10^(3k) (SI: k = 1e3, M = 1e6, G = 1e9, T = 1e12, P = 1e15, E = 1e18).
TEST_CASE("tick labels use SI prefixes for thousands and above") {
  CHECK(tick_label(6e5) == "600k");
  CHECK(tick_label(1.5e6) == "1.5M");
  CHECK(tick_label(2e9) == "2G");
  CHECK(tick_label(2.5e12) == "2.5T");
  CHECK(tick_label(1e15) == "1P");
  CHECK(tick_label(5e18) == "5E");
  CHECK(tick_label(1000) == "1k");
  CHECK(tick_label(1250) == "1.25k");
  CHECK(tick_label(-4e4) == "-40k");
}

// Below 1000 the number is written as it is (at most four significant digits); zero is "0"
// whatever its sign, as an axis origin must read.
TEST_CASE("tick labels below a thousand are plain decimals") {
  CHECK(tick_label(0.0) == "0");
  CHECK(tick_label(-0.0) == "0");
  CHECK(tick_label(999) == "999");
  CHECK(tick_label(0.25) == "0.25");
  CHECK(tick_label(0.001) == "0.001");
  CHECK(tick_label(-12.5) == "-12.5");
}

// Four significant digits of 999999 are 1000 (of the "k" prefix): the label moves to the
// next prefix, "1M", rather than writing "1000k". Values beyond the prefixes (>= 1e21) or
// below 0.001 keep printf's exponent form, which is exact there; non-finite values are named.
TEST_CASE("tick labels round into the next prefix and keep the exponent form at the extremes") {
  CHECK(tick_label(999999) == "1M");
  CHECK(tick_label(999.9e6) == "999.9M");
  CHECK(tick_label(5e-5) == "5e-05");
  CHECK(tick_label(1e21) == "1e+21");
  CHECK(tick_label(std::numeric_limits<double>::infinity()) == "inf");
  CHECK(tick_label(-std::numeric_limits<double>::infinity()) == "-inf");
  CHECK(tick_label(std::numeric_limits<double>::quiet_NaN()) == "nan");
}
