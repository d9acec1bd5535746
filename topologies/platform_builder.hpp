// Building a Platform in code: node templates, node groups and a fabric.
//
// The YAML loader (platform_loader.hpp) is a thin layer over this builder; tests and tools
// may use it directly:
//
//   PlatformBuilder b("two-gpu box");
//   NodeTemplate t{"box"};
//   auto g0 = t.add_device("gpu0", GpuSpec{...});
//   auto g1 = t.add_device("gpu1", GpuSpec{...});
//   t.add_link(g0, g1, LinkKind::nvlink3, /*count=*/4);
//   b.add_template(std::move(t));
//   b.add_group("trainers", "box", 16, "trainer");
//   b.set_fabric(FabricSpec{...});
//   Platform p = std::move(b).build();
//
// build() checks what the loader cannot see locally (every node of a cluster with a fabric
// has a NIC, rail counts match, every template is connected) and throws PlatformError
// with a message naming the template, group or device.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "topologies/devices.hpp"
#include "topologies/fabric.hpp"
#include "topologies/links.hpp"
#include "topologies/platform.hpp"

namespace dlrmsim::topo {

struct TemplateDevice {
  std::string name;  // unique in the template: "gpu0"
  DeviceSpec spec;
  DevicePower power;
};

struct TemplateLink {
  std::uint32_t a = 0;  // indices into NodeTemplate::devices
  std::uint32_t b = 0;
  LinkKind kind = LinkKind::pcie3x16;
  int count = 1;
  std::optional<BytesPerSecond> bandwidth;  // per direction, all lanes; nullopt: count x catalogue
  std::optional<Seconds> latency;           // nullopt: catalogue
};

/// A server design: its devices and the links between them.
struct NodeTemplate {
  std::string name;
  std::vector<TemplateDevice> devices;
  std::vector<TemplateLink> links;
  std::optional<NodePrice> price{};  // `price:` of the template (models/cost.hpp)
  DevicePower chassis_power{};       // `chassis_power:` of the template (Node::chassis_power)
  std::vector<std::string> files{};  // files read for it: from_file template files, CPU profiles

  /// Adds a device and returns its index; PlatformError if the name is taken.
  std::uint32_t add_device(std::string device_name, DeviceSpec spec, DevicePower power = {});
  /// Adds a link; PlatformError for a bad index, a self-loop, a non-positive count or bandwidth,
  /// an ethernet / infiniband link without a bandwidth, or an nvlink_c2c link that does not
  /// join a CPU and a GPU.
  void add_link(std::uint32_t a, std::uint32_t b, LinkKind kind, int count = 1,
                std::optional<BytesPerSecond> bandwidth = std::nullopt, std::optional<Seconds> latency = std::nullopt);
  /// The first scale-up domain (GPUs joined by NVLink-class links, directly or through
  /// NVSwitches) holding GPUs of two models, described; nullopt when every domain holds one
  /// model. The loader checks it after each link, so the error points at the joining link.
  [[nodiscard]] std::optional<std::string> mixed_scale_up_domain() const;
  /// Index of a device by name, nullopt if absent.
  [[nodiscard]] std::optional<std::uint32_t> find(const std::string& device_name) const;
};

class PlatformBuilder {
 public:
  explicit PlatformBuilder(std::string name, std::string description = {}, std::string source = {});

  /// PlatformError if a template of that name exists.
  void add_template(NodeTemplate t);
  /// `count` nodes of template `template_name`; PlatformError for an unknown template, a
  /// duplicate group name or count < 1.
  void add_group(std::string group_name, const std::string& template_name, int count, std::string role = {});
  void set_fabric(FabricSpec fabric);
  void set_storage(StorageSpec storage);

  /// A platform with no group gets one node of its only template (PlatformError if there
  /// are several templates and no group).
  Platform build() &&;

 private:
  struct Group {
    std::string name;
    std::string template_name;
    int count = 0;
    std::string role;
  };
  std::string name_;
  std::string description_;
  std::string source_;
  std::vector<NodeTemplate> templates_;
  std::vector<Group> groups_;
  std::optional<FabricSpec> fabric_;
  std::optional<StorageSpec> storage_;
};

}  // namespace dlrmsim::topo
