// Tests of the model specification and its loader (models/model_spec.hpp).
#include <doctest/doctest.h>

#include "approx.hpp"

#include <string>

#include "models/model_spec.hpp"
#include "paths.hpp"
#include "file_fixtures.hpp"

using namespace dlrmsim;
using namespace dlrmsim::models;

namespace {

const std::string kConfigs = dlrmsim::testing::kRoot + "/configs/models/";

ModelSpec from_text(const std::string& text) { return load_model(ConfigNode::load_string(text, "test.yaml")); }

std::string error_of(const std::string& text) {
  return dlrmsim::testing::config_error_of([&] { from_text(text); });
}

const char* kSmall = R"(
name: small
global_batch_size: 1024
dense_features: 13
embedding_tables:
  - {name: a, rows: [1000, 2000], lookups_per_sample: [1, 3], dim: 16}
  - {name: b, count: 3, rows: 500, dim: 16, lookups_per_sample: {distribution: uniform, min: 2, max: 6}}
bottom_mlp: [64, 16]
interaction: dot
top_mlp: [32, 1]
optimizer: {embedding: rowwise_adagrad, dense: adam}
)";

}  // namespace

// MLPerf DLRM-DCNv2 (mlcommons/training_results_v3.0@63e326c4
// NVIDIA/benchmarks/dlrm_dcnv2/implementations/hugectr/train.py; validation/sources.md): 26
// tables of dim 128; the multi-hot sizes sum to
// 3+2+1+2+6+1+1+1+1+7+3+8+1+6+9+5+1+1+1+12+100+27+10+3+1+1 = 214 lookups per sample; the rows
// of the published list sum to 204,184,588 (5 tables at the 40M cap + the rest); the interaction
// input is 128 (bottom MLP) + 26 x 128 = 3456 wide.
TEST_CASE("the shipped DLRM-DCNv2 model has the published shape") {
  const auto m = load_model(kConfigs + "dlrm_dcnv2_criteo_4tb.yaml");
  CHECK(m.table_count() == 26);
  CHECK(m.lookups_per_sample() == dlrmsim::rel(214.0));
  double rows = 0;
  for (const auto& t : m.tables) rows += static_cast<double>(t.rows) * t.count;
  CHECK(rows == dlrmsim::rel(204184588.0));
  CHECK(m.embedding_parameters() == dlrmsim::rel(204184588.0 * 128));
  CHECK(m.interaction_input_width() == 3456);
  CHECK(m.global_batch_size == 55296);
  CHECK(m.interaction.cross_layers == 3);
  CHECK(m.interaction.low_rank == 512);
  // Row-wise Adagrad: one fp32 per row.
  CHECK(m.embedding_optimizer_state_bytes().value() == dlrmsim::rel(204184588.0 * 4));
}

// MLPerf DLRM (Criteo 1 TB): dot interaction over 26 tables + the bottom output gives
// 27 x 26 / 2 = 351 pairs, plus the 128-wide bottom output: 479, the first top-MLP width of the
// reference (facebookresearch/dlrm: ln_top = 479-1024-1024-512-256-1).
TEST_CASE("the shipped MLPerf DLRM model's dot interaction is 479 wide") {
  const auto m = load_model(kConfigs + "dlrm_mlperf_criteo_1tb.yaml");
  CHECK(m.interaction_output_width() == 479);
  const auto layers = m.dense_layers();
  REQUIRE(layers.size() == 3 + 1 + 5);
  CHECK(layers[4].in == 479);
  CHECK(layers[4].out == 1024);
}

// Every shipped model loads (a misspelt key would throw).
TEST_CASE("every shipped model file loads") {
  for (const char* f : {"dlrm_dcnv2_criteo_4tb", "dlrm_mlperf_criteo_1tb", "persia_criteo_ad", "persia_avazu_ad",
                        "persia_taobao_ad", "persia_100t", "hpca21_m1", "hpca21_m2", "hpca21_m3"}) {
    CAPTURE(f);
    CHECK_NOTHROW(load_model(kConfigs + f + ".yaml"));
  }
  // The 100 T model: 26 x 240,384,615,385 rows x 16 = 1.0000000000004e14 parameters.
  const auto p = load_model(kConfigs + "persia_100t.yaml");
  CHECK(p.embedding_parameters() == dlrmsim::rel(1e14).epsilon(1e-9));
}

