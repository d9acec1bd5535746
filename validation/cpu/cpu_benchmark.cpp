#include "validation/cpu/cpu_benchmark.hpp"

#include <Eigen/Core>

#include <ctime>
#include <fstream>
#include <set>
#include <stdexcept>
#include <thread>
#include <tuple>

namespace dlrmsim::cpu_calibration {

namespace {

/// The value after "KEY<spaces>:" on the first line of `path` that starts with `key` ("" if none).
/// Reads at most 4096 lines (the /proc files are small, but never read without bound).
std::string proc_field(const std::string& path, const std::string& key) {
  std::ifstream in(path);
  std::string line;
  for (int i = 0; i < 4096 && std::getline(in, line); ++i) {
    if (line.rfind(key, 0) != 0) continue;
    const auto colon = line.find(':');
    if (colon == std::string::npos) continue;
    std::string value = line.substr(colon + 1);
    const auto first = value.find_first_not_of(" \t");
    return first == std::string::npos ? "" : value.substr(first);
  }
  return "";
}

std::string first_line(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  return line;
}

/// "0.52 0.61 0.70": the 1, 5 and 15 minute load averages.
std::string load_average() {
  const std::string line = first_line("/proc/loadavg");
  std::string out;
  std::size_t pos = 0;
  for (int field = 0; field < 3 && pos < line.size(); ++field) {
    const std::size_t end = line.find(' ', pos);
    out += (field ? " " : "") + line.substr(pos, end - pos);
    if (end == std::string::npos) break;
    pos = end + 1;
  }
  return out.empty() ? "unknown" : out;
}

/// A sysfs cache size such as "32768K" in bytes (0 when unreadable).
double cache_bytes(const std::string& text) {
  try {
    std::size_t used = 0;
    const double v = std::stod(text, &used);
    const std::string unit = text.substr(used);
    if (unit == "K") return v * 1024.0;
    if (unit == "M") return v * 1048576.0;
    if (unit.empty()) return v;
  } catch (const std::exception&) {
  }
  return 0.0;
}

std::string utc_now() {
  const std::time_t now = std::time(nullptr);
  char buf[32];
  std::tm utc{};
  gmtime_r(&now, &utc);
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &utc);
  return buf;
}

validation::CpuMeasurement record(validation::CpuMeasurementKind kind, int threads, const Timing& t) {
  validation::CpuMeasurement m;
  m.kind = kind;
  m.threads = threads;
  m.time = Seconds(t.median_seconds);
  m.min_time = Seconds(t.min_seconds);
  m.max_time = Seconds(t.max_seconds);
  m.repeats = t.repeats;
  return m;
}

}  // namespace

CpuSweep make_cpu_sweep(const std::string& name) {
  CpuSweep s;
  if (name == "full") {
    s.gemm_batches = {256};
    s.mlp_layers = {{16, 512}, {512, 256}, {256, 128}, {1024, 1024}, {4096, 2048}};
    s.extra_forward_batches = {2048};
    s.row_bytes = {16, 32, 64, 128, 256, 512};
    s.hash_row_bytes = {16, 64, 256};
    s.lookups = 262144;
    s.table_bytes = std::size_t{256} << 20;
    s.hash_keys = 4194304;
    s.stream_dram_bytes = std::size_t{64} << 20;
    s.stream_cached_bytes_per_thread = std::size_t{128} << 10;
    s.stream_cached_passes = 64;
    s.calls = 1000000;
    s.chase_loads = 2000000;
    s.peak_calls = 4000000;
  } else if (name == "smoke") {
    s.gemm_batches = {16};
    s.mlp_layers = {{16, 32}, {32, 16}};
    s.extra_forward_batches = {64};
    s.row_bytes = {16, 64};
    s.hash_row_bytes = {16, 64};
    s.lookups = 512;
    s.table_bytes = std::size_t{1} << 20;
    s.hash_keys = 1024;
    s.stream_dram_bytes = std::size_t{64} << 10;
    s.stream_cached_bytes_per_thread = std::size_t{4} << 10;
    s.stream_cached_passes = 2;
    s.calls = 1000;
    s.chase_loads = 1000;
    s.peak_calls = 1000;
  } else {
    throw std::invalid_argument("--sweep: expected 'full' or 'smoke' with --cpu, found '" + name + "'");
  }
  return s;
}

