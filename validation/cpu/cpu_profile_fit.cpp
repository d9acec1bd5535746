#include "validation/cpu/cpu_profile_fit.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <map>
#include <sstream>
#include <stdexcept>

#include "validation/least_squares.hpp"

namespace dlrmsim::validation {

using topo::CpuProfile;
using topo::FitError;

namespace {

using Group = std::vector<const CpuMeasurement*>;

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 == 1 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

void require(const Group& group, std::size_t needed, const std::string& model, const std::string& what) {
  if (group.size() < needed) {
    throw std::invalid_argument(model + ": " + std::to_string(group.size()) + " measurement(s) cannot determine " + what +
                                "; at least " + std::to_string(needed) + " are needed");
  }
}

FitError errors_of(const CpuProfile& profile, const Group& group) {
  return topo::relative_fit_errors(group, [&](const CpuMeasurement& m) { return predict(profile, m); });
}

double bytes_per_second(const CpuMeasurement& m) { return m.bytes.value() * m.passes / m.time.value(); }

topo::CpuGemmCoefficients fit_gemm(const Group& g, const std::string& name) {
  require(g, 5, name, "rate, m_half, n_half, k_half and call_overhead");
  double best = 0.0;
  for (const CpuMeasurement* m : g) {
    best = std::max(best, 2.0 * static_cast<double>(m->m) * static_cast<double>(m->n) * static_cast<double>(m->k) /
                              m->time.value());
  }
  const double reference = 4.0 * best;
  std::vector<SaturatingSample> samples;
  for (const CpuMeasurement* m : g) {
    const double dm = static_cast<double>(m->m), dn = static_cast<double>(m->n), dk = static_cast<double>(m->k);
    samples.push_back({{dm, dn, dk}, 2.0 * dm * dn * dk / reference, 0.0, m->time.value()});
  }
  const SaturatingFit fit = fit_saturating_product(samples, 3, /*fit_offset=*/true);
  if (fit.max_efficiency > 0.999) {
    throw std::invalid_argument(name + ": the fitted large-GEMM rate reaches the fit's bound of 4x the fastest measured GEMM; "
                                "the shapes measured do not determine it (measure larger shapes)");
  }
  topo::CpuGemmCoefficients c;
  c.rate = FlopsPerSecond(fit.max_efficiency * reference);
  c.m_half = fit.halves[0];
  c.n_half = fit.halves[1];
  c.k_half = fit.halves[2];
  c.call_overhead = Seconds(fit.offset);
  return c;
}

topo::RowCostLine fit_row_line(const Group& g, const std::string& name) {
  std::vector<double> x, t;
  for (const CpuMeasurement* m : g) {
    x.push_back(m->row_bytes.value());
    t.push_back(m->time_per_item().value());
  }
  require(g, 2, name, "a time per row and a bandwidth");
  LineFit line;
  try {
    line = fit_line_relative(x, t);
  } catch (const std::invalid_argument& e) {
    throw std::invalid_argument(name + ": " + e.what());
  }
  topo::RowCostLine c;
  c.row_time = Seconds(line.intercept);
  c.bandwidth = BytesPerSecond(1.0 / line.slope);
  return c;
}

struct SocketFit {
  double scaling = 0.0;
  double dram = 0.0;  // 0: no run was DRAM-bound
};

/// The split search of the header. `core_bound` and `traffic` per run, `rate` measured rows/s.
SocketFit fit_socket(const std::vector<double>& core_bound, const std::vector<double>& traffic,
                     const std::vector<double>& rate) {
  const std::size_t n = rate.size();
  std::vector<std::size_t> order(n);
  for (std::size_t i = 0; i < n; ++i) order[i] = i;
  std::sort(order.begin(), order.end(),
            [&](std::size_t a, std::size_t b) { return core_bound[a] * traffic[a] < core_bound[b] * traffic[b]; });
  SocketFit best;
  double best_cost = -1.0;
  for (std::size_t head = n; head >= 1; --head) {
    double log_s = 0.0, log_b = 0.0;
    for (std::size_t i = 0; i < head; ++i) log_s += std::log(rate[order[i]] / core_bound[order[i]]);
    log_s /= static_cast<double>(head);
    for (std::size_t i = head; i < n; ++i) log_b += std::log(rate[order[i]] * traffic[order[i]]);
    const double s = std::exp(log_s);
    const double b = head < n ? std::exp(log_b / static_cast<double>(n - head)) : 0.0;
    bool valid = true;
    double cost = 0.0;
    for (std::size_t i = 0; i < n; ++i) {
      const std::size_t j = order[i];
      if (i >= head && !(rate[j] < 0.9 * s * core_bound[j])) valid = false;
      const double predicted = head < n ? std::min(s * core_bound[j], b / traffic[j]) : s * core_bound[j];
      cost += std::pow(std::log(predicted / rate[j]), 2);
    }
    if (valid && (best_cost < 0.0 || cost < best_cost)) {
      best_cost = cost;
      best = {s, b};
    }
  }
  return best;
}

std::string hyphenated(const std::string& text) {
  std::string out;
  for (char c : text) {
    if (std::isalnum(static_cast<unsigned char>(c))) {
      out += c;
    } else if (!out.empty() && out.back() != '-') {
      out += '-';
    }
  }
  while (!out.empty() && out.back() == '-') out.pop_back();
  return out.empty() ? "CPU" : out;
}

}  // namespace

std::string cpu_profile_name(const CpuMachineInfo& machine) {
  return hyphenated(machine.cpu) + "-" + std::to_string(machine.logical_cpus) + "CPU";
}

std::string model_of(const CpuMeasurement& m) {
  const std::string kind(to_string(m.kind));
  switch (m.kind) {
    case CpuMeasurementKind::fp16_convert:
    case CpuMeasurementKind::memcpy: return kind + (m.cached ? ".cached" : ".dram") + (m.threads == 1 ? ".per_core" : ".all_cores");
    case CpuMeasurementKind::call:
    case CpuMeasurementKind::dram_latency: return kind;
    default: return kind + (m.threads == 1 ? ".per_core" : ".all_cores");
  }
}

Seconds predict(const CpuProfile& p, const CpuMeasurement& m) {
  const bool one = m.threads == 1;
  switch (m.kind) {
    case CpuMeasurementKind::gemm: return p.gemm_time(m.m, m.n, m.k, !one);
    case CpuMeasurementKind::gather:
      return Seconds(static_cast<double>(m.lookups) / p.gather_rows_per_second(m.row_bytes, m.threads));
    case CpuMeasurementKind::update:
      return Seconds(static_cast<double>(m.lookups) / p.update_rows_per_second(m.row_bytes, m.threads));
    case CpuMeasurementKind::hash_update:
      return Seconds(static_cast<double>(m.lookups) / p.hash_updates_per_second(m.row_bytes, m.threads));
    case CpuMeasurementKind::fp16_convert:
    case CpuMeasurementKind::memcpy: {
      const topo::StreamPair& pair = m.kind == CpuMeasurementKind::memcpy ? p.memcpy : p.fp16_convert;
      const topo::StreamCoefficients& c = m.cached ? pair.cached : pair.dram;
      return m.bytes * static_cast<double>(m.passes) / (one ? c.per_core : c.all_cores);
    }
    case CpuMeasurementKind::call: return p.call_overhead * static_cast<double>(m.calls);
    case CpuMeasurementKind::dram_latency: return p.dram_latency * static_cast<double>(m.lookups);
    case CpuMeasurementKind::fp32_peak:
      if (!(p.peak_per_core.value() > 0.0)) return m.time;  // no peak in the profile: nothing to predict
      return Seconds(static_cast<double>(m.calls) * kFp32PeakFlopsPerCall / p.peak_per_core.value());
  }
  return Seconds(0.0);
}

CpuCalibrationResult fit_cpu_profile(const CpuRawMeasurements& raw, const CpuFitOptions& options) {
  CpuCalibrationResult result;
  CpuProfile& p = result.profile;
  const CpuMachineInfo& machine = raw.machine;
  const int cores = machine.logical_cpus;
  const bool single_cpu = cores == 1;

  std::map<std::string, Group> groups;
  for (const CpuMeasurement& m : raw.measurements) {
    if (m.threads != 1 && m.threads != cores) {
      throw std::invalid_argument(std::string(to_string(m.kind)) + ": a run on " + std::to_string(m.threads) +
                                  " threads; the profile is fitted to runs on 1 thread and on all " +
                                  std::to_string(cores) + " logical CPUs");
    }
    groups[model_of(m)].push_back(&m);
  }
  const auto group = [&](const std::string& name) -> const Group& {
    static const Group empty;
    const auto it = groups.find(name);
    return it == groups.end() ? empty : it->second;
  };
  // On a one-CPU machine the per-core runs are the all-core runs.
  const auto all_cores_group = [&](const std::string& kind) -> const Group& {
    return group(kind + (single_cpu ? ".per_core" : ".all_cores"));
  };

  const std::string measured_on =
      "measured by dlrmsim-calibrate --cpu, fitted by dlrmsim fit-profile to " +
      (options.raw_name.empty() ? std::string("a raw file") : options.raw_name) + " (" + machine.cpu + ", " +
      std::to_string(cores) + " logical CPUs, kernels compiled for " + machine.isa + " by " + machine.compiler +
      ", transparent huge pages " + machine.transparent_hugepages + ", " +
      machine.gemm_library + "; " + machine.date + "; load average before " + machine.load_before + ", after " +
      machine.load_after + "; command: " + machine.command + ")";
  p.name = cpu_profile_name(machine);
  p.description = machine.cpu + ", " + std::to_string(cores) + " logical CPUs, as measured (fp32 Eigen GEMM, rows from DRAM)";
  p.provenance = "measured: " + measured_on;
  p.cores = cores;
  p.cache_line = Bytes(64.0);
  p.machine_source = "cores: logical CPUs of the measured machine (std::thread::hardware_concurrency); cache_line: 64 B, "
                     "the line size of x86-64 and Arm Neoverse server cores";
  topo::set_row_kernel_traffic(p);
  if (single_cpu) result.notes.push_back("one logical CPU: the all_cores figures are the per-core runs");

  // 1. GEMM.
  p.gemm_per_core = fit_gemm(group("gemm.per_core"), "gemm.per_core");
  p.gemm_per_core.provenance.source = "achieved rate (the machine's peak is not known to the profile), " + measured_on;
  p.gemm_all_cores = fit_gemm(all_cores_group("gemm"), "gemm.all_cores");
  p.gemm_all_cores.provenance.source =
      "achieved rate of one GEMM split by columns over " + std::to_string(cores) + " threads, " + measured_on;

  // The core's fp32 peak, when measured (raw files older than the peak kernel do not have it).
  {
    std::vector<double> rates;
    for (const CpuMeasurement* m : group("fp32_peak.per_core")) {
      rates.push_back(static_cast<double>(m->calls) * kFp32PeakFlopsPerCall / m->time.value());
    }
    if (!rates.empty()) {
      try {
        p.set_peak(FlopsPerSecond(median(rates)),
                   "measured: median fp32 FLOP/s of one thread running 12 independent 16-lane multiply-add chains (the "
                   "core's peak at the clock it ran), " + measured_on);
      } catch (const std::invalid_argument& e) {
        result.notes.push_back(std::string("fp32_peak: not used: ") + e.what());
      }
    }
  }

  // 2. Streams (needed first: memcpy's DRAM rate is the gathers' fallback DRAM bound).
  for (const auto& [kind, pair] : {std::pair<std::string, topo::StreamPair*>{"fp16_convert", &p.fp16_convert},
                                   {"memcpy", &p.memcpy}}) {
    for (const bool cached : {true, false}) {
      const std::string set = kind + (cached ? ".cached" : ".dram");
      const Group& core = group(set + ".per_core");
      const Group& all = all_cores_group(set);
      require(core, 1, set + ".per_core", "a bandwidth");
      require(all, 1, set + ".all_cores", "a bandwidth");
      std::vector<double> core_rates, all_rates;
      for (const CpuMeasurement* m : core) core_rates.push_back(bytes_per_second(*m));
      for (const CpuMeasurement* m : all) all_rates.push_back(bytes_per_second(*m));
      topo::StreamCoefficients& c = cached ? pair->cached : pair->dram;
      c.per_core = BytesPerSecond(median(core_rates));
      c.all_cores = BytesPerSecond(median(all_rates));
      c.provenance.source = std::string("median bytes/s of ") +
                            (cached ? "a buffer that stays in the cores' L2 caches" : "a buffer much larger than the last-level cache") +
                            " (" + (kind == "memcpy" ? "bytes copied" : "fp32 bytes converted") + "), " + measured_on;
    }
  }
  const BytesPerSecond streaming_dram = p.memcpy.dram.all_cores * 2.0;

  // 3. Row kernels.
  for (const auto& [kind, kernel] : {std::pair<std::string, topo::RowKernelCoefficients*>{"gather", &p.gather},
                                     {"update", &p.update},
                                     {"hash_update", &p.hash_update}}) {
    kernel->per_core = fit_row_line(group(kind + ".per_core"), kind + ".per_core");
    kernel->per_core.provenance.source = "line through the time per row at each row size, " + measured_on;
    const Group& all = all_cores_group(kind);
    require(all, 1, kind + ".all_cores", "a parallel scaling");
    std::vector<double> core_bound, traffic, rate;
    for (const CpuMeasurement* m : all) {
      core_bound.push_back(static_cast<double>(m->threads) / kernel->per_core.time_per_row(m->row_bytes).value());
      traffic.push_back(kernel->dram_bytes_per_row(m->row_bytes, p.cache_line).value());
      rate.push_back(static_cast<double>(m->lookups) / m->time.value());
    }
    const SocketFit socket = fit_socket(core_bound, traffic, rate);
    kernel->all_cores.parallel_scaling = single_cpu ? 1.0 : socket.scaling;
    if (socket.dram > 0.0) {
      kernel->all_cores.dram_bandwidth = BytesPerSecond(socket.dram);
      kernel->all_cores.provenance.source = "parallel_scaling and dram_bandwidth fitted (the largest rows reached the DRAM bound), " + measured_on;
    } else {
      kernel->all_cores.dram_bandwidth = streaming_dram;
      kernel->all_cores.provenance.source =
          "parallel_scaling fitted; no run reached the DRAM bound, so dram_bandwidth is the streaming bandwidth of all "
          "cores (2 x memcpy.dram.all_cores: an upper bound for random rows), " + measured_on;
      double most = 0.0;
      for (std::size_t i = 0; i < rate.size(); ++i) most = std::max(most, rate[i] * traffic[i]);
      if (most > streaming_dram.value()) {
        result.notes.push_back(kind + ": the all-core runs moved " + format_rate(BytesPerSecond(most)) +
                               ", more than the streaming bandwidth " + format_rate(streaming_dram) +
                               " (rows partly cached?)");
      }
    }
  }

  // 4. Call overhead.
  {
    const Group& g = group("call");
    std::vector<double> per_call;
    for (const CpuMeasurement* m : g) {
      if (m->threads == 1) per_call.push_back(m->time_per_item().value());
    }
    if (per_call.empty()) throw std::invalid_argument("call: no one-thread measurement determines the per-call overhead");
    p.call_overhead = Seconds(median(per_call));
    p.call_provenance.source =
        "median time per call of a non-inlined trivial function in a loop, one thread (the floor of an operator boundary in "
        "compiled code, not a framework's dispatch cost), " + measured_on;
  }

  // 5. DRAM latency (optional: raw files older than the pointer chase do not have it).
  {
    std::vector<double> per_load;
    for (const CpuMeasurement* m : group("dram_latency")) per_load.push_back(m->time_per_item().value());
    if (per_load.empty()) {
      result.notes.push_back("no dram_latency measurement: the profile gives no latency, so its row rates do not "
                             "transfer to other CPUs (topologies/cpu_row_cost.hpp)");
    } else {
      p.dram_latency = Seconds(median(per_load));
      p.latency_provenance.source =
          "median time per load of a pointer chase through a random cycle of the row table's 64-byte lines, one thread "
          "(a random access's latency, TLB miss included), " + measured_on;
    }
  }

  // Errors of the final profile, per model, stored with the groups they describe.
  for (const auto& [name, g] : groups) {
    ModelFitReport report;
    report.model = name;
    report.fitted = true;
    report.fit = errors_of(p, g);
    result.models.push_back(report);
  }
  const auto fit_of = [&](const std::string& name) -> std::optional<FitError> {
    for (const ModelFitReport& r : result.models) {
      if (r.model == name) return r.fit;
    }
    return std::nullopt;
  };
  const std::string all_suffix = single_cpu ? ".per_core" : ".all_cores";
  p.gemm_per_core.provenance.fit = fit_of("gemm.per_core");
  p.gemm_all_cores.provenance.fit = fit_of("gemm" + all_suffix);
  p.gather.per_core.provenance.fit = fit_of("gather.per_core");
  p.gather.all_cores.provenance.fit = fit_of("gather" + all_suffix);
  p.update.per_core.provenance.fit = fit_of("update.per_core");
  p.update.all_cores.provenance.fit = fit_of("update" + all_suffix);
  p.hash_update.per_core.provenance.fit = fit_of("hash_update.per_core");
  p.hash_update.all_cores.provenance.fit = fit_of("hash_update" + all_suffix);
  p.call_provenance.fit = fit_of("call");
  p.latency_provenance.fit = fit_of("dram_latency");
  return result;
}

std::string format_cpu_fit_report(const CpuCalibrationResult& result) {
  std::ostringstream out;
  char line[256];
  std::snprintf(line, sizeof line, "%-36s %6s %9s %9s\n", "model", "runs", "rms err", "max err");
  out << line;
  for (const ModelFitReport& r : result.models) {
    std::snprintf(line, sizeof line, "%-36s %6d %8.2f%% %8.2f%%\n", r.model.c_str(), r.fit.measurements,
                  100.0 * r.fit.rms_relative, 100.0 * r.fit.max_relative);
    out << line;
  }
  for (const std::string& note : result.notes) out << "note: " << note << "\n";
  return out.str();
}

}  // namespace dlrmsim::validation
