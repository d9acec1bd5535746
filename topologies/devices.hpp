// The device catalogue: the kinds of hardware a platform is built from, with their
// parameters as unit-carrying types.
//
// A device is one GPU (or other accelerator), one CPU socket, one PCIe switch, one NIC, one
// NVSwitch (the set of NVSwitch chips of a node may be modelled as one crossbar device) or
// one network switch of a cluster fabric. Every parameter that a cost model may read is
// a field here; the YAML loader (platform_loader.hpp) reads exactly these fields, so each
// has one declaration and one meaning:
//
//   GPU          model, hbm_capacity, hbm_bandwidth, peak_flops {fp64, fp32, tf32, bf16, fp16,
//                fp8, int8}, sm_count, nvlink {generation, ports}
//   CPU socket   model, cores, threads_per_core, clock, dram_capacity, dram_bandwidth,
//                memory_channels, gather_bandwidth_per_core, peak_flops {fp32, bf16, ...},
//                and what hangs off its PCIe / CXL root ports for embedding tiers:
//                nvme {model, count, capacity, sequential read/write, random read (IOPS
//                and bandwidth), read_latency, queue_depth, page_size} (placement tier ssd) and
//                cxl {model, count, capacity, bandwidth, load_latency} (placement tier cxl)
//   PCIe switch  model, generation, lanes
//   NIC          model, bandwidth (per direction, all ports together), ports, protocol
//   NVSwitch     model, generation, ports, chips
//   net switch   model, ports, port_bandwidth (fabric switches are created by the fabric
//                builder from the cluster's fabric section, not listed in node templates)
//
// Peak FLOP/s are dense rates (no structured sparsity). Whether an operator reaches them
// is the business of the calibrated cost models (models/), not of this catalogue.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <variant>

#include "common/energy.hpp"
#include "common/units.hpp"
#include "topologies/precision.hpp"

namespace dlrmsim::topo {

/// Peak dense arithmetic rate per precision; an absent entry means "not supported / not
/// published" and must not be silently replaced by another precision's figure.
/// For int8 the value is in operations per second (stored as FlopsPerSecond).
struct PeakRates {
  std::array<std::optional<FlopsPerSecond>, kPrecisionCount> rate{};

