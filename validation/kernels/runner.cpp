// dlrmsim-calibrate: runs the calibration kernel set on a GPU, writes the raw measurements and
// (optionally) fits a device profile from them.
//
// On a machine with an NVIDIA GPU and the CUDA toolkit (CMake finds nvcc and builds this target):
//
//   cmake -S . -B build && cmake --build build -j --target dlrmsim-calibrate dlrmsim &&
//   build/dlrmsim-calibrate -o validation/measurements/h200-raw.yaml
//       --profile validation/measurements/h200-fitted.yaml --holdout odd
//
// (one command line, wrapped here)
//
// runs every kernel (each checked against a CPU reference on fresh random inputs first, then
// timed with CUDA events: warm-up, median of repeats), writes the raw file (GPU name, driver,
// runtime, date, command line, one record per measurement), picks the base profile from the GPU
// name (configs/calibration/, see find_device_profile; --base overrides), fits on the
// even-indexed measurements of every model, predicts the odd-indexed ones and prints both
// errors; the exit status is 1 when a held-back prediction misses by more than
// --max-holdout-error (10 % by default). Without --holdout every measurement is fitted, which is
// how a profile to commit is produced:
//
//   build/dlrmsim-calibrate -o validation/measurements/h200-raw.yaml --profile configs/calibration/h200-measured.yaml
//
// The fit can be repeated from the raw file alone: `dlrmsim fit-profile RAW --base BASE -o OUT
// [--holdout odd]`. `--sweep quick` runs a reduced set (about a minute) for a smoke test.
// Outputs are written whole or not at all (common/files.hpp; exit status 4 when one cannot be
// written); their directories are created before measuring, so that a bad path fails first.
// CUDA 13 no longer compiles for sm_70 (V100); build with CUDA 12 and
// -DDLRMSIM_CUDA_ARCHITECTURES=70 to calibrate a V100.
//
// With --cpu it measures the host CPU instead (validation/cpu/, no GPU or CUDA needed; this
// program is built everywhere, its GPU part only where CMake finds nvcc):
//
//   build/dlrmsim-calibrate --cpu -o configs/calibration/cpu-NAME-raw.yaml
//       --profile configs/calibration/cpu-NAME.yaml
//
// writes the raw CPU measurements (validation/cpu/cpu_raw_measurements.hpp) and fits the CPU
// profile (topologies/cpu_profile.hpp); `dlrmsim fit-profile RAW -o OUT` repeats the fit.
// `--sweep smoke` runs the set at tiny sizes (a test that it works, not a measurement).
#include <boost/program_options.hpp>

#include <chrono>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <iostream>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include <thread>

#include "common/config.hpp"
#include "common/files.hpp"
#include "topologies/device_profile.hpp"
#include "validation/calibration_fit.hpp"
#include "validation/cpu/cpu_benchmark.hpp"
#include "validation/cpu/cpu_profile_fit.hpp"
#include "validation/raw_measurements.hpp"
#ifdef DLRMSIM_WITH_CUDA_KERNELS
#include "validation/kernels/calibration_kernels.hpp"
#endif

namespace po = boost::program_options;
using namespace dlrmsim;

