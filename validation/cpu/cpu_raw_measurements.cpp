#include "validation/cpu/cpu_raw_measurements.hpp"

#include <array>
#include <sstream>

#include "common/text.hpp"

namespace dlrmsim::validation {

namespace {

std::string with_unit(double value, const char* unit) { return yaml_quoted(format_number(value, 9) + " " + unit); }
std::string bytes(Bytes b) { return with_unit(b.value(), "B"); }
std::string us(Seconds s) { return with_unit(s.value() * 1e6, "us"); }

}  // namespace

Seconds CpuMeasurement::time_per_item() const {
  switch (kind) {
    case CpuMeasurementKind::gather:
    case CpuMeasurementKind::update:
    case CpuMeasurementKind::hash_update:
    case CpuMeasurementKind::dram_latency: return time / static_cast<double>(lookups);
    case CpuMeasurementKind::call:
    case CpuMeasurementKind::fp32_peak: return time / static_cast<double>(calls);
    default: return time;
  }
}

bool is_cpu_raw_measurements(const ConfigNode& root) {
  return root.is_map() && root.yaml()["machine"] && root.yaml()["machine"].IsMap() && root.yaml()["machine"]["cpu"];
}

CpuRawMeasurements parse_cpu_raw_measurements(const ConfigNode& root) {
  if (!root.is_map()) root.fail("a raw measurement file is a mapping with keys machine and measurements");
  CpuRawMeasurements raw;
  const ConfigNode machine = root.child("machine");
  CpuMachineInfo& info = raw.machine;
  info.cpu = machine.get<std::string>("cpu");
  info.logical_cpus = machine.get_positive<int>("logical_cpus");
  info.clock = machine.get_positive<Hertz>("clock", true);
  info.memory = machine.get_positive<Bytes>("memory");
  info.llc = machine.get_positive<Bytes>("llc", true);
  info.isa = machine.get<std::string>("isa");
  info.transparent_hugepages = machine.get<std::string>("transparent_hugepages");
  info.compiler = machine.get<std::string>("compiler");
  info.gemm_library = machine.get<std::string>("gemm_library");
  info.load_before = machine.get<std::string>("load_before");
  info.load_after = machine.get<std::string>("load_after");
  info.date = machine.get<std::string>("date");
  info.command = machine.get<std::string>("command");
  machine.finish();

  const ConfigNode list = root.child("measurements");
  for (const ConfigNode& n : list.elements()) {
    CpuMeasurement m;
    m.kind = kCpuMeasurementKindNames.parse(n.get_choice("kind", kCpuMeasurementKindNames.words())).value();
    m.threads = n.get_positive<int>("threads");
    if (m.threads > info.logical_cpus) {
      n.child("threads").fail("more threads than the machine's logical_cpus (" + std::to_string(info.logical_cpus) + ")");
    }
    switch (m.kind) {
      case CpuMeasurementKind::gemm:
        m.m = n.get_positive<std::int64_t>("m");
        m.n = n.get_positive<std::int64_t>("n");
        m.k = n.get_positive<std::int64_t>("k");
        break;
      case CpuMeasurementKind::gather:
      case CpuMeasurementKind::update:
        m.pooling = n.get_positive<int>("pooling");
        [[fallthrough]];
      case CpuMeasurementKind::hash_update:
        m.row_bytes = n.get_positive<Bytes>("row_bytes");
        m.lookups = n.get_positive<std::int64_t>("lookups");
        if (m.kind == CpuMeasurementKind::hash_update) m.keys = n.get_positive<std::int64_t>("keys");
        m.table_bytes = n.get_positive<Bytes>("table_bytes");
        break;
      case CpuMeasurementKind::dram_latency:
        m.lookups = n.get_positive<std::int64_t>("lookups");
        m.table_bytes = n.get_positive<Bytes>("table_bytes");
        break;
      case CpuMeasurementKind::fp16_convert:
      case CpuMeasurementKind::memcpy:
        m.cached = n.get_choice("working_set", {"cached", "dram"}) == "cached";
        m.bytes = n.get_positive<Bytes>("bytes");
        m.passes = n.get_positive<int>("passes");
        break;
      case CpuMeasurementKind::call:
      case CpuMeasurementKind::fp32_peak:
        m.calls = n.get_positive<std::int64_t>("calls");
        break;
    }
    m.time = n.get_positive<Seconds>("time");
    m.min_time = n.get_positive<Seconds>("min");
    m.max_time = n.get_positive<Seconds>("max");
    if (m.min_time > m.time) n.child("min").fail("the minimum is larger than the median time");
    if (m.max_time < m.time) n.child("max").fail("the maximum is smaller than the median time");
    m.repeats = n.get_positive<int>("repeats");
    n.finish();
    raw.measurements.push_back(m);
  }
  if (raw.measurements.empty()) list.fail("no measurements");
  root.finish();
  return raw;
}

CpuRawMeasurements load_cpu_raw_measurements(const std::string& path) {
  return parse_cpu_raw_measurements(ConfigNode::load_file(path));
}

std::string cpu_raw_measurements_to_yaml(const CpuRawMeasurements& raw) {
  const CpuMachineInfo& info = raw.machine;
  std::ostringstream out;
  out << "machine:\n"
      << "  cpu: " << yaml_quoted(info.cpu) << "\n"
      << "  logical_cpus: " << info.logical_cpus << "\n"
      << "  clock: " << with_unit(info.clock.value() * 1e-6, "MHz") << "\n"
      << "  memory: " << with_unit(info.memory.value() / 1073741824.0, "GiB") << "\n"
      << "  llc: " << bytes(info.llc) << "\n"
      << "  isa: " << yaml_quoted(info.isa) << "\n"
      << "  transparent_hugepages: " << yaml_quoted(info.transparent_hugepages) << "\n"
      << "  compiler: " << yaml_quoted(info.compiler) << "\n"
      << "  gemm_library: " << yaml_quoted(info.gemm_library) << "\n"
      << "  load_before: " << yaml_quoted(info.load_before) << "\n"
      << "  load_after: " << yaml_quoted(info.load_after) << "\n"
      << "  date: " << yaml_quoted(info.date) << "\n"
      << "  command: " << yaml_quoted(info.command) << "\n"
      << "measurements:\n";
  for (const CpuMeasurement& m : raw.measurements) {
    out << "  - {kind: " << to_string(m.kind) << ", threads: " << m.threads;
    switch (m.kind) {
      case CpuMeasurementKind::gemm: out << ", m: " << m.m << ", n: " << m.n << ", k: " << m.k; break;
      case CpuMeasurementKind::gather:
      case CpuMeasurementKind::update:
        out << ", row_bytes: " << bytes(m.row_bytes) << ", pooling: " << m.pooling << ", lookups: " << m.lookups
            << ", table_bytes: " << bytes(m.table_bytes);
        break;
      case CpuMeasurementKind::hash_update:
        out << ", row_bytes: " << bytes(m.row_bytes) << ", keys: " << m.keys << ", lookups: " << m.lookups
            << ", table_bytes: " << bytes(m.table_bytes);
        break;
      case CpuMeasurementKind::dram_latency:
        out << ", lookups: " << m.lookups << ", table_bytes: " << bytes(m.table_bytes);
        break;
      case CpuMeasurementKind::fp16_convert:
      case CpuMeasurementKind::memcpy:
        out << ", working_set: " << (m.cached ? "cached" : "dram") << ", bytes: " << bytes(m.bytes) << ", passes: " << m.passes;
        break;
      case CpuMeasurementKind::call:
      case CpuMeasurementKind::fp32_peak: out << ", calls: " << m.calls; break;
    }
    out << ", time: " << us(m.time) << ", min: " << us(m.min_time) << ", max: " << us(m.max_time)
        << ", repeats: " << m.repeats << "}\n";
  }
  return out.str();
}

}  // namespace dlrmsim::validation