validation::CpuMachineInfo describe_this_machine(const std::string& command) {
  validation::CpuMachineInfo info;
  info.cpu = proc_field("/proc/cpuinfo", "model name");
  if (info.cpu.empty()) info.cpu = proc_field("/proc/cpuinfo", "Model");  // Arm
  if (info.cpu.empty()) info.cpu = "unknown CPU";
  info.logical_cpus = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  try {
    info.clock = Hertz(std::stod(proc_field("/proc/cpuinfo", "cpu MHz")) * 1e6);
  } catch (const std::exception&) {
    info.clock = Hertz(0.0);  // not reported (Arm): written as 0 MHz, "unknown"
  }
  try {
    info.memory = Bytes(std::stod(proc_field("/proc/meminfo", "MemTotal")) * 1024.0);
  } catch (const std::exception&) {
    info.memory = Bytes(1.0);
  }
  info.llc = Bytes(cache_bytes(first_line("/sys/devices/system/cpu/cpu0/cache/index3/size")));
  info.isa = compiled_isa();
  // "always [madvise] never": the bracketed word is the mode in force.
  const std::string thp = first_line("/sys/kernel/mm/transparent_hugepage/enabled");
  const auto open = thp.find('['), close = thp.find(']');
  info.transparent_hugepages = open != std::string::npos && close > open ? thp.substr(open + 1, close - open - 1) : "unknown";
#if defined(__clang__)
  info.compiler = "Clang " + std::string(__clang_version__);
#elif defined(__GNUC__)
  info.compiler = "GCC " + std::to_string(__GNUC__) + "." + std::to_string(__GNUC_MINOR__) + "." +
                  std::to_string(__GNUC_PATCHLEVEL__);
#else
  info.compiler = "unknown compiler";
#endif
  info.gemm_library = "Eigen " + std::to_string(EIGEN_WORLD_VERSION) + "." + std::to_string(EIGEN_MAJOR_VERSION) + "." +
                      std::to_string(EIGEN_MINOR_VERSION) + " (single-threaded per call)";
  info.load_before = load_average();
  info.load_after = info.load_before;
  info.date = utc_now();
  info.command = command;
  return info;
}

