// Device profiles (topologies/device_profile.hpp): the shipped profiles load with their datasheet
// numbers, the evaluation functions follow their documented closed forms, and malformed
// profiles are rejected with the file, line and key.
#include <doctest/doctest.h>

#include "approx.hpp"

#include <cmath>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <stdexcept>
#include <string>

#include <unistd.h>

#include "topologies/cpu_profile.hpp"
#include "topologies/device_profile.hpp"
#include "topologies/platform_loader.hpp"
#include "paths.hpp"
#include "file_fixtures.hpp"

using namespace dlrmsim;
using namespace dlrmsim::topo;

namespace {

const std::string kCalibrationDir = dlrmsim::testing::kRoot + "/configs/calibration";

std::string read_text(const std::string& path) {
  const ConfigNode n = ConfigNode::load_file(path);
  return YAML::Dump(n.yaml());
}

DeviceProfile h100() { return load_device_profile(kCalibrationDir + "/h100.yaml"); }

// A profile with one line of the H100 file replaced, parsed under the name "edited.yaml".
std::string h100_text_replacing(const std::string& from, const std::string& to) {
  std::string text = read_text(kCalibrationDir + "/h100.yaml");
  const auto at = text.find(from);
  REQUIRE(at != std::string::npos);
  text.replace(at, from.size(), to);
  return text;
}

std::string error_of(const std::string& text) {
  return dlrmsim::testing::config_error_of([&] { parse_device_profile(ConfigNode::load_string(text, "edited.yaml")); });
}

int line_of(const std::string& text, const std::string& needle) {
  const auto at = text.find(needle);
  REQUIRE(at != std::string::npos);
  int line = 1;
  for (std::size_t i = 0; i < at; ++i) line += text[i] == '\n' ? 1 : 0;
  return line;
}

}  // namespace

// System: every file in configs/calibration. Expected: each loads, and its datasheet numbers
// are the ones the issue lists (V100 15.7/125 TFLOP/s and 900 GB/s; A100 19.5/156/312 and
// 2039 GB/s; H100 67/494.7/989.4/1978.9 and 3.35 TB/s; H200 the H100 compute with 4.8 TB/s
// and 141 GB): they are what every cost model scales from.
TEST_CASE("the shipped profiles load with their datasheet figures") {
  const DeviceProfile v100 = load_device_profile(kCalibrationDir + "/v100.yaml");
  CHECK(v100.gemm_peak(Precision::fp32).value() == dlrmsim::rel(15.7e12));
  CHECK(v100.gemm_peak(Precision::fp16).value() == dlrmsim::rel(125e12));
  CHECK_FALSE(v100.supports(Precision::bf16));
  CHECK(v100.hbm_bandwidth().value() == dlrmsim::rel(900e9));
  CHECK(v100.memory_capacity.value() == dlrmsim::rel(32e9));
  CHECK(load_device_profile(kCalibrationDir + "/v100-sxm2-16gb.yaml").memory_capacity.value() == dlrmsim::rel(16e9));

  const DeviceProfile a100 = load_device_profile(kCalibrationDir + "/a100.yaml");
  CHECK(a100.gemm_peak(Precision::fp32).value() == dlrmsim::rel(19.5e12));
  CHECK(a100.gemm_peak(Precision::tf32).value() == dlrmsim::rel(156e12));
  CHECK(a100.gemm_peak(Precision::bf16).value() == dlrmsim::rel(312e12));
  CHECK(a100.hbm_bandwidth().value() == dlrmsim::rel(2039e9));
  CHECK(a100.uvm_gather.pcie_bandwidth.value() == dlrmsim::rel(31.5e9));

  const DeviceProfile h = h100();
  CHECK(h.name == "H100-SXM5-80GB");
  CHECK(h.gemm_peak(Precision::fp32).value() == dlrmsim::rel(66.9e12));
  CHECK(h.gemm_peak(Precision::tf32).value() == dlrmsim::rel(494.7e12));
  CHECK(h.gemm_peak(Precision::bf16).value() == dlrmsim::rel(989.4e12));
  CHECK(h.gemm_peak(Precision::fp8).value() == dlrmsim::rel(1978.9e12));
  CHECK(h.hbm_bandwidth().value() == dlrmsim::rel(3.35e12));

  const DeviceProfile h200 = load_device_profile(kCalibrationDir + "/h200.yaml");
  CHECK(h200.gemm_peak(Precision::bf16).value() == dlrmsim::rel(989.4e12));
  CHECK(h200.hbm_bandwidth().value() == dlrmsim::rel(4.8e12));
  CHECK(h200.memory_capacity.value() == dlrmsim::rel(141e9));
  for (const auto& [dtype, c] : h200.gemm) CHECK_FALSE(c.provenance.source.empty());
}

