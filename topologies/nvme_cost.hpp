// What reading and writing embedding rows on a socket's NVMe drives costs (the ssd placement
// tier, placement/tiers/ssd.cpp; the simulation's SSD reads, models/embedding_work.cpp).
//
// The key-value store (FBGEMM's EmbeddingRocksDB behind SSDTableBatchedEmbeddingBags,
// pytorch/FBGEMM@1f4c3d57 fbgemm_gpu/fbgemm_gpu/tbe/ssd/training.py) reads a row that misses
// its cache as one block of the store: each row costs ceil(row bytes / page size) pages, and
// rows are random, so a page is a random read. The drives (NvmeSpec x count, striped) read
//   pages x page size / min(random-read bandwidth, IOPS x page size,
//                           queue depth x page size / read latency)   (each x drives)
// whichever binds. The IOPS of a data sheet are 4 KiB reads; a page of another size is taken to
// cost one I/O up to the bandwidth bound (an assumption). Writes are sequential: RocksDB is a
// log-structured merge tree, which collects written rows in memory tables and flushes them as
// sorted files, so the rows' bytes go at the drives' sequential write rate (compaction's
// rewrites are not counted: an optimistic assumption), and a data sheet's 4 KiB random-write
// IOPS, which an in-place store would pay, do not apply.
//
// With the prefetch pipeline (software.embeddings.prefetch: next_batch, FBGEMM's
// prefetch_pipeline) the next batch's reads run while the current step computes: only the part
// of them longer than the step they overlap is exposed, prefetch_exposed().
#pragma once

#include "common/units.hpp"
#include "topologies/devices.hpp"

namespace dlrmsim::topo {

/// Pages that `rows` random rows of `row_bytes` read (each row ceil(row / page) pages).
double nvme_pages(double rows, Bytes row_bytes, const NvmeSpec& drives);
/// Reading `pages` random pages from the drives; 0 for none.
Seconds nvme_read_time(const NvmeSpec& drives, double pages);
/// Writing `bytes` of rows to the drives (sequentially); 0 for none.
Seconds nvme_write_time(const NvmeSpec& drives, Bytes bytes);
/// The part of a prefetched read of `read` seconds that a step of `overlapped` seconds does not
/// hide: max(0, read - overlapped).
Seconds prefetch_exposed(Seconds read, Seconds overlapped);

}  // namespace dlrmsim::topo
