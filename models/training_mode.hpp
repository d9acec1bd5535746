// Training modes: how one training step of a recommendation model runs on a platform.
//
// Each mode is a named implementation (models/modes/*.cpp) that turns training steps into
// engine activities with the StepBuilder's vocabulary (step_builder.hpp):
//
//  hybrid_parallel_sync  TorchRec / HugeCTR style (Mudigere et al., "Software-hardware co-design
//                        for fast and scalable training of DLRM", ISCA 2022): tables sharded
//                        model-parallel over the GPUs (placement decides), ids all-to-all to the
//                        shard owners, pooled embeddings all-to-all back, gradients all-to-all
//                        backward; the dense part data-parallel with bucketed all-reduce
//                        overlapped with the backward pass; synchronous steps.
//  cpu_only              CPU-cluster training (HPCA 2021's CPU baseline): CPU sockets are the
//                        trainers, tables in their DRAM, the same synchronous hybrid structure.
//  parameter_server      GPU (or CPU) trainers with tables on remote CPU parameter servers that
//                        return pooled embeddings (HPCA 2021 "remote CPU memory"); synchronous:
//                        the next step's lookups wait for this step's updates.
//  persia_hybrid         Persia (Lian et al., KDD 2022): embedding workers fetch rows from the
//                        parameter servers, pool them and feed the GPU trainers; gradients flow
//                        back and update the servers asynchronously with bounded staleness; the
//                        dense part trains synchronously with all-reduce; the embedding pipeline
//                        of later steps overlaps the dense step.
//  persia_sync           the same roles fully synchronous (staleness 0).
//  persia_async          the same roles fully asynchronous: dense parameters averaged every
//                        training.averaging_period steps instead of a per-step all-reduce.
//
// A mode builds warm-up + measured steps; the report takes the steady-state step time from
// the measured ones.
#pragma once

#include <span>
#include <string_view>

#include "placement/placement.hpp"

namespace dlrmsim::models {

class StepBuilder;

struct TrainingModeInfo {
  std::string_view name;
  std::string_view description;
  /// Whether the trainers are CPU sockets (else GPUs).
  bool cpu_trainers = false;
  /// The tiers this mode uses when the scenario's placement section names none (empty: any).
  std::span<const placement::Tier> default_tiers;
  /// Whether the mode reads training.averaging_period (it averages the dense parameters every
  /// that many steps); the key is refused for the others.
  bool reads_averaging_period = false;
  /// Builds `steps` consecutive steps (warm-up included) into the builder's graph.
  void (*build)(StepBuilder& builder, int steps);
};

/// Every training mode, in a fixed order.
std::span<const TrainingModeInfo> training_modes();
/// The mode called `name`, or nullptr.
const TrainingModeInfo* find_training_mode(std::string_view name);
/// The mode called `name`; throws std::invalid_argument naming the known ones otherwise.
const TrainingModeInfo& training_mode(std::string_view name);

// The implementations (models/modes/*.cpp).
void build_synchronous_steps(StepBuilder& builder, int steps);
void build_persia_hybrid_steps(StepBuilder& builder, int steps);
void build_persia_sync_steps(StepBuilder& builder, int steps);
void build_persia_async_steps(StepBuilder& builder, int steps);

}  // namespace dlrmsim::models
