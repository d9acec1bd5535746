// The host model: what the trainers' CPU threads do in a step (step_builder.hpp's vocabulary).
//
// A GPU trainer has a host thread (one core of its node's cores) that dispatches its kernels
// in program order (software.host.dispatch + the profile's launch overhead each), runs the
// framework's per-operator work, and waits for the GPU at the stack's sync points
// (software.host.sync: none, per step, per feature); loader threads assemble the input
// batches on the same cores (software.host.loader). The host runs ahead of its GPU except
// where it waits, and never more than two steps ahead (two input buffers).
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <vector>

#include "common/units.hpp"
#include "models/quantized_comms.hpp"
#include "models/step_context.hpp"
#include "models/transfers.hpp"
#include "sim/activity_graph.hpp"

namespace dlrmsim::models {

class HostModel {
 public:
  HostModel(StepContext& ctx, Transfers& net) : ctx_(ctx), net_(net) {}

  /// `launches` kernels that take `t` together on d's stream (on a CPU device: compute()), at
  /// least their floor on a GPU (DeviceProfile::kernel_floor: launches x (launch overhead +
  /// the GPU time of an empty kernel), whatever their work). A
  /// GPU's host thread dispatches them first, in program order, at software.host.dispatch +
  /// the profile's launch overhead each: the first kernel waits for its own dispatch, and the
  /// returned completion for the host to have dispatched the last. The host does not wait for
  /// the GPU (it runs ahead) except at host_wait.
  sim::ActivityId kernels(const SimDevice& d, Seconds t, int launches, std::span<const sim::ActivityId> deps,
                          std::uint16_t category, KernelLoad load = {});
  /// As kernels(), for work done feature by feature (an embedding pass over `features` sparse
  /// features): under software.host.sync per_feature the work is cut into one piece per
  /// feature and the host waits for each piece before dispatching the next.
  sim::ActivityId feature_kernels(const SimDevice& d, Seconds t, int launches, int features,
                                  std::span<const sim::ActivityId> deps, std::uint16_t category, KernelLoad load = {});
  /// The host thread of GPU d waits for `done` (a synchronisation point).
  void host_wait(const SimDevice& d, sim::ActivityId done);
  /// `count` host operators with no kernel on GPU d's host thread (Python-side work).
  void host_operators(const SimDevice& d, int count);
  /// One host operator on GPU d's host thread that starts work off the compute stream (a
  /// collective call, a copy): returns its completion, which that work waits for. On a CPU
  /// device, or with software.host.dispatch zero, `after` as is.
  sim::ActivityId host_call(const SimDevice& d, sim::ActivityId after);
  /// One quantised-communication codec kernel (an encode or a decode) of `values` values on
  /// GPU d under `codec` (models/quantized_comms.hpp, from the model's communication
  /// precision): memory bound over HBM, one launch, after `after`, in `category`. `after`
  /// itself without a codec, without values, or on a CPU device.
  sim::ActivityId codec(const SimDevice& d, std::optional<Precision> codec, double values, sim::ActivityId after,
                        std::uint16_t category);
  /// The host thread of GPU d reads a result back (`.tolist()` of a device tensor): a copy on
  /// its compute stream, so it waits for everything queued there and for `also`.
  void read_back(const SimDevice& d, sim::ActivityId also);
  /// The stack's sync points of one step on trainer d: per step, after its end (software.host.sync).
  void host_step_end(const SimDevice& d, sim::ActivityId step_end);
  /// The input side of step s on simulated trainer i, the same in every mode: loading its
  /// batch on the node's cores (software.host.loader) and the host-to-device copy, both after
  /// their step s-1 counterparts and the end of step s-2 (two input buffers, as TorchRec's
  /// TrainPipelineSparseDist); the host dispatches step s into the buffer step s-2 used, so it
  /// never runs more than two steps ahead of its GPU; then the host's per-feature loop
  /// (software.host.feature_operators) and the framework's own work of the step
  /// (software.host.framework: per step, and per sample of the local batch). `step_end`
  /// holds the ends of the steps built so far. Returns the input copy.
  sim::ActivityId step_input(std::size_t i, int s, std::span<const sim::ActivityId> step_end);
  /// The host-to-device copy of one trainer's input batch (dense features, ids, lengths, labels).
  sim::ActivityId input_copy(const SimDevice& trainer, std::span<const sim::ActivityId> deps);
  /// Bytes of one trainer's input batch.
  Bytes input_bytes(std::int64_t samples) const;

 private:
  /// The host thread of a GPU trainer: a core pool of one core on its node's cores, and the
  /// last host activity (in program order); loader threads likewise.
  struct HostThread {
    std::vector<sim::ResourceId> route;  // {thread, node cores}
    std::optional<sim::ActivityId> last;
    std::vector<std::vector<sim::ResourceId>> loader_routes;
  };
  HostThread& host_thread(const SimDevice& d);
  /// The read of step s's batch for trainer i's node from the platform's storage, when the
  /// stack bounds the batches in flight (software.host.loader.batches_in_flight, N) and the
  /// storage has a read latency (storage.dataset_read_latency, L): one batch every L / N per
  /// node, in order. nullopt otherwise.
  std::optional<sim::ActivityId> dataset_read(std::size_t i, int s);
  sim::ActivityId host_work(HostThread& h, Seconds t);

  StepContext& ctx_;
  Transfers& net_;
  std::map<std::uint32_t, HostThread> host_threads_;    // by GPU device index
  std::map<std::uint32_t, sim::ResourceId> node_cores_;  // by node index
  struct Reader {
    std::optional<sim::StreamId> stream;
    int step = -1;
    sim::ActivityId read{};
  };
  std::map<std::uint32_t, Reader> readers_;             // each node's dataset reader, by node index
  std::vector<sim::ActivityId> prev_copy_, prev_load_;   // step_input's previous step, per trainer
};

}  // namespace dlrmsim::models