// System: H100 profile, bf16 GEMM 8192^3 and a 65536 x 1 x 1024 GEMV.
// Expected: the GEMM takes 2 m n k / (989.4 TFLOP/s x e_max s(8192,m_half) s(8192,n_half)
// s(8192,k_half)) with the profile's bf16 coefficients (e_max 1, halves 237, 246, 155) (compute
// bound); the GEMV takes the larger of its compute term and its HBM floor, (65536 x 1024 +
// 1024 + 65536) x 2 bytes over 0.90 x 3.35 TB/s. Both follow from the header's formula.
TEST_CASE("gemm_time is compute over peak x efficiency, floored by HBM traffic") {
  const DeviceProfile h = h100();
  const double efficiency =
      1.0 * (8192.0 / (8192.0 + 237.0)) * (8192.0 / (8192.0 + 246.0)) * (8192.0 / (8192.0 + 155.0));
  CHECK(h.gemm_efficiency(8192, 8192, 8192, Precision::bf16) == dlrmsim::rel(efficiency));
  CHECK(h.gemm_time(8192, 8192, 8192, Precision::bf16).value() ==
        dlrmsim::rel(2.0 * 8192.0 * 8192.0 * 8192.0 / (989.4e12 * efficiency)));

  // The GEMV: with n = 1 the tile loss (n_half = 246) makes the compute term the larger one,
  // 2 m k / (peak x s(65536,237) s(1,246) s(1024,155)); with the half extents set to 0 (no
  // tile loss) the HBM floor binds instead.
  const double gemv_bytes = (65536.0 * 1024.0 + 1024.0 + 65536.0) * 2.0;
  const double gemv_efficiency = 1.0 * (65536.0 / (65536.0 + 237.0)) * (1.0 / 247.0) * (1024.0 / 1179.0);
  CHECK(h.gemm_time(65536, 1, 1024, Precision::bf16).value() ==
        dlrmsim::rel(std::max(2.0 * 65536.0 * 1024.0 / (989.4e12 * gemv_efficiency), gemv_bytes / (0.90 * 3.35e12))));
  DeviceProfile no_tile_loss = h;
  for (auto& [dtype, c] : no_tile_loss.gemm) c.m_half = c.n_half = c.k_half = 0.0;
  CHECK(no_tile_loss.gemm_time(65536, 1, 1024, Precision::bf16).value() == dlrmsim::rel(gemv_bytes / (0.90 * 3.35e12)));
  // fp8 writes a bf16 output: 1-byte operands, 2-byte result.
  CHECK(no_tile_loss.gemm_time(65536, 1, 1024, Precision::fp8).value() ==
        dlrmsim::rel((65536.0 * 1024.0 + 1024.0 + 2.0 * 65536.0) / (0.90 * 3.35e12)));
  CHECK_THROWS_AS((void)h.gemm_time(0, 1, 1, Precision::bf16), std::invalid_argument);
  const DeviceProfile v100 = load_device_profile(kCalibrationDir + "/v100.yaml");
  CHECK_THROWS_WITH_AS((void)v100.gemm_time(128, 128, 128, Precision::tf32), doctest::Contains("no tf32 GEMM"),
                       std::invalid_argument);
}

