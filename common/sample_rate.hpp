// A training rate (samples per second) as a person writes it on the command line.
#pragma once

#include <string_view>

#include "common/units.hpp"

namespace dlrmsim {

/// Parses a training rate as a person writes it, into samples per second: a number, an
/// optional metric prefix (k, M, G, T: powers of 1000, with or without a space) and an optional
/// unit "samples/s" (or "sample/s", "/s"): "40M", "40 M samples/s", "4e7", "40000 k/s" are all
/// 4e7. Anything else is a UnitError saying what was expected. Must be positive and finite.
double parse_sample_rate(std::string_view text);

}  // namespace dlrmsim