// Small model, by hand: tables a_0 (1000 x 16, 1 lookup), a_1 (2000 x 16, 3 lookups) and three
// b (500 x 16, uniform 2..6 = mean 4): lookups = 1 + 3 + 3 x 4 = 16; 5 tables.
// Weights: (1000 + 2000 + 1500) x 16 x 4 B = 288,000 B; row-wise state 4500 x 4 B = 18,000 B.
// Dense: bottom 13x64+64 = 896, 64x16+16 = 1040; interaction dot (6 vectors of 16) has no
// parameters and outputs 16 + 15 = 31; top 31x32+32 = 1024, 32x1+1 = 33: 2993 parameters.
// Forward FLOPs per sample: 2(13x64 + 64x16 + 31x32 + 32x1) = 5760, plus the dot
// interaction's 2 x 6 x 6 x 16 = 1152 (the batched X X^T GEMM of 6 vectors of 16).
TEST_CASE("sizes, parameters and FLOPs of a small model match a hand count") {
  const auto m = from_text(kSmall);
  CHECK(m.table_count() == 5);
  CHECK(m.lookups_per_sample() == dlrmsim::rel(16.0));
  CHECK(m.embedding_weight_bytes().value() == dlrmsim::rel(288000.0));
  CHECK(m.embedding_optimizer_state_bytes().value() == dlrmsim::rel(18000.0));
  CHECK(m.interaction_output_width() == 31);
  CHECK(m.dense_parameters() == dlrmsim::rel(2993.0));
  CHECK(m.dense_forward_flops_per_sample().value() == dlrmsim::rel(5760.0 + 1152.0));
  CHECK(m.dense_backward_flops_per_sample().value() == dlrmsim::rel(2.0 * (5760.0 + 1152.0)));
  // Adam keeps two fp32 moments per dense parameter.
  CHECK(m.dense_optimizer_state_bytes().value() == dlrmsim::rel(2993.0 * 8));
  // Pooled outputs: 5 tables x 16 x 4 B (fp32 communication by default).
  CHECK(m.pooled_bytes_per_sample().value() == dlrmsim::rel(320.0));
  CHECK(m.gathered_bytes_per_sample().value() == dlrmsim::rel(16.0 * 64));
}

// DCNv2 with rank r on width w: per layer 2 w r + w parameters and 4 w r FLOP (two GEMMs).
TEST_CASE("DCNv2 cross layers count low-rank parameters and FLOPs") {
  const auto m = from_text(R"(
name: d
global_batch_size: 8
dense_features: 4
embedding_tables: [{name: t, count: 2, rows: 10, dim: 8}]
bottom_mlp: [8]
interaction: {kind: dcnv2, cross_layers: 2, low_rank: 4}
top_mlp: [1]
optimizer: sgd
)");
  const auto layers = m.dense_layers();
  const auto& x = layers[1];
  CHECK(x.in == 24);  // 8 + 2 x 8
  CHECK(x.parameters == dlrmsim::rel(2 * (2.0 * 24 * 4 + 24)));
  CHECK(x.forward_flops_per_sample.value() == dlrmsim::rel(2 * (4.0 * 24 * 4 + 3 * 24)));
  CHECK(m.embedding_optimizer_state_bytes().value() == 0.0);  // SGD keeps no state
}

TEST_CASE("optimiser state sizes follow the optimiser") {
  Optimizer o;
  o.kind = OptimizerKind::adagrad;
  CHECK(o.embedding_state_bytes(100, 8).value() == 3200.0);  // 100 x 8 x 4 B
  o.kind = OptimizerKind::rowwise_adagrad;
  CHECK(o.embedding_state_bytes(100, 8).value() == 400.0);   // 100 x 4 B
  o.kind = OptimizerKind::adam;
  o.state_dtype = Precision::bf16;
  CHECK(o.embedding_state_bytes(100, 8).value() == 3200.0);  // 2 x 100 x 8 x 2 B
  CHECK(element_size(Precision::tf32).value() == 4.0);
  CHECK(element_size(Precision::fp8).value() == 1.0);
}

