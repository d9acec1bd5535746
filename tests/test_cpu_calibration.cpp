// The CPU calibration set (validation/cpu/): its kernels against scalar references, the raw
// measurement format and the CPU profile read back from what they write, the fitter recovering
// known coefficients from noisy synthetic measurements, and the whole set run end to end at
// tiny sizes. No timing is asserted (timings on a shared machine are noise).
#include <doctest/doctest.h>

#include "approx.hpp"

#include <cmath>
#include <cstdint>
#include <filesystem>
#include <map>
#include <random>
#include <string>

#include "topologies/cpu_profile.hpp"
#include "validation/cpu/cpu_benchmark.hpp"
#include "validation/cpu/cpu_kernels.hpp"
#include "validation/cpu/cpu_profile_fit.hpp"
#include "validation/cpu/cpu_raw_measurements.hpp"
#include "paths.hpp"

using namespace dlrmsim;
using namespace dlrmsim::validation;
namespace cpu = dlrmsim::cpu_calibration;

namespace {

/// Deterministic multiplicative noise exp(sigma z), z standard normal (Box-Muller on mt19937_64).
class Noise {
 public:
  Noise(std::uint64_t seed, double sigma) : rng_(seed), sigma_(sigma) {}
  double factor() {
    const double u1 = (static_cast<double>(rng_() >> 11) + 0.5) / 9007199254740992.0;
    const double u2 = (static_cast<double>(rng_() >> 11) + 0.5) / 9007199254740992.0;
    return std::exp(sigma_ * std::sqrt(-2.0 * std::log(u1)) * std::cos(6.283185307179586 * u2));
  }

