#include "topologies/devices.hpp"

namespace dlrmsim::topo {

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

DeviceKind kind_of(const DeviceSpec& spec) {
  // The variant's alternatives are declared in DeviceKind order.
  return kAllDeviceKinds[spec.index()];
}

}  // namespace dlrmsim::topo
