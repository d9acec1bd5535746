// The specification of a recommendation model (DLRM family) and its YAML loader.
//
// A model is a set of embedding tables (the sparse part: rows x dimension, looked up a few
// times per sample and pooled by sum), dense features, a bottom MLP over the dense features,
// a feature interaction (pairwise dot products as in DLRM [Naumov et al. 2019], plain
// concatenation as in Persia's feed-forward network [Lian et al., KDD 2022], or DCNv2 cross
// layers with a low-rank factorisation [Wang et al., WWW 2021]) and a top MLP producing the
// click probability. It also fixes the optimisers (whose state occupies memory next to the
// weights), the compute and communication precisions, and the global batch size.
//
// This header only describes the model and derives sizes from it (bytes of a table's weights
// and optimiser state, parameter counts, lookups per sample, dense FLOPs per sample). Where
// the tables live is placement's business (placement/), what each operator costs is the cost
// models' (models/cost_models.hpp, one file per dense operator: models/dense_operator.hpp).
//
// YAML form (a model file is this mapping; a scenario may inline it under `model:`):
//
//   name: dlrm_dcnv2                # required
//   description: "..."             # optional, free text
//   source: "..."                  # optional, where the numbers come from
//   global_batch_size: 55296       # samples per synchronous step, all workers together
//   dense_features: 13             # number of dense (continuous) inputs, may be 0
//   embedding_tables:              # list of tables or groups of identical tables
//     - name: t                    # a group: `count` identical tables t_0 ... t_{count-1}
//       count: 4
//       rows: 1000000
//       dim: 128
//       lookups_per_sample: 1      # fixed mean, or {distribution: uniform, min: 1, max: 9}
//                                  #                 {distribution: poisson, mean: 20}
//       access: uniform            # or {kind: zipf, exponent: 1.05}
//                                  # or {kind: hit_rate_curve, points: [[0.01, 0.6], [0.1, 0.9]]}
//       dtype: fp32                # fp32 (default), tf32, bf16, fp16, fp8, int8
//     - name: criteo               # a list of rows (and optionally of lookups): one table each
//       rows: [40000000, 39060, 17295]
//       lookups_per_sample: [3, 2, 1]
//       dim: 128
//   bottom_mlp: [512, 256, 128]    # output widths; the input width is dense_features
//   interaction: dot               # or concat, or {kind: dcnv2, cross_layers: 3, low_rank: 512}
//   top_mlp: [1024, 1024, 512, 256, 1]
//   optimizer: adagrad             # one kind for both parts, or
//                                  # {embedding: rowwise_adagrad, dense: adam, state_dtype: fp32}
//   precision: {compute: bf16, communication: fp16}   # defaults fp32 / fp32
//
// Conventions (documented assumptions):
//  - Pooling is a sum; a table's pooled output for one sample is `dim` values.
//  - Without a bottom MLP the dense features are passed through unchanged (width =
//    dense_features); with one, its last width must equal the embedding dimension for dot
//    interaction (DLRM's requirement, checked at load time).
//  - Dot interaction follows DLRM: the bottom-MLP output and the F pooled embeddings form
//    F+1 vectors of width d; the interaction outputs the F(F+1)/2 distinct pairwise dot
//    products (no self-products) concatenated with the bottom-MLP output.
//  - DCNv2 cross layer l: x_{l+1} = x_0 * (U_l (V_l^T x_l) + b_l) + x_l with U_l, V_l of size
//    w x r (w = interaction width, r = low rank); its output (width w) feeds the top MLP.
//  - FLOPs count a multiply-add as 2 FLOP; backward of a linear layer = 2x forward (input and
//    weight gradients), the standard count [Kaplan et al. 2020; Narayanan et al. 2021].
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/config.hpp"
#include "common/parameters.hpp"
#include "common/units.hpp"
#include "models/dense_layer.hpp"
#include "topologies/precision.hpp"

namespace dlrmsim::models {

/// Number formats for storage, compute and communication: the platform's enum
/// (topologies/precision.hpp, with its element sizes and names). A model uses all of them
/// but fp64; int8 is for quantised embedding rows.
using topo::Precision;
using topo::element_size;

/// Parses "fp32", "tf32", "bf16", "fp16", "fp8", "int8"; ConfigError at `node` otherwise.
Precision parse_precision(const ConfigNode& node);

/// How many rows one sample looks up in a table (the pooling factor or "hotness").
struct LookupsPerSample {
  enum class Distribution { fixed, uniform, poisson };
  Distribution distribution = Distribution::fixed;
  double fixed = 1.0;  // fixed: the value (may be fractional: an average over samples)
  int min = 0;         // uniform: integer in [min, max]
  int max = 0;
  double poisson_mean = 0.0;  // poisson: the mean