// System: H100 profile, embedding gather. Expected: (a) at 256-byte rows and 20 lookups per
// bag the gather efficiency is TorchRec PR #4757's 64.7 % within 0.5 point (the profile's
// coefficients were chosen to reproduce it); (b) 10^6 lookups of 4-byte rows move one 32-byte
// sector each: time = 10^6 x 32 B / (3.35 TB/s x 0.72 s(4,16) s(8,1)); (c) row-wise Adagrad
// backward is 4.88x the forward (10.695 ms / 2.193 ms in the PR).
TEST_CASE("embedding gather time follows the sector-rounded bytes over HBM x efficiency") {
  const DeviceProfile h = h100();
  CHECK(h.gather_efficiency(Bytes(256.0), 20.0) == dlrmsim::rel(0.647).epsilon(0.008));
  CHECK(h.gather_access_bytes(Bytes(4.0)).value() == 32.0);
  CHECK(h.gather_access_bytes(Bytes(48.0)).value() == 64.0);
  CHECK(h.gather_access_bytes(Bytes(512.0)).value() == 512.0);
  const double efficiency = 0.72 * (4.0 / 20.0) * (8.0 / 9.0);
  CHECK(h.embedding_forward_time(1e6, Bytes(4.0), 8.0).value() == dlrmsim::rel(1e6 * 32.0 / (3.35e12 * efficiency)));
  const Seconds forward = h.embedding_forward_time(1e6, Bytes(512.0), 32.0);
  CHECK(h.embedding_backward_time(1e6, Bytes(512.0), 32.0, EmbeddingOptimizer::rowwise_adagrad).value() ==
        dlrmsim::rel(4.88 * forward.value()));
  CHECK_THROWS_AS((void)h.embedding_forward_time(10.0, Bytes(64.0), 0.5), std::invalid_argument);
}

// System: H100 profile, 10^6 lookups of 512-byte rows, pooling 32, of which only a quarter are
// distinct rows. Expected (header's form): backward = forward x multiple x (g + (1 - g) x 0.25)
// with g = 512 / (3 x 512 + 2 x 4) for row-wise Adagrad (4-byte row state) and g = 1/3 for SGD;
// a fraction outside (0, 1] is rejected.
TEST_CASE("the embedding backward touches each distinct row once") {
  const DeviceProfile h = h100();
  const Seconds forward = h.embedding_forward_time(1e6, Bytes(512.0), 32.0);
  const double g = 512.0 / (3.0 * 512.0 + 8.0);
  CHECK(h.embedding_backward_time(1e6, Bytes(512.0), 32.0, EmbeddingOptimizer::rowwise_adagrad, 0.25).value() ==
        dlrmsim::rel(4.88 * forward.value() * (g + (1.0 - g) * 0.25)));
  CHECK(h.embedding_backward_time(1e6, Bytes(512.0), 32.0, EmbeddingOptimizer::sgd, 0.25).value() ==
        dlrmsim::rel(4.8 * forward.value() * (1.0 / 3.0 + 2.0 / 3.0 * 0.25)));
  CHECK_THROWS_AS((void)h.embedding_backward_time(1e6, Bytes(512.0), 32.0, EmbeddingOptimizer::sgd, 0.0),
                  std::invalid_argument);
  CHECK_THROWS_AS((void)h.embedding_backward_time(1e6, Bytes(512.0), 32.0, EmbeddingOptimizer::sgd, 1.5),
                  std::invalid_argument);
}