 private:
  std::mt19937_64 rng_;
  double sigma_;
};

CpuMachineInfo machine(int logical_cpus) {
  CpuMachineInfo m;
  m.cpu = "Test CPU 9000";
  m.logical_cpus = logical_cpus;
  m.clock = Hertz(2.5e9);
  m.memory = Bytes(64.0 * 1073741824.0);
  m.llc = Bytes(32.0 * 1048576.0);
  m.isa = "avx2 fma f16c";
  m.transparent_hugepages = "madvise";
  m.compiler = "GCC 12.2.0";
  m.gemm_library = "Eigen 3.4.0";
  m.load_before = "0.10 0.20 0.30";
  m.load_after = "0.40 0.50 0.60";
  m.date = "2026-11-30T17:00:00Z";
  m.command = "dlrmsim-calibrate --cpu -o raw.yaml";
  return m;
}

/// A profile with round known coefficients, 8 cores, whose gathers hit DRAM at long rows.
topo::CpuProfile known_profile() {
  topo::CpuProfile p;
  p.name = "Test";
  p.cores = 8;
  p.cache_line = Bytes(64.0);
  p.gemm_per_core = {FlopsPerSecond(60e9), 24.0, 40.0, 64.0, Seconds(2e-6), {}};
  p.gemm_all_cores = {FlopsPerSecond(400e9), 96.0, 256.0, 64.0, Seconds(8e-6), {}};
  p.gather.per_core = {Seconds(40e-9), BytesPerSecond(8e9), {}};
  p.gather.all_cores = {0.9, BytesPerSecond(30e9), {}};
  p.update.per_core = {Seconds(60e-9), BytesPerSecond(5e9), {}};
  p.update.all_cores = {0.85, BytesPerSecond(30e9), {}};
  p.hash_update.per_core = {Seconds(120e-9), BytesPerSecond(4e9), {}};
  p.hash_update.all_cores = {0.8, BytesPerSecond(1e15), {}};  // never DRAM-bound
  p.fp16_convert.cached = {BytesPerSecond(20e9), BytesPerSecond(150e9), {}};
  p.fp16_convert.dram = {BytesPerSecond(8e9), BytesPerSecond(40e9), {}};
  p.memcpy.cached = {BytesPerSecond(40e9), BytesPerSecond(300e9), {}};
  p.memcpy.dram = {BytesPerSecond(10e9), BytesPerSecond(25e9), {}};
  p.call_overhead = Seconds(1.5e-9);
  p.dram_latency = Seconds(150e-9);
  topo::set_row_kernel_traffic(p);
  return p;
}

/// Fills the texts a profile file requires (description, provenance, every source).
void set_sources(topo::CpuProfile& p) {
  p.description = "test";
  p.provenance = p.machine_source = "synthetic";
  for (topo::Provenance* pr : {&p.gemm_per_core.provenance, &p.gemm_all_cores.provenance, &p.gather.per_core.provenance,
                               &p.gather.all_cores.provenance, &p.update.per_core.provenance, &p.update.all_cores.provenance,
                               &p.hash_update.per_core.provenance, &p.hash_update.all_cores.provenance,
                               &p.fp16_convert.cached.provenance, &p.fp16_convert.dram.provenance,
                               &p.memcpy.cached.provenance, &p.memcpy.dram.provenance, &p.call_provenance,
                               &p.latency_provenance}) {
    pr->source = "synthetic";
  }
}

/// Every kind of measurement, at the sizes of the full sweep, timed by `truth` x noise.
CpuRawMeasurements synthetic(const topo::CpuProfile& truth, double sigma) {
  CpuRawMeasurements raw;
  raw.machine = machine(truth.cores);
  Noise noise(7, sigma);
  const auto add = [&](CpuMeasurement m) {
    m.time = predict(truth, m) * noise.factor();
    m.min_time = m.time * 0.99;
    m.max_time = m.time * 1.01;
    m.repeats = 7;
    raw.measurements.push_back(m);
  };
  for (int threads : {1, truth.cores}) {
    for (std::int64_t m_ : {16, 64, 256, 1024, 4096}) {
      for (std::int64_t n_ : {16, 64, 256, 1024, 4096}) {
        for (std::int64_t k_ : {16, 64, 256, 1024, 4096}) {
          CpuMeasurement m;
          m.kind = CpuMeasurementKind::gemm;
          m.threads = threads;
          m.m = m_;
          m.n = n_;
          m.k = k_;
          add(m);
        }
      }
    }
    for (double row : {16.0, 32.0, 64.0, 128.0, 256.0, 512.0}) {
      for (CpuMeasurementKind kind : {CpuMeasurementKind::gather, CpuMeasurementKind::update, CpuMeasurementKind::hash_update}) {
        CpuMeasurement m;
        m.kind = kind;
        m.threads = threads;
        m.row_bytes = Bytes(row);
        m.pooling = 8;
        m.lookups = 262144;
        m.keys = kind == CpuMeasurementKind::hash_update ? 4194304 : 0;
        m.table_bytes = Bytes(268435456.0);
        add(m);
      }
    }
    for (CpuMeasurementKind kind : {CpuMeasurementKind::fp16_convert, CpuMeasurementKind::memcpy}) {
      for (bool cached : {true, false}) {
        CpuMeasurement m;
        m.kind = kind;
        m.threads = threads;
        m.cached = cached;
        m.bytes = Bytes(cached ? 131072.0 * threads : 67108864.0);
        m.passes = cached ? 64 : 1;
        add(m);
      }
    }
    CpuMeasurement call;
    call.kind = CpuMeasurementKind::call;
    call.threads = threads;
    call.calls = 1000000;
    add(call);
  }
  if (truth.peak_per_core.value() > 0.0) {
    for (int threads : {1, truth.cores}) {
      CpuMeasurement peak;
      peak.kind = CpuMeasurementKind::fp32_peak;
      peak.threads = threads;
      peak.calls = 4000000;
      add(peak);
    }
  }
  CpuMeasurement chase;
  chase.kind = CpuMeasurementKind::dram_latency;
  chase.threads = 1;
  chase.lookups = 2000000;
  chase.table_bytes = Bytes(268435456.0);
  add(chase);
  return raw;
}

}  // namespace

// System: each kernel of the set on its small instance (a 37x53 by 53x29 GEMM split over 3
// threads, 16 bags of 3 rows from 64 rows, a 1000-id map, 4108 fp16 conversions, 1000 calls).
// Expected: every result equals its scalar reference (within fp32 rounding), so no CheckFailed.
// Why: the timed runs are only meaningful if the kernels compute what they claim.
TEST_CASE("every CPU kernel matches its scalar reference") {
  CHECK_NOTHROW(cpu::check_all_kernels(1));
  CHECK_NOTHROW(cpu::check_all_kernels(12345));
}

