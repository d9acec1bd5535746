// Reading platform files: every file of the platform library loads, inline platforms and
// references from scenario files, and bad files give errors naming file, line, key path and
// the expected form (with a "did you mean" for misspelt keys and kinds).
#include <doctest/doctest.h>

#include "approx.hpp"

#include <filesystem>
#include <sstream>

#include "common/config.hpp"
#include "topologies/platform_loader.hpp"
#include "paths.hpp"

using namespace dlrmsim;
using namespace dlrmsim::topo;

namespace {

const std::string kLibrary = dlrmsim::testing::kRoot + "/configs/platforms";

/// A small valid platform; tests replace one line to break it.
const std::string kGood = R"(name: box
node_templates:
  box:
    devices:
      - name: gpu
        kind: gpu
        count: 2
        model: test-gpu
        hbm_capacity: 80 GB
        hbm_bandwidth: 2 TB/s
        peak_flops: {fp32: 20 TFLOP/s}
      - {name: nic0, kind: nic, bandwidth: 100 Gbit/s}
      - {name: cpu0, kind: cpu, model: c, cores: 8, clock: 2 GHz, dram_capacity: 64 GB, dram_bandwidth: 100 GB/s, memory_channels: 4, gather_bandwidth_per_core: 5 GB/s}
    links:
      - {kind: nvlink3, between: [gpu0, gpu1], count: 4}
      - {kind: pcie4x16, from: "gpu*", to: cpu0}
      - {kind: pcie4x16, between: [nic0, cpu0]}
)";

std::string replace(std::string text, const std::string& from, const std::string& to) {
  const auto at = text.find(from);
  REQUIRE_MESSAGE(at != std::string::npos, "fixture lacks '" << from << "'");
  text.replace(at, from.size(), to);
  return text;
}

Platform load_text(const std::string& text) { return load_platform(ConfigNode::load_string(text, "bad.yaml")); }

}  // namespace

TEST_CASE("every file of the platform library loads") {
  // The library (configs/platforms/*.yaml) must stay loadable: a file that no longer parses or
  // builds fails here with its own error message. At least the 17 files of the library exist.
  int loaded = 0;
  for (const auto& entry : std::filesystem::directory_iterator(kLibrary)) {
    if (entry.path().extension() != ".yaml") continue;
    CAPTURE(entry.path().string());
    const Platform p = load_platform(entry.path().string());
    CHECK_FALSE(p.name().empty());
    CHECK(p.nodes().size() >= 1);
    ++loaded;
  }
  CHECK(loaded >= 17);
}

TEST_CASE("the fixture platform loads with the figures it states") {
  // 2 GPUs joined by 4 NVLink3 links (4 x 25 GB/s = 100 GB/s per direction), each on PCIe 4 to the CPU.
  const Platform p = load_text(kGood);
  CHECK(p.all_gpus().size() == 2);
  CHECK(p.route_bandwidth(*p.find_device("gpu0"), *p.find_device("gpu1")).value() == dlrmsim::rel(100e9));
  CHECK(p.gpu_spec(*p.find_device("gpu1")).hbm_capacity.value() == dlrmsim::rel(80e9));
  CHECK(p.cpu_spec(*p.find_device("cpu0")).threads_per_core == 1);
}

TEST_CASE("a scenario's platform key may be a path or an inline mapping") {
  // Path relative to the scenario file's directory; the inline form is the file's content.
  const ConfigNode scenario = ConfigNode::load_string("platform: dgx-h100.yaml\n", kLibrary + "/scenario.yaml");
  CHECK(load_platform_reference(scenario.child("platform")).name() == "dgx-h100");
  const ConfigNode inline_scenario = ConfigNode::load_string("platform:\n" + [] {
    std::string indented;
    std::string line;
    std::istringstream in(kGood);
    while (std::getline(in, line)) indented += "  " + line + "\n";
    return indented;
  }(), "scenario.yaml");
  CHECK(load_platform_reference(inline_scenario.child("platform")).name() == "box");
}