namespace {

struct CommonOptions {
  std::string output, profile_output, sweep_name, command;
  int warmup = 0, repeats = 0;
  std::uint64_t seed = 1;
};

/// --cpu: measures this machine's CPU, writes the raw file and, with --profile, the fitted profile.
int run_cpu(const CommonOptions& o, int threads) {
  namespace cpu = dlrmsim::cpu_calibration;
  const cpu::CpuSweep sweep = cpu::make_cpu_sweep(o.sweep_name);
  cpu::TimingOptions timing;
  timing.warmup = o.warmup;
  timing.repeats = o.repeats;
  timing.seed = o.seed;
  validation::CpuRawMeasurements raw;
  raw.machine = cpu::describe_this_machine(o.command);
  if (threads > 0) raw.machine.logical_cpus = threads;
  std::cerr << "cpu " << raw.machine.cpu << " (" << raw.machine.logical_cpus << " threads for the all-core runs, kernels for "
            << raw.machine.isa << "), load average " << raw.machine.load_before << "\n";
  const auto start = std::chrono::steady_clock::now();
  cpu::measure_cpu(sweep, raw.machine.logical_cpus, timing, raw,
                   [&](const std::string& what) { std::cerr << "[" << raw.measurements.size() << "] " << what << "\n"; });
  write_output_file(o.output, validation::cpu_raw_measurements_to_yaml(raw));
  const std::chrono::duration<double> elapsed = std::chrono::steady_clock::now() - start;
  std::cerr << "wrote " << raw.measurements.size() << " measurements to " << o.output << " in " << elapsed.count()
            << " s (load average after: " << raw.machine.load_after << ")\n";
  if (o.profile_output.empty()) return 0;
  validation::CpuFitOptions fit_options;
  fit_options.raw_name = o.output;
  const validation::CpuCalibrationResult result = validation::fit_cpu_profile(raw, fit_options);
  write_output_file(o.profile_output, "# CPU profile fitted by dlrmsim-calibrate --cpu (formulas: topologies/cpu_profile.hpp)\n" +
                                          topo::cpu_profile_to_yaml(result.profile));
  std::cout << validation::format_cpu_fit_report(result) << "wrote profile " << o.profile_output << "\n";
  flush_standard_output();
  return 0;
}

#ifdef DLRMSIM_WITH_CUDA_KERNELS
namespace cal = dlrmsim::calibration;

struct Sweep {
  std::vector<std::int64_t> gemm_batches;
  std::vector<std::pair<std::int64_t, std::int64_t>> mlp_layers;  // (in, out)
  std::vector<std::int64_t> square_sizes;
  std::vector<int> forward_dims;
  std::vector<int> poolings;
  std::vector<int> backward_dims;
  std::vector<int> backward_poolings;
  std::vector<int> uvm_dims;
  std::vector<std::size_t> copy_sizes;
  double lookups_per_run = 0.0;   // forward and backward: bags = lookups / pooling
  double uvm_lookups = 0.0;
  double table_bytes = 0.0;       // HBM tables: rows = table_bytes / row bytes (well beyond L2)
  double uvm_table_bytes = 0.0;
  int launch_records = 0;
};

Sweep make_sweep(const std::string& name) {
  Sweep s;
  if (name == "full") {
    // DLRM MLPs (MLPerf DLRM: bottom 13-512-256-128, top 1024-1024-512-256-1; 13 padded to 16,
    // the interaction output of 479 to 480) at training batch sizes per GPU.
    s.gemm_batches = {256, 1024, 4096, 16384};
    s.mlp_layers = {{16, 512}, {512, 256}, {256, 128}, {480, 1024}, {1024, 1024}, {1024, 512}, {256, 64}};
    s.square_sizes = {128, 256, 512, 1024, 2048, 4096, 8192};
    s.forward_dims = {16, 32, 64, 128, 256, 512};
    s.poolings = {1, 4, 16, 64, 128};
    s.backward_dims = {16, 64, 128, 256, 512};
    s.backward_poolings = {1, 8, 32, 64, 128};
    s.uvm_dims = {4, 8, 16, 32, 64, 128, 256, 512};
    for (std::size_t b = 4096; b <= (std::size_t{256} << 20); b *= 4) s.copy_sizes.push_back(b);
    s.lookups_per_run = 2097152.0;
    s.uvm_lookups = 262144.0;
    s.table_bytes = 1073741824.0;
    s.uvm_table_bytes = 268435456.0;
    s.launch_records = 10;
  } else if (name == "quick") {
    s.gemm_batches = {1024, 8192};
    s.mlp_layers = {{512, 256}, {1024, 1024}};
    s.square_sizes = {256, 1024, 4096};
    s.forward_dims = {16, 64, 256};
    s.poolings = {1, 16, 128};
    s.backward_dims = {64, 256};
    s.backward_poolings = {1, 8, 32};
    s.uvm_dims = {4, 16, 64, 128, 256, 512};  // six, so that a hold-out still fits three
    // Sizes x4 apart, so that a hold-out's even-indexed half still reaches the bandwidth-bound
    // sizes (x16 apart, the even half was 4 KiB and 1 MiB, both latency bound on an H100).
    for (std::size_t b = 4096; b <= (std::size_t{64} << 20); b *= 4) s.copy_sizes.push_back(b);
    s.lookups_per_run = 524288.0;
    s.uvm_lookups = 65536.0;
    s.table_bytes = 268435456.0;
    s.uvm_table_bytes = 134217728.0;
    s.launch_records = 4;
  } else {
    throw ConfigError("--sweep: expected 'full' or 'quick', found '" + name + "'");
  }
  return s;
}

/// Creates the directory of the output `path` if it is missing, so that a write cannot fail
/// for that reason after minutes of measuring; an OutputError naming the path when it cannot.
void prepare_output_directory(const std::string& path) {
  if (path.empty() || path == "-") return;
  const std::filesystem::path parent = std::filesystem::path(path).parent_path();
  std::error_code ec;
  if (!parent.empty()) std::filesystem::create_directories(parent, ec);
  if (ec) throw OutputError(path + ": cannot create the directory '" + parent.string() + "': " + ec.message());
}

std::string utc_now() {
  const std::time_t now = std::time(nullptr);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&now));
  return buf;
}

