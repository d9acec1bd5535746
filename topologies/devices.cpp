#include "topologies/devices.hpp"

namespace dlrmsim::topo {

namespace {
constexpr std::array<std::string_view, kPrecisionCount> kPrecisionNames{"fp64", "fp32", "tf32", "bf16",
                                                                        "fp16", "fp8",  "int8"};
constexpr std::array<std::string_view, kAllDeviceKinds.size()> kDeviceKindNames{
    "gpu", "cpu", "pcie_switch", "nic", "nvswitch", "network_switch"};
}  // namespace

std::string_view to_string(Precision p) { return kPrecisionNames[static_cast<std::size_t>(p)]; }

std::optional<Precision> precision_from_string(std::string_view name) {
  for (Precision p : kAllPrecisions) {
    if (to_string(p) == name) return p;
  }
  return std::nullopt;
}

std::string_view to_string(DeviceKind k) { return kDeviceKindNames[static_cast<std::size_t>(k)]; }

std::optional<DeviceKind> device_kind_from_string(std::string_view name) {
  for (DeviceKind k : kAllDeviceKinds) {
    if (to_string(k) == name) return k;
  }
  return std::nullopt;
}

bool forwards_traffic(DeviceKind k) {
  switch (k) {
    case DeviceKind::gpu:
    case DeviceKind::nic:
      return false;
    case DeviceKind::cpu:
    case DeviceKind::pcie_switch:
    case DeviceKind::nvswitch:
    case DeviceKind::network_switch:
      return true;
  }
  return false;
}

std::string_view to_string(NetworkProtocol p) {
  switch (p) {
    case NetworkProtocol::ethernet:
      return "ethernet";
    case NetworkProtocol::roce:
      return "roce";
    case NetworkProtocol::infiniband:
      return "infiniband";
  }
  return "?";
}

DeviceKind kind_of(const DeviceSpec& spec) {
  // The variant's alternatives are declared in DeviceKind order.
  return kAllDeviceKinds[spec.index()];
}

}  // namespace dlrmsim::topo