// System: H100 profile, bf16, the dot interaction of 6912 samples of 27 vectors of 128 elements.
// Expected (header's batched form): compute = 6912 x 2 x 32 x 32 x 128 / (989.4 TFLOP/s x e_max
// s(128, k_half)) (27 padded to the 16-wide fragment: 32), memory floor = 6912 x (2 x 27 x 128 x
// 2 + 27 x 27 x 2) bytes over 0.90 x 3.35 TB/s; the floor binds (the matrices are tiny). With a
// 100x faster memory the compute term binds instead.
TEST_CASE("batched GEMMs pay tensor-core padding and their memory traffic") {
  const DeviceProfile h = h100();
  const GemmCoefficients& c = h.gemm_coefficients(Precision::bf16);
  const double compute = 6912.0 * 2.0 * 32.0 * 32.0 * 128.0 / (989.4e12 * c.max_efficiency * 128.0 / (128.0 + c.k_half));
  const double floor = 6912.0 * (2.0 * 27.0 * 128.0 * 2.0 + 27.0 * 27.0 * 2.0) / (0.90 * 3.35e12);
  REQUIRE(floor > compute);
  CHECK(h.batched_gemm_time(6912, 27, 27, 128, Precision::bf16).value() == dlrmsim::rel(floor));
  DeviceProfile fast = h;
  fast.memory.hbm_bandwidth = fast.memory.hbm_bandwidth * 100.0;
  CHECK(fast.batched_gemm_time(6912, 27, 27, 128, Precision::bf16).value() == dlrmsim::rel(compute));
  CHECK_THROWS_AS((void)h.batched_gemm_time(0, 27, 27, 128, Precision::bf16), std::invalid_argument);
}

// System: H100 profile. Expected: a 64 MiB pinned H2D copy takes 10 us + 64 MiB / 50.4 GB/s; a
// zero-copy gather of 10^5 rows of 256 B takes 10^5 x 256 B / (63 GB/s x 0.8 x 256/(256+48)).
TEST_CASE("copies and zero-copy gathers follow their closed forms") {
  const DeviceProfile h = h100();
  const double bytes = 64.0 * 1048576.0;
  CHECK(h.copy_time(CopyKind::h2d_pinned, Bytes(bytes)).value() == dlrmsim::rel(10e-6 + bytes / 50.4e9));
  CHECK(h.uvm_gather_time(1e5, Bytes(256.0)).value() ==
        dlrmsim::rel(1e5 * 256.0 / (63e9 * 0.8 * 256.0 / 304.0)));
  // The launch figures measured on an H100 (configs/calibration/h100.yaml's launch source).
  CHECK(h.kernel_launch_overhead().value() == dlrmsim::rel(3.996e-6));
  // Three kernels take at least 3 x (3.996 us launch + 0.9655 us of an empty kernel).
  CHECK(h.kernel_floor(3).value() == dlrmsim::rel(3 * (3.996e-6 + 0.9655e-6)));
}

// System: the H100 profile with `memory.hbm_bandwidth` deleted. Expected: ConfigError naming
// the file, the line of the `memory:` mapping and the missing key.
TEST_CASE("a profile with a missing field is rejected with file, line and key") {
  const std::string text = h100_text_replacing("  hbm_bandwidth: 3.35 TB/s\n", "");
  const std::string error = error_of(text);
  CHECK(error.find("edited.yaml:" + std::to_string(line_of(text, "achievable_fraction")) + ":") != std::string::npos);
  CHECK(error.find("missing required key 'hbm_bandwidth'") != std::string::npos);
  CHECK(error.find("memory") != std::string::npos);
}

// System: the H100 profile with `hbm_bandwidth: 3350` (no unit). Expected: ConfigError at the
// line of that key, naming `memory.hbm_bandwidth` and saying the unit is missing: a bare
// number is exactly the GB-versus-GiB ambiguity the design forbids.
TEST_CASE("a unit-less quantity is rejected with file, line and key") {
  const std::string text = h100_text_replacing("hbm_bandwidth: 3.35 TB/s", "hbm_bandwidth: 3350");
  const std::string error = error_of(text);
  CHECK(error.find("edited.yaml:" + std::to_string(line_of(text, "hbm_bandwidth")) + ":") != std::string::npos);
  CHECK(error.find("memory.hbm_bandwidth") != std::string::npos);
  CHECK(error.find("no unit") != std::string::npos);

  const std::string peak_error = error_of(h100_text_replacing("peak: 989.4 TFLOP/s", "peak: 989.4"));
  CHECK(peak_error.find("gemm.bf16.peak") != std::string::npos);
  CHECK(peak_error.find("no unit") != std::string::npos);
}

