#include "topologies/device_profile.hpp"

#include "common/files.hpp"
#include "common/text.hpp"
#include "topologies/cpu_profile.hpp"

#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <sstream>
#include <stdexcept>

namespace dlrmsim::topo {

// --- names -----------------------------------------------------------------------------

std::optional<Precision> gemm_precision_from_name(std::string_view name) {
  const auto p = precision_from_string(name);
  if (p && std::find(kGemmPrecisions.begin(), kGemmPrecisions.end(), *p) != kGemmPrecisions.end()) return p;
  return std::nullopt;
}

Bytes operand_bytes(Precision dtype) { return element_size(dtype); }

Bytes output_bytes(Precision dtype) {
  return dtype == Precision::fp8 ? Bytes(2.0) : operand_bytes(dtype);
}

// --- model evaluation ------------------------------------------------------------------

double saturation(double x, double half) {
  if (!(x > 0.0)) return 0.0;
  return x / (x + std::max(half, 0.0));
}

double GemmCoefficients::efficiency(double m, double n, double k) const {
  return max_efficiency * saturation(m, m_half) * saturation(n, n_half) * saturation(k, k_half);
}

double GatherCoefficients::efficiency(Bytes row_bytes, double pooling) const {
  return max_efficiency * saturation(row_bytes.value(), row_half.value()) * saturation(pooling, pooling_half);
}

double EmbeddingBackwardCoefficients::multiple(EmbeddingOptimizer optimizer) const {
  return optimizer == EmbeddingOptimizer::sgd ? sgd_multiple : rowwise_adagrad_multiple;
}

double UvmGatherCoefficients::efficiency(Bytes row_bytes) const {
  return max_efficiency * saturation(row_bytes.value(), row_half.value());
}

bool DeviceProfile::supports(Precision dtype) const {
  return std::any_of(gemm.begin(), gemm.end(), [&](const auto& e) { return e.first == dtype; });
}

const GemmCoefficients& DeviceProfile::gemm_coefficients(Precision dtype) const {
  for (const auto& [d, c] : gemm) {
    if (d == dtype) return c;
  }
  std::string have;
  for (const auto& e : gemm) have += (have.empty() ? "" : ", ") + std::string(to_string(e.first));
  throw std::invalid_argument("device " + name + " has no " + std::string(to_string(dtype)) +
                              " GEMM (its profile lists: " + have + ")");
}

FlopsPerSecond DeviceProfile::gemm_peak(Precision dtype) const { return gemm_coefficients(dtype).peak; }

namespace {
void check_shape(std::int64_t m, std::int64_t n, std::int64_t k) {
  if (m <= 0 || n <= 0 || k <= 0) {
    throw std::invalid_argument("GEMM shape m=" + std::to_string(m) + " n=" + std::to_string(n) +
                                " k=" + std::to_string(k) + " must have positive extents");
  }
}
}  // namespace

Bytes gemm_traffic(std::int64_t m, std::int64_t n, std::int64_t k, Precision dtype, std::int64_t batch) {
  const double dm = static_cast<double>(m), dn = static_cast<double>(n), dk = static_cast<double>(k);
  return ((dm * dk + dk * dn) * operand_bytes(dtype) + dm * dn * output_bytes(dtype)) * static_cast<double>(batch);
}

double DeviceProfile::gemm_efficiency(std::int64_t m, std::int64_t n, std::int64_t k, Precision dtype) const {
  check_shape(m, n, k);
  return gemm_coefficients(dtype).efficiency(static_cast<double>(m), static_cast<double>(n),
                                             static_cast<double>(k));
}

Seconds DeviceProfile::gemm_time(std::int64_t m, std::int64_t n, std::int64_t k, Precision dtype) const {
  check_shape(m, n, k);
  const GemmCoefficients& c = gemm_coefficients(dtype);
  const double dm = static_cast<double>(m), dn = static_cast<double>(n), dk = static_cast<double>(k);
  const Flops flops(2.0 * dm * dn * dk);
  const Seconds compute = flops / (c.peak * c.efficiency(dm, dn, dk));
  const Seconds memory_floor = gemm_traffic(m, n, k, dtype) / achievable_hbm_bandwidth();
  return std::max(compute, memory_floor);
}

Seconds DeviceProfile::batched_gemm_time(std::int64_t batch, std::int64_t m, std::int64_t n, std::int64_t k,
                                         Precision dtype) const {
  check_shape(m, n, k);
  if (batch <= 0) throw std::invalid_argument("a batched GEMM needs a positive batch count");
  const GemmCoefficients& c = gemm_coefficients(dtype);
  constexpr double kTile = 16.0;  // m and n extent of a tensor-core fragment (see the header)
  const auto pad = [](double x) { return kTile * std::ceil(x / kTile); };
  const double b = static_cast<double>(batch), dm = static_cast<double>(m), dn = static_cast<double>(n),
               dk = static_cast<double>(k);
  const Flops padded(b * 2.0 * pad(dm) * pad(dn) * dk);
  const Seconds compute = padded / (c.peak * (c.max_efficiency * saturation(dk, c.k_half)));
  return std::max(compute, gemm_traffic(m, n, k, dtype, batch) / achievable_hbm_bandwidth());
}

namespace {
Bytes round_up(Bytes bytes, Bytes granule) {
  if (!(granule.value() > 0.0)) return bytes;
  return granule * std::ceil(bytes.value() / granule.value());
}
void check_lookups(double lookups, Bytes row_bytes) {
  if (!(lookups >= 0.0) || !(row_bytes.value() > 0.0)) {
    throw std::invalid_argument("embedding gather needs lookups >= 0 and a positive row size (got " +
                                std::to_string(lookups) + " lookups of " + std::to_string(row_bytes.value()) +
                                " B)");
  }
}
}  // namespace

Bytes DeviceProfile::gather_access_bytes(Bytes row_bytes) const { return round_up(row_bytes, gather.access_granule); }

double DeviceProfile::gather_efficiency(Bytes row_bytes, double pooling) const {
  return gather.efficiency(row_bytes, pooling);
}

Seconds DeviceProfile::embedding_forward_time(double lookups, Bytes row_bytes, double pooling) const {
  check_lookups(lookups, row_bytes);
  if (!(pooling >= 1.0)) throw std::invalid_argument("embedding pooling must be at least 1 lookup per bag");
  const Bytes bytes = gather_access_bytes(row_bytes) * lookups;
  const Seconds bandwidth_bound = bytes / (hbm_bandwidth() * gather_efficiency(row_bytes, pooling));
  if (!gather.latency_bound()) return bandwidth_bound;
  return std::max(bandwidth_bound, bytes / gather.latency_bound_rate());
}

Seconds DeviceProfile::embedding_backward_time(double lookups, Bytes row_bytes, double pooling,
                                               EmbeddingOptimizer optimizer, double distinct_fraction) const {
  if (!(distinct_fraction > 0.0 && distinct_fraction <= 1.0)) {
    throw std::invalid_argument("embedding backward: the distinct fraction of lookups must be in (0, 1] (got " +
                                std::to_string(distinct_fraction) + ")");
  }
  // Row-wise Adagrad keeps one fp32 accumulator per row (FBGEMM's momentum1 of a row).
  const Bytes state = optimizer == EmbeddingOptimizer::rowwise_adagrad ? Bytes(4.0) : Bytes(0.0);
  const double per_lookup_share = row_bytes / (row_bytes * 3.0 + state * 2.0);
  const double scale = per_lookup_share + (1.0 - per_lookup_share) * distinct_fraction;
  return embedding_forward_time(lookups, row_bytes, pooling) * (embedding_backward.multiple(optimizer) * scale);
}

double DeviceProfile::uvm_gather_efficiency(Bytes row_bytes) const { return uvm_gather.efficiency(row_bytes); }

Seconds DeviceProfile::uvm_gather_time(double lookups, Bytes row_bytes) const {
  check_lookups(lookups, row_bytes);
  return lookups * round_up(row_bytes, uvm_gather.access_granule) /
         (uvm_gather.pcie_bandwidth * uvm_gather_efficiency(row_bytes));
}

// --- reading ---------------------------------------------------------------------------

namespace {

double get_fraction(const ConfigNode& n, std::string_view key) {
  const ConfigNode c = n.child(key);
  const double v = c.as<double>();
  if (!(v > 0.0 && v <= 1.0)) c.fail("expected a fraction in (0, 1], found " + c.as<std::string>());
  return v;
}

double get_nonnegative(const ConfigNode& n, std::string_view key) { return n.get_positive<double>(key, true); }

std::optional<FitError> read_fit(const ConfigNode& group) {
  const auto f = group.optional_child("fit");
  if (!f) return std::nullopt;
  FitError e;
  e.rms_relative = get_nonnegative(*f, "rms_relative");
  e.max_relative = get_nonnegative(*f, "max_relative");
  e.measurements = f->get_positive<int>("measurements");
  if (e.max_relative < e.rms_relative) f->fail("max_relative must be at least rms_relative");
  f->finish();
  return e;
}

Provenance read_provenance(const ConfigNode& group) {
  Provenance p;
  p.source = group.get<std::string>("source");
  if (p.source.empty()) group.child("source").fail("a source is required: a measurement, a datasheet, a paper or a labelled assumption");
  p.fit = read_fit(group);
  return p;
}

GemmCoefficients read_gemm(const ConfigNode& n) {
  GemmCoefficients c;
  c.peak = n.get_positive<FlopsPerSecond>("peak");
  c.max_efficiency = get_fraction(n, "max_efficiency");
  c.m_half = get_nonnegative(n, "m_half");
  c.n_half = get_nonnegative(n, "n_half");
  c.k_half = get_nonnegative(n, "k_half");
  if (n.has("call_overhead")) c.call_overhead = n.get<Seconds>("call_overhead");
  if (c.call_overhead.value() < 0.0) n.child("call_overhead").fail("must be a non-negative time");
  c.provenance = read_provenance(n);
  n.finish();
  return c;
}

CopyCoefficients read_copy(const ConfigNode& n) {
  CopyCoefficients c;
  c.latency = n.get_positive<Seconds>("latency", true);
  c.bandwidth = n.get_positive<BytesPerSecond>("bandwidth");
  c.provenance = read_provenance(n);
  n.finish();
  return c;
}

std::vector<std::string> names_of_all_dtypes() {
  std::vector<std::string> v;
  for (Precision d : kGemmPrecisions) v.emplace_back(to_string(d));
  return v;
}

}  // namespace

namespace {

/// A profile that derives from another (`from_file: other.yaml`, relative to it, and a `set:`
/// list of overrides of that file's keys: the same device with other memory, say) as the
/// node of the other file with the overrides applied; any other profile as it is.
/// `read`, if given, receives the path and text of each file of the chain it reads.
ConfigNode resolve_from_file(ConfigNode node, std::vector<std::pair<std::string, std::string>>* read = nullptr) {
  for (int depth = 0; node.is_map() && node.has("from_file"); ++depth) {
    if (depth == 8) node.child("from_file").fail("from_file chain is more than 8 files deep (a cycle?)");
    const std::filesystem::path base =
        std::filesystem::path(node.source_dir()) / node.get<std::string>("from_file");
    std::string text = read_input_file(base.string());
    YAML::Node yaml = ConfigNode::load_string(text, base.string()).yaml();
    if (read) read->emplace_back(base.string(), std::move(text));
    std::vector<OverrideOrigin> origins;
    if (auto set = node.optional_child("set")) {
      for (const ConfigNode& e : set->elements()) {
        const std::string text = e.as<std::string>();
        try {
          origins.push_back({apply_override(yaml, parse_override(text)), e.where() + " '" + text + "'", ""});
        } catch (const ConfigError& error) {
          e.fail(error.what());
        }
      }
    }
    node.finish();
    node = ConfigNode(yaml, base.lexically_normal().string(), "", origins);
  }
  return node;
}

DeviceProfile parse_profile_body(const ConfigNode& root) {
  if (!root.is_map()) root.fail("a device profile must be a mapping with keys device, gemm, memory, ...");
  DeviceProfile p;

  const ConfigNode device = root.child("device");
  p.name = device.get<std::string>("name");
  p.description = device.get<std::string>("description");
  p.provenance = device.get<std::string>("provenance");
  p.memory_capacity = device.get_positive<Bytes>("memory_capacity");
  p.memory_capacity_source = device.get<std::string>("memory_capacity_source");
  device.finish();

  const ConfigNode gemm = root.child("gemm");
  if (!gemm.is_map()) gemm.fail("expected a mapping from dtype (fp32, tf32, bf16, fp16, fp8) to coefficients");
  for (const auto& [key, value] : gemm.entries()) {
    const auto dtype = gemm_precision_from_name(key);
    if (!dtype) {
      std::string msg = "unknown GEMM dtype '" + key + "'";
      if (auto guess = did_you_mean(key, names_of_all_dtypes())) msg += "; did you mean '" + *guess + "'?";
      value.fail(msg + " (expected one of fp32, tf32, bf16, fp16, fp8)");
    }
    p.gemm.emplace_back(*dtype, read_gemm(value));
  }
  if (p.gemm.empty()) gemm.fail("at least one GEMM dtype is required");
  gemm.finish();

  const ConfigNode memory = root.child("memory");
  p.memory.hbm_bandwidth = memory.get_positive<BytesPerSecond>("hbm_bandwidth");
  p.memory.achievable_fraction = get_fraction(memory, "achievable_fraction");
  p.memory.provenance = read_provenance(memory);
  memory.finish();

  const ConfigNode gather = root.child("embedding_gather");
  p.gather.access_granule = gather.get_positive<Bytes>("access_granule");
  p.gather.max_efficiency = get_fraction(gather, "max_efficiency");
  p.gather.row_half = gather.get_positive<Bytes>("row_half", true);
  p.gather.pooling_half = get_nonnegative(gather, "pooling_half");
  {
    // The latency bound: all three keys or none.
    const bool any = gather.has("latency") || gather.has("bytes_in_flight_per_sm") || gather.has("sms");
    if (any) {
      for (const char* key : {"latency", "bytes_in_flight_per_sm", "sms"}) {
        if (!gather.has(key)) {
          gather.fail(std::string("the gather's latency bound needs latency, bytes_in_flight_per_sm and sms together; '") +
                      key + "' is missing");
        }
      }
      p.gather.latency = gather.get_positive<Seconds>("latency");
      p.gather.bytes_in_flight_per_sm = gather.get_positive<Bytes>("bytes_in_flight_per_sm");
      p.gather.sms = gather.get_positive<int>("sms");
    }
  }
  p.gather.provenance = read_provenance(gather);
  gather.finish();

  const ConfigNode backward = root.child("embedding_backward");
  p.embedding_backward.sgd_multiple = backward.get_positive<double>("sgd_multiple");
  p.embedding_backward.rowwise_adagrad_multiple = backward.get_positive<double>("rowwise_adagrad_multiple");
  p.embedding_backward.provenance = read_provenance(backward);
  backward.finish();

  const ConfigNode uvm = root.child("uvm_gather");
  p.uvm_gather.pcie_bandwidth = uvm.get_positive<BytesPerSecond>("pcie_bandwidth");
  p.uvm_gather.access_granule = uvm.get_positive<Bytes>("access_granule");
  p.uvm_gather.max_efficiency = get_fraction(uvm, "max_efficiency");
  p.uvm_gather.row_half = uvm.get_positive<Bytes>("row_half", true);
  p.uvm_gather.provenance = read_provenance(uvm);
  uvm.finish();

  const ConfigNode copies = root.child("copies");
  for (CopyKind k : kCopyKinds) {
    p.copies[static_cast<std::size_t>(k)] = read_copy(copies.child(to_string(k)));
  }
  copies.finish();

  const ConfigNode launch = root.child("launch");
  p.launch_overhead = launch.get_positive<Seconds>("overhead");
  p.min_kernel_time = launch.get_positive<Seconds>("min_kernel_time", true);
  p.launch_provenance = read_provenance(launch);
  launch.finish();

  root.finish();
  return p;
}

}  // namespace

DeviceProfile parse_device_profile(const ConfigNode& root) { return parse_profile_body(resolve_from_file(root)); }

DeviceProfile load_device_profile(const std::string& path) {
  return parse_device_profile(ConfigNode::load_file(path));
}

namespace {

/// Whether every file an entry was parsed from still holds the text it was parsed from.
bool unchanged(const std::vector<std::pair<std::string, std::string>>& files) {
  try {
    for (const auto& [file, text] : files) {
      if (read_input_file(file) != text) return false;
    }
    return true;
  } catch (const ConfigError&) {
    return false;  // gone or unreadable now: parse again, which reports it
  }
}

}  // namespace

std::shared_ptr<const DeviceProfile> DeviceProfileFiles::load(const std::string& path) {
  if (auto it = entries_.find(path); it != entries_.end() && unchanged(it->second.files)) return it->second.profile;
  // As load_device_profile(path), remembering the text of every file read.
  Entry<DeviceProfile> e;
  std::string text = read_input_file(path);
  const ConfigNode root = ConfigNode::load_string(text, path);
  e.files.emplace_back(path, std::move(text));
  e.profile = std::make_shared<const DeviceProfile>(parse_profile_body(resolve_from_file(root, &e.files)));
  ++parses_;
  return entries_.insert_or_assign(path, std::move(e)).first->second.profile;
}

std::shared_ptr<const CpuProfile> DeviceProfileFiles::load_cpu(const std::string& path) {
  if (auto it = cpu_entries_.find(path); it != cpu_entries_.end() && unchanged(it->second.files)) {
    return it->second.profile;
  }
  // As load_cpu_profile(path).
  Entry<CpuProfile> e;
  std::string text = read_input_file(path);
  e.profile = std::make_shared<const CpuProfile>(parse_cpu_profile(ConfigNode::load_string(text, path)));
  e.files.emplace_back(path, std::move(text));
  ++parses_;
  return cpu_entries_.insert_or_assign(path, std::move(e)).first->second.profile;
}

// --- writing ---------------------------------------------------------------------------

namespace {

// Coefficients are written with 9 significant digits (the format_* helpers round to three,
// too coarse for coefficients).
std::string with_unit(double base_value, double scale, const char* unit) {
  return yaml_quoted(format_number(base_value / scale, 9) + " " + unit);
}
std::string flop_rate(FlopsPerSecond r) { return with_unit(r.value(), 1e12, "TFLOP/s"); }
std::string byte_rate(BytesPerSecond r) { return with_unit(r.value(), 1e9, "GB/s"); }
std::string bytes(Bytes b) { return with_unit(b.value(), 1.0, "B"); }
std::string seconds(Seconds s) { return with_unit(s.value(), 1e-6, "us"); }

void write_provenance(std::ostream& out, const Provenance& p, const std::string& indent) {
  out << indent << "source: " << yaml_quoted(p.source) << "\n";
  if (p.fit) {
    out << indent << "fit: {rms_relative: " << format_number(p.fit->rms_relative, 9)
        << ", max_relative: " << format_number(p.fit->max_relative, 9) << ", measurements: " << p.fit->measurements << "}\n";
  }
}

}  // namespace

std::string device_profile_to_yaml(const DeviceProfile& p) {
  std::ostringstream out;
  out << "device:\n"
      << "  name: " << yaml_quoted(p.name) << "\n"
      << "  description: " << yaml_quoted(p.description) << "\n"
      << "  provenance: " << yaml_quoted(p.provenance) << "\n"
      << "  memory_capacity: " << with_unit(p.memory_capacity.value(), 1e9, "GB") << "\n"
      << "  memory_capacity_source: " << yaml_quoted(p.memory_capacity_source) << "\n";
  out << "gemm:\n";
  for (const auto& [dtype, c] : p.gemm) {
    out << "  " << to_string(dtype) << ":\n"
        << "    peak: " << flop_rate(c.peak) << "\n"
        << "    max_efficiency: " << format_number(c.max_efficiency, 9) << "\n"
        << "    m_half: " << format_number(c.m_half, 9) << "\n"
        << "    n_half: " << format_number(c.n_half, 9) << "\n"
        << "    k_half: " << format_number(c.k_half, 9) << "\n";
    if (c.call_overhead.value() > 0.0) out << "    call_overhead: \"" << format_number(c.call_overhead.value() * 1e6, 9) << " us\"\n";
    write_provenance(out, c.provenance, "    ");
  }
  out << "memory:\n"
      << "  hbm_bandwidth: " << byte_rate(p.memory.hbm_bandwidth) << "\n"
      << "  achievable_fraction: " << format_number(p.memory.achievable_fraction, 9) << "\n";
  write_provenance(out, p.memory.provenance, "  ");
  out << "embedding_gather:\n"
      << "  access_granule: " << bytes(p.gather.access_granule) << "\n"
      << "  max_efficiency: " << format_number(p.gather.max_efficiency, 9) << "\n"
      << "  row_half: " << bytes(p.gather.row_half) << "\n"
      << "  pooling_half: " << format_number(p.gather.pooling_half, 9) << "\n";
  if (p.gather.latency_bound()) {
    out << "  latency: \"" << format_number(p.gather.latency.value() * 1e9, 9) << " ns\"\n"
        << "  bytes_in_flight_per_sm: " << bytes(p.gather.bytes_in_flight_per_sm) << "\n"
        << "  sms: " << p.gather.sms << "\n";
  }
  write_provenance(out, p.gather.provenance, "  ");
  out << "embedding_backward:\n"
      << "  sgd_multiple: " << format_number(p.embedding_backward.sgd_multiple, 9) << "\n"
      << "  rowwise_adagrad_multiple: " << format_number(p.embedding_backward.rowwise_adagrad_multiple, 9) << "\n";
  write_provenance(out, p.embedding_backward.provenance, "  ");
  out << "uvm_gather:\n"
      << "  pcie_bandwidth: " << byte_rate(p.uvm_gather.pcie_bandwidth) << "\n"
      << "  access_granule: " << bytes(p.uvm_gather.access_granule) << "\n"
      << "  max_efficiency: " << format_number(p.uvm_gather.max_efficiency, 9) << "\n"
      << "  row_half: " << bytes(p.uvm_gather.row_half) << "\n";
  write_provenance(out, p.uvm_gather.provenance, "  ");
  out << "copies:\n";
  for (CopyKind k : kCopyKinds) {
    const CopyCoefficients& c = p.copy(k);
    out << "  " << to_string(k) << ":\n"
        << "    latency: " << seconds(c.latency) << "\n"
        << "    bandwidth: " << byte_rate(c.bandwidth) << "\n";
    write_provenance(out, c.provenance, "    ");
  }
  out << "launch:\n"
      << "  overhead: " << seconds(p.launch_overhead) << "\n"
      << "  min_kernel_time: " << seconds(p.min_kernel_time) << "\n";
  write_provenance(out, p.launch_provenance, "  ");
  return out.str();
}

// --- finding a profile -----------------------------------------------------------------

namespace {
/// A profile file that may exist but cannot be examined: unlike an absent one, an error.
class ProfileUnexaminable : public ConfigError {
 public:
  using ConfigError::ConfigError;
};
}  // namespace

std::string find_device_profile(std::string_view gpu_model, const std::string& calibration_dir) {
  namespace fs = std::filesystem;
  std::string lower;
  for (char ch : gpu_model) lower += static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  if (lower.empty() || lower.find('/') != std::string::npos) {
    throw ConfigError("GPU model name '" + std::string(gpu_model) +
                      "' is empty or contains '/'; expected a name such as 'H100-SXM5-80GB'");
  }
  std::vector<std::string> tried;
  std::string stem = lower;
  while (true) {
    const fs::path candidate = fs::path(calibration_dir) / (stem + ".yaml");
    tried.push_back(candidate.string());
    if (regular_file_exists(candidate)) return candidate.string();
    // A profile that cannot even be examined (a folder without permission) is not absent.
    if (struct stat st {}; ::stat(candidate.c_str(), &st) != 0 && errno != ENOENT && errno != ENOTDIR &&
                           errno != ENAMETOOLONG) {
      throw ProfileUnexaminable(candidate.string() + ": cannot examine the device profile: " + std::strerror(errno));
    }
    const auto dash = stem.rfind('-');
    if (dash == std::string::npos || dash == 0) break;
    stem.resize(dash);
  }
  std::vector<std::string> present;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(calibration_dir, ec)) {
    if (entry.path().extension() == ".yaml") present.push_back(entry.path().stem().string());
  }
  std::sort(present.begin(), present.end());
  std::string msg = "no device profile for GPU model '" + std::string(gpu_model) + "'; tried";
  for (const auto& t : tried) msg += " " + t;
  msg += "; profiles present in " + calibration_dir + ":";
  if (present.empty()) msg += " none";
  for (const auto& name : present) msg += " " + name;
  throw ConfigError(msg);
}

