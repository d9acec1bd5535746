// The device and link catalogue: every kind is listed and its name round-trips, and the
// link figures are the ones their sources give.
#include <doctest/doctest.h>

#include "approx.hpp"

#include <set>

#include "topologies/devices.hpp"
#include "topologies/links.hpp"

using namespace dlrmsim;
using namespace dlrmsim::topo;

TEST_CASE("every device kind, precision and link kind is listed once and its name round-trips") {
  // The lists drive the YAML `kind:` values and error messages; a kind missing from a list
  // could never be read. Expected: 6 device kinds, 7 precisions, 10 link kinds, unique names.
  std::set<std::string> names;
  for (DeviceKind k : kAllDeviceKinds) {
    CHECK(device_kind_from_string(to_string(k)) == k);
    names.insert(std::string(to_string(k)));
  }
  CHECK(names.size() == 6);
  names.clear();
  for (Precision p : kAllPrecisions) {
    CHECK(precision_from_string(to_string(p)) == p);
    names.insert(std::string(to_string(p)));
  }
  CHECK(names.size() == kPrecisionCount);
  names.clear();
  for (LinkKind k : kAllLinkKinds) {
    CHECK(link_kind_from_string(to_string(k)) == k);
    CHECK(link_kind_info(k).kind == k);
    CHECK_FALSE(link_kind_info(k).source.empty());
    names.insert(std::string(to_string(k)));
  }
  CHECK(names.size() == kAllLinkKinds.size());
  CHECK_FALSE(device_kind_from_string("tpu").has_value());
  CHECK_FALSE(link_kind_from_string("nvlink6").has_value());
  // The DeviceSpec alternatives are in DeviceKind order.
  CHECK(kind_of(DeviceSpec{NicSpec{}}) == DeviceKind::nic);
  CHECK(kind_of(DeviceSpec{NetworkSwitchSpec{}}) == DeviceKind::network_switch);
}

TEST_CASE("link bandwidths per direction match their published derivations") {
  // NVLink 2/3/4: 25 GB/s per link per direction (V100: 6 links = 300 GB/s bidirectional;
  // A100: 12 = 600; H100: 18 = 900). PCIe x16 per direction: GT/s x 16 x 128/130 / 8.
  CHECK(link_kind_info(LinkKind::nvlink2).bandwidth->value() * 6 * 2 == dlrmsim::rel(300e9));
  CHECK(link_kind_info(LinkKind::nvlink3).bandwidth->value() * 12 * 2 == dlrmsim::rel(600e9));
  CHECK(link_kind_info(LinkKind::nvlink4).bandwidth->value() * 18 * 2 == dlrmsim::rel(900e9));
  CHECK(link_kind_info(LinkKind::pcie3x16).bandwidth->value() == dlrmsim::rel(15.754e9).epsilon(1e-3));
  CHECK(link_kind_info(LinkKind::pcie4x16).bandwidth->value() == dlrmsim::rel(31.508e9).epsilon(1e-3));
  CHECK(link_kind_info(LinkKind::pcie5x16).bandwidth->value() == dlrmsim::rel(63.015e9).epsilon(1e-3));
  // NVLink 5: 18 links = 1.8 TB/s bidirectional per GPU (DGX B200, GB200 NVL72); NVLink-C2C:
  // 900 GB/s bidirectional (GH200); PCIe 6.0 x16: 64 GT/s x 16 / 8 x 242/256 flit payload;
  // AMD Infinity Fabric: 7 links of 128 GB/s bidirectional = 896 GB/s per MI300X.
  CHECK(link_kind_info(LinkKind::nvlink5).bandwidth->value() * 18 * 2 == dlrmsim::rel(1.8e12));
  CHECK(link_kind_info(LinkKind::nvlink_c2c).bandwidth->value() * 2 == dlrmsim::rel(900e9));
  CHECK(link_kind_info(LinkKind::pcie6x16).bandwidth->value() == dlrmsim::rel(121.0e9).epsilon(1e-3));
  CHECK(link_kind_info(LinkKind::infinity_fabric).bandwidth->value() * 7 * 2 == dlrmsim::rel(896e9));
  CHECK(link_kind_info(LinkKind::infinity_fabric).resource_class == "nvlink");  // a GPU-to-GPU scale-up link
  CHECK(link_kind_info(LinkKind::nvlink_c2c).resource_class == "c2c");          // CPU-GPU, not GPU-GPU
  // Network links have no default speed: it comes from the file or the NIC.
  CHECK_FALSE(link_kind_info(LinkKind::ethernet).bandwidth.has_value());
  CHECK_FALSE(link_kind_info(LinkKind::infiniband).bandwidth.has_value());
  // Resource classes used by utilisation reports.
  CHECK(link_kind_info(LinkKind::xgmi).resource_class == "upi");
  CHECK(link_kind_info(LinkKind::pcie5x16).resource_class == "pcie");
  // GPUs and NICs never forward traffic; switches and CPU sockets do.
  CHECK_FALSE(forwards_traffic(DeviceKind::gpu));
  CHECK_FALSE(forwards_traffic(DeviceKind::nic));
  CHECK(forwards_traffic(DeviceKind::cpu));
  CHECK(forwards_traffic(DeviceKind::nvswitch));
}

TEST_CASE("directed link ids are 2 x link + direction") {
  CHECK(forward_direction(LinkId{7}).index == 14);
  CHECK(reverse_direction(LinkId{7}).index == 15);
  CHECK(link_of(DirectedLinkId{15}) == LinkId{7});
}
