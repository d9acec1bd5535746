// Tests of the NVMe drives' page reads and writes and of the prefetch overlap
// (topologies/nvme_cost.hpp): each bound (bandwidth, IOPS, queue depth over latency) binding in
// turn, pages per row, and the exposed part of a prefetched read.
#include <doctest/doctest.h>

#include "approx.hpp"

#include "topologies/nvme_cost.hpp"

using namespace dlrmsim;
using namespace dlrmsim::topo;

namespace {

// Samsung PM1743 15.36 TB as Samsung announced it (AnandTech, 2021-12-23): 13,000 MB/s
// sequential read, 6,600 MB/s write, 2.5M 4 KiB random-read IOPS; 4 KiB pages.
NvmeSpec pm1743(int count) {
  NvmeSpec d;
  d.model = "Samsung PM1743 15.36 TB";
  d.count = count;
  d.capacity = Bytes(15.36e12);
  d.sequential_read = d.random_read = BytesPerSecond(13e9);
  d.sequential_write = BytesPerSecond(6.6e9);
  d.random_read_iops = 2.5e6;
  return d;
}

}  // namespace

// System: one PM1743 and four, reading 1,000,000 random 4 KiB pages.
// Expected: IOPS x page (2.5e6 x 4096 = 10.24 GB/s) is below the 13 GB/s bandwidth, so IOPS
// bind: 1e6 / 2.5e6 = 0.4 s on one drive, 0.1 s striped over four.
TEST_CASE("nvme cost: random reads bound by IOPS x page size when that is below the bandwidth") {
  CHECK(nvme_read_time(pm1743(1), 1e6).value() == dlrmsim::rel(0.4));
  CHECK(nvme_read_time(pm1743(4), 1e6).value() == dlrmsim::rel(0.1));
  CHECK(nvme_read_time(pm1743(4), 0.0).value() == 0.0);
}

// System: a drive whose 5M IOPS x 4 KiB (20.48 GB/s) exceed its 13 GB/s random-read bandwidth.
// Expected: the bandwidth binds: 1e6 pages x 4096 B / 13e9 B/s = 0.31508 s.
TEST_CASE("nvme cost: random reads bound by the bandwidth when IOPS x page size exceed it") {
  NvmeSpec d = pm1743(1);
  d.random_read_iops = 5e6;
  CHECK(nvme_read_time(d, 1e6).value() == dlrmsim::rel(1e6 * 4096.0 / 13e9));
}

// System: the PM1743 read by a store that keeps 32 reads in flight, each taking 100 us.
// Expected: Little's law, 32 / 100 us = 320,000 pages/s, below the 2.5M IOPS: 1e6 pages take
// 3.125 s; without a queue depth the latency is no bound (0.4 s as above).
TEST_CASE("nvme cost: queue depth over latency bounds the reads when it is the lowest rate") {
  NvmeSpec d = pm1743(1);
  d.queue_depth = 32;
  d.read_latency = Seconds(100e-6);
  CHECK(nvme_read_time(d, 1e6).value() == dlrmsim::rel(3.125));
  d.queue_depth = 0;
  CHECK(nvme_read_time(d, 1e6).value() == dlrmsim::rel(0.4));
}

// System: four PM1743 writing 26.4 GB of rows, with a store that keeps one read in flight.
// Expected: a log-structured store writes sequentially, 26.4e9 / (4 x 6.6e9) = 1 s; the read
// queue depth and latency do not bound writes.
TEST_CASE("nvme cost: writes go at the drives' sequential write rate") {
  NvmeSpec d = pm1743(4);
  d.queue_depth = 1;
  d.read_latency = Seconds(1e-3);
  CHECK(nvme_write_time(d, Bytes(26.4e9)).value() == dlrmsim::rel(1.0));
  CHECK(nvme_write_time(d, Bytes(0.0)).value() == 0.0);
}

// System: rows of 512 B, 4,096 B and 5,000 B on 4 KiB pages, and 512 B rows on 16 KiB pages.
// Expected: a row costs ceil(row / page) pages, at least one: 1, 1, 2, 1 per row.
TEST_CASE("nvme cost: pages per row") {
  NvmeSpec d = pm1743(1);
  CHECK(nvme_pages(1000.0, Bytes(512.0), d) == 1000.0);
  CHECK(nvme_pages(1000.0, Bytes(4096.0), d) == 1000.0);
  CHECK(nvme_pages(1000.0, Bytes(5000.0), d) == 2000.0);
  d.page_size = Bytes(16384.0);
  CHECK(nvme_pages(1000.0, Bytes(512.0), d) == 1000.0);
  CHECK(nvme_pages(0.0, Bytes(512.0), d) == 0.0);
}

// System: a prefetched read of 3 ms and of 8 ms overlapping a step of 5 ms.
// Expected: the part shorter than the step is hidden: 0 ms exposed, then 8 - 5 = 3 ms.
TEST_CASE("nvme cost: a prefetched read exposes only its part longer than the step it overlaps") {
  CHECK(prefetch_exposed(Seconds(3e-3), Seconds(5e-3)).value() == 0.0);
  CHECK(prefetch_exposed(Seconds(8e-3), Seconds(5e-3)).value() == dlrmsim::rel(3e-3));
  CHECK(prefetch_exposed(Seconds(5e-3), Seconds(5e-3)).value() == 0.0);
}
