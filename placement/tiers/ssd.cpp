// ssd: the weights and optimiser state live on the NVMe drives of the owning GPU's host socket
// (a key-value store: FBGEMM's SSDTableBatchedEmbeddingBags over EmbeddingRocksDB,
// pytorch/FBGEMM@1f4c3d57 fbgemm_gpu/fbgemm_gpu/tbe/ssd/training.py; TorchRec's key_value
// compute kernel). The GPU looks rows up in an HBM row cache (the kernel requires one:
// `assert cache_sets > 0`, LRU, 32-way), sized placement.ssd_cache_fraction of the rows and
// modelled by placement/cache_model.hpp like uvm's; a row that misses is read from the drives
// as one page of the store and copied to the cache over PCIe, and the row it evicts is written
// back to the drives after the update (sequentially: RocksDB is log-structured).
// Cost: the one GPU embedding cost model with the hits in HBM and the misses over PCIe (as uvm),
// plus the drives' reads of the misses' pages and writes of the evicted rows
// (topologies/nvme_cost.hpp); with the prefetch pipeline (software.embeddings.prefetch:
// next_batch, FBGEMM's prefetch_pipeline) they run alongside the step and only their part
// longer than it is exposed.
// Capacity: weights and optimiser state on the socket's drives, the cache on the GPU.
#include "placement/tier.hpp"

#include <limits>

#include "topologies/nvme_cost.hpp"

namespace dlrmsim::placement {
namespace {

class SsdTier final : public MemoryTier {
 public:
  [[nodiscard]] Tier id() const override { return Tier::ssd; }
  [[nodiscard]] std::string_view name() const override { return "ssd"; }
  [[nodiscard]] std::string_view description() const override {
    return "NVMe drives of the GPU's host socket (a key-value store read in pages) through an HBM row cache";
  }
  [[nodiscard]] std::string_view owners_description() const override {
    return "GPUs whose host CPU socket has NVMe drives (a CPU device's `nvme:`)";
  }
  [[nodiscard]] TierProperties properties() const override {
    TierProperties p;
    p.owner_kind = OwnerKind::gpu;
    p.on_gpu = true;
    p.over_host_link = true;
    p.hbm_cache = true;
    return p;
  }
  [[nodiscard]] bool can_own(const PlacementDevice& device) const override {
    return device.kind == OwnerKind::gpu && device.nvme_device >= 0;
  }
  [[nodiscard]] OwnerKind storage_kind() const override { return OwnerKind::nvme; }
  [[nodiscard]] std::uint32_t storage_of(const PlacementProblem& problem, std::uint32_t owner) const override {
    return static_cast<std::uint32_t>(problem.devices.at(owner).nvme_device);
  }
  [[nodiscard]] ShardCost cost(const ShardCostInput& in) const override {
    ShardCost c = gpu_owner_cost(in, in.work.lookups * in.work.hit_rate);
    const auto storage = in.device.nvme_device;
    if (storage < 0 || !in.problem.devices.at(static_cast<std::size_t>(storage)).nvme) {
      c.storage_read = c.storage_write = Seconds(std::numeric_limits<double>::infinity());
      return c;
    }
    const topo::NvmeSpec& drives = *in.problem.devices[static_cast<std::size_t>(storage)].nvme;
    const Bytes row{in.table.element_size.value() * in.work.columns};
    // Each miss reads its row's pages; in steady state it evicts a row, written back with its
    // optimiser state (the store keeps them together) in the store's sequential runs.
    const double misses = in.work.lookups * (1.0 - in.work.hit_rate);
    c.storage_read = topo::nvme_read_time(drives, topo::nvme_pages(misses, row, drives));
    const Bytes stored = row + in.table.optimizer_state_per_row * (static_cast<double>(in.work.columns) / in.table.dim);
    c.storage_write = topo::nvme_write_time(drives, stored * misses);
    c.prefetched = in.problem.ssd_prefetch;
    return c;
  }
};

}  // namespace

const MemoryTier& ssd_tier() {
  static const SsdTier tier;
  return tier;
}

}  // namespace dlrmsim::placement
