// Descriptions of a platform shared by `dlrmsim platform` (text and --json) and the Python
// module's platform(): one line per device, and the platform as a JSON document.
#pragma once

#include <string>

#include "topologies/platform.hpp"

namespace dlrmsim::app {

/// "fp32 67 TFLOP/s, bf16 989.5 TFLOP/s": the peak rates a device or node states.
std::string describe_peak(const topo::PeakRates& peak);

/// "H100-SXM5-80GB: HBM 80 GB at 3.35 TB/s, 132 SMs, ...": what `dlrmsim platform` prints.
std::string describe_device(const topo::Device& d);

/// The platform as JSON: name, description, counts, node groups, each node template once
/// (devices with their descriptions, links, per-node figures), fabric, bisection bandwidth.
/// Rates in bytes/s, sizes in bytes, times in seconds.
std::string platform_json(const topo::Platform& p);
/// platform_json of the platform file `path` (`dlrmsim platform --json`).
std::string platform_file_json(const std::string& path);

}  // namespace dlrmsim::app
