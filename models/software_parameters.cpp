// The software-stack keys (configs/software/*.yaml, or a scenario's inline `software:`), as
// SoftwareStack::from_config (models/software_stack.cpp) reads them. Defaults are the
// built-in stack's (SoftwareStack's member initialisers: torchrec-fbgemm.yaml).
#include "models/software_stack.hpp"

namespace dlrmsim::models {
namespace {

constexpr Parameter kSoftwareParameters[] = {
    {"software.name", "", "\"torchrec-fbgemm (modified)\"", "text", "Name of the stack, shown in reports."},
    {"software.description", "", "\"\"", "text", "Free text."},
    {"software.source", "", "\"\"", "text", "Where the settings come from (code at a commit)."},
    {"software.dense", "", "the defaults below", "{precision}", "The dense part's arithmetic."},
    {"software.dense.precision", "", "model", "model | fp32 | tf32 | bf16 | fp16",
     "model: the model's compute precision; fp32, tf32: no autocast; bf16, fp16: GEMMs autocast to that type."},
    {"software.embeddings", "", "the defaults below", "{kernel, backward, optimizer, host_update}", "The embedding kernels."},
    {"software.embeddings.kernel", "", "table_batched", "table_batched | per_table",
     "One fused kernel per pass per GPU (FBGEMM TBE, HugeCTR), or one per table (nn.EmbeddingBag)."},
    {"software.embeddings.backward", "", "deduplicated", "deduplicated | per_lookup",
     "Each distinct row updated once (sorted segment reduce), or every lookup's row."},
    {"software.embeddings.optimizer", "", "fused", "fused | separate",
     "Optimiser fused into the backward kernel, or a separate kernel per table reading a sparse gradient."},
    {"software.embeddings.host_update", "", "lock_free", "lock_free | striped_locks",
     "Sparse updates of host-memory tables: all cores at once, or under TensorFlow's 1024 id-range locks."},
    {"software.collectives", "", "the defaults below", "a mapping", "The collective library (NCCL) and how it is used."},
    {"software.collectives.peer_to_peer", "", "true", "true | false",
     "false: NCCL_P2P_DISABLE, GPU-to-GPU traffic staged through host memory."},
    {"software.collectives.nvlink_relay", "", "true", "true | false",
     "GPUs without an NVLink of their own relay over NVLink through a third GPU (NCCL >= 2.8.3)."},
    {"software.collectives.allreduce_bucket", "bytes (\"25 MiB\")", "25 MiB (PyTorch DDP's bucket_cap_mb)", "> 0",
     "Dense-gradient bucket size."},
    {"software.collectives.allreduce_overlap", "", "backward", "backward | none",
     "backward: a bucket is reduced as soon as its gradients exist; none: after the whole backward."},
    {"software.collectives.launch_delay", "s (\"2 ms\")", "0 s", ">= 0",
     "From a collective's inputs being ready to its start (framework negotiation)."},
    {"software.collectives.sms", "count", "auto (NCCL: 16 with NVLink, 2 without)", "auto | >= 0",
     "SMs a GPU's NCCL kernel holds while it runs, taken from concurrent compute kernels."},
    {"software.embedding_workers", "", "the defaults below", "{embeddings, gradients}",
     "The Persia modes' CPU embedding workers: what they exchange with the trainers."},
    {"software.embedding_workers.embeddings", "", "model", "model | fp32 | bf16 | fp16",
     "Element type of the pooled embeddings sent to the trainers (model: the model's communication precision)."},
    {"software.embedding_workers.gradients", "", "model", "model | fp32 | bf16 | fp16",
     "Element type of the pooled-embedding gradients the trainers send back."},
    {"software.host", "", "the defaults below", "a mapping", "The work of each GPU trainer's host thread."},
    {"software.host.launch", "", "per_kernel", "per_kernel | cuda_graph",
     "The host launches each kernel, or one captured CUDA graph per step."},
    {"software.host.dispatch", "s (\"5.3 us\")", "5.3 us (PyTorch eager, torchrec-fbgemm.yaml)", ">= 0",
     "Framework cost per GPU kernel launched, besides cudaLaunchKernel itself."},
    {"software.host.feature_operators", "count", "0", ">= 0",
     "Host operators per sparse feature per step, each costing `dispatch`."},
    {"software.host.sync", "", "none", "none | per_step | per_feature", "Where the host waits for its GPU."},
    {"software.host.loader", "", "the defaults below", "{per_sample, workers}", "Data loading on the trainer node's cores."},
    {"software.host.loader.per_sample", "s", "0 s", ">= 0", "CPU time per sample (decode, batch assembly)."},
    {"software.host.loader.workers", "count", "1", "> 0, <= 1024", "Loader threads per trainer (one core each at most)."},
};

}  // namespace

std::span<const Parameter> software_parameters() { return kSoftwareParameters; }

}  // namespace dlrmsim::models