// System: the reference fp32 -> fp16 conversion. Inputs and expected bits from IEEE 754
// binary16: 1 = 0x3c00; 65504 (largest finite) = 0x7bff; 65520 rounds up to infinity 0x7c00;
// 1 + 2^-11 is a tie between 0x3c00 and 0x3c01 and rounds to the even 0x3c00; 1 + 3 x 2^-11 ties
// to the even 0x3c02; 2^-24 is the smallest subnormal 0x0001; -2 = 0xc000.
TEST_CASE("the fp16 reference rounds to nearest even, with subnormals and overflow") {
  CHECK(cpu::reference_fp16_bits(1.0f) == 0x3c00);
  CHECK(cpu::reference_fp16_bits(65504.0f) == 0x7bff);
  CHECK(cpu::reference_fp16_bits(65520.0f) == 0x7c00);
  CHECK(cpu::reference_fp16_bits(1.0f + 1.0f / 2048.0f) == 0x3c00);
  CHECK(cpu::reference_fp16_bits(1.0f + 3.0f / 2048.0f) == 0x3c02);
  CHECK(cpu::reference_fp16_bits(std::ldexp(1.0f, -24)) == 0x0001);
  CHECK(cpu::reference_fp16_bits(-2.0f) == 0xc000);
}

// System: a raw file with one record of every kind, written and read back. Expected: every
// field equal (the writer prints 9 significant digits, so times agree to 1e-8 relative). Why:
// fit-profile must see exactly what dlrmsim-calibrate --cpu measured.
TEST_CASE("CPU raw measurements round-trip through their YAML form") {
  const CpuRawMeasurements raw = synthetic(known_profile(), 0.0);
  const CpuRawMeasurements back =
      parse_cpu_raw_measurements(ConfigNode::load_string(cpu_raw_measurements_to_yaml(raw), "raw.yaml"));
  CHECK(back.machine.cpu == raw.machine.cpu);
  CHECK(back.machine.logical_cpus == 8);
  CHECK(back.machine.clock.value() == dlrmsim::rel(2.5e9));
  CHECK(back.machine.llc.value() == dlrmsim::rel(33554432.0));
  CHECK(back.machine.load_before == "0.10 0.20 0.30");
  CHECK(back.machine.transparent_hugepages == "madvise");
  CHECK(back.machine.load_after == "0.40 0.50 0.60");
  CHECK(back.machine.command == raw.machine.command);
  REQUIRE(back.measurements.size() == raw.measurements.size());
  for (std::size_t i = 0; i < raw.measurements.size(); ++i) {
    const CpuMeasurement& a = raw.measurements[i];
    const CpuMeasurement& b = back.measurements[i];
    CHECK(a.kind == b.kind);
    CHECK(a.threads == b.threads);
    CHECK(a.m == b.m);
    CHECK(a.n == b.n);
    CHECK(a.k == b.k);
    CHECK(a.row_bytes.value() == b.row_bytes.value());
    CHECK(a.lookups == b.lookups);
    CHECK(a.keys == b.keys);
    CHECK(a.bytes.value() == dlrmsim::rel(b.bytes.value()));
    CHECK(a.passes == b.passes);
    CHECK(a.cached == b.cached);
    CHECK(a.calls == b.calls);
    CHECK(b.time.value() == dlrmsim::rel(a.time.value()).epsilon(1e-8));
    CHECK(b.min_time.value() == dlrmsim::rel(a.min_time.value()).epsilon(1e-8));
    CHECK(b.repeats == 7);
  }
  CHECK(is_cpu_raw_measurements(ConfigNode::load_string(cpu_raw_measurements_to_yaml(raw), "raw.yaml")));
  CHECK_FALSE(is_cpu_raw_measurements(ConfigNode::load_string("machine: {gpu: H100}\nmeasurements: []\n", "gpu.yaml")));
}

// System: a raw record claiming 16 threads on an 8-CPU machine, and one whose min exceeds its
// median. Expected: ConfigError naming the file and the key. Why: such a file was not written by
// the runner, and fitting it would mislabel per-core and socket rates.
TEST_CASE("malformed CPU raw records are located errors") {
  std::string text = cpu_raw_measurements_to_yaml(synthetic(known_profile(), 0.0));
  const std::string bad_threads = std::string(text).replace(text.find("threads: 1"), 10, "threads: 16");
  CHECK_THROWS_WITH_AS(parse_cpu_raw_measurements(ConfigNode::load_string(bad_threads, "raw.yaml")),
                       doctest::Contains("threads: more threads than the machine's logical_cpus (8)"), ConfigError);
  const std::string call = "machine:\n" + text.substr(9, text.find("measurements:") - 9) +
                           "measurements:\n  - {kind: call, threads: 1, calls: 10, time: \"1 us\", min: \"2 us\", max: \"3 us\", repeats: 3}\n";
  CHECK_THROWS_WITH_AS(parse_cpu_raw_measurements(ConfigNode::load_string(call, "raw.yaml")),
                       doctest::Contains("min: the minimum is larger than the median time"), ConfigError);
}

