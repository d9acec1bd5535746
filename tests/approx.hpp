// Relative comparison for tests.
//
// doctest::Approx(b) accepts a when |a - b| < epsilon x (scale + max(|a|, |b|)) with scale 1
// by default: for values far below 1 (a step of a few milliseconds, in seconds) that is an
// absolute tolerance of about epsilon, and `Approx(0.001).epsilon(0.02)` accepts anything
// from -0.019 to 0.021. rel() sets the scale to 0, so the tolerance is relative to the values
// compared, as the tests mean it. Against an exact zero a relative tolerance is empty, so
// rel(0) keeps doctest's absolute one (epsilon, about 1.2e-5 by default).
#pragma once

#include <doctest/doctest.h>

namespace dlrmsim {

inline doctest::Approx rel(double value) { return doctest::Approx(value).scale(value == 0.0 ? 1.0 : 0.0); }

}  // namespace dlrmsim
