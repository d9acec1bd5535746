// Axis tick labels that read as numbers a person writes: 600000 -> "600k", 1.5e9 -> "1.5G",
// 0.25 -> "0.25", instead of printf's "6e+05".
#pragma once

#include <string>

namespace dlrmsim::tools {

/// `v` with at most four significant digits and an SI multiple prefix (k, M, G, T, P, E)
/// when |v| >= 1000; plain decimals from 0.001 to 999; other magnitudes (below 0.001 or at
/// least 1e21) in printf's %g form ("5e-05"). Zero (and -0) is "0"; not-a-number is "nan"
/// and infinities "inf" / "-inf". Rounding that reaches the next prefix moves to it
/// (999999 -> "1M", not "1000k").
std::string tick_label(double v);

}  // namespace dlrmsim::tools
