#include "models/training_mode.hpp"

#include <array>
#include <stdexcept>
#include <string>

namespace dlrmsim::models {
namespace {

constexpr std::array kCpuTiers{placement::Tier::host_dram, placement::Tier::remote_ps};
constexpr std::array kServerTiers{placement::Tier::remote_ps};

constexpr std::array kModes{
    TrainingModeInfo{"hybrid_parallel_sync",
                     "tables sharded model-parallel over GPUs, all-to-all of ids, pooled embeddings and "
                     "gradients; data-parallel dense part with bucketed all-reduce overlapped with backward",
                     false, {}, false, &build_synchronous_steps},
    TrainingModeInfo{"cpu_only", "CPU-cluster training: CPU sockets are data-parallel trainers, tables in DRAM",
                     true, kCpuTiers, false, &build_synchronous_steps},
    TrainingModeInfo{"parameter_server",
                     "GPU trainers with tables on remote CPU parameter servers returning pooled embeddings; "
                     "synchronous",
                     false, kServerTiers, false, &build_synchronous_steps},
    TrainingModeInfo{"persia_hybrid",
                     "Persia: embedding workers and parameter servers update embeddings asynchronously with "
                     "bounded staleness; dense part synchronous with all-reduce",
                     false, kServerTiers, false, &build_persia_hybrid_steps},
    TrainingModeInfo{"persia_sync",
                     "Persia's roles fully synchronous: each step's embedding fetch waits for the previous "
                     "step's updates (staleness 0); dense part synchronous with all-reduce",
                     false, kServerTiers, false, &build_persia_sync_steps},
    TrainingModeInfo{"persia_async",
                     "Persia's roles fully asynchronous: embeddings within the staleness bound, dense "
                     "parameters trained locally and averaged every training.averaging_period steps",
                     false, kServerTiers, true, &build_persia_async_steps},
};

}  // namespace

std::span<const TrainingModeInfo> training_modes() { return kModes; }

const TrainingModeInfo* find_training_mode(std::string_view name) {
  for (const auto& m : kModes) {
    if (m.name == name) return &m;
  }
  return nullptr;
}

const TrainingModeInfo& training_mode(std::string_view name) {
  if (const auto* m = find_training_mode(name)) return *m;
  std::string known;
  for (const auto& m : kModes) known += (known.empty() ? "" : ", ") + std::string(m.name);
  throw std::invalid_argument("unknown training mode '" + std::string(name) + "'; expected one of " + known);
}

}  // namespace dlrmsim::models
