#include "models/model_spec.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>
#include <string_view>
#include <utility>

#include "models/dense_operator.hpp"

namespace dlrmsim::models {

namespace {

const std::vector<std::string>& precision_names() {
  static const std::vector<std::string> names{"fp32", "tf32", "bf16", "fp16", "fp8", "int8"};
  return names;
}

std::string quote_list(const std::vector<std::string>& items) {
  std::string out;
  for (std::size_t i = 0; i < items.size(); ++i) out += (i ? ", '" : "'") + items[i] + "'";
  return out;
}

std::string choice_of(const ConfigNode& node, const std::vector<std::string>& allowed) {
  const auto v = node.as<std::string>();
  if (std::find(allowed.begin(), allowed.end(), v) == allowed.end()) {
    std::string msg = "'" + v + "' is not one of " + quote_list(allowed);
    if (auto guess = did_you_mean(v, allowed)) msg += "; did you mean '" + *guess + "'?";
    node.fail(msg);
  }
  return v;
}

std::string format_number(double v) {
  std::ostringstream s;
  s << v;
  return s.str();
}

}  // namespace

Precision parse_precision(const ConfigNode& node) {
  const auto v = choice_of(node, precision_names());
  return topo::precision_from_string(v).value();  // one of precision_names()
}

// ---- lookups and access skew ----------------------------------------------------------

double LookupsPerSample::mean() const {
  switch (distribution) {
    case Distribution::fixed: return fixed;
    case Distribution::uniform: return 0.5 * (min + max);
    case Distribution::poisson: return poisson_mean;
  }
  return fixed;
}

std::string LookupsPerSample::describe() const {
  switch (distribution) {
    case Distribution::fixed: return format_number(fixed);
    case Distribution::uniform: return "uniform[" + std::to_string(min) + "," + std::to_string(max) + "]";
    case Distribution::poisson: return "poisson(" + format_number(poisson_mean) + ")";
  }
  return "?";
}

std::string AccessSkew::describe() const {
  const std::string order = id_order == IdOrder::by_frequency ? ", ids by frequency" : "";
  switch (kind) {
    case Kind::uniform: return "uniform" + order;
    case Kind::zipf: return "zipf(" + format_number(zipf_exponent) + ")" + order;
    case Kind::hit_rate_curve: return "hit-rate curve (" + std::to_string(hit_rate_points.size()) + " points)" + order;
  }
  return "?";
}

Bytes EmbeddingTable::row_bytes() const { return element_size(dtype) * static_cast<double>(dim); }
Bytes EmbeddingTable::weight_bytes() const { return row_bytes() * static_cast<double>(rows); }
double EmbeddingTable::parameters() const { return static_cast<double>(rows) * dim; }

// ---- optimiser ---------------------------------------------------------------------------

double Optimizer::dense_state_values_per_parameter() const {
  switch (kind) {
    case OptimizerKind::sgd: return 0.0;
    case OptimizerKind::adagrad:
    case OptimizerKind::rowwise_adagrad: return 1.0;
    case OptimizerKind::adam: return 2.0;
  }
  return 0.0;
}

Bytes Optimizer::embedding_state_bytes(std::int64_t rows, int dim) const {
  const double r = static_cast<double>(rows);
  switch (kind) {
    case OptimizerKind::sgd: return Bytes(0.0);
    case OptimizerKind::adagrad: return element_size(state_dtype) * (r * dim);
    case OptimizerKind::rowwise_adagrad: return element_size(state_dtype) * r;
    case OptimizerKind::adam: return element_size(state_dtype) * (2.0 * r * dim);
  }
  return Bytes(0.0);
}

Bytes Optimizer::dense_state_bytes(double parameters) const {
  return element_size(state_dtype) * (parameters * dense_state_values_per_parameter());
}

std::string Interaction::describe() const {
  switch (kind) {
    case Kind::dot: return "dot";
    case Kind::concat: return "concat";
    case Kind::dcnv2:
      return "dcnv2(" + std::to_string(cross_layers) + " cross layers, rank " +
             (low_rank > 0 ? std::to_string(low_rank) : std::string("full")) + ")";
    case Kind::feature_mlp: {
      std::string w;
      for (auto x : widths) w += (w.empty() ? "" : "-") + std::to_string(x);
      return "feature_mlp(" + w + ")";
    }
    case Kind::hstu:
      return "hstu(" + std::to_string(hstu.layers) + " layers, " + std::to_string(hstu.heads) + " heads)";
  }
  return "?";
}

std::string_view Interaction::operator_name() const {
  switch (kind) {
    case Kind::dot: return "dot_interaction";
    case Kind::concat: return "concat_interaction";
    case Kind::dcnv2: return "dcnv2_cross";
    case Kind::feature_mlp: return "feature_mlp";
    case Kind::hstu: return "hstu";
  }
  return "?";
}

// ---- derived sizes ---------------------------------------------------------------------------

std::int64_t ModelSpec::table_count() const {
  std::int64_t n = 0;
  for (const auto& t : tables) n += t.count;
  return n;
}

int ModelSpec::common_embedding_dim() const {
  if (tables.empty()) return 0;
  const int d = tables.front().dim;
  for (const auto& t : tables) {
    if (t.dim != d) return 0;
  }
  return d;
}

std::int64_t ModelSpec::pooled_embedding_width() const {
  std::int64_t w = 0;
  for (const auto& t : tables) w += t.count * t.dim * static_cast<std::int64_t>(std::llround(t.outputs_per_sample()));
  return w;
}

Bytes ModelSpec::table_optimizer_state_bytes(const EmbeddingTable& t) const {
  return embedding_optimizer.embedding_state_bytes(t.rows, t.dim);
}

Bytes ModelSpec::table_total_bytes(const EmbeddingTable& t) const {
  return t.weight_bytes() + table_optimizer_state_bytes(t);
}

Bytes ModelSpec::embedding_weight_bytes() const {
  Bytes b;
  for (const auto& t : tables) b += t.weight_bytes() * static_cast<double>(t.count);
  return b;
}

Bytes ModelSpec::embedding_optimizer_state_bytes() const {
  Bytes b;
  for (const auto& t : tables) b += table_optimizer_state_bytes(t) * static_cast<double>(t.count);
  return b;
}

double ModelSpec::embedding_parameters() const {
  double p = 0.0;
  for (const auto& t : tables) p += t.parameters() * static_cast<double>(t.count);
  return p;
}

std::int64_t ModelSpec::interaction_input_width() const {
  const std::int64_t bottom_out = bottom_mlp.empty() ? dense_features : bottom_mlp.back();
  return bottom_out + pooled_embedding_width();
}

namespace {

/// The layer that operator `op` declares at `site`, named and placed in the step.
DenseLayer place(std::string_view op, std::string name, bool before_embeddings, const DenseOperatorSite& site) {
  const DenseOperator& o = dense_operator(op);
  DenseLayer l = o.declare(site);
  l.op = &o;
  l.name = std::move(name);
  l.before_embeddings = before_embeddings;
  return l;
}

DenseLayer interaction_layer(const ModelSpec& m) {
  return place(m.interaction.operator_name(), "interaction." + m.interaction.describe(), false,
               {m, m.interaction_input_width(), 0});
}

}  // namespace

std::int64_t ModelSpec::interaction_output_width() const { return interaction_layer(*this).out; }

std::vector<DenseLayer> ModelSpec::dense_layers() const {
  std::vector<DenseLayer> layers;
  std::int64_t width = dense_features;
  for (std::size_t i = 0; i < bottom_mlp.size(); ++i) {
    layers.push_back(place("linear", "bottom_mlp." + std::to_string(i), true, {*this, width, bottom_mlp[i]}));
    width = bottom_mlp[i];
  }
  layers.push_back(interaction_layer(*this));
  width = layers.back().out;
  for (std::size_t i = 0; i < top_mlp.size(); ++i) {
    layers.push_back(place("linear", "top_mlp." + std::to_string(i), false, {*this, width, top_mlp[i]}));
    width = top_mlp[i];
  }
  return layers;
}

double ModelSpec::dense_parameters() const {
  double p = 0.0;
  for (const auto& l : dense_layers()) p += l.parameters;
  return p;
}

Bytes ModelSpec::dense_weight_bytes() const { return element_size(Precision::fp32) * dense_parameters(); }

Bytes ModelSpec::dense_optimizer_state_bytes() const { return dense_optimizer.dense_state_bytes(dense_parameters()); }

Bytes ModelSpec::dense_gradient_bytes() const { return element_size(communication_precision) * dense_parameters(); }

double ModelSpec::lookups_per_sample() const {
  double n = 0.0;
  for (const auto& t : tables) n += t.lookups.mean() * static_cast<double>(t.count);
  return n;
}

Bytes ModelSpec::gathered_bytes_per_sample() const {
  Bytes b;
  for (const auto& t : tables) b += t.row_bytes() * (t.lookups.mean() * static_cast<double>(t.count));
  return b;
}

Bytes ModelSpec::pooled_bytes_per_sample() const {
  return element_size(communication_precision) * static_cast<double>(pooled_embedding_width());
}

Flops ModelSpec::dense_forward_flops_per_sample() const {
  Flops f;
  for (const auto& l : dense_layers()) f += l.forward_flops_per_sample;
  return f;
}

Flops ModelSpec::dense_backward_flops_per_sample() const {
  Flops f;
  for (const auto& l : dense_layers()) f += l.backward_flops_per_sample;
  return f;
}

// ---- loading ------------------------------------------------------------------------------

namespace {

LookupsPerSample read_lookups(const ConfigNode& node) {
  LookupsPerSample l;
  if (!node.is_scalar() && !node.is_map()) node.fail("expected a number of lookups or {distribution: ..., ...}");
  if (node.is_scalar()) {
    l.distribution = LookupsPerSample::Distribution::fixed;
    l.fixed = node.as<double>();
    node.check_positive(l.fixed, false);
    return l;
  }
  const auto kind = node.get_choice("distribution", {"fixed", "uniform", "poisson"});
  if (kind == "fixed") {
    l.distribution = LookupsPerSample::Distribution::fixed;
    l.fixed = node.get_positive<double>("value");
  } else if (kind == "uniform") {
    l.distribution = LookupsPerSample::Distribution::uniform;
    l.min = node.get_positive<int>("min", true);
    l.max = node.get_positive<int>("max");
    if (l.max < l.min) node.fail("max (" + std::to_string(l.max) + ") must be at least min (" + std::to_string(l.min) + ")");
  } else {
    l.distribution = LookupsPerSample::Distribution::poisson;
    l.poisson_mean = node.get_positive<double>("mean");
  }
  node.finish();
  return l;
}

AccessSkew read_access(const ConfigNode& node) {
  AccessSkew a;
  if (!node.is_scalar() && !node.is_map()) node.fail("expected uniform or {kind: zipf, exponent: ...}");
  const auto kind = node.is_scalar() ? choice_of(node, {"uniform", "zipf", "hit_rate_curve"})
                                     : node.get_choice("kind", {"uniform", "zipf", "hit_rate_curve"});
  if (kind == "uniform") {
    a.kind = AccessSkew::Kind::uniform;
  } else if (kind == "zipf") {
    if (node.is_scalar()) node.fail("a Zipf access needs an exponent: {kind: zipf, exponent: 1.05}");
    a.kind = AccessSkew::Kind::zipf;
    a.zipf_exponent = node.get_positive<double>("exponent", true);
  } else {
    if (node.is_scalar()) node.fail("a hit-rate curve needs points: {kind: hit_rate_curve, points: [[0.01, 0.5], ...]}");
    a.kind = AccessSkew::Kind::hit_rate_curve;
    const auto points = node.child("points");
    double last_x = -1.0, last_y = -1.0;
    for (const auto& p : points.elements()) {
      const auto xy = p.elements();
      if (xy.size() != 2) p.fail("expected a pair [fraction of rows cached, hit rate]");
      const double x = xy[0].as<double>();
      const double y = xy[1].as<double>();
      if (x < 0.0 || x > 1.0 || y < 0.0 || y > 1.0) p.fail("both values must lie in [0, 1]");
      if (x <= last_x) p.fail("cached fractions must increase from point to point");
      if (y < last_y) p.fail("hit rates must not decrease as more rows are cached");
      last_x = x;
      last_y = y;
      a.hit_rate_points.emplace_back(x, y);
    }
    if (a.hit_rate_points.empty()) points.fail("a hit-rate curve needs at least one point");
  }
  if (!node.is_scalar()) {
    if (node.get_choice_or("id_order", {"hashed", "by_frequency"}, "hashed") == "by_frequency") {
      a.id_order = AccessSkew::IdOrder::by_frequency;
    }
    node.finish();
  }
  return a;
}

std::vector<EmbeddingTable> read_table_entry(const ConfigNode& node) {
  if (!node.is_map()) node.fail("expected a table: {name: ..., rows: ..., dim: ...}");
  EmbeddingTable base;
  base.name = node.get<std::string>("name");
  base.dim = node.get_positive<int>("dim");
  if (node.has("dtype")) base.dtype = parse_precision(node.child("dtype"));
  base.sequence = node.get_or<bool>("sequence", false);
  if (base.dtype == Precision::tf32) node.child("dtype").fail("tf32 is a compute mode, not a storage format; use fp32");
  if (auto a = node.optional_child("access")) base.access = read_access(*a);

  const auto rows_node = node.child("rows");
  const auto lookups_node = node.optional_child("lookups_per_sample");
  std::vector<EmbeddingTable> out;
  if (rows_node.is_sequence()) {
    if (node.has("count")) node.child("count").fail("give either a list of rows (one table each) or a count, not both");
    const auto rows = rows_node.elements();
    std::vector<ConfigNode> lookups;
    if (lookups_node && lookups_node->is_sequence()) {
      lookups = lookups_node->elements();
      if (lookups.size() != rows.size()) {
        lookups_node->fail("has " + std::to_string(lookups.size()) + " entries but rows has " +
                           std::to_string(rows.size()) + "; give one per table");
      }
    }
    for (std::size_t i = 0; i < rows.size(); ++i) {
      EmbeddingTable t = base;
      t.name = base.name + "_" + std::to_string(i);
      t.rows = rows[i].as<std::int64_t>();
      rows[i].check_positive(static_cast<double>(t.rows), false);
      if (!lookups.empty()) {
        t.lookups = read_lookups(lookups[i]);
      } else if (lookups_node) {
        t.lookups = read_lookups(*lookups_node);
      }
      out.push_back(t);
    }
    if (out.empty()) rows_node.fail("an empty list of rows");
  } else {
    base.rows = node.get_positive<std::int64_t>("rows");
    base.count = node.get_positive_or<std::int64_t>("count", 1);
    if (lookups_node) {
      if (lookups_node->is_sequence()) lookups_node->fail("a list of lookups needs a list of rows");
      base.lookups = read_lookups(*lookups_node);
    }
    out.push_back(base);
  }
  node.finish();
  return out;
}

std::vector<std::int64_t> read_widths(const ConfigNode& node) {
  std::vector<std::int64_t> widths;
  for (const auto& e : node.elements()) {
    const auto w = e.as<std::int64_t>();
    e.check_positive(static_cast<double>(w), false);
    if (w > kMaxLayerWidth) {
      e.fail("width " + std::to_string(w) + " is out of range: at most " + std::to_string(kMaxLayerWidth) +
             " (2^24) units per layer, so that layer sizes (width x width) stay exact");
    }
    widths.push_back(w);
  }
  return widths;
}

OptimizerKind read_optimizer_kind(const ConfigNode& node) {
  const auto v = choice_of(node, {"sgd", "adagrad", "rowwise_adagrad", "adam"});
  if (v == "sgd") return OptimizerKind::sgd;
  if (v == "adagrad") return OptimizerKind::adagrad;
  if (v == "rowwise_adagrad") return OptimizerKind::rowwise_adagrad;
  return OptimizerKind::adam;
}

}  // namespace

ModelSpec load_model(const ConfigNode& node) {
  if (!node.is_map()) node.fail("expected a model: a mapping with name, embedding_tables, top_mlp, ...");
  ModelSpec m;
  m.name = node.get<std::string>("name");
  m.description = node.get_or<std::string>("description", "");
  m.source = node.get_or<std::string>("source", "");
  m.global_batch_size = node.get_positive<std::int64_t>("global_batch_size");
  if (m.global_batch_size > kMaxGlobalBatch) {
    node.child("global_batch_size")
        .fail("value " + std::to_string(m.global_batch_size) + " is out of range: at most " +
              std::to_string(kMaxGlobalBatch) + " (2^40) samples per step, so that byte counts per step (batch x bytes "
              "per sample) stay within 64-bit integers");
  }
  m.dense_features = node.get_positive_or<int>("dense_features", 0, true);

  const auto tables = node.child("embedding_tables");
  std::int64_t table_count = 0;
  for (const auto& e : tables.elements()) {
    for (auto& t : read_table_entry(e)) {
      if (t.count > kMaxTables - table_count) {  // compared before adding: count may be near 2^63
        (e.is_map() && e.has("count") ? e.child("count") : e).fail("this entry's " + std::to_string(t.count) + " table(s) bring the model past " +
               std::to_string(kMaxTables) + " embedding tables, the most supported (each table is placed and "
               "simulated on its own)");
      }
      table_count += t.count;
      m.tables.push_back(std::move(t));
    }
  }
  if (m.tables.empty()) tables.fail("a recommendation model needs at least one embedding table");
  {
    std::vector<std::string> names;
    for (const auto& t : m.tables) {
      if (std::find(names.begin(), names.end(), t.name) != names.end()) {
        tables.fail("two tables are named '" + t.name + "'; table names must be unique");
      }
      names.push_back(t.name);
    }
  }

  if (auto b = node.optional_child("bottom_mlp")) m.bottom_mlp = read_widths(*b);
  const auto inter = node.child("interaction");
  if (!inter.is_scalar() && !inter.is_map()) {
    inter.fail("expected dot, concat, {kind: dcnv2, cross_layers: N, low_rank: R} or {kind: feature_mlp, widths: [...]}");
  }
  if (inter.is_scalar()) {
    const auto kind = choice_of(inter, {"dot", "concat", "dcnv2"});
    if (kind == "dcnv2") inter.fail("dcnv2 needs its layers: {kind: dcnv2, cross_layers: 3, low_rank: 512}");
    m.interaction.kind = kind == "dot" ? Interaction::Kind::dot : Interaction::Kind::concat;
  } else {
    const auto kind = inter.get_choice("kind", {"dot", "concat", "dcnv2", "feature_mlp", "hstu"});
    if (kind == "hstu") {
      auto& h = m.interaction.hstu;
      m.interaction.kind = Interaction::Kind::hstu;
      h.layers = inter.get_positive<int>("layers");
      h.heads = inter.get_positive<int>("heads");
      h.attention_dim = inter.get_positive<std::int64_t>("attention_dim");
      h.hidden_dim = inter.get_positive<std::int64_t>("hidden_dim");
      h.max_sequence_length = inter.get_positive<std::int64_t>("max_sequence_length");
      h.sequence_length = inter.get_positive<double>("sequence_length");
      if (h.sequence_length > static_cast<double>(h.max_sequence_length)) {
        inter.child("sequence_length").fail("the mean sequence length (" + format_number(h.sequence_length) +
                                            ") exceeds max_sequence_length (" +
                                            std::to_string(h.max_sequence_length) + ")");
      }
      h.recompute = inter.get_or<bool>("recompute", true);
      const int d = m.common_embedding_dim();
      if (d == 0) inter.fail("hstu needs all tables to have the same dim (the sequence's embedding dim)");
      if (d % h.heads != 0) {
        inter.child("heads").fail("the heads (" + std::to_string(h.heads) + ") must divide the embedding dim (" +
                                  std::to_string(d) + ")");
      }
    } else if (kind == "feature_mlp") {
      m.interaction.kind = Interaction::Kind::feature_mlp;
      const auto widths = inter.child("widths");
      m.interaction.widths = read_widths(widths);
      if (m.interaction.widths.empty()) widths.fail("the feature MLP needs at least one layer");
      if (m.common_embedding_dim() == 0) inter.fail("feature_mlp needs all tables to have the same dim");
    } else if (kind == "dcnv2") {
      m.interaction.kind = Interaction::Kind::dcnv2;
      m.interaction.cross_layers = inter.get_positive<int>("cross_layers");
      // Validity range of the cost models (published DCNv2 models use 1 to 6 layers).
      if (m.interaction.cross_layers > 1024) inter.child("cross_layers").fail("at most 1024 cross layers are supported");
      m.interaction.low_rank = inter.get_positive_or<int>("low_rank", 0, true);
    } else {
      m.interaction.kind = kind == "dot" ? Interaction::Kind::dot : Interaction::Kind::concat;
    }
    inter.finish();
  }
  if (m.interaction.kind == Interaction::Kind::dot) {
    const int d = m.common_embedding_dim();
    if (d == 0) inter.fail("dot interaction needs all tables to have the same dim");
    const std::int64_t bottom_out = m.bottom_mlp.empty() ? m.dense_features : m.bottom_mlp.back();
    if (bottom_out != d) {
      inter.fail("dot interaction needs the bottom MLP's output width (" + std::to_string(bottom_out) +
                 ") to equal the embedding dim (" + std::to_string(d) + ")");
    }
  }
  const auto top = node.child("top_mlp");
  m.top_mlp = read_widths(top);
  if (m.top_mlp.empty()) top.fail("the top MLP needs at least one layer");

  const auto opt = node.child("optimizer");
  if (!opt.is_scalar() && !opt.is_map()) opt.fail("expected an optimiser name or {embedding: ..., dense: ...}");
  if (opt.is_scalar()) {
    m.embedding_optimizer.kind = m.dense_optimizer.kind = read_optimizer_kind(opt);
  } else {
    m.embedding_optimizer.kind = read_optimizer_kind(opt.child("embedding"));
    m.dense_optimizer.kind = read_optimizer_kind(opt.child("dense"));
    if (opt.has("state_dtype")) {
      m.embedding_optimizer.state_dtype = m.dense_optimizer.state_dtype = parse_precision(opt.child("state_dtype"));
    }
    opt.finish();
  }

  if (auto p = node.optional_child("precision")) {
    if (!p->is_map()) p->fail("expected a mapping: {compute: bf16, communication: fp16}");
    if (p->has("compute")) m.compute_precision = parse_precision(p->child("compute"));
    if (p->has("communication")) {
      m.communication_precision = parse_precision(p->child("communication"));
      if (m.communication_precision == Precision::tf32) p->child("communication").fail("tf32 is not a wire format; use fp32");
    }
    p->finish();
  }
  node.finish();
  return m;
}

ModelSpec load_model(const std::string& path) { return load_model(ConfigNode::load_file(path)); }

}  // namespace dlrmsim::models