validation::Measurement embedding_record(validation::MeasurementKind kind, const cal::EmbeddingConfig& c,
                                         const cal::Timing& t) {
  validation::Measurement m;
  m.kind = kind;
  m.row_type = c.row_type == cal::RowType::fp32 ? "fp32" : "fp16";
  m.row_bytes = Bytes(static_cast<double>(cal::row_bytes(c)));
  m.pooling = c.pooling;
  m.bags = c.bags;
  m.table_rows = c.table_rows;
  m.distribution = c.ids == cal::IdDistribution::uniform ? "uniform" : "zipf";
  m.time = Seconds(t.median_seconds);
  m.repeats = t.repeats;
  return m;
}

cal::EmbeddingConfig embedding_config(int dim, cal::RowType type, int pooling, double lookups, double table_bytes,
                                      cal::IdDistribution ids) {
  cal::EmbeddingConfig c;
  c.dim = dim;
  c.row_type = type;
  c.pooling = pooling;
  c.bags = std::max<std::int64_t>(1, static_cast<std::int64_t>(lookups / pooling));
  c.table_rows = static_cast<std::int64_t>(table_bytes / static_cast<double>(cal::row_bytes(c)));
  c.ids = ids;
  return c;
}

void measure(const Sweep& sweep, const cal::TimingOptions& timing, validation::RawMeasurements& raw) {
  auto& out = raw.measurements;
  const auto progress = [&](const std::string& what) { std::cerr << "[" << out.size() << "] " << what << "\n"; };

  // Per-kernel records (no shape): the launch overhead, and the floor of an empty kernel.
  const auto per_kernel = [&](validation::MeasurementKind kind, cal::Timing (*time)(int, const cal::TimingOptions&)) {
    for (int i = 0; i < sweep.launch_records; ++i) {
      const cal::Timing t = time(1000, timing);
      validation::Measurement m;
      m.kind = kind;
      m.time = Seconds(t.median_seconds);
      m.repeats = t.repeats;
      out.push_back(m);
    }
  };
  progress("kernel launch overhead");
  per_kernel(validation::MeasurementKind::launch, &cal::time_launch_overhead);
  progress("kernel floor");
  per_kernel(validation::MeasurementKind::kernel_floor, &cal::time_kernel_floor);

  progress("copies");
  const std::vector<std::pair<cal::CopyKind, topo::CopyKind>> copies = {
      {cal::CopyKind::h2d_pinned, topo::CopyKind::h2d_pinned},   {cal::CopyKind::h2d_pageable, topo::CopyKind::h2d_pageable},
      {cal::CopyKind::d2h_pinned, topo::CopyKind::d2h_pinned},   {cal::CopyKind::d2h_pageable, topo::CopyKind::d2h_pageable},
      {cal::CopyKind::d2d, topo::CopyKind::d2d}};
  for (const auto& [kind, model_kind] : copies) {
    for (std::size_t bytes : sweep.copy_sizes) {
      const cal::Timing t = cal::time_copy(kind, bytes, timing);
      validation::Measurement m;
      m.kind = validation::MeasurementKind::copy;
      m.copy = model_kind;
      m.bytes = Bytes(static_cast<double>(bytes));
      m.time = Seconds(t.median_seconds);
      m.repeats = t.repeats;
      out.push_back(m);
    }
  }

  progress("GEMM (cuBLAS)");
  std::set<std::tuple<std::int64_t, std::int64_t, std::int64_t>> shapes;
  for (std::int64_t batch : sweep.gemm_batches) {
    for (const auto& [in, outputs] : sweep.mlp_layers) {
      shapes.insert({batch, outputs, in});   // forward: [batch x in] [in x out]
      shapes.insert({batch, in, outputs});   // gradient of the input
      shapes.insert({in, outputs, batch});   // gradient of the weights
    }
  }
  for (std::int64_t s : sweep.square_sizes) shapes.insert({s, s, s});
  const std::vector<std::pair<cal::GemmType, topo::Precision>> types = {{cal::GemmType::fp32, topo::Precision::fp32},
                                                                           {cal::GemmType::tf32, topo::Precision::tf32},
                                                                           {cal::GemmType::bf16, topo::Precision::bf16},
                                                                           {cal::GemmType::fp16, topo::Precision::fp16}};
  for (const auto& [type, dtype] : types) {
    for (const auto& [m_, n_, k_] : shapes) {
      const cal::Timing t = cal::time_gemm(type, m_, n_, k_, timing);
      validation::Measurement m;
      m.kind = validation::MeasurementKind::gemm;
      m.dtype = dtype;
      m.m = m_;
      m.n = n_;
      m.k = k_;
      m.time = Seconds(t.median_seconds);
      m.repeats = t.repeats;
      out.push_back(m);
    }
  }

  progress("embedding-bag forward");
  for (cal::IdDistribution ids : {cal::IdDistribution::uniform, cal::IdDistribution::zipf}) {
    for (cal::RowType type : {cal::RowType::fp32, cal::RowType::fp16}) {
      for (int dim : sweep.forward_dims) {
        for (int pooling : sweep.poolings) {
          const auto c = embedding_config(dim, type, pooling, sweep.lookups_per_run, sweep.table_bytes, ids);
          out.push_back(embedding_record(validation::MeasurementKind::gather_forward, c, cal::time_embedding_forward(c, timing)));
        }
      }
    }
  }

  progress("embedding backward with optimiser update");
  for (cal::Optimizer opt : {cal::Optimizer::sgd, cal::Optimizer::rowwise_adagrad}) {
    for (int dim : sweep.backward_dims) {
      for (int pooling : sweep.backward_poolings) {
        const auto c = embedding_config(dim, cal::RowType::fp32, pooling, sweep.lookups_per_run, sweep.table_bytes,
                                        cal::IdDistribution::uniform);
        auto m = embedding_record(validation::MeasurementKind::gather_backward, c, cal::time_embedding_backward(c, opt, timing));
        m.optimizer = opt == cal::Optimizer::sgd ? topo::EmbeddingOptimizer::sgd : topo::EmbeddingOptimizer::rowwise_adagrad;
        out.push_back(m);
      }
    }
  }

  progress("zero-copy gather over PCIe");
  for (int dim : sweep.uvm_dims) {
    const auto c = embedding_config(dim, cal::RowType::fp32, 16, sweep.uvm_lookups, sweep.uvm_table_bytes,
                                    cal::IdDistribution::uniform);
    out.push_back(embedding_record(validation::MeasurementKind::uvm_gather, c, cal::time_uvm_gather(c, timing)));
  }
  progress("done");
}
#endif  // DLRMSIM_WITH_CUDA_KERNELS

