// hstu: the HSTU block of a generative recommender [Zhai et al., "Actions Speak Louder than
// Words", ICML 2024] over each sample's jagged event sequence, as STULayer implements it in
// meta-recsys/generative-recommenders@1cf745902c487c9582bf6b9723384ae335514271:
// generative_recommenders/modules/stu.py. Per layer and event (token) of embedding dim D,
// H heads, attention dim a and hidden (linear) dim h per head, P = (2h + 2a) H:
//   uvqk   = SiLU(LayerNorm(x) W_uvqk + b)        W_uvqk: D x P        (hstu_compute_uqvk)
//   attn_i = sum_{j <= i} SiLU(alpha q_i k_j + rab) v_j / n  per head, causal (hstu_mha)
//   y      = [u * LayerNorm(attn), u, x] W_out + x  W_out: 3hH x D       (hstu_compute_output,
//            concat_u = concat_x = True, so W_out has 3 h H rows)
// Parameters per layer: D P + P (uvqk weight, bias) + 2D (input norm) + 3hH D (output weight)
// + 2hH (output norm).
//
// FLOPs per sample of L events (sequence_length, the jagged mean: no padding), per layer:
//   projections  L (2 D P + 2 (3hH) D)
//   attention    H L (L + 1) / 2 pairs (causal) x (2a + 2h)   -- quadratic in L, per sequence
// Backward: twice the forward (input and weight gradients; the attention's dQ, dK, dV, as the
// GEMM convention), plus, with recompute, the uvqk GEMM again (recompute_uvqk_in_backward).
// Assumption (labelled): all sequences at the mean length, so sum L_i^2 = n L^2; a spread of
// lengths makes the attention dearer (E[L^2] >= E[L]^2).
//
// Activations kept for the backward pass, per event and layer (the memory that bounds the
// sequence length): without recompute x (D), LayerNorm(x) (D), u, v, q, k (P), the attention
// output (hH) and y's input (3hH): 2D + P + 4hH; with recompute (STULayerConfig's
// recompute_normed_x, recompute_uvqk and recompute_y, all true by default) only x and the
// attention output: D + hH. The fused attention kernel never materialises the L x L matrix.
//
// On a GPU, local batch b, T = b L events: per layer gemm(T, P, D) and gemm(T, D, 3hH) forward,
// twice each backward (dX, dW); the attention as one batched GEMM of its FLOPs through the
// device profile, b H L (L + 1) / 2 (2a + 2h) FLOPs at the profile's peak x efficiency of a
// GEMM L x L x (a + h) (an assumption: a fused jagged attention kernel as efficient as a GEMM
// of that shape), floored by its
// HBM traffic that of a fused kernel, reading q, k, v and writing the output once:
// T H (2a + 2h) elements (4 x that backward). Elementwise work (norms, SiLU, gating) over
// achievable HBM bandwidth: the uvqk and output activations read and written once.
//
// Context parallelism (training.context_parallel = c GPUs of one node share each sequence):
// the attention with its keys and values all-gathered, as Transformer Engine's
// AttnFuncWithCPAndKVAllGather (NVIDIA/TransformerEngine@9c61cd7e5e0c93217ad38d4682568ff5dde4f08b:
// transformer_engine/pytorch/attention/dot_product_attention/context_parallel.py; the scheme of
// "The Llama 3 Herd of Models", arXiv 2407.21783, sec. 3.3.2): forward, gather_along_first_dim
// of k and v; backward, k and v gathered again and dk, dv reduce-scattered; each sequence in
// 2c chunks, GPU r holding chunks r and 2c-1-r, so the causal pairs split evenly. The
// generative-recommenders code has no context parallelism: this is the what-if of running
// HSTU's attention that way. With the group's b samples (GpuCostInput::batch) a GPU holds
// T = b L / c events and per layer sends each of the c-1 others its T H (a + h) keys and values
// forward and twice that backward (the gather again, the gradients' reduce-scatter); its
// attention FLOPs are 1/c of the group's, and its fused kernel reads the gathered keys and
// values, c T H (a + h) elements, besides its own queries and outputs. The projections see
// T events as without it. Not modelled: the gathered keys and values of one layer held while
// its attention runs (transient, c T H (a + h) elements), and any overlap of the gather with
// compute (Transformer Engine exposes it).
#include <algorithm>

#include "models/dense_operator.hpp"