// System: measurements generated from known coefficients (8 cores; GEMM over a 5x5x5 grid of
// extents 16..4096; rows of 16..512 B; the gather and update hit their 30 GB/s DRAM bound at
// long rows, the hash update never) with 1 % log-normal noise, fitted. Expected: each
// coefficient within the stated tolerance of its true value: GEMM rates within 2 %, GEMM
// half-extents and call overheads within 10 % (a microsecond constant under 1 % noise on
// millisecond GEMMs is resolved only by the smallest shapes); row times, bandwidths and
// parallel scalings within 5 %; the DRAM bounds, each resting on one or two runs, within 4 %;
// stream bandwidths and the call overhead (medians of one run) within 4 % (3 sigma). Why: the
// fit must recover what generated the data; with noise it cannot be exact.
TEST_CASE("the CPU fitter recovers known coefficients from measurements with 1 % noise") {
  topo::CpuProfile truth = known_profile();
  truth.peak_per_core = FlopsPerSecond(100e9);  // measured by the fp32_peak runs
  const CpuCalibrationResult result = fit_cpu_profile(synthetic(truth, 0.01), {"raw.yaml"});
  const topo::CpuProfile& p = result.profile;
  CHECK(p.cores == 8);
  for (const auto& [fitted, known] : {std::pair{&p.gemm_per_core, &truth.gemm_per_core}, {&p.gemm_all_cores, &truth.gemm_all_cores}}) {
    CHECK(fitted->rate.value() == dlrmsim::rel(known->rate.value()).epsilon(0.02));
    CHECK(fitted->m_half == dlrmsim::rel(known->m_half).epsilon(0.10));
    CHECK(fitted->n_half == dlrmsim::rel(known->n_half).epsilon(0.10));
    CHECK(fitted->k_half == dlrmsim::rel(known->k_half).epsilon(0.10));
    CHECK(fitted->call_overhead.value() == dlrmsim::rel(known->call_overhead.value()).epsilon(0.10));
  }
  for (const auto& [fitted, known] : {std::pair{&p.gather, &truth.gather}, {&p.update, &truth.update}, {&p.hash_update, &truth.hash_update}}) {
    CHECK(fitted->per_core.row_time.value() == dlrmsim::rel(known->per_core.row_time.value()).epsilon(0.05));
    CHECK(fitted->per_core.bandwidth.value() == dlrmsim::rel(known->per_core.bandwidth.value()).epsilon(0.05));
    CHECK(fitted->all_cores.parallel_scaling == dlrmsim::rel(known->all_cores.parallel_scaling).epsilon(0.05));
  }
  CHECK(p.gather.all_cores.dram_bandwidth.value() == dlrmsim::rel(30e9).epsilon(0.04));
  CHECK(p.update.all_cores.dram_bandwidth.value() == dlrmsim::rel(30e9).epsilon(0.04));
  // The hash update never reached DRAM: its bound is the streaming bandwidth, 2 x 25 GB/s.
  CHECK(p.hash_update.all_cores.dram_bandwidth.value() == dlrmsim::rel(2.0 * p.memcpy.dram.all_cores.value()));
  CHECK(p.hash_update.all_cores.provenance.source.find("no run reached the DRAM bound") != std::string::npos);
  CHECK(p.memcpy.dram.all_cores.value() == dlrmsim::rel(25e9).epsilon(0.04));
  CHECK(p.fp16_convert.cached.per_core.value() == dlrmsim::rel(20e9).epsilon(0.04));
  CHECK(p.call_overhead.value() == dlrmsim::rel(1.5e-9).epsilon(0.04));
  CHECK(p.dram_latency.value() == dlrmsim::rel(150e-9).epsilon(0.04));
  CHECK(p.peak_per_core.value() == dlrmsim::rel(100e9).epsilon(0.04));
  CHECK(p.peak_source.find("multiply-add chains") != std::string::npos);
  CHECK(p.latency_provenance.source.find("pointer chase") != std::string::npos);
  // Every model's fit error is at the noise level.
  for (const ModelFitReport& r : result.models) {
    INFO(r.model);
    CHECK(r.fit.rms_relative < 0.03);
  }
  CHECK(p.gather.per_core.provenance.fit.has_value());
  CHECK(p.provenance.find("Test CPU 9000") != std::string::npos);
  CHECK(p.provenance.find("load average before 0.10 0.20 0.30") != std::string::npos);
  // A raw file without the pointer chase (older than it) fits a profile without a latency, and
  // says so.
  CpuRawMeasurements old = synthetic(truth, 0.01);
  std::erase_if(old.measurements, [](const CpuMeasurement& m) {
    return m.kind == CpuMeasurementKind::dram_latency || m.kind == CpuMeasurementKind::fp32_peak;
  });
  const CpuCalibrationResult without = fit_cpu_profile(old, {"raw.yaml"});
  CHECK(without.profile.dram_latency.value() == 0.0);
  CHECK(without.profile.peak_per_core.value() == 0.0);
  REQUIRE(!without.notes.empty());
  CHECK(without.notes.back().find("no dram_latency measurement") != std::string::npos);
}

