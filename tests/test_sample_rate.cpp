// Sample rates: a training rate (samples per second) as a person writes it on the command line
// (common/sample_rate.hpp; `dlrmsim plan --throughput`).
#include <doctest/doctest.h>

#include "common/sample_rate.hpp"

using dlrmsim::parse_sample_rate;
using dlrmsim::UnitError;

// System: parse_sample_rate on a training rate written as a person writes it.
// Inputs and expected values: "40M", "40 M samples/s", "40Msamples/s", " 4e7 " and "40000 k/s"
// are all 4e7 samples/s (M is 1e6, k 1e3: metric prefixes on a count, with or without a space);
// "2.5 G" is 2.5e9; a bare number ("1234") is samples/s. Each value is exact in binary floating
// point (an integer below 2^53, or 2.5 times a power of ten that is), so equality is exact.
TEST_CASE("a sample rate is read with metric prefixes and an optional samples/s unit") {
  CHECK(parse_sample_rate("40M") == 4e7);
  CHECK(parse_sample_rate("40 M samples/s") == 4e7);
  CHECK(parse_sample_rate("40Msamples/s") == 4e7);
  CHECK(parse_sample_rate(" 4e7 ") == 4e7);
  CHECK(parse_sample_rate("40000 k/s") == 4e7);
  CHECK(parse_sample_rate("2.5 G") == 2.5e9);
  CHECK(parse_sample_rate("1234") == 1234.0);
}

// System: parse_sample_rate on text that is no training rate.
// Inputs: a rate of bytes ("40 GB/s"), a prefix with no number ("M"), zero, a negative rate,
// an infinite one ("inf"). Expected: each a UnitError (a rate must be a positive, finite number
// of samples per second), the message saying what was expected ("such as '40M'").
TEST_CASE("text that is no positive finite sample rate is refused, saying what was expected") {
  CHECK_THROWS_WITH_AS(parse_sample_rate("40 GB/s"), doctest::Contains("unknown unit 'GB/s'"), UnitError);
  CHECK_THROWS_WITH_AS(parse_sample_rate("M"), doctest::Contains("does not start with a finite number"), UnitError);
  CHECK_THROWS_WITH_AS(parse_sample_rate("0"), doctest::Contains("not a positive finite rate"), UnitError);
  CHECK_THROWS_WITH_AS(parse_sample_rate("-3M"), doctest::Contains("such as '40M'"), UnitError);
  CHECK_THROWS_AS(parse_sample_rate("inf"), UnitError);
}