  [[nodiscard]] std::optional<FlopsPerSecond> get(Precision p) const { return rate[static_cast<std::size_t>(p)]; }
  void set(Precision p, FlopsPerSecond r) { rate[static_cast<std::size_t>(p)] = r; }
};

enum class DeviceKind : std::uint8_t { gpu, cpu, pcie_switch, nic, nvswitch, network_switch };
inline constexpr std::array<DeviceKind, 6> kAllDeviceKinds{DeviceKind::gpu,      DeviceKind::cpu,
                                                           DeviceKind::pcie_switch, DeviceKind::nic,
                                                           DeviceKind::nvswitch, DeviceKind::network_switch};

/// "gpu", "cpu", "pcie_switch", "nic", "nvswitch", "network_switch" (the YAML `kind:` values).
inline constexpr auto kDeviceKindNames = enum_names<DeviceKind>({{DeviceKind::gpu, "gpu"},
                                                                 {DeviceKind::cpu, "cpu"},
                                                                 {DeviceKind::pcie_switch, "pcie_switch"},
                                                                 {DeviceKind::nic, "nic"},
                                                                 {DeviceKind::nvswitch, "nvswitch"},
                                                                 {DeviceKind::network_switch, "network_switch"}});
inline std::string_view to_string(DeviceKind k) { return kDeviceKindNames.name(k); }
inline std::optional<DeviceKind> device_kind_from_string(std::string_view name) { return kDeviceKindNames.parse(name); }

/// Whether traffic between two other devices may pass through a device of this kind.
/// GPUs and NICs are end points only (a GPU does not forward peer-to-peer traffic; NICs are
/// entered only at the start or end of an inter-node path); switches forward, and CPU sockets
/// forward through their PCIe root complex and socket interconnect (UPI / xGMI).
bool forwards_traffic(DeviceKind k);

/// A GPU or other accelerator with its own high-bandwidth memory.
struct GpuSpec {
  std::string model;              // e.g. "H100-SXM5-80GB"
  Bytes hbm_capacity;             // usable device memory
  BytesPerSecond hbm_bandwidth;   // peak memory bandwidth (datasheet)
  PeakRates peak;                 // dense peak per precision
  int sm_count = 0;               // streaming multiprocessors (0: not published / not applicable)
  int nvlink_generation = 0;      // 0: no NVLink
  int nvlink_ports = 0;           // NVLink links ("bricks") per GPU
};

class CpuProfile;  // topologies/cpu_profile.hpp

/// NVMe drives on a CPU socket's PCIe root ports, all alike (`count` of them, striped): the
/// storage of the ssd placement tier (placement/tiers/ssd.cpp; costed by topologies/nvme_cost.hpp).
/// Figures are one drive's, as its data sheet states them.
struct NvmeSpec {
  std::string model;                     // e.g. "Samsung PM1743 15.36 TB"
  int count = 1;                         // drives, striped by the key-value store
  Bytes capacity;                        // one drive's
  BytesPerSecond sequential_read;        // one drive's sequential read (128 KiB, as data sheets state it)
  BytesPerSecond sequential_write;
  double random_read_iops = 0.0;         // one drive's 4 KiB random reads per second
  /// One drive's random-read bandwidth in pages (default: its sequential read: a page read
  /// never beats streaming).
  BytesPerSecond random_read;
  Seconds read_latency;                  // one page read at queue depth 1 (0: not given, no bound)
  int queue_depth = 0;                   // reads in flight per drive (0: not given, no bound)
  /// What one row read costs the drive: the key-value store's block (RocksDB's block_size,
  /// 4 KiB by default, the granule of the data sheets' random-read IOPS).
  Bytes page_size{4096.0};
};

/// CXL Type-3 memory expanders on a CPU socket's CXL ports (`count` alike, interleaved): the
/// storage of the cxl placement tier (placement/tiers/cxl.cpp), read by the socket's cores
/// (topologies/cpu_row_cost.hpp with_cxl_memory).
struct CxlMemorySpec {
  std::string model;         // e.g. "Micron CZ120 256 GB"
  int count = 1;             // expanders, interleaved
  Bytes capacity;            // one expander's
  BytesPerSecond bandwidth;  // one expander's sustained bandwidth over its link
  Seconds load_latency;      // load-to-use latency of a random read from the socket's cores
};

/// One CPU socket with the DRAM attached to it.
struct CpuSocketSpec {
  std::string model;                      // e.g. "Xeon Platinum 8480C"
  int cores = 0;                          // physical cores
  int threads_per_core = 1;               // hardware threads per core (vCPUs = cores x this)
  Hertz clock;                            // base (sustained all-core) clock
  Bytes dram_capacity;                    // DRAM attached to this socket
  BytesPerSecond dram_bandwidth;          // peak DRAM bandwidth of this socket (channels x rate)
  int memory_channels = 0;                // DRAM channels of this socket
  /// Sustained bandwidth one core achieves for random row gathers (64-byte cache-line
  /// granules; limited by outstanding misses / latency, not by DRAM peak). Bytes per
  /// second per core: rows/s for a row of R bytes is this / max(R, 64 B). With a row_profile
  /// it is derived: 64 B over the profile's time per 64-byte row, scaled to dram_latency.
  BytesPerSecond gather_bandwidth_per_core;
  /// Load-to-use latency of a DRAM miss (0: not given): the cost of each step of a chain of
  /// dependent misses, such as row updates one after another under a lock.
  Seconds dram_latency;
  PeakRates peak;                         // whole-socket peak (cores x clock x FLOP/cycle)
  /// The measured CPU profile whose GEMM efficiencies this socket's dense layers take, scaled
  /// to `peak` (platform key `profile`; null when not given).
  std::shared_ptr<const CpuProfile> profile;
  /// The measured CPU profile whose one-core row costs (gather, update, hash update), scaled by
  /// dram_latency over the profile's, time this socket's row accesses (platform key
  /// `row_profile`; null when not given: gather_bandwidth_per_core alone then;
  /// topologies/cpu_row_cost.hpp).
  std::shared_ptr<const CpuProfile> row_profile;
  /// NVMe drives on this socket (platform key `nvme`; none when not given).
  std::optional<NvmeSpec> nvme;
  /// CXL memory expanders on this socket (platform key `cxl`; none when not given).
  std::optional<CxlMemorySpec> cxl;
};

struct PcieSwitchSpec {
  std::string model;   // e.g. "PEX8796" ("" when not published)
  int generation = 0;  // PCIe generation of its ports (0: unspecified)
  int lanes = 0;       // total lanes (0: unspecified)
};

enum class NetworkProtocol : std::uint8_t { ethernet, roce, infiniband };
inline constexpr auto kNetworkProtocolNames = enum_names<NetworkProtocol>(
    {{NetworkProtocol::ethernet, "ethernet"}, {NetworkProtocol::roce, "roce"}, {NetworkProtocol::infiniband, "infiniband"}});
inline std::string_view to_string(NetworkProtocol p) { return kNetworkProtocolNames.name(p); }

struct NicSpec {
  std::string model;              // e.g. "ConnectX-7"
  BytesPerSecond bandwidth;       // per direction, all ports of this NIC together
  int ports = 1;
  NetworkProtocol protocol = NetworkProtocol::ethernet;
};

/// The NVSwitch crossbar of a node (one device may stand for several chips: `chips`).
struct NvSwitchSpec {
  std::string model;       // e.g. "NVSwitch gen3"
  int generation = 0;
  int ports = 0;           // NVLink ports per chip
  int chips = 1;           // chips this device stands for
};

/// A switch of the cluster fabric (leaf or spine).
struct NetworkSwitchSpec {
  std::string model;            // e.g. "Quantum-2 QM9700"
  int ports = 0;                // radix (0: unspecified)
  BytesPerSecond port_bandwidth;  // per port, per direction
};

/// A device's electrical power, from the optional `power: {idle: 70 W, max: 700 W}` of a
/// platform file's device (models/power.hpp turns it into a power draw from the simulated
/// activity): `idle` with nothing to do, `max` at full activity (the datasheet's TDP or
/// maximum power). A CPU socket may add the power of its DRAM (`dram_idle`, `dram_max`, the
/// DIMMs attached to the socket). `given` is false when the file says nothing: the device
/// then draws 0 W and the report lists it as having no power figures.
struct DevicePower {
  Watts idle;
  Watts max;
  Watts dram_idle;  // CPU sockets: the DRAM attached to the socket
  Watts dram_max;
  bool given = false;
};

using DeviceSpec = std::variant<GpuSpec, CpuSocketSpec, PcieSwitchSpec, NicSpec, NvSwitchSpec, NetworkSwitchSpec>;

/// The kind matching a spec alternative.
DeviceKind kind_of(const DeviceSpec& spec);

}  // namespace dlrmsim::topo