// System: the known profile written as YAML and read back. Expected: the same predictions for a
// GEMM, a gather on 1 and 8 cores and a memcpy (values are written with 6 significant digits).
// Why: the committed profile must load into exactly what the fitter produced.
TEST_CASE("a CPU profile round-trips through YAML") {
  topo::CpuProfile truth = known_profile();
  set_sources(truth);
  const topo::CpuProfile back = topo::parse_cpu_profile(ConfigNode::load_string(topo::cpu_profile_to_yaml(truth), "p.yaml"));
  CHECK(back.gemm_time(256, 1024, 1024, false).value() == dlrmsim::rel(truth.gemm_time(256, 1024, 1024, false).value()).epsilon(1e-5));
  CHECK(back.gemm_time(256, 1024, 1024, true).value() == dlrmsim::rel(truth.gemm_time(256, 1024, 1024, true).value()).epsilon(1e-5));
  for (int cores : {1, 8}) {
    CHECK(back.gather_rows_per_second(Bytes(512.0), cores) == dlrmsim::rel(truth.gather_rows_per_second(Bytes(512.0), cores)).epsilon(1e-5));
    CHECK(back.hash_updates_per_second(Bytes(64.0), cores) == dlrmsim::rel(truth.hash_updates_per_second(Bytes(64.0), cores)).epsilon(1e-5));
  }
  CHECK(back.memcpy.dram.bandwidth(8).value() == dlrmsim::rel(25e9).epsilon(1e-5));
  CHECK(back.call_overhead.value() == dlrmsim::rel(1.5e-9).epsilon(1e-5));
  CHECK(back.peak_per_core.value() == 0.0);  // not given: not written, not read
  CHECK(back.dram_latency.value() == dlrmsim::rel(150e-9).epsilon(1e-5));
  truth.dram_latency = Seconds(0.0);  // optional: absent, not written, read back as 0
  CHECK(topo::cpu_profile_to_yaml(truth).find("dram_latency") == std::string::npos);
  CHECK(topo::parse_cpu_profile(ConfigNode::load_string(topo::cpu_profile_to_yaml(truth), "p.yaml")).dram_latency.value() ==
        0.0);
  // With the measured machine's peak per core (100 GFLOP/s here) it is written and read back.
  truth.peak_per_core = FlopsPerSecond(100e9);
  truth.peak_source = "synthetic peak";
  const topo::CpuProfile with_peak =
      topo::parse_cpu_profile(ConfigNode::load_string(topo::cpu_profile_to_yaml(truth), "p.yaml"));
  CHECK(with_peak.peak_per_core.value() == dlrmsim::rel(100e9));
  CHECK(with_peak.peak_source == "synthetic peak");
}

