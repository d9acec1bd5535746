#include "validation/raw_measurements.hpp"
#include "common/text.hpp"

#include <array>
#include <cstdio>
#include <sstream>

namespace dlrmsim::validation {

namespace {
constexpr std::array kKinds{MeasurementKind::gemm, MeasurementKind::gather_forward, MeasurementKind::gather_backward,
                            MeasurementKind::uvm_gather, MeasurementKind::copy, MeasurementKind::launch,
                            MeasurementKind::kernel_floor};

template <class Enum, std::size_t N>
std::vector<std::string> names(const std::array<Enum, N>& all) {
  std::vector<std::string> v;
  for (Enum e : all) v.emplace_back(to_string(e));
  return v;
}

template <class Enum, std::size_t N>
Enum choice(const ConfigNode& n, std::string_view key, const std::array<Enum, N>& all) {
  const std::string chosen = n.get_choice(key, names(all));
  for (Enum e : all) {
    if (to_string(e) == chosen) return e;
  }
  n.child(key).fail("internal: choice '" + chosen + "' has no value");
}

void read_embedding_fields(const ConfigNode& n, Measurement& m) {
  m.row_type = n.get_choice("row_type", {"fp32", "fp16"});
  m.row_bytes = n.get_positive<Bytes>("row_bytes");
  m.pooling = n.get_positive<double>("pooling");
  m.bags = n.get_positive<std::int64_t>("bags");
  m.table_rows = n.get_positive<std::int64_t>("table_rows");
  m.distribution = n.get_choice("distribution", {"uniform", "zipf"});
}

}  // namespace

RawMeasurements parse_raw_measurements(const ConfigNode& root) {
  if (!root.is_map()) root.fail("a raw measurement file is a mapping with keys machine and measurements");
  RawMeasurements raw;
  const ConfigNode machine = root.child("machine");
  raw.machine.gpu = machine.get<std::string>("gpu");
  raw.machine.driver = machine.get<std::string>("driver");
  raw.machine.runtime = machine.get<std::string>("runtime");
  raw.machine.sm_count = machine.get_positive<int>("sm_count");
  raw.machine.memory = machine.get_positive<Bytes>("memory");
  raw.machine.date = machine.get<std::string>("date");
  raw.machine.command = machine.get<std::string>("command");
  machine.finish();

  const ConfigNode list = root.child("measurements");
  for (const ConfigNode& n : list.elements()) {
    Measurement m;
    m.kind = choice(n, "kind", kKinds);
    switch (m.kind) {
      case MeasurementKind::gemm:
        m.dtype = choice(n, "dtype", topo::kGemmPrecisions);
        m.m = n.get_positive<std::int64_t>("m");
        m.n = n.get_positive<std::int64_t>("n");
        m.k = n.get_positive<std::int64_t>("k");
        break;
      case MeasurementKind::gather_backward:
        m.optimizer = choice(n, "optimizer", topo::kEmbeddingOptimizers);
        read_embedding_fields(n, m);
        break;
      case MeasurementKind::gather_forward:
      case MeasurementKind::uvm_gather:
        read_embedding_fields(n, m);
        break;
      case MeasurementKind::copy:
        m.copy = choice(n, "copy", topo::kCopyKinds);
        m.bytes = n.get_positive<Bytes>("bytes");
        break;
      case MeasurementKind::launch:
      case MeasurementKind::kernel_floor:
        break;
    }
    m.time = n.get_positive<Seconds>("time");
    // Measurements taken from a public table may not say how many runs a value summarises.
    if (n.has("repeats")) m.repeats = n.get_positive<int>("repeats");
    n.finish();
    raw.measurements.push_back(m);
  }
  if (raw.measurements.empty()) list.fail("no measurements");
  root.finish();
  return raw;
}

RawMeasurements load_raw_measurements(const std::string& path) {
  return parse_raw_measurements(ConfigNode::load_file(path));
}

std::string raw_measurements_to_yaml(const RawMeasurements& raw) {
  std::ostringstream out;
  out << "machine:\n"
      << "  gpu: " << yaml_quoted(raw.machine.gpu) << "\n"
      << "  driver: " << yaml_quoted(raw.machine.driver) << "\n"
      << "  runtime: " << yaml_quoted(raw.machine.runtime) << "\n"
      << "  sm_count: " << raw.machine.sm_count << "\n"
      << "  memory: " << yaml_quoted(format_number(raw.machine.memory.value(), 9) + " B") << "\n"
      << "  date: " << yaml_quoted(raw.machine.date) << "\n"
      << "  command: " << yaml_quoted(raw.machine.command) << "\n"
      << "measurements:\n";
  for (const Measurement& m : raw.measurements) {
    out << "  - {kind: " << to_string(m.kind);
    switch (m.kind) {
      case MeasurementKind::gemm:
        out << ", dtype: " << topo::to_string(m.dtype) << ", m: " << m.m << ", n: " << m.n << ", k: " << m.k;
        break;
      case MeasurementKind::gather_backward:
        out << ", optimizer: " << topo::to_string(m.optimizer);
        [[fallthrough]];
      case MeasurementKind::gather_forward:
      case MeasurementKind::uvm_gather:
        out << ", row_type: " << m.row_type << ", row_bytes: " << yaml_quoted(format_number(m.row_bytes.value(), 9) + " B")
            << ", pooling: " << format_number(m.pooling, 9) << ", bags: " << m.bags << ", table_rows: " << m.table_rows
            << ", distribution: " << m.distribution;
        break;
      case MeasurementKind::copy:
        out << ", copy: " << topo::to_string(m.copy) << ", bytes: " << yaml_quoted(format_number(m.bytes.value(), 9) + " B");
        break;
      case MeasurementKind::launch:
      case MeasurementKind::kernel_floor:
        break;
    }
    out << ", time: " << yaml_quoted(format_number(m.time.value() * 1e6, 9) + " us") << ", repeats: " << m.repeats << "}\n";
  }
  return out.str();
}

}  // namespace dlrmsim::validation