// System: an unknown (misspelt) key next to the real one, a misspelt required key, an unknown dtype, an efficiency above 1 and a group without a source.
// Expected: each is a ConfigError with the offending key path (and a did-you-mean for typos).
TEST_CASE("misspelt keys, unknown dtypes, out-of-range values and missing sources are rejected") {
  const std::string extra = error_of(h100_text_replacing("  pooling_half: 1.0\n", "  pooling_half: 1.0\n  poling_half: 2\n"));
  CHECK(extra.find("embedding_gather.poling_half") != std::string::npos);
  CHECK(extra.find("did you mean 'pooling_half'") != std::string::npos);
  CHECK(error_of(h100_text_replacing("  pooling_half: 1.0\n", "  poling_half: 1.0\n")).find("missing required key 'pooling_half'") !=
        std::string::npos);
  CHECK(error_of(h100_text_replacing("  bf16:\n", "  bf17:\n")).find("did you mean 'bf16'") != std::string::npos);
  const std::string range = error_of(h100_text_replacing("max_efficiency: 0.72", "max_efficiency: 1.2"));
  CHECK(range.find("embedding_gather.max_efficiency") != std::string::npos);
  CHECK(range.find("(0, 1]") != std::string::npos);
  const std::string text = read_text(kCalibrationDir + "/h100.yaml");
  const auto launch = text.find("launch:");
  REQUIRE(launch != std::string::npos);
  const std::string no_source = text.substr(0, launch) + "launch:\n  overhead: 3 us\n  min_kernel_time: 1.5 us\n";
  CHECK(error_of(no_source).find("missing required key 'source'") != std::string::npos);
}

// System: every shipped profile written with device_profile_to_yaml and read back.
// Expected: identical predictions (the writer keeps 9 significant digits and every unit).
TEST_CASE("profiles round-trip through YAML") {
  for (const char* file : {"v100.yaml", "a100.yaml", "h100.yaml", "h200.yaml", "b200.yaml", "mi300x.yaml"}) {
    const DeviceProfile original = load_device_profile(kCalibrationDir + "/" + file);
    const DeviceProfile back =
        parse_device_profile(ConfigNode::load_string(device_profile_to_yaml(original), std::string("written-") + file));
    CHECK(back.name == original.name);
    CHECK(back.gemm.size() == original.gemm.size());
    for (const auto& [dtype, c] : original.gemm) {
      CHECK(back.gemm_time(1024, 512, 256, dtype).value() == dlrmsim::rel(original.gemm_time(1024, 512, 256, dtype).value()).epsilon(1e-8));
    }
    CHECK(back.embedding_forward_time(1e6, Bytes(64.0), 4.0).value() ==
          dlrmsim::rel(original.embedding_forward_time(1e6, Bytes(64.0), 4.0).value()).epsilon(1e-8));
    for (CopyKind k : kCopyKinds) {
      CHECK(back.copy_time(k, Bytes(1e6)).value() == dlrmsim::rel(original.copy_time(k, Bytes(1e6)).value()).epsilon(1e-8));
    }
    CHECK(back.copy(CopyKind::d2d).provenance.source == original.copy(CopyKind::d2d).provenance.source);
  }
}

