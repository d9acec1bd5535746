// Graphviz output of a platform.
#include <doctest/doctest.h>

#include <sstream>

#include "topologies/dot.hpp"
#include "topologies/platform_loader.hpp"
#include "paths.hpp"

using namespace dlrmsim::topo;

TEST_CASE("DOT output has one cluster per node, one vertex per device and one edge per link") {
  // System: big-basin-cluster-8.yaml: 8 nodes of 15 devices plus 1 switch = 121 vertices;
  // 8 x 30 node links + 8 host links = 248 edges.
  const Platform p = load_platform(dlrmsim::testing::kRoot + "/configs/platforms/big-basin-cluster-8.yaml");
  std::ostringstream out;
  write_dot(p, out);
  const std::string dot = out.str();
  auto count = [&](const std::string& needle) {
    std::size_t n = 0;
    for (auto at = dot.find(needle); at != std::string::npos; at = dot.find(needle, at + 1)) ++n;
    return n;
  };
  CHECK(dot.rfind("graph \"big-basin-cluster-8\" {", 0) == 0);
  CHECK(count("subgraph \"cluster_") == 8);
  CHECK(count(" [label=\"") == 121 + 248);
  CHECK(count(" -- ") == 248);
  CHECK(count("nvlink2 x2") == 8 * 8);  // 8 doubled NVLink pairs per Big Basin
  CHECK(dot.back() == '\n');
}