void measure_cpu(const CpuSweep& sweep, int all_threads, const TimingOptions& timing,
                 validation::CpuRawMeasurements& raw, const std::function<void(const std::string&)>& progress) {
  using validation::CpuMeasurementKind;
  auto& out = raw.measurements;
  std::vector<int> thread_counts{1};
  if (all_threads > 1) thread_counts.push_back(all_threads);

  progress("per-call overhead");
  for (int threads : thread_counts) {
    auto m = record(CpuMeasurementKind::call, threads, time_call_overhead(sweep.calls, threads, timing));
    m.calls = static_cast<std::int64_t>(sweep.calls);
    out.push_back(m);
  }

  progress("fp32 peak (independent multiply-add chains)");
  for (int threads : thread_counts) {
    auto m = record(CpuMeasurementKind::fp32_peak, threads, time_fp32_peak(sweep.peak_calls, threads, timing));
    m.calls = static_cast<std::int64_t>(sweep.peak_calls);
    out.push_back(m);
  }

  progress("fp32 GEMM (Eigen)");
  std::set<std::tuple<std::int64_t, std::int64_t, std::int64_t>> shapes;
  for (std::int64_t batch : sweep.gemm_batches) {
    for (const auto& [in, outputs] : sweep.mlp_layers) {
      shapes.insert({batch, outputs, in});  // forward
      shapes.insert({batch, in, outputs});  // input gradient
      shapes.insert({in, outputs, batch});  // weight gradient
    }
  }
  if (!sweep.mlp_layers.empty()) {
    const auto& [in, outputs] = sweep.mlp_layers[sweep.mlp_layers.size() > 3 ? 3 : 0];
    for (std::int64_t batch : sweep.extra_forward_batches) shapes.insert({batch, outputs, in});
  }
  for (int threads : thread_counts) {
    for (const auto& [m_, n_, k_] : shapes) {
      auto m = record(CpuMeasurementKind::gemm, threads, time_gemm(m_, n_, k_, threads, timing));
      m.m = m_;
      m.n = n_;
      m.k = k_;
      out.push_back(m);
    }
  }

  progress("fp16 conversion and memcpy");
  for (int threads : thread_counts) {
    for (const bool cached : {true, false}) {
      const std::size_t bytes = cached ? sweep.stream_cached_bytes_per_thread * static_cast<std::size_t>(threads)
                                       : sweep.stream_dram_bytes;
      const int passes = cached ? sweep.stream_cached_passes : 1;
      for (const CpuMeasurementKind kind : {CpuMeasurementKind::fp16_convert, CpuMeasurementKind::memcpy}) {
        const Timing t = kind == CpuMeasurementKind::memcpy ? time_memcpy(bytes, passes, threads, timing)
                                                            : time_fp16_convert(bytes, passes, threads, timing);
        auto m = record(kind, threads, t);
        m.cached = cached;
        m.bytes = Bytes(static_cast<double>(bytes));
        m.passes = passes;
        out.push_back(m);
      }
    }
  }

  progress("embedding gather and update from a " + std::to_string(sweep.table_bytes >> 20) + " MiB table");
  RowTable table(sweep.table_bytes);
  for (int threads : thread_counts) {
    for (std::size_t row : sweep.row_bytes) {
      for (const CpuMeasurementKind kind : {CpuMeasurementKind::gather, CpuMeasurementKind::update}) {
        const Timing t = kind == CpuMeasurementKind::gather
                             ? time_gather(table, row, sweep.pooling, sweep.lookups, threads, timing)
                             : time_update(table, row, sweep.pooling, sweep.lookups, threads, timing);
        auto m = record(kind, threads, t);
        m.row_bytes = Bytes(static_cast<double>(row));
        m.pooling = sweep.pooling;
        m.lookups = static_cast<std::int64_t>(sweep.lookups / static_cast<std::size_t>(sweep.pooling) *
                                              static_cast<std::size_t>(sweep.pooling));
        m.table_bytes = Bytes(static_cast<double>(table.bytes()));
        out.push_back(m);
      }
    }
  }

  progress("hash-map id lookup and row update (" + std::to_string(sweep.hash_keys) + " ids)");
  for (int threads : thread_counts) {
    const std::vector<Timing> timings =
        time_hash_updates(table, sweep.hash_row_bytes, sweep.hash_keys, sweep.lookups, threads, timing);
    for (std::size_t i = 0; i < timings.size(); ++i) {
      const std::size_t row = sweep.hash_row_bytes[i];
      auto m = record(CpuMeasurementKind::hash_update, threads, timings[i]);
      m.row_bytes = Bytes(static_cast<double>(row));
      m.keys = static_cast<std::int64_t>(sweep.hash_keys);
      m.lookups = static_cast<std::int64_t>(sweep.lookups);
      m.table_bytes = Bytes(static_cast<double>(table.bytes()));
      out.push_back(m);
    }
  }
  progress("DRAM latency (pointer chase through the " + std::to_string(sweep.table_bytes >> 20) + " MiB table)");
  {  // last: the chase overwrites the table's rows
    auto m = record(CpuMeasurementKind::dram_latency, 1, time_dram_latency(table, sweep.chase_loads, timing));
    m.lookups = static_cast<std::int64_t>(sweep.chase_loads);
    m.table_bytes = Bytes(static_cast<double>(table.bytes()));
    out.push_back(m);
  }
  raw.machine.load_after = load_average();
  progress("done");
}

}  // namespace dlrmsim::cpu_calibration