namespace dlrmsim::models {

namespace {

struct HstuShape {
  double D, H, a, h, P, L, layers;
};

HstuShape shape_of(const ModelSpec& model, std::int64_t in) {
  const HstuBlock& s = model.interaction.hstu;
  const double H = s.heads, a = static_cast<double>(s.attention_dim), h = static_cast<double>(s.hidden_dim);
  return {static_cast<double>(in), H, a, h, (2.0 * h + 2.0 * a) * H, s.sequence_length, static_cast<double>(s.layers)};
}

}  // namespace

DenseLayer declare_hstu(const DenseOperatorSite& site) {
  const std::int64_t d = site.model.common_embedding_dim();
  const HstuShape s = shape_of(site.model, d);
  DenseLayer l;
  l.in = d;
  l.out = d;  // the candidate's embedding after the block feeds the top MLP
  const double projections = s.L * (2.0 * s.D * s.P + 2.0 * 3.0 * s.h * s.H * s.D);
  const double attention = s.H * s.L * (s.L + 1.0) / 2.0 * (2.0 * s.a + 2.0 * s.h);
  const double recomputed = site.model.interaction.hstu.recompute ? s.L * 2.0 * s.D * s.P : 0.0;
  l.forward_flops_per_sample = Flops(s.layers * (projections + attention));
  l.backward_flops_per_sample = Flops(s.layers * (2.0 * (projections + attention) + recomputed));
  l.parameters = s.layers * (s.D * s.P + s.P + 2.0 * s.D + 3.0 * s.h * s.H * s.D + 2.0 * s.h * s.H);
  const double kept = site.model.interaction.hstu.recompute ? s.D + s.h * s.H
                                                            : 2.0 * s.D + s.P + 4.0 * s.h * s.H;
  l.activation_elements_per_sample = s.layers * s.L * kept;
  l.gemms = site.model.interaction.hstu.layers * 3;  // uvqk, attention, output
  l.over_sequences = true;
  return l;
}

DenseOperatorCost hstu_gpu_cost(const DenseLayer& l, const GpuCostInput& in) {
  const HstuShape s = shape_of(in.model, l.in);
  const HstuBlock& block = in.model.interaction.hstu;
  const auto& profile = in.profile;
  const topo::Precision dt = in.dtype;
  const auto length = static_cast<std::int64_t>(s.L + 0.5);
  const double c = std::max(1, in.context_parallel);
  // Events this GPU holds: its samples' whole sequences, or 1/c of its group's.
  const auto tokens = static_cast<std::int64_t>(static_cast<double>(in.batch) * static_cast<double>(length) / c + 0.5);
  const std::int64_t D = l.in;
  const auto P = static_cast<std::int64_t>(s.P);
  const auto out_in = static_cast<std::int64_t>(3.0 * s.h * s.H);
  DenseOperatorCost cost;
  Seconds fwd{0.0}, bwd{0.0};
  const auto gemm = [&](std::int64_t m, std::int64_t n, std::int64_t k, Seconds& time, Bytes& bytes) {
    time += profile.gemm_time(m, n, k, dt);
    bytes += topo::gemm_traffic(m, n, k, dt);
  };
  const auto batches = static_cast<double>(in.batch * block.heads);
  const std::int64_t ak = block.attention_dim + block.hidden_dim;
  const Flops attention_flops(batches * s.L * (s.L + 1.0) / 2.0 * 2.0 * static_cast<double>(ak) / c);
  const auto query_rows = static_cast<std::int64_t>(static_cast<double>(length) / c + 0.5);
  const Seconds attention = attention_flops / (profile.gemm_peak(dt) * profile.gemm_efficiency(query_rows, length, ak, dt));
  // Queries and outputs of its own events, keys and values of the c x its events it attends to.
  const double kv = static_cast<double>(tokens) * s.H * (s.a + s.h);
  const Bytes attention_io = in.element() * (kv + c * kv);
  const Bytes elementwise = in.element() * (static_cast<double>(tokens) * (2.0 * s.P + 2.0 * static_cast<double>(out_in)));
  for (int i = 0; i < block.layers; ++i) {
    gemm(tokens, P, D, fwd, cost.forward_hbm);
    gemm(tokens, D, out_in, fwd, cost.forward_hbm);
    fwd += std::max(attention, in.memory_time(attention_io)) + in.memory_time(elementwise);
    cost.forward_hbm += attention_io + elementwise;
    if (block.recompute) gemm(tokens, P, D, bwd, cost.backward_hbm);
    gemm(tokens, D, P, bwd, cost.backward_hbm);  // uvqk: dX, dW
    gemm(D, P, tokens, bwd, cost.backward_hbm);
    gemm(tokens, out_in, D, bwd, cost.backward_hbm);  // output: dX, dW
    gemm(out_in, D, tokens, bwd, cost.backward_hbm);
    bwd += std::max(attention * 2.0, in.memory_time(attention_io * 4.0)) + in.memory_time(elementwise * 2.0);
    cost.backward_hbm += attention_io * 4.0 + elementwise * 2.0;
  }
  if (c > 1.0) {
    // Each layer's keys and values to every other GPU of the group; backward twice that.
    cost.forward_exchange = in.element() * (kv * s.layers);
    cost.backward_exchange = cost.forward_exchange * 2.0;
  }
  // Kernels per layer: two GEMMs, the attention and two elementwise (norm + SiLU, gating + norm)
  // forward; four GEMMs (five with recompute), the attention's and two elementwise backward.
  cost.forward_kernels = block.layers * 5;
  cost.backward_kernels = block.layers * (block.recompute ? 8 : 7);
  cost.forward = fwd + in.launch() * static_cast<double>(cost.forward_kernels);
  cost.backward = bwd + in.launch() * static_cast<double>(cost.backward_kernels);
  return cost;
}

}  // namespace dlrmsim::models
