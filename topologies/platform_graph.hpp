// The platform as a Boost.Graph: one vertex per device (vertex index == DeviceId index),
// one edge per link direction (bundled property: its DirectedLinkId). Used for searches
// that the closed-form routing does not cover (paths from fabric switches, max flow for the
// bisection bandwidth, DOT output) and available to any analysis that wants graph algorithms.
#pragma once

#include <boost/graph/adjacency_list.hpp>

#include "topologies/ids.hpp"

namespace dlrmsim::topo {

struct DeviceVertex {
  DeviceId device;
};
struct LinkEdge {
  DirectedLinkId directed;
};

using PlatformGraph =
    boost::adjacency_list<boost::vecS, boost::vecS, boost::bidirectionalS, DeviceVertex, LinkEdge>;

}  // namespace dlrmsim::topo