// System: GPU model names as platform files and CUDA report them. Expected: the most specific
// file wins (V100-SXM2-16GB -> v100-sxm2-16gb.yaml, V100-SXM2-32GB -> v100.yaml, H100-PCIe-80GB ->
// h100-pcie.yaml), CUDA device
// names map to model names, and an unknown model lists the paths tried and the profiles present.
TEST_CASE("profiles are found by GPU model name") {
  CHECK(find_device_profile("H100-SXM5-80GB", kCalibrationDir) == kCalibrationDir + "/h100.yaml");
  CHECK(find_device_profile("A100-SXM4-80GB", kCalibrationDir) == kCalibrationDir + "/a100.yaml");
  CHECK(find_device_profile("V100-SXM2-16GB", kCalibrationDir) == kCalibrationDir + "/v100-sxm2-16gb.yaml");
  CHECK(find_device_profile("V100-SXM2-32GB", kCalibrationDir) == kCalibrationDir + "/v100.yaml");
  CHECK(gpu_model_from_device_name("NVIDIA H100 80GB HBM3") == "H100-80GB-HBM3");
  CHECK(gpu_model_from_device_name("Tesla V100-SXM2-32GB") == "V100-SXM2-32GB");
  CHECK(gpu_model_from_device_name("NVIDIA H200") == "H200");
  CHECK(load_device_profile_for(gpu_model_from_device_name("NVIDIA H200"), kCalibrationDir).name == "H200-SXM-141GB");
  // The next-generation files: the PCIe H100 is more specific than h100.yaml; GB200 is not B200.
  CHECK(find_device_profile("H100-PCIe-80GB", kCalibrationDir) == kCalibrationDir + "/h100-pcie.yaml");
  CHECK(find_device_profile("B200-SXM-180GB", kCalibrationDir) == kCalibrationDir + "/b200.yaml");
  CHECK(find_device_profile("GB200-186GB", kCalibrationDir) == kCalibrationDir + "/gb200.yaml");
  CHECK(find_device_profile("MI355X-OAM-288GB", kCalibrationDir) == kCalibrationDir + "/mi355x.yaml");
  try {
    (void)find_device_profile("R100-SXM-288GB", kCalibrationDir);
    FAIL("an unknown model must be an error");
  } catch (const ConfigError& e) {
    const std::string message = e.what();
    CHECK(message.find("r100-sxm-288gb.yaml") != std::string::npos);
    CHECK(message.find("r100.yaml") != std::string::npos);
    CHECK(message.find("h100") != std::string::npos);
  }
}

// System: a profile derived from another (derived.yaml: from_file base.yaml, a copy of
// v100.yaml, setting device.name), loaded through one DeviceProfileFiles as a sweep worker
// does, while the two files are edited between loads. Inputs and expected values:
//  - the same files twice: one parse, and the second load returns the first load's profile
//    (the same object), equal to what load_device_profile reads;
//  - derived.yaml names the device "Edited": parsed again (2 parses), name "Edited";
//  - base.yaml, the second file of the chain, says 16 GB instead of 32 GB: parsed again (3
//    parses), memory capacity 16e9 bytes (GB is 10^9).
// Why: the cache is keyed on path and checked against the content of every file of the
// chain, so a sweep never runs on a profile its files no longer describe.
TEST_CASE("profile files are parsed once until one of their files changes") {
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / ("dlrmsim_profile_files_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  auto write = [&](const std::string& name, const std::string& text) {
    std::ofstream(dir / name, std::ios::binary) << text;
  };
  std::string base;
  {
    std::ifstream in(kCalibrationDir + "/v100.yaml", std::ios::binary);
    base.assign(std::istreambuf_iterator<char>(in), {});
  }
  write("base.yaml", base);
  write("derived.yaml", "from_file: base.yaml\nset:\n  - \"device.name=Derived\"\n");
  const std::string derived = (dir / "derived.yaml").string();

  DeviceProfileFiles files;
  const auto first = files.load(derived);
  const auto second = files.load(derived);
  CHECK(files.parses() == 1);
  CHECK(first.get() == second.get());
  CHECK(first->name == "Derived");
  CHECK(first->name == load_device_profile(derived).name);
  CHECK(first->memory_capacity.value() == load_device_profile(derived).memory_capacity.value());

  write("derived.yaml", "from_file: base.yaml\nset:\n  - \"device.name=Edited\"\n");
  const auto edited = files.load(derived);
  CHECK(files.parses() == 2);
  CHECK(edited->name == "Edited");

  const std::string from = "memory_capacity: \"32 GB\"";
  const auto at = base.find(from);
  REQUIRE(at != std::string::npos);
  write("base.yaml", base.replace(at, from.size(), "memory_capacity: \"16 GB\""));
  const auto rebased = files.load(derived);
  CHECK(files.parses() == 3);
  CHECK(rebased->memory_capacity.value() == 16e9);
  CHECK(files.load(derived).get() == rebased.get());
  fs::remove_all(dir);
}

