#include "topologies/nvme_cost.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace dlrmsim::topo {
namespace {

// The lowest of the rates that are given (0: not a bound), in pages per second.
double pages_per_second(const NvmeSpec& d, BytesPerSecond bandwidth, double iops) {
  const double page = d.page_size.value();
  double rate = std::numeric_limits<double>::infinity();
  if (bandwidth.value() > 0.0) rate = std::min(rate, bandwidth.value() / page);
  if (iops > 0.0) rate = std::min(rate, iops);
  if (d.queue_depth > 0 && d.read_latency.value() > 0.0) {
    rate = std::min(rate, static_cast<double>(d.queue_depth) / d.read_latency.value());
  }
  return rate * static_cast<double>(std::max(d.count, 1));
}

Seconds time_of(double pages, double rate) {
  if (pages <= 0.0) return Seconds(0.0);
  return Seconds(rate > 0.0 && std::isfinite(rate) ? pages / rate : std::numeric_limits<double>::infinity());
}

}  // namespace

double nvme_pages(double rows, Bytes row_bytes, const NvmeSpec& drives) {
  if (rows <= 0.0) return 0.0;
  return rows * std::max(1.0, std::ceil(row_bytes.value() / drives.page_size.value()));
}

Seconds nvme_read_time(const NvmeSpec& drives, double pages) {
  return time_of(pages, pages_per_second(drives, drives.random_read, drives.random_read_iops));
}

Seconds nvme_write_time(const NvmeSpec& drives, Bytes bytes) {
  const double rate = drives.sequential_write.value() * static_cast<double>(std::max(drives.count, 1));
  return time_of(bytes.value(), rate);
}

Seconds prefetch_exposed(Seconds read, Seconds overlapped) { return Seconds(std::max(0.0, (read - overlapped).value())); }

}  // namespace dlrmsim::topo