// System: the known profile (all cores: 400 GFLOP/s on 8 cores, halves n 256, k 64, m 96) with a
// peak of 100 GFLOP/s per core, i.e. 800 GFLOP/s on its 8 cores.
// Expected: the efficiency of a GEMM is the all-core rate times the shape's fill over that peak:
// 1024 x 256 x 64: 400 / 800 x (1024 / 1120) x (256 / 512) x (64 / 128) = 0.1142857;
// huge extents approach 400 / 800 = 0.5. A peak below the measured one-core rate (60 GFLOP/s)
// is refused at its key; a profile without a peak cannot give efficiencies.
TEST_CASE("a CPU profile with its machine's peak gives GEMM efficiencies") {
  topo::CpuProfile p = known_profile();
  CHECK_THROWS_AS((void)p.gemm_efficiency(64, 64, 64), std::logic_error);
  p.peak_per_core = FlopsPerSecond(100e9);
  CHECK(p.gemm_efficiency(1024, 256, 64) == dlrmsim::rel(0.5 * 1024.0 / 1120.0 * 0.5 * 0.5));
  CHECK(p.gemm_efficiency(1 << 30, 1 << 30, 1 << 30) == dlrmsim::rel(0.5).epsilon(1e-6));
  CHECK(p.large_gemm_efficiency() == dlrmsim::rel(0.5));
  p.peak_per_core = FlopsPerSecond(50e9);
  p.peak_source = "too low";
  set_sources(p);
  CHECK_THROWS_WITH_AS(topo::parse_cpu_profile(ConfigNode::load_string(topo::cpu_profile_to_yaml(p), "p.yaml")),
                       doctest::Contains("gemm_fp32.peak_per_core.rate: is below the measured one-core GEMM rate"),
                       ConfigError);
}

// System: the gather formula of topologies/cpu_profile.hpp with the known profile: one core, 64 B
// rows: 1 / (40 ns + 64 B / 8 GB/s) = 1 / 48 ns = 20.83 M rows/s; 8 cores: min(8 x 0.9 x 20.83 M,
// 30 GB/s / 64 B) = min(150 M, 468.75 M) = 150 M; 512 B rows on 8 cores: min(8 x 0.9 / 104 ns,
// 30 GB/s / 512 B) = min(69.2 M, 58.6 M) = 58.59 M rows/s (DRAM-bound). The update moves each
// line twice: 8 cores, 512 B: min(8 x 0.85 / 162.4 ns, 30 GB/s / 1024 B) = 29.30 M rows/s.
TEST_CASE("row kernels: min of the core-bound and the DRAM-bound rate") {
  const topo::CpuProfile p = known_profile();
  CHECK(p.gather_rows_per_second(Bytes(64.0), 1) == dlrmsim::rel(1.0 / 48e-9));
  CHECK(p.gather_rows_per_second(Bytes(64.0), 8) == dlrmsim::rel(8.0 * 0.9 / 48e-9));
  CHECK(p.gather_rows_per_second(Bytes(512.0), 8) == dlrmsim::rel(30e9 / 512.0));
  CHECK(p.update_rows_per_second(Bytes(512.0), 8) == dlrmsim::rel(30e9 / 1024.0));
  CHECK(p.gather_rows_per_second(Bytes(16.0), 8) == dlrmsim::rel(8.0 * 0.9 / 42e-9));  // a 16 B row still moves a line, but is core-bound
}

// System: raw measurements with no GEMM records, and with GEMMs too small to show the plateau.
// Expected: std::invalid_argument naming the model ("gemm.per_core: 0 measurement(s) cannot
// determine ..."). Why: a profile fitted without the data for a model would be a silent default.
TEST_CASE("the CPU fitter refuses models its measurements do not determine") {
  CpuRawMeasurements raw = synthetic(known_profile(), 0.0);
  std::erase_if(raw.measurements, [](const CpuMeasurement& m) { return m.kind == CpuMeasurementKind::gemm; });
  CHECK_THROWS_WITH_AS(fit_cpu_profile(raw, {}), doctest::Contains("gemm.per_core: 0 measurement(s) cannot determine"),
                       std::invalid_argument);
  CpuRawMeasurements only_small = synthetic(known_profile(), 0.0);
  std::erase_if(only_small.measurements, [](const CpuMeasurement& m) {
    return m.kind == CpuMeasurementKind::gemm && (m.m > 16 || m.n > 64 || m.k > 16);
  });
  CHECK_THROWS_AS(fit_cpu_profile(only_small, {}), std::invalid_argument);
}

