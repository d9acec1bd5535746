// Graphviz output of a platform: one cluster subgraph per node, fabric switches outside,
// one undirected edge per link labelled with its kind and per-direction bandwidth.
#pragma once

#include <ostream>

#include "topologies/platform.hpp"

namespace dlrmsim::topo {

void write_dot(const Platform& platform, std::ostream& out);

}  // namespace dlrmsim::topo
