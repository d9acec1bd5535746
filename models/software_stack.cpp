#include "models/software_stack.hpp"

#include <algorithm>

namespace dlrmsim::models {
namespace {

/// A choice key read as software_parameters() declares it: its key, its choices (the range)
/// and its default, written once in the table.
std::string choice(const ConfigNode& node, std::string_view key_path) {
  const Parameter& p = declared(software_parameters(), key_path);
  return node.get_choice_or(parameter_key(p), parameter_choices(p), std::string(p.default_value));
}

/// A precision key whose choices are `model` and precision names: nullopt for `model`.
std::optional<Precision> precision_or_model(const ConfigNode& node, std::string_view key_path) {
  const std::string p = choice(node, key_path);
  if (p == "model") return std::nullopt;
  return topo::precision_from_string(p).value();  // a declared choice
}

}  // namespace

SoftwareStack SoftwareStack::from_config(const ConfigNode& node) {
  if (!node.is_map()) node.fail("expected a software stack: a mapping with name, dense, embeddings, collectives");
  SoftwareStack s;
  // Without a name (an inline stack, or `--set software.x=...` on a scenario that names none),
  // the settings not given are the built-in defaults', so it is the default stack modified.
  s.name = node.get_or<std::string>("name", s.name + " (modified)");
  s.description = node.get_or<std::string>("description", "");
  s.source = node.get_or<std::string>("source", "");
  if (auto dense = node.optional_child("dense")) {
    s.dense_precision = precision_or_model(*dense, "software.dense.precision");
    dense->finish();
  }
  if (auto emb = node.optional_child("embeddings")) {
    s.embedding_kernel = choice(*emb, "software.embeddings.kernel") == "per_table"
                             ? EmbeddingKernel::per_table
                             : EmbeddingKernel::table_batched;
    s.deduplicated_backward =
        choice(*emb, "software.embeddings.backward") == "deduplicated";
    s.fused_optimizer = choice(*emb, "software.embeddings.optimizer") == "fused";
    s.striped_host_updates = choice(*emb, "software.embeddings.host_update") == "striped_locks";
    emb->finish();
  }
  if (auto coll = node.optional_child("collectives")) {
    s.peer_to_peer = coll->get_or<bool>("peer_to_peer", s.peer_to_peer);
    s.nvlink_relay = coll->get_or<bool>("nvlink_relay", s.nvlink_relay);
    s.allreduce_bucket = coll->get_positive_or<Bytes>("allreduce_bucket", s.allreduce_bucket);
    s.allreduce_overlaps_backward =
        choice(*coll, "software.collectives.allreduce_overlap") == "backward";
    s.collective_launch = coll->get_positive_or<Seconds>("launch_delay", s.collective_launch, true);
    if (auto sms = coll->optional_child("sms"); sms && !(sms->is_scalar() && sms->as<std::string>() == "auto")) {
      s.collective_sms = coll->get_positive<int>("sms", true);
      if (*s.collective_sms > 1024) sms->fail("expected at most 1024 SMs (NCCL runs one CTA per channel, 64 channels at most)");
    }
    coll->finish();
  }
  if (auto ew = node.optional_child("embedding_workers")) {
    s.worker_embeddings = precision_or_model(*ew, "software.embedding_workers.embeddings");
    s.worker_gradients = precision_or_model(*ew, "software.embedding_workers.gradients");
    ew->finish();
  }
  if (auto host = node.optional_child("host")) {
    s.per_kernel_launch = choice(*host, "software.host.launch") == "per_kernel";
    s.dispatch = host->get_positive_or<Seconds>("dispatch", s.dispatch, true);
    s.feature_operators = host->get_positive_or<int>("feature_operators", 0, true);
    const std::string sync = choice(*host, "software.host.sync");
    s.sync = sync == "per_step" ? HostSync::per_step : sync == "per_feature" ? HostSync::per_feature : HostSync::none;
    if (auto loader = host->optional_child("loader")) {
      s.loader_per_sample = loader->get_positive_or<Seconds>("per_sample", s.loader_per_sample, true);
      s.loader_workers = loader->get_positive_or<int>("workers", 1);
      if (s.loader_workers > 1024) loader->child("workers").fail("expected at most 1024 loader threads per trainer");
      loader->finish();
    }
    host->finish();
  }
  node.finish();
  return s;
}

int SoftwareStack::nccl_sms(int sm_count, bool nvlink) const {
  // NVIDIA/nccl issue 689 (see the header): NCCL launches the fewest CTAs that reach the
  // platform's bandwidth, one per SM: 16 on a DGX-class node, 2 on a PCIe node.
  const int nccl_choice = nvlink ? 16 : 2;
  return std::min(collective_sms.value_or(nccl_choice), sm_count);
}

Precision SoftwareStack::dense_compute_precision(Precision model_precision) const {
  return dense_precision.value_or(model_precision);
}

}  // namespace dlrmsim::models