TEST_CASE("bad platform files are located errors with the expected form") {
  // Each case breaks one line of the fixture; the message must name the file, the line and
  // column, the key path and say what was expected.
  SUBCASE("unknown device kind") {
    CHECK_THROWS_WITH_AS(load_text(replace(kGood, "kind: nic,", "kind: nick,")),
                         "bad.yaml:12:28: node_templates.box.devices.1.kind: unknown device kind 'nick'; expected one "
                         "of gpu, cpu, pcie_switch, nic, nvswitch, network_switch; did you mean 'nic'?",
                         ConfigError);
  }
  SUBCASE("missing unit") {
    CHECK_THROWS_WITH_AS(load_text(replace(kGood, "hbm_capacity: 80 GB", "hbm_capacity: 80")),
                         doctest::Contains("bad.yaml:9:23: node_templates.box.devices.0.hbm_capacity: "), ConfigError);
    CHECK_THROWS_WITH_AS(load_text(replace(kGood, "hbm_capacity: 80 GB", "hbm_capacity: 80")),
                         doctest::Contains("GiB"), ConfigError);  // the expected form, e.g. '80 GiB'
  }
  SUBCASE("link to a device that does not exist") {
    CHECK_THROWS_WITH_AS(load_text(replace(kGood, "between: [gpu0, gpu1]", "between: [gpu0, gpu2]")),
                         "bad.yaml:15:41: node_templates.box.links.0.between.1: link to a device that does not "
                         "exist: no device of node template 'box' matches 'gpu2'; did you mean 'gpu0'?; expected a "
                         "device name ('gpu0'), 'name*' or 'name[first-last]'",
                         ConfigError);
    CHECK_THROWS_WITH_AS(load_text(replace(kGood, "from: \"gpu*\"", "from: \"gpu[0-3]\"")),
                         doctest::Contains("'gpu2' (from 'gpu[0-3]') is not a device of node template 'box'"),
                         ConfigError);
  }
  SUBCASE("negative bandwidth") {
    CHECK_THROWS_WITH_AS(load_text(replace(kGood, "bandwidth: 100 Gbit/s", "bandwidth: -100 Gbit/s")),
                         "bad.yaml:12:44: node_templates.box.devices.1.bandwidth: value -100 Gbit/s must be positive",
                         ConfigError);
    CHECK_THROWS_WITH_AS(load_text(replace(kGood, "count: 4}", "count: 4, bandwidth: -5 GB/s}")),
                         doctest::Contains("links.0.bandwidth: value -5 GB/s must be positive"), ConfigError);
  }
  SUBCASE("misspelt key") {
    CHECK_THROWS_WITH_AS(load_text(replace(kGood, "hbm_bandwidth: 2 TB/s", "hbm_bandwith: 2 TB/s")),
                         "bad.yaml:10:9: node_templates.box.devices.0.hbm_bandwith: unknown key 'hbm_bandwith'; "
                         "did you mean 'hbm_bandwidth'?",
                         ConfigError);
    // The key left out entirely is reported as missing, at its mapping.
    CHECK_THROWS_WITH_AS(load_text(replace(kGood, "        hbm_bandwidth: 2 TB/s\n", "")),
                         "bad.yaml:5:9: node_templates.box.devices.0: missing required key 'hbm_bandwidth'",
                         ConfigError);
    CHECK_THROWS_WITH_AS(load_text(replace(kGood, "count: 2\n", "count: 2\n        sm_cuont: 80\n")),
                         "bad.yaml:8:9: node_templates.box.devices.0.sm_cuont: unknown key 'sm_cuont'; did you mean "
                         "'sm_count'?",
                         ConfigError);
    CHECK_THROWS_WITH_AS(load_text(replace(kGood, "{fp32: 20 TFLOP/s}", "{fp23: 20 TFLOP/s}")),
                         doctest::Contains("unknown precision 'fp23'"), ConfigError);
  }
  SUBCASE("unknown link kind and unknown template") {
    CHECK_THROWS_WITH_AS(load_text(replace(kGood, "kind: nvlink3", "kind: nvlink6")),
                         doctest::Contains("links.0.kind: unknown link kind 'nvlink6'"), ConfigError);
    const std::string cluster = kGood + "cluster:\n  groups:\n    - {name: n, template: boxx, count: 4}\n"
                                        "  fabric: {kind: fat_tree, hosts_per_leaf: 2}\n";
    CHECK_THROWS_WITH_AS(load_text(cluster), doctest::Contains("unknown node template 'boxx'; did you mean 'box'?"),
                         ConfigError);
  }
  SUBCASE("a template from a file that does not exist") {
    const std::string text = "name: c\nnode_templates:\n  t: {from_file: no-such-file.yaml}\n";
    CHECK_THROWS_WITH_AS(load_text(text), doctest::Contains("bad.yaml:3:18: node_templates.t.from_file: cannot open"),
                         ConfigError);
  }
  SUBCASE("fabric errors name the cluster section") {
    const std::string cluster = kGood + "cluster:\n  groups:\n    - {name: n, template: box, count: 4}\n"
                                        "  fabric: {kind: fat_tree, hosts_per_leaf: 3, oversubscription: 2}\n";
    CHECK_THROWS_WITH_AS(load_text(cluster), doctest::Contains("bad.yaml:19:3: cluster: platform 'box': fabric"),
                         ConfigError);
    const std::string misplaced = kGood + "cluster:\n  groups:\n    - {name: n, template: box, count: 4}\n"
                                          "  fabric: {kind: single_switch, hosts_per_leaf: 2}\n";
    CHECK_THROWS_WITH_AS(load_text(misplaced), doctest::Contains("unknown key 'hosts_per_leaf'"), ConfigError);
  }
}