  /// Expected lookups per sample (what throughput models use).
  [[nodiscard]] double mean() const;
  /// Human-readable form ("3", "uniform[1,9]", "poisson(20)").
  [[nodiscard]] std::string describe() const;
};

/// How accesses to a table's rows are distributed (drives cache hit rates in placement/).
struct AccessSkew {
  enum class Kind { uniform, zipf, hit_rate_curve };
  Kind kind = Kind::uniform;
  double zipf_exponent = 0.0;  // zipf: P(row of rank k) proportional to k^-exponent
  /// hit_rate_curve: measured (fraction of rows cached, fraction of accesses that hit) pairs,
  /// both in [0, 1], with increasing cached fractions and non-decreasing hit rates.
  std::vector<std::pair<double, double>> hit_rate_points;
  /// How ids are numbered: hashed (an id says nothing of its row's rank; the default) or
  /// by_frequency (id k is the k-th most frequent, as a preprocessing that assigns ids by
  /// descending count leaves them). Decides which rows share a lock of a striped host update
  /// (software.embeddings.host_update).
  enum class IdOrder { hashed, by_frequency } id_order = IdOrder::hashed;

  [[nodiscard]] std::string describe() const;
};

/// One embedding table, or `count` identical tables (a group).
struct EmbeddingTable {
  std::string name;
  std::int64_t count = 1;  // identical tables in this entry
  std::int64_t rows = 0;
  int dim = 0;
  LookupsPerSample lookups;
  AccessSkew access;
  Precision dtype = Precision::fp32;
  /// Whether its lookups feed an event sequence (one output row per lookup, not pooled: an HSTU
  /// model's item features); the all-to-all then carries lookups x dim values a sample.
  bool sequence = false;

  /// Output rows per sample: its lookups when it feeds a sequence, else 1 (one pooled row).
  [[nodiscard]] double outputs_per_sample() const { return sequence ? lookups.mean() : 1.0; }
  /// Bytes of one row (dim x element size).
  [[nodiscard]] Bytes row_bytes() const;
  /// Bytes of the weights of ONE table of this entry.
  [[nodiscard]] Bytes weight_bytes() const;
  /// Parameters of ONE table (rows x dim).
  [[nodiscard]] double parameters() const;
};

enum class OptimizerKind { sgd, adagrad, rowwise_adagrad, adam };
inline constexpr auto kOptimizerKindNames = enum_names<OptimizerKind>({{OptimizerKind::sgd, "sgd"},
                                                                       {OptimizerKind::adagrad, "adagrad"},
                                                                       {OptimizerKind::rowwise_adagrad, "rowwise_adagrad"},
                                                                       {OptimizerKind::adam, "adam"}});
inline std::string_view to_string(OptimizerKind k) { return kOptimizerKindNames.name(k); }

/// An optimiser and the format of its state.
/// State sizes: SGD none; Adagrad one accumulator per parameter; row-wise Adagrad one
/// accumulator per embedding row (FBGEMM's EXACT_ROWWISE_ADAGRAD; for a dense layer it
/// degenerates to Adagrad's per-parameter state); Adam two moments per parameter
/// [Kingma & Ba 2015]. Momentum-free SGD as in the MLPerf DLRM v1 reference.
struct Optimizer {
  OptimizerKind kind = OptimizerKind::sgd;
  Precision state_dtype = Precision::fp32;

  /// State values per parameter of a dense layer.
  [[nodiscard]] double dense_state_values_per_parameter() const;
  /// State bytes of one embedding table (rows x dim parameters).
  [[nodiscard]] Bytes embedding_state_bytes(std::int64_t rows, int dim) const;
  /// State bytes for `parameters` dense parameters.
  [[nodiscard]] Bytes dense_state_bytes(double parameters) const;
};

/// An HSTU block over each sample's jagged event sequence (the sequence-model interaction):
/// `layers` STU layers of `heads` heads, attention dim a and hidden (linear) dim h per head,
/// over sequences of mean length `sequence_length` events and at most `max_sequence_length`.
/// Costs and sources: models/operators/hstu.cpp.
struct HstuBlock {
  int layers = 0;
  int heads = 0;
  std::int64_t attention_dim = 0;
  std::int64_t hidden_dim = 0;
  double sequence_length = 0.0;        // mean events per sample (jagged: no padding)
  std::int64_t max_sequence_length = 0;
  bool recompute = true;               // uvqk, normed x and y recomputed in backward
};

/// Feature interaction between the bottom-MLP output and the pooled embeddings.
struct Interaction {
  enum class Kind { dot, concat, dcnv2, feature_mlp, hstu };
  Kind kind = Kind::dot;
  int cross_layers = 0;  // dcnv2
  int low_rank = 0;      // dcnv2: rank r of U, V (0 = full rank: one w x w matrix per layer)
  std::vector<std::int64_t> widths;  // feature_mlp: output widths of the shared MLP
  HstuBlock hstu;                    // hstu