// System: the CPU profile a platform's socket names as `row_profile` (the shipped DGX A100,
// which names configs/calibration/cpu-amd-epyc-zen5-2cpu.yaml), loaded through one
// DeviceProfileFiles as a sweep worker loads it at every point.
// Expected: the profile file is parsed once for two platform loads (parses() == 1), both
// sockets' profiles are the one parsed object, and it is the profile load_cpu_profile reads;
// a copy of the profile whose latency is edited is parsed again (parses() == 3 after the copy's
// first load and its edit) and gives the new latency, 100 ns.
// Why: CPU profiles are cached like the GPU ones, on path and content.
TEST_CASE("a sweep worker's profile files serve the CPU profiles its platforms name") {
  namespace fs = std::filesystem;
  const std::string profile_path = kCalibrationDir + "/cpu-amd-epyc-zen5-2cpu.yaml";
  const std::string platform_path = dlrmsim::testing::kRoot + "/configs/platforms/dgx-a100.yaml";
  DeviceProfileFiles files;
  const Platform a = load_platform(ConfigNode::load_file(platform_path), &files);
  const Platform b = load_platform(ConfigNode::load_file(platform_path), &files);
  CHECK(files.parses() == 1);
  const auto& cpu_a = a.cpu_spec(a.cpus(a.nodes().front().id).front());
  const auto& cpu_b = b.cpu_spec(b.cpus(b.nodes().front().id).front());
  REQUIRE(cpu_a.row_profile);
  CHECK(cpu_a.row_profile.get() == cpu_b.row_profile.get());
  CHECK(cpu_a.row_profile->dram_latency.value() == load_cpu_profile(profile_path).dram_latency.value());

  const fs::path dir = fs::temp_directory_path() / ("dlrmsim_cpu_profile_files_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const std::string copy = (dir / "cpu.yaml").string();
  std::string text;
  {
    std::ifstream in(profile_path, std::ios::binary);
    text.assign(std::istreambuf_iterator<char>(in), {});
  }
  std::ofstream(copy, std::ios::binary) << text;
  const auto before = files.load_cpu(copy);
  CHECK(files.parses() == 2);
  const std::string from = "latency: \"203.361 ns\"";
  const auto at = text.find(from);
  REQUIRE(at != std::string::npos);
  std::ofstream(copy, std::ios::binary) << text.replace(at, from.size(), "latency: \"100 ns\"");
  const auto after = files.load_cpu(copy);
  CHECK(files.parses() == 3);
  CHECK(after->dram_latency.value() == dlrmsim::rel(100e-9));
  CHECK(before->dram_latency.value() == dlrmsim::rel(203.361e-9));
  fs::remove_all(dir);
}

// System: the H100 profile (h100.yaml): gathers bounded by bandwidth (lookups x access bytes over
// peak x efficiency) and by the misses the SMs keep in flight (lookups x access bytes x latency
// over in-flight bytes per SM x SMs: 600 ns, 10,964 B, 132 SMs), whichever binds.
// Inputs: 10^6 lookups of 512-byte rows (16 sectors, no rounding) in bags of 20.
// Expected, in closed form:
//  - at the datasheet 3.35 TB/s the bandwidth bound binds: 512e6 B / (3.35e12 x 0.72 x 512/528
//    x 20/21) = 231.6 us, against the latency bound 512e6 x 600e-9 / (10,964 x 132) = 212.3 us;
//  - at twice the bandwidth (6.7 TB/s) and the same latency and SMs, the latency bound binds:
//    212.3 us, a speed-up of 231.6 / 212.3 = 1.09, far below 2;
//  - from 6.7 to 13.4 TB/s, already latency bound: no speed-up at all;
//  - with the platform's 148 SMs instead of 132 (on_platform_gpu), the latency bound falls by
//    132/148.
TEST_CASE("the gather's two limits, bandwidth bound and latency bound, each in closed form") {
  const DeviceProfile base = h100();
  REQUIRE(base.gather.latency_bound());
  const double lookups = 1e6;
  const Bytes row{512.0};
  const double pooling = 20.0;
  const double bandwidth_bound = 512e6 / (3.35e12 * 0.72 * (512.0 / 528.0) * (20.0 / 21.0));
  const double latency_bound = 512e6 * 600e-9 / (10964.0 * 132.0);
  CHECK(latency_bound < bandwidth_bound);
  CHECK(base.embedding_forward_time(lookups, row, pooling).value() == dlrmsim::rel(bandwidth_bound));

  GpuSpec twice;
  twice.model = "H100-SXM5-80GB";
  twice.hbm_bandwidth = BytesPerSecond(6.7e12);
  const DeviceProfile fast = on_platform_gpu(base, twice);
  CHECK(fast.embedding_forward_time(lookups, row, pooling).value() == dlrmsim::rel(latency_bound));
  const double speedup = base.embedding_forward_time(lookups, row, pooling) / fast.embedding_forward_time(lookups, row, pooling);
  CHECK(speedup == dlrmsim::rel(bandwidth_bound / latency_bound));
  CHECK(speedup < 1.1);  // twice the peak bandwidth, the same latency: far less than 2x

  GpuSpec four_times = twice;
  four_times.hbm_bandwidth = BytesPerSecond(13.4e12);
  CHECK(on_platform_gpu(base, four_times).embedding_forward_time(lookups, row, pooling).value() ==
        dlrmsim::rel(latency_bound));

  GpuSpec more_sms = twice;
  more_sms.sm_count = 148;
  CHECK(on_platform_gpu(base, more_sms).embedding_forward_time(lookups, row, pooling).value() ==
        dlrmsim::rel(latency_bound * 132.0 / 148.0));
  // The backward is the profile's multiple of the forward, so it inherits whichever bound binds.
  CHECK(fast.embedding_backward_time(lookups, row, pooling, EmbeddingOptimizer::sgd).value() ==
        dlrmsim::rel(latency_bound * 4.8 * ((512.0 / (3 * 512.0)) + (1.0 - 512.0 / (3 * 512.0)))));
}

// A profile without the three latency keys has no latency bound (the bandwidth form alone);
// one with only some of them is a located error naming the missing key.
TEST_CASE("a gather latency bound needs all three of its keys") {
  CHECK_FALSE(load_device_profile(kCalibrationDir + "/a100.yaml").gather.latency_bound());
  std::string text = read_text(kCalibrationDir + "/h100.yaml");
  const auto at = text.find("  sms: 132\n");
  REQUIRE(at != std::string::npos);
  text.erase(at, std::string("  sms: 132\n").size());
  CHECK_THROWS_WITH_AS(parse_device_profile(ConfigNode::load_string(text, "h100.yaml")),
                       doctest::Contains("embedding_gather: the gather's latency bound needs latency, "
                                         "bytes_in_flight_per_sm and sms together; 'sms' is missing"),
                       ConfigError);
}