// access.id_order: ids hashed by default; by_frequency when the preprocessing numbers values by
// descending count (models/model_spec.hpp). A misspelt order is a located error.
TEST_CASE("a table's id order is read with its access skew") {
  const auto hashed = from_text(R"(
name: x
global_batch_size: 8
embedding_tables: [{name: t, rows: 10, dim: 4, access: {kind: zipf, exponent: 1.05}}]
interaction: concat
top_mlp: [1]
optimizer: sgd
)");
  CHECK(hashed.tables[0].access.id_order == AccessSkew::IdOrder::hashed);
  const auto ranked = from_text(R"(
name: x
global_batch_size: 8
embedding_tables: [{name: t, rows: 10, dim: 4, access: {kind: zipf, exponent: 1.05, id_order: by_frequency}}]
interaction: concat
top_mlp: [1]
optimizer: sgd
)");
  CHECK(ranked.tables[0].access.id_order == AccessSkew::IdOrder::by_frequency);
  CHECK(ranked.tables[0].access.describe() == "zipf(1.05), ids by frequency");
  const std::string e = error_of(R"(
name: x
global_batch_size: 8
embedding_tables: [{name: t, rows: 10, dim: 4, access: {kind: zipf, exponent: 1.05, id_order: by_frequecy}}]
interaction: concat
top_mlp: [1]
optimizer: sgd
)");
  CHECK(e.find("id_order") != std::string::npos);
  CHECK(e.find("did you mean 'by_frequency'") != std::string::npos);
}

TEST_CASE("bad model files are rejected with the key path and a suggestion") {
  // A misspelt key is an error with a did-you-mean.
  std::string e = error_of(std::string(kSmall) + "top_mpl: [1]\n");
  CHECK(e.find("top_mpl") != std::string::npos);
  CHECK(e.find("did you mean 'top_mlp'") != std::string::npos);
  // One lookup entry per listed table.
  e = error_of(R"(
name: x
global_batch_size: 8
embedding_tables: [{name: t, rows: [1, 2], lookups_per_sample: [1], dim: 4}]
interaction: concat
top_mlp: [1]
optimizer: sgd
)");
  CHECK(e.find("embedding_tables.0.lookups_per_sample") != std::string::npos);
  // Dot interaction needs the bottom MLP to end at the embedding dim.
  e = error_of(R"(
name: x
global_batch_size: 8
dense_features: 4
embedding_tables: [{name: t, rows: 10, dim: 4}]
bottom_mlp: [8]
interaction: dot
top_mlp: [1]
optimizer: sgd
)");
  CHECK(e.find("bottom MLP's output width (8)") != std::string::npos);
  // Unknown optimiser and precision names.
  e = error_of(std::string(kSmall).replace(std::string(kSmall).find("adam"), 4, "adem"));
  CHECK(e.find("did you mean 'adam'") != std::string::npos);
  // Non-positive sizes.
  e = error_of(R"(
name: x
global_batch_size: 0
embedding_tables: [{name: t, rows: 10, dim: 4}]
interaction: concat
top_mlp: [1]
optimizer: sgd
)");
  CHECK(e.find("global_batch_size") != std::string::npos);
  // A hit-rate curve must not decrease.
  e = error_of(R"(
name: x
global_batch_size: 8
embedding_tables: [{name: t, rows: 10, dim: 4, access: {kind: hit_rate_curve, points: [[0.1, 0.5], [0.2, 0.4]]}}]
interaction: concat
top_mlp: [1]
optimizer: sgd
)");
  CHECK(e.find("must not decrease") != std::string::npos);
}

// System: the small model with one size pushed past its limit. Inputs: a global batch of
// 2^63 - 1 (its activations once overflowed a 64-bit byte count into a negative number), a
// table count of 2^63 - 1 (the placement problem has one entry per table), a top-MLP width of
// 10^11. Expected: each is a located error naming the limit, raised while loading.
TEST_CASE("batch, table count and layer widths are bounded while loading") {
  const std::string small = kSmall;
  const auto with = [&](const std::string& from, const std::string& to) {
    std::string text = small;
    text.replace(text.find(from), from.size(), to);
    return text;
  };
  CHECK(error_of(with("global_batch_size: 1024", "global_batch_size: 9223372036854775807"))
            .find("test.yaml:3:20: global_batch_size: value 9223372036854775807 is out of range: at most 1099511627776") == 0);
  CHECK(error_of(with("count: 3,", "count: 9223372036854775807,"))
            .find("test.yaml:7:22: embedding_tables.1.count: this entry's 9223372036854775807 table(s) bring the model past "
                  "65536") == 0);
  CHECK(error_of(with("top_mlp: [32, 1]", "top_mlp: [32, 100000000000]"))
            .find("top_mlp.1: width 100000000000 is out of range: at most 16777216") != std::string::npos);
  CHECK(error_of(small).empty());
}