  [[nodiscard]] std::string describe() const;
  /// The dense operator that computes it (an entry of dense_operators(): dense_operator.hpp).
  [[nodiscard]] std::string_view operator_name() const;
};

struct ModelSpec {
  std::string name;
  std::string description;
  std::string source;
  std::int64_t global_batch_size = 0;
  int dense_features = 0;
  std::vector<EmbeddingTable> tables;
  std::vector<std::int64_t> bottom_mlp;  // output widths
  Interaction interaction;
  std::vector<std::int64_t> top_mlp;     // output widths
  Optimizer embedding_optimizer;
  Optimizer dense_optimizer;
  Precision compute_precision = Precision::fp32;
  Precision communication_precision = Precision::fp32;

  /// Total number of tables (sum of group counts) = number of sparse features.
  [[nodiscard]] std::int64_t table_count() const;
  /// Width of one pooled embedding vector if every table has the same dim; 0 otherwise.
  [[nodiscard]] int common_embedding_dim() const;
  /// Sum over tables of the pooled widths (the sparse part of the interaction input).
  [[nodiscard]] std::int64_t pooled_embedding_width() const;

  /// Bytes of one table's weights / optimiser state (the table is one of this->tables).
  [[nodiscard]] Bytes table_weight_bytes(const EmbeddingTable& t) const { return t.weight_bytes(); }
  [[nodiscard]] Bytes table_optimizer_state_bytes(const EmbeddingTable& t) const;
  /// Weights + optimiser state of one table.
  [[nodiscard]] Bytes table_total_bytes(const EmbeddingTable& t) const;

  /// All tables together (counts applied).
  [[nodiscard]] Bytes embedding_weight_bytes() const;
  [[nodiscard]] Bytes embedding_optimizer_state_bytes() const;
  [[nodiscard]] double embedding_parameters() const;

  /// The dense operators in forward order (bottom MLP layers, interaction, top MLP layers),
  /// each with its operator's per-sample figures (models/operators/*.cpp).
  [[nodiscard]] std::vector<DenseLayer> dense_layers() const;
  [[nodiscard]] double dense_parameters() const;
  /// Dense weights stored in fp32 (master copy) + optimiser state: what one data-parallel
  /// replica holds. Mixed-precision training keeps fp32 master weights [Micikevicius 2018].
  [[nodiscard]] Bytes dense_weight_bytes() const;
  [[nodiscard]] Bytes dense_optimizer_state_bytes() const;
  /// Bytes of the dense gradient exchanged by all-reduce per step (communication precision).
  [[nodiscard]] Bytes dense_gradient_bytes() const;

  [[nodiscard]] double total_parameters() const { return embedding_parameters() + dense_parameters(); }

  /// Expected embedding rows looked up per sample, all tables together.
  [[nodiscard]] double lookups_per_sample() const;
  /// Bytes of rows gathered per sample (lookups x row bytes, all tables).
  [[nodiscard]] Bytes gathered_bytes_per_sample() const;
  /// Bytes of pooled embedding outputs per sample in communication precision (what the
  /// forward all-to-all carries; its backward carries the same amount of gradients).
  [[nodiscard]] Bytes pooled_bytes_per_sample() const;

  [[nodiscard]] Flops dense_forward_flops_per_sample() const;
  [[nodiscard]] Flops dense_backward_flops_per_sample() const;

  /// Width of the interaction's input and output (exposed for tests and reports).
  [[nodiscard]] std::int64_t interaction_input_width() const;
  [[nodiscard]] std::int64_t interaction_output_width() const;
};

/// The largest global batch a model may give: 2^40 samples per step (published DLRM runs use
/// up to about 2^20). Larger ones overflow the 64-bit byte counts of a step.
inline constexpr std::int64_t kMaxGlobalBatch = std::int64_t{1} << 40;
/// The most embedding tables a model may have (counting `count`): 65,536. Production models
/// have hundreds to a few thousand; each table is placed and simulated on its own.
inline constexpr std::int64_t kMaxTables = 65536;

/// The widest MLP layer a model may have: 2^24 units (published DLRMs use at most a few
/// thousand); products of two widths then stay exact in a double and within 64 bits.
inline constexpr std::int64_t kMaxLayerWidth = std::int64_t{1} << 24;

/// Reads a model from a mapping (a model file's top level, or a scenario's inline `model:`).
/// Every mapping is checked with finish(): unknown keys are errors with "did you mean".
ModelSpec load_model(const ConfigNode& node);
/// Reads a model file.
ModelSpec load_model(const std::string& path);

/// The declarations of every model key load_model reads (models/model_parameters.cpp).
std::span<const Parameter> model_parameters();

}  // namespace dlrmsim::models