// System: the fixture box grown past the size limits. Inputs: a cluster of 10^9 boxes (4 x
// 10^9 devices), a device entry with count 10^8, a range selector of 10^11 devices, an empty
// group list. Expected: each is a located error raised before anything is allocated for it
// (10^9 nodes used to end in std::bad_alloc), naming the limit.
TEST_CASE("platform sizes are bounded before anything is allocated") {
  const std::string cluster = kGood + "cluster:\n  groups:\n    - {name: n, template: box, count: 1000000000}\n"
                                      "  fabric: {kind: single_switch}\n";
  CHECK_THROWS_WITH_AS(load_text(cluster),
                       doctest::Contains("bad.yaml:20:39: cluster.groups.0.count: 1000000000 nodes of template 'box' "
                                         "bring the platform to 4000000000 devices"),
                       ConfigError);
  CHECK_THROWS_WITH_AS(load_text(replace(kGood, "count: 2\n", "count: 100000000\n")),
                       doctest::Contains("a node template has at most 256"), ConfigError);
  CHECK_THROWS_WITH_AS(load_text(replace(kGood, "from: \"gpu*\"", "from: \"gpu[0-99999999999]\"")),
                       doctest::Contains("device range 'gpu[0-99999999999]' names more than 256 devices"), ConfigError);
  CHECK_THROWS_WITH_AS(load_text(kGood + "cluster:\n  groups: []\n  fabric: {kind: single_switch}\n"),
                       doctest::Contains("bad.yaml:19:11: cluster.groups: an empty list of node groups"), ConfigError);
}

// System: the fixture with gpu1 left without links (the NVLink removed, the PCIe pattern
// reduced to gpu0). Expected: the platform loads, and unreachable_devices names gpu1 as
// unable to reach gpu0 and cpu0, and gpu0 and cpu0 as unable to reach gpu1.
TEST_CASE("devices without a path of links are reported") {
  std::string text = replace(kGood, "      - {kind: nvlink3, between: [gpu0, gpu1], count: 4}\n", "");
  text = replace(text, "from: \"gpu*\"", "from: gpu0");
  const Platform p = load_text(text);
  const auto lines = unreachable_devices(p);
  REQUIRE(lines.size() == 3);
  CHECK(lines[0] == "node template 'box': gpu0 has no path of links to gpu1");
  CHECK(lines[1] == "node template 'box': gpu1 has no path of links to gpu0, cpu0");
  CHECK(lines[2] == "node template 'box': cpu0 has no path of links to gpu1");
  CHECK(unreachable_devices(load_text(kGood)).empty());
}