int run(int argc, char** argv) {
  std::string output, profile_output, base_path = "auto", calibration_dir, holdout = "none", sweep_name = "full";
  double max_holdout_error = 0.10;
  int device = 0, threads = 0, warmup = 3, repeats = 20;
  std::uint64_t seed = 1;
  po::options_description options("dlrmsim-calibrate: measure the calibration kernel set on a GPU, or with --cpu on the host CPU");
  options.add_options()("help,h", "this help")
      ("cpu", "measure the host CPU (validation/cpu/) instead of a GPU; needs no GPU")
      ("threads", po::value(&threads)->default_value(0), "--cpu: threads of the all-core runs (0: every logical CPU)")
      ("output,o", po::value(&output)->required(), "raw measurement file to write (YAML)")
      ("profile", po::value(&profile_output), "also fit and write a device profile here")
      ("base", po::value(&base_path)->default_value("auto"),
       "base profile with the datasheet values ('auto': from the GPU name in --calibration-dir)")
      ("calibration-dir", po::value(&calibration_dir)->default_value(std::string(DLRMSIM_SOURCE_DIR) + "/configs/calibration"),
       "where --base auto looks")
      ("holdout", po::value(&holdout)->default_value("none"), "none, or odd: fit even-indexed measurements, predict odd")
      ("max-holdout-error", po::value(&max_holdout_error)->default_value(0.10), "exit 1 if a held-back prediction misses by more")
      ("sweep", po::value(&sweep_name)->default_value("full"), "full or quick (GPU); full or smoke (--cpu)")
      ("device", po::value(&device)->default_value(0), "CUDA device ordinal")
      ("warmup", po::value(&warmup)->default_value(3), "untimed runs before timing (--cpu: 1 unless given)")
      ("repeats", po::value(&repeats)->default_value(20), "timed runs, the median is recorded (--cpu: 7 unless given)")
      ("seed", po::value(&seed)->default_value(1), "seed of the random inputs");
  po::variables_map vm;
  po::store(po::parse_command_line(argc, argv, options), vm);
  if (vm.count("help")) {
    std::cout << options << "\n";
    return 0;
  }
  po::notify(vm);
  if (holdout != "none" && holdout != "odd") throw ConfigError("--holdout: expected 'none' or 'odd', found '" + holdout + "'");
  if (repeats < 1 || warmup < 0) throw ConfigError("--repeats must be positive and --warmup non-negative");
  std::string command;
  for (int i = 0; i < argc; ++i) command += (i ? " " : "") + std::string(argv[i]);
  if (vm.count("cpu")) {
    if (threads < 0 || threads > 4096) throw ConfigError("--threads: expected 0 (every logical CPU) up to 4096");
    if (holdout != "none") throw ConfigError("--holdout applies to GPU measurements only");
    CommonOptions o{output, profile_output, sweep_name, command, vm["warmup"].defaulted() ? 1 : warmup,
                    vm["repeats"].defaulted() ? 7 : repeats, seed};
    if (o.sweep_name != "full" && o.sweep_name != "smoke") {
      throw ConfigError("--sweep: expected 'full' or 'smoke' with --cpu, found '" + o.sweep_name + "'");
    }
    return run_cpu(o, threads);
  }
#ifndef DLRMSIM_WITH_CUDA_KERNELS
  (void)device;
  (void)max_holdout_error;
  throw ConfigError("this dlrmsim-calibrate was built without CUDA (CMake found no nvcc): only --cpu is available");
#else
  cal::TimingOptions timing;
  timing.warmup = warmup;
  timing.repeats = repeats;
  timing.seed = seed;
  const Sweep sweep = make_sweep(sweep_name);
  if (!profile_output.empty() && profile_output != "-" && profile_output == output) {
    throw ConfigError(output + ": -o and --profile name the same file; give each its own");
  }
  prepare_output_directory(output);
  prepare_output_directory(profile_output);

  validation::RawMeasurements raw;
  const cal::DeviceInfo info = cal::open_device(device);
  raw.machine.gpu = info.name;
  raw.machine.driver = info.driver;
  raw.machine.runtime = info.runtime;
  raw.machine.sm_count = info.sm_count;
  raw.machine.memory = Bytes(static_cast<double>(info.memory_bytes));
  raw.machine.date = utc_now();
  raw.machine.command = command;
  std::cerr << "device " << info.name << " (" << info.sm_count << " SMs, driver " << info.driver << ", runtime "
            << info.runtime << ")\n";

  const auto start = std::chrono::steady_clock::now();
  measure(sweep, timing, raw);
  write_output_file(output, raw_measurements_to_yaml(raw));
  const std::chrono::duration<double> elapsed = std::chrono::steady_clock::now() - start;
  std::cerr << "wrote " << raw.measurements.size() << " measurements to " << output << " in " << elapsed.count() << " s\n";

  if (profile_output.empty()) return 0;
  const std::string base_file = base_path == "auto"
                                    ? topo::find_device_profile(topo::gpu_model_from_device_name(info.name), calibration_dir)
                                    : base_path;
  refuse_output_over_inputs(profile_output, {output, base_file}, "the profile to write (--profile)");
  const topo::DeviceProfile base = topo::load_device_profile(base_file);
  validation::FitOptions fit_options;
  fit_options.holdout = holdout == "odd" ? validation::Holdout::odd : validation::Holdout::none;
  fit_options.raw_name = output;
  const validation::CalibrationResult result = validation::fit_device_profile(raw, base, fit_options);
  write_output_file(profile_output, "# Device profile fitted by dlrmsim-calibrate (base: " + base_file + ")\n" +
                                         topo::device_profile_to_yaml(result.profile));
  // With --profile - the profile is standard output; the report then goes to standard error.
  std::ostream& report = profile_output == "-" ? std::cerr : std::cout;
  report << validation::format_fit_report(result);
  if (profile_output != "-") report << "wrote profile " << profile_output << "\n";
  if (fit_options.holdout == validation::Holdout::odd) {
    const double worst = result.max_held_back_error();
    char line[160];
    std::snprintf(line, sizeof line, "largest held-back error %.2f %% (limit %.2f %%): %s\n", 100.0 * worst,
                  100.0 * max_holdout_error, worst <= max_holdout_error ? "pass" : "FAIL");
    report << line;
    if (worst > max_holdout_error) return 1;
  }
  return 0;
#endif  // DLRMSIM_WITH_CUDA_KERNELS
}

}  // namespace

int main(int argc, char** argv) {
  try {
    const int status = run(argc, argv);
    flush_standard_output();
    return status;
#ifdef DLRMSIM_WITH_CUDA_KERNELS
  } catch (const cal::CheckFailed& e) {
    std::cerr << "check failed: " << e.what() << "\n";
    return 3;
  } catch (const cal::NoDevice& e) {
    std::cerr << "error: " << e.what() << "\n";
    return 2;
#endif
  } catch (const cpu_calibration::CheckFailed& e) {
    std::cerr << "check failed: " << e.what() << "\n";
    return 3;
  } catch (const OutputError& e) {
    std::cerr << "error: " << e.what() << "\n";
    return 4;
  } catch (const ConfigError& e) {
    std::cerr << "error: " << e.what() << "\n";
    return 2;
  } catch (const po::error& e) {
    std::cerr << "error: " << e.what() << "\n";
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "error: " << e.what() << "\n";
    return 3;
  }
}
