#include "topologies/cpu_profile.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>
#include <stdexcept>

#include "common/text.hpp"

namespace dlrmsim::topo {

// --- formulas ------------------------------------------------------------------------------

double CpuGemmCoefficients::fill(double m, double n, double k) const {
  return saturation(m, m_half) * saturation(n, n_half) * saturation(k, k_half);
}

Seconds CpuGemmCoefficients::time(std::int64_t m, std::int64_t n, std::int64_t k) const {
  if (m < 1 || n < 1 || k < 1) throw std::invalid_argument("GEMM extents must be positive");
  const double dm = static_cast<double>(m), dn = static_cast<double>(n), dk = static_cast<double>(k);
  return call_overhead + Flops(2.0 * dm * dn * dk) / (rate * fill(dm, dn, dk));
}

double CpuProfile::large_gemm_efficiency() const {
  if (!(peak_per_core.value() > 0.0)) {
    throw std::logic_error("CPU profile '" + name + "' gives no gemm_fp32.peak_per_core");
  }
  return gemm_all_cores.rate.value() / (static_cast<double>(cores) * peak_per_core.value());
}

void CpuProfile::set_peak(FlopsPerSecond per_core, std::string source) {
  if (gemm_per_core.rate > per_core) {
    throw std::invalid_argument("is below the measured one-core GEMM rate (" +
                                format_number(gemm_per_core.rate.value() / 1e9, 4) + " GFLOP/s)");
  }
  peak_per_core = per_core;
  peak_source = std::move(source);
}

double CpuProfile::gemm_efficiency(std::int64_t m, std::int64_t n, std::int64_t k) const {
  if (m < 1 || n < 1 || k < 1) throw std::invalid_argument("GEMM extents must be positive");
  return large_gemm_efficiency() *
         gemm_all_cores.fill(static_cast<double>(m), static_cast<double>(n), static_cast<double>(k));
}

Bytes RowKernelCoefficients::dram_bytes_per_row(Bytes row_bytes, Bytes line) const {
  return traffic_multiple * std::max(row_bytes, line) + extra_traffic;
}

double RowKernelCoefficients::rows_per_second(Bytes row_bytes, int cores, Bytes line) const {
  if (cores < 1) throw std::invalid_argument("cores must be at least 1");
  const double one_core = 1.0 / per_core.time_per_row(row_bytes).value();
  if (cores == 1) return one_core;
  const double core_bound = cores * all_cores.parallel_scaling * one_core;
  const double dram_bound = all_cores.dram_bandwidth.value() / dram_bytes_per_row(row_bytes, line).value();
  return std::min(core_bound, dram_bound);
}

BytesPerSecond StreamCoefficients::bandwidth(int cores) const {
  if (cores < 1) throw std::invalid_argument("cores must be at least 1");
  return std::min(per_core * static_cast<double>(cores), all_cores);
}

void set_row_kernel_traffic(CpuProfile& p) {
  p.gather.traffic_multiple = 1.0;
  p.gather.extra_traffic = Bytes(0.0);
  p.update.traffic_multiple = 2.0;
  p.update.extra_traffic = Bytes(0.0);
  p.hash_update.traffic_multiple = 2.0;
  p.hash_update.extra_traffic = p.cache_line;
}

// --- reading -------------------------------------------------------------------------------

namespace {

Provenance read_provenance(const ConfigNode& group) {
  Provenance p;
  p.source = group.get<std::string>("source");
  if (p.source.empty()) group.child("source").fail("a source is required: a measurement, a datasheet or a labelled assumption");
  if (const auto f = group.optional_child("fit")) {
    FitError e;
    e.rms_relative = f->get_positive<double>("rms_relative", true);
    e.max_relative = f->get_positive<double>("max_relative", true);
    e.measurements = f->get_positive<int>("measurements");
    if (e.max_relative < e.rms_relative) f->fail("max_relative must be at least rms_relative");
    f->finish();
    p.fit = e;
  }
  return p;
}

CpuGemmCoefficients read_gemm(const ConfigNode& n) {
  CpuGemmCoefficients c;
  c.rate = n.get_positive<FlopsPerSecond>("rate");
  c.m_half = n.get_positive<double>("m_half", true);
  c.n_half = n.get_positive<double>("n_half", true);
  c.k_half = n.get_positive<double>("k_half", true);
  c.call_overhead = n.get_positive<Seconds>("call_overhead", true);
  c.provenance = read_provenance(n);
  n.finish();
  return c;
}

RowKernelCoefficients read_row_kernel(const ConfigNode& n) {
  RowKernelCoefficients c;
  const ConfigNode core = n.child("per_core");
  c.per_core.row_time = core.get_positive<Seconds>("row_time", true);
  c.per_core.bandwidth = core.get_positive<BytesPerSecond>("bandwidth");
  c.per_core.provenance = read_provenance(core);
  core.finish();
  const ConfigNode all = n.child("all_cores");
  const ConfigNode scaling = all.child("parallel_scaling");
  c.all_cores.parallel_scaling = scaling.as<double>();
  // Two cores can do more than twice one core's work only through cache effects; allow a little.
  if (!(c.all_cores.parallel_scaling > 0.0 && c.all_cores.parallel_scaling <= 1.5)) {
    scaling.fail("expected a ratio in (0, 1.5], found " + scaling.as<std::string>());
  }
  c.all_cores.dram_bandwidth = all.get_positive<BytesPerSecond>("dram_bandwidth");
  c.all_cores.provenance = read_provenance(all);
  all.finish();
  n.finish();
  return c;
}

StreamCoefficients read_stream(const ConfigNode& n) {
  StreamCoefficients c;
  c.per_core = n.get_positive<BytesPerSecond>("per_core");
  c.all_cores = n.get_positive<BytesPerSecond>("all_cores");
  c.provenance = read_provenance(n);
  n.finish();
  return c;
}

StreamPair read_stream_pair(const ConfigNode& n) {
  StreamPair p;
  p.cached = read_stream(n.child("cached"));
  p.dram = read_stream(n.child("dram"));
  n.finish();
  return p;
}

}  // namespace

CpuProfile parse_cpu_profile(const ConfigNode& root) {
  if (!root.is_map()) root.fail("a CPU profile is a mapping with keys cpu, gemm_fp32, gather, update, ...");
  CpuProfile p;
  const ConfigNode cpu = root.child("cpu");
  p.name = cpu.get<std::string>("name");
  p.description = cpu.get<std::string>("description");
  p.provenance = cpu.get<std::string>("provenance");
  p.cores = cpu.get_positive<int>("cores");
  p.cache_line = cpu.get_positive<Bytes>("cache_line");
  p.machine_source = cpu.get<std::string>("source");
  if (p.machine_source.empty()) cpu.child("source").fail("a source is required for cores and cache_line");
  cpu.finish();

  const ConfigNode gemm = root.child("gemm_fp32");
  p.gemm_per_core = read_gemm(gemm.child("per_core"));
  p.gemm_all_cores = read_gemm(gemm.child("all_cores"));
  if (auto peak = gemm.optional_child("peak_per_core")) {
    if (!peak->is_map()) peak->fail("expected a mapping: {rate: \"78.25 GFLOP/s\", source: \"...\"}");
    const auto rate = peak->get_positive<FlopsPerSecond>("rate");
    auto source = peak->get<std::string>("source");
    if (source.empty()) peak->child("source").fail("a source is required for the peak");
    try {
      p.set_peak(rate, std::move(source));
    } catch (const std::invalid_argument& e) {
      peak->child("rate").fail(e.what());
    }
    peak->finish();
  }
  gemm.finish();
  p.gather = read_row_kernel(root.child("gather"));
  p.update = read_row_kernel(root.child("update"));
  p.hash_update = read_row_kernel(root.child("hash_update"));
  if (auto latency = root.optional_child("dram_latency")) {
    if (!latency->is_map()) latency->fail("expected a mapping: {latency: \"205 ns\", source: \"...\"}");
    p.dram_latency = latency->get_positive<Seconds>("latency");
    p.latency_provenance = read_provenance(*latency);
    latency->finish();
  }
  p.fp16_convert = read_stream_pair(root.child("fp16_convert"));
  p.memcpy = read_stream_pair(root.child("memcpy"));
  const ConfigNode call = root.child("call");
  p.call_overhead = call.get_positive<Seconds>("overhead");
  p.call_provenance = read_provenance(call);
  call.finish();
  root.finish();
  set_row_kernel_traffic(p);
  return p;
}

CpuProfile load_cpu_profile(const std::string& path) { return parse_cpu_profile(ConfigNode::load_file(path)); }

// --- writing -------------------------------------------------------------------------------

namespace {

std::string with_unit(double base_value, double scale, const char* unit) {
  return yaml_quoted(format_number(base_value / scale, 6) + " " + unit);
}
std::string gbps(BytesPerSecond r) { return with_unit(r.value(), 1e9, "GB/s"); }
std::string ns(Seconds s) { return with_unit(s.value(), 1e-9, "ns"); }

void write_provenance(std::ostream& out, const Provenance& p, const std::string& indent) {
  out << indent << "source: " << yaml_quoted(p.source) << "\n";
  if (p.fit) {
    out << indent << "fit: {rms_relative: " << format_number(p.fit->rms_relative, 4)
        << ", max_relative: " << format_number(p.fit->max_relative, 4) << ", measurements: " << p.fit->measurements << "}\n";
  }
}

void write_gemm(std::ostream& out, const char* key, const CpuGemmCoefficients& c) {
  out << "  " << key << ":\n"
      << "    rate: " << with_unit(c.rate.value(), 1e9, "GFLOP/s") << "\n"
      << "    m_half: " << format_number(c.m_half, 6) << "\n"
      << "    n_half: " << format_number(c.n_half, 6) << "\n"
      << "    k_half: " << format_number(c.k_half, 6) << "\n"
      << "    call_overhead: " << with_unit(c.call_overhead.value(), 1e-6, "us") << "\n";
  write_provenance(out, c.provenance, "    ");
}

void write_row_kernel(std::ostream& out, const char* key, const RowKernelCoefficients& c) {
  out << key << ":\n"
      << "  per_core:\n"
      << "    row_time: " << ns(c.per_core.row_time) << "\n"
      << "    bandwidth: " << gbps(c.per_core.bandwidth) << "\n";
  write_provenance(out, c.per_core.provenance, "    ");
  out << "  all_cores:\n"
      << "    parallel_scaling: " << format_number(c.all_cores.parallel_scaling, 4) << "\n"
      << "    dram_bandwidth: " << gbps(c.all_cores.dram_bandwidth) << "\n";
  write_provenance(out, c.all_cores.provenance, "    ");
}

void write_stream_pair(std::ostream& out, const char* key, const StreamPair& p) {
  out << key << ":\n";
  for (const auto& [name, c] : {std::pair<const char*, const StreamCoefficients&>{"cached", p.cached}, {"dram", p.dram}}) {
    out << "  " << name << ":\n"
        << "    per_core: " << gbps(c.per_core) << "\n"
        << "    all_cores: " << gbps(c.all_cores) << "\n";
    write_provenance(out, c.provenance, "    ");
  }
}

}  // namespace

std::string cpu_profile_to_yaml(const CpuProfile& p) {
  std::ostringstream out;
  out << "cpu:\n"
      << "  name: " << yaml_quoted(p.name) << "\n"
      << "  description: " << yaml_quoted(p.description) << "\n"
      << "  provenance: " << yaml_quoted(p.provenance) << "\n"
      << "  cores: " << p.cores << "\n"
      << "  cache_line: " << with_unit(p.cache_line.value(), 1.0, "B") << "\n"
      << "  source: " << yaml_quoted(p.machine_source) << "\n"
      << "gemm_fp32:\n";
  write_gemm(out, "per_core", p.gemm_per_core);
  write_gemm(out, "all_cores", p.gemm_all_cores);
  if (p.peak_per_core.value() > 0.0) {
    out << "  peak_per_core:\n"
        << "    rate: " << with_unit(p.peak_per_core.value(), 1e9, "GFLOP/s") << "\n"
        << "    source: " << yaml_quoted(p.peak_source) << "\n";
  }
  write_row_kernel(out, "gather", p.gather);
  write_row_kernel(out, "update", p.update);
  write_row_kernel(out, "hash_update", p.hash_update);
  if (p.dram_latency.value() > 0.0) {
    out << "dram_latency:\n"
        << "  latency: " << ns(p.dram_latency) << "\n";
    write_provenance(out, p.latency_provenance, "  ");
  }
  write_stream_pair(out, "fp16_convert", p.fp16_convert);
  write_stream_pair(out, "memcpy", p.memcpy);
  out << "call:\n"
      << "  overhead: " << ns(p.call_overhead) << "\n";
  write_provenance(out, p.call_provenance, "  ");
  return out.str();
}

}  // namespace dlrmsim::topo