std::string gpu_model_from_device_name(std::string_view device_name) {
  std::string_view name = device_name;
  for (std::string_view prefix : {std::string_view("NVIDIA "), std::string_view("Tesla ")}) {
    if (name.substr(0, prefix.size()) == prefix) name.remove_prefix(prefix.size());
  }
  std::string model;
  bool pending_separator = false;
  for (char ch : name) {
    if (std::isspace(static_cast<unsigned char>(ch))) {
      pending_separator = !model.empty();
      continue;
    }
    if (pending_separator) model += '-';
    pending_separator = false;
    model += ch;
  }
  return model;
}

DeviceProfile load_device_profile_for(std::string_view gpu_model, const std::string& calibration_dir) {
  return load_device_profile(find_device_profile(gpu_model, calibration_dir));
}

}  // namespace dlrmsim::topo

namespace dlrmsim::topo {

DeviceProfile on_platform_gpu(DeviceProfile profile, const topo::GpuSpec& gpu) {
  if (gpu.hbm_bandwidth.value() > 0.0) profile.memory.hbm_bandwidth = gpu.hbm_bandwidth;
  if (gpu.sm_count > 0 && profile.gather.latency_bound()) profile.gather.sms = gpu.sm_count;
  for (auto& [dtype, coefficients] : profile.gemm) {
    for (topo::Precision p : topo::kAllPrecisions) {
      if (topo::to_string(p) != to_string(dtype)) continue;
      if (const auto peak = gpu.peak.get(p)) coefficients.peak = *peak;
    }
  }
  return profile;
}

// ---- DeviceProfileSet ---------------------------------------------------------------------------

std::shared_ptr<const DeviceProfile> DeviceProfileSet::find(const topo::GpuSpec& gpu) const {
  PlatformKey key{gpu.model, {}};
  key.second[0] = gpu.hbm_bandwidth.value();
  for (std::size_t i = 0; i < topo::kAllPrecisions.size(); ++i) {
    const auto peak = gpu.peak.get(topo::kAllPrecisions[i]);
    key.second[i + 1] = peak ? peak->value() : -1.0;
  }
  key.second[topo::kPrecisionCount + 1] = static_cast<double>(gpu.sm_count);
  if (auto it = cache_.find(key); it != cache_.end()) return it->second;
  if (missing_.count(gpu.model) > 0) return nullptr;
  std::shared_ptr<const DeviceProfile> profile;
  if (auto base = added_.find(gpu.model); base != added_.end()) {  // a profile given directly (add)
    profile = std::make_shared<const DeviceProfile>(on_platform_gpu(*base->second, gpu));
  } else {
    std::string path;
    try {
      path = find_device_profile(gpu.model, dir_);
    } catch (const ProfileUnexaminable&) {
      throw;
    } catch (const ConfigError& e) {
      missing_.emplace(gpu.model, e.what());  // no profile file for this GPU model
      return nullptr;
    }
    profile = std::make_shared<const DeviceProfile>(
        on_platform_gpu(files_ ? *files_->load(path) : load_device_profile(path), gpu));
  }
  return cache_.emplace(key, std::move(profile)).first->second;
}

const DeviceProfile& DeviceProfileSet::get(const topo::GpuSpec& gpu) const {
  if (auto p = find(gpu)) return *p;
  throw ConfigError(missing_.at(gpu.model));
}

void DeviceProfileSet::add(const std::string& gpu_model, DeviceProfile profile) {
  added_[gpu_model] = std::make_shared<const DeviceProfile>(std::move(profile));
}

std::vector<const DeviceProfile*> DeviceProfileSet::loaded() const {
  std::map<std::string, const DeviceProfile*> by_name;
  for (const auto& [key, p] : added_) by_name.emplace(p->name, p.get());
  for (const auto& [key, p] : cache_) by_name.emplace(p->name, p.get());
  std::vector<const DeviceProfile*> out;
  for (const auto& [name, p] : by_name) out.push_back(p);
  return out;
}

}  // namespace dlrmsim::topo
