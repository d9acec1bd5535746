// The model keys (configs/models/*.yaml, or a scenario's inline `model:`), as load_model
// (models/model_spec.cpp) reads them. Defaults are those of the ModelSpec structs.
#include "models/model_spec.hpp"

namespace dlrmsim::models {
namespace {

constexpr Parameter kModelParameters[] = {
    {"model.name", "", "required", "text", "Name of the model, shown in reports."},
    {"model.description", "", "\"\"", "text", "Free text."},
    {"model.source", "", "\"\"", "text", "Where the model's numbers come from."},
    {"model.global_batch_size", "samples", "required", "> 0, <= 2^40",
     "Samples per synchronous step, all workers together."},
    {"model.dense_features", "count", "0", ">= 0", "Dense (continuous) inputs per sample."},
    {"model.embedding_tables", "", "required", "a list of tables or groups of identical tables (at most 65,536 tables)",
     "The sparse part of the model."},
    {"model.embedding_tables.*.name", "", "required", "text", "Table name; a group's tables are name_0, name_1, ..."},
    {"model.embedding_tables.*.rows", "rows", "required", "> 0, or a list of row counts (one table each)",
     "Rows of the table (distinct ids)."},
    {"model.embedding_tables.*.count", "count", "1", "> 0 (not with a list of rows)", "Identical tables in this entry."},
    {"model.embedding_tables.*.dim", "values per row", "required", "> 0", "Embedding dimension."},
    {"model.embedding_tables.*.dtype", "", "fp32", "fp32 | bf16 | fp16 | fp8 | int8", "Storage format of the weights."},
    {"model.embedding_tables.*.sequence", "bool", "false", "true | false",
     "The lookups feed an event sequence (an HSTU model's item features): one output row per lookup, not "
     "pooled, so the all-to-all and the activations carry lookups x dim values a sample."},
    {"model.embedding_tables.*.lookups_per_sample", "lookups", "1",
     "> 0, a list (one per row count), or {distribution, ...}", "Rows looked up (pooled) per sample and table."},
    {"model.embedding_tables.*.lookups_per_sample.distribution", "", "required", "fixed | uniform | poisson",
     "How the lookups per sample vary."},
    {"model.embedding_tables.*.lookups_per_sample.value", "lookups", "required (fixed)", "> 0", "The fixed number."},
    {"model.embedding_tables.*.lookups_per_sample.min", "lookups", "required (uniform)", ">= 0", "Uniform: smallest count."},
    {"model.embedding_tables.*.lookups_per_sample.max", "lookups", "required (uniform)", ">= min, > 0",
     "Uniform: largest count."},
    {"model.embedding_tables.*.lookups_per_sample.mean", "lookups", "required (poisson)", "> 0", "Poisson: the mean."},
    {"model.embedding_tables.*.access", "", "uniform", "uniform | {kind: zipf, exponent} | {kind: hit_rate_curve, points}",
     "How ids are skewed over the rows (decides caching and distinct rows per batch)."},
    {"model.embedding_tables.*.access.kind", "", "required", "uniform | zipf | hit_rate_curve", "The skew model."},
    {"model.embedding_tables.*.access.exponent", "", "required (zipf)", ">= 0",
     "Zipf exponent: P(row of rank k) proportional to k^-exponent."},
    {"model.embedding_tables.*.access.points", "", "required (hit_rate_curve)",
     "[[cached fraction, hit rate], ...], both in [0, 1], fractions increasing", "A measured hit-rate curve."},
    {"model.embedding_tables.*.access.id_order", "", "hashed", "hashed | by_frequency",
     "Whether id k is the k-th most frequent row (decides which rows share a host-update lock)."},
    {"model.bottom_mlp", "", "[] (dense features passed through)", "a list of widths, each > 0, <= 2^24",
     "Output widths of the bottom MLP layers."},
    {"model.interaction", "", "required",
     "dot | concat | {kind: dcnv2, cross_layers, low_rank} | {kind: feature_mlp, widths} | {kind: hstu, layers, heads, "
     "attention_dim, hidden_dim, sequence_length, max_sequence_length, recompute}",
     "Feature interaction between the bottom MLP output and the pooled embeddings; hstu: an HSTU block over each "
     "sample's event sequence (a sequence model, models/operators/hstu.cpp)."},
    {"model.interaction.kind", "", "required", "dot | concat | dcnv2 | feature_mlp | hstu", "The interaction."},
    {"model.interaction.layers", "count", "required (hstu)", "> 0", "HSTU (STU) layers of a sequence model."},
    {"model.interaction.heads", "count", "required (hstu)", "> 0, divides the embedding dim", "HSTU attention heads."},
    {"model.interaction.attention_dim", "count", "required (hstu)", "> 0", "HSTU query/key dim per head (a)."},
    {"model.interaction.hidden_dim", "count", "required (hstu)", "> 0", "HSTU value/gate (linear) dim per head (h)."},
    {"model.interaction.sequence_length", "events", "required (hstu)", "> 0, <= max_sequence_length",
     "Mean events in a sample's jagged user sequence (one item lookup per event; no padding)."},
    {"model.interaction.max_sequence_length", "events", "required (hstu)", "> 0", "Longest user sequence."},
    {"model.interaction.recompute", "bool", "true", "true | false",
     "HSTU recomputes normed x, uvqk and y in backward (keeps D + hH activations per event and layer, "
     "not 2D + (2h+2a)H + 4hH)."},
    {"model.interaction.cross_layers", "count", "required (dcnv2)", "> 0, <= 1024", "DCNv2 cross layers."},
    {"model.interaction.low_rank", "count", "0 (full rank)", ">= 0", "DCNv2 low-rank factor r."},
    {"model.interaction.widths", "", "required (feature_mlp)", "a non-empty list of widths, each > 0, <= 2^24",
     "Output widths of the MLP whose weights the sparse features share, applied to each pooled embedding "
     "(all tables of one dim); its outputs are concatenated with the dense input."},
    {"model.top_mlp", "", "required", "a non-empty list of widths, each > 0, <= 2^24", "Output widths of the top MLP layers."},
    {"model.optimizer", "", "required", "sgd | adagrad | rowwise_adagrad | adam, or {embedding, dense, state_dtype}",
     "Optimiser of both parts, or one per part."},
    {"model.optimizer.embedding", "", "required", "sgd | adagrad | rowwise_adagrad | adam", "Optimiser of the tables."},
    {"model.optimizer.dense", "", "required", "sgd | adagrad | rowwise_adagrad | adam", "Optimiser of the MLPs."},
    {"model.optimizer.state_dtype", "", "fp32", "fp64 | fp32 | tf32 | bf16 | fp16 | fp8 | int8",
     "Storage format of the optimiser state."},
    {"model.precision", "", "fp32 everywhere", "{compute, communication}", "Arithmetic and wire precision."},
    {"model.precision.compute", "", "fp32 (the software stack's dense policy may override)",
     "fp64 | fp32 | tf32 | bf16 | fp16 | fp8 | int8", "Precision of dense compute."},
    {"model.precision.communication", "", "fp32", "fp64 | fp32 | bf16 | fp16 | fp8 | int8",
     "Precision of embeddings and gradients on the wire."},
};

}  // namespace

std::span<const Parameter> model_parameters() { return kModelParameters; }

}  // namespace dlrmsim::models
