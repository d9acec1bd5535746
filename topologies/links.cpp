#include "topologies/links.hpp"

namespace dlrmsim::topo {

namespace {

using namespace unit_literals;

// Latencies: per traversal of one link, hardware only (software and launch overheads belong
// to the cost models). All are assumptions of the right order of magnitude:
//   NVLink, NVLink-C2C, AMD Infinity Fabric between GPUs: ~0.3 us per hop (SerDes + NVLink controller; GPU P2P latency measured with CUDA
//           is 1-2 us end to end, most of it software).
//   PCIe:   ~0.5 us per hop (a posted write through a root port or switch).
//   UPI / xGMI: ~0.1 us (the extra remote-socket memory latency is of that order).
//   Ethernet hop (NIC or switch port + cable): ~1 us; InfiniBand hop: ~0.3 us (switch port
//   to port latency of HDR/NDR switches is ~0.1-0.2 us, plus NIC and cable).
const std::array<LinkKindInfo, kAllLinkKinds.size()> kCatalogue{{
    {LinkKind::nvlink2, 25.0_GBps, 0.3_us, "nvlink",
     "NVIDIA Tesla V100 datasheet: 6 NVLink2 links, 300 GB/s bidirectional total"},
    {LinkKind::nvlink3, 25.0_GBps, 0.3_us, "nvlink",
     "NVIDIA A100 datasheet: 12 NVLink3 links, 600 GB/s bidirectional total"},
    {LinkKind::nvlink4, 25.0_GBps, 0.3_us, "nvlink",
     "NVIDIA H100 datasheet: 18 NVLink4 links, 900 GB/s bidirectional total"},
    {LinkKind::nvlink5, 50.0_GBps, 0.3_us, "nvlink",
     "NVIDIA DGX B200 and GB200 NVL72 datasheets: 18 NVLink5 links, 1.8 TB/s bidirectional total per GPU"},
    {LinkKind::nvlink_c2c, 450.0_GBps, 0.3_us, "c2c",
     "NVIDIA GH200 Grace Hopper Superchip datasheet: NVLink-C2C, 900 GB/s bidirectional total"},
    {LinkKind::pcie3x16, BytesPerSecond(8e9 * 16 * 128.0 / 130.0 / 8.0), 0.5_us, "pcie",
     "PCIe 3.0 base spec: 8 GT/s per lane, 128b/130b encoding"},
    {LinkKind::pcie4x16, BytesPerSecond(16e9 * 16 * 128.0 / 130.0 / 8.0), 0.5_us, "pcie",
     "PCIe 4.0 base spec: 16 GT/s per lane, 128b/130b encoding"},
    {LinkKind::pcie5x16, BytesPerSecond(32e9 * 16 * 128.0 / 130.0 / 8.0), 0.5_us, "pcie",
     "PCIe 5.0 base spec: 32 GT/s per lane, 128b/130b encoding"},
    {LinkKind::pcie6x16, BytesPerSecond(64e9 * 16 / 8.0 * 242.0 / 256.0), 0.5_us, "pcie",
     "PCIe 6.0 base spec: 64 GT/s per lane (PAM4), 256-byte flits with 242 bytes of TLPs and DLLPs"},
    {LinkKind::upi, 20.8_GBps, 0.1_us, "upi",
     "Intel Xeon Scalable (Skylake-SP) datasheet: UPI at 10.4 GT/s, 2 bytes per transfer per direction"},
    {LinkKind::xgmi, 36.0_GBps, 0.1_us, "upi",
     "assumption: one AMD EPYC 7002 xGMI-2 link of 16 lanes at 18 GT/s"},
    {LinkKind::infinity_fabric, 64.0_GBps, 0.3_us, "nvlink",
     "AMD Instinct MI300X data sheet: 7 Infinity Fabric links per GPU, 128 GB/s bidirectional each"},
    {LinkKind::ethernet, std::nullopt, 1.0_us, "network", "speed given per link or taken from the NIC"},
    {LinkKind::infiniband, std::nullopt, 0.3_us, "network",
     "speed given per link or taken from the NIC"},
}};

}  // namespace

const LinkKindInfo& link_kind_info(LinkKind k) { return kCatalogue[static_cast<std::size_t>(k)]; }

}  // namespace dlrmsim::topo