// System: the whole CPU set at the `smoke` sizes (1 MiB table, 1024-id map, 16-64 extent GEMMs)
// on 1 and 2 threads, one timed round each. Expected: every kind of record is produced, on both
// thread counts, with positive times, and the raw file reads back. Why: dlrmsim-calibrate --cpu
// must run end to end on any machine (the full sweep is not run in tests: it takes seconds and
// its timings are noise on a shared machine).
TEST_CASE("the CPU set runs end to end at smoke size") {
  CpuRawMeasurements raw;
  raw.machine = cpu::describe_this_machine("test");
  raw.machine.logical_cpus = 2;
  cpu::TimingOptions timing;
  timing.warmup = 0;
  timing.repeats = 1;
  cpu::measure_cpu(cpu::make_cpu_sweep("smoke"), 2, timing, raw, [](const std::string&) {});
  std::map<std::pair<CpuMeasurementKind, int>, int> count;
  for (const CpuMeasurement& m : raw.measurements) {
    ++count[{m.kind, m.threads}];
    CHECK(m.time.value() > 0.0);
  }
  for (CpuMeasurementKind kind : {CpuMeasurementKind::gemm, CpuMeasurementKind::gather, CpuMeasurementKind::update,
                                  CpuMeasurementKind::hash_update, CpuMeasurementKind::fp16_convert,
                                  CpuMeasurementKind::memcpy, CpuMeasurementKind::call}) {
    INFO(to_string(kind));
    CHECK(count[{kind, 1}] > 0);
    CHECK(count[{kind, 2}] > 0);
  }
  CHECK(count[{CpuMeasurementKind::fp32_peak, 1}] == 1);
  CHECK(count[{CpuMeasurementKind::fp32_peak, 2}] == 1);
  CHECK(count[{CpuMeasurementKind::dram_latency, 1}] == 1);  // one thread only: a latency
  CHECK(count[{CpuMeasurementKind::dram_latency, 2}] == 0);
  CHECK(raw.machine.cpu != "");
  CHECK(parse_cpu_raw_measurements(ConfigNode::load_string(cpu_raw_measurements_to_yaml(raw), "raw.yaml")).measurements.size() ==
        raw.measurements.size());
}

// System: every configs/calibration/cpu-*.yaml: profiles (cpu-NAME.yaml) and the raw
// measurements they were fitted from (cpu-NAME-raw.yaml). Expected: each loads with its loader,
// each profile has a raw file beside it, and refitting that raw file gives the committed
// profile's coefficients (to the 6 significant digits it is written with). Why: a committed
// profile must be reproducible from its committed measurements.
TEST_CASE("the committed CPU profiles load and are reproduced by fitting their raw files") {
  namespace fs = std::filesystem;
  const fs::path dir = fs::path(dlrmsim::testing::kRoot) / "configs" / "calibration";
  int profiles = 0;
  for (const auto& entry : fs::directory_iterator(dir)) {
    const std::string name = entry.path().filename().string();
    if (name.rfind("cpu-", 0) != 0 || entry.path().extension() != ".yaml" || name.find("-raw.yaml") != std::string::npos) continue;
    CAPTURE(name);
    ++profiles;
    const topo::CpuProfile profile = topo::load_cpu_profile(entry.path().string());
    const fs::path raw_path = dir / (entry.path().stem().string() + "-raw.yaml");
    REQUIRE(fs::exists(raw_path));
    const CpuRawMeasurements raw = load_cpu_raw_measurements(raw_path.string());
    const topo::CpuProfile refit = fit_cpu_profile(raw, {}).profile;
    CHECK(profile.cores == raw.machine.logical_cpus);
    CHECK(refit.gemm_per_core.rate.value() == dlrmsim::rel(profile.gemm_per_core.rate.value()).epsilon(1e-5));
    CHECK(refit.gather.per_core.row_time.value() == dlrmsim::rel(profile.gather.per_core.row_time.value()).epsilon(1e-5));
    CHECK(refit.hash_update.all_cores.parallel_scaling ==
          dlrmsim::rel(profile.hash_update.all_cores.parallel_scaling).epsilon(1e-3));
    CHECK(refit.memcpy.dram.all_cores.value() == dlrmsim::rel(profile.memcpy.dram.all_cores.value()).epsilon(1e-5));
    CHECK(refit.call_overhead.value() == dlrmsim::rel(profile.call_overhead.value()).epsilon(1e-5));
    CHECK(refit.dram_latency.value() == dlrmsim::rel(profile.dram_latency.value()).epsilon(1e-5));
    // A measured peak is refitted; one given at fit time (--peak-per-core) is not in the raw file.
    if (refit.peak_per_core.value() > 0.0) {
      CHECK(refit.peak_per_core.value() == dlrmsim::rel(profile.peak_per_core.value()).epsilon(1e-5));
    }
  }
  CHECK(profiles >= 1);
}
