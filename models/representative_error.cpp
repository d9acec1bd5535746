#include "models/representative_error.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>

namespace dlrmsim::models {

namespace {

using topo::FabricKind;

// Printed by `tools/fidelity_errors.sh build/dlrmsim` (2026-12-06, main after the rail
// routing fix and the H100's measured launch figures, 2-core x86 machine; deterministic: the
// step times do not depend on the machine). Columns: fabric, oversubscription, trainer nodes, representative step (s),
// every-node step (s).
constexpr std::array kMeasured{
    // dcnv2_superpod_4096gpu: DGX H100, rail-optimised, 32 nodes per leaf group, 1:1.
    RepresentativeErrorMeasurement{FabricKind::rail_optimized, 1.0, 8, 0.001501209, 0.001587603},
    RepresentativeErrorMeasurement{FabricKind::rail_optimized, 1.0, 16, 0.001386546, 0.001335708},
    RepresentativeErrorMeasurement{FabricKind::rail_optimized, 1.0, 64, 0.001513868, 0.00152558},
    RepresentativeErrorMeasurement{FabricKind::rail_optimized, 1.0, 128, 0.001682705, 0.001693987},
    RepresentativeErrorMeasurement{FabricKind::rail_optimized, 1.0, 256, 0.002009364, 0.002017162},
    RepresentativeErrorMeasurement{FabricKind::rail_optimized, 1.0, 512, 0.001755794, 0.001758342},
    // goodput_dcnv2_512gpu: DGX H100, fat tree, 4 nodes per leaf, 2:1.
    RepresentativeErrorMeasurement{FabricKind::fat_tree, 2.0, 16, 0.001469228, 0.001358578},
    RepresentativeErrorMeasurement{FabricKind::fat_tree, 2.0, 64, 0.001672784, 0.001737683},
    RepresentativeErrorMeasurement{FabricKind::fat_tree, 2.0, 128, 0.001850567, 0.001928696},
};

}  // namespace

std::span<const RepresentativeErrorMeasurement> representative_error_measurements() { return kMeasured; }

const RepresentativeErrorMeasurement* representative_error_for(const std::optional<topo::FabricSpec>& fabric,
                                                               std::size_t nodes) {
  if (!fabric) return nullptr;
  const bool same_oversubscription_measured = std::any_of(kMeasured.begin(), kMeasured.end(), [&](const auto& m) {
    return m.fabric == fabric->kind && m.oversubscription == fabric->oversubscription;
  });
  const RepresentativeErrorMeasurement* largest_below = nullptr;
  const RepresentativeErrorMeasurement* smallest = nullptr;
  for (const auto& m : kMeasured) {
    if (m.fabric != fabric->kind) continue;
    if (same_oversubscription_measured && m.oversubscription != fabric->oversubscription) continue;
    if (m.nodes <= nodes && (!largest_below || m.nodes > largest_below->nodes)) largest_below = &m;
    if (!smallest || m.nodes < smallest->nodes) smallest = &m;
  }
  return largest_below ? largest_below : smallest;
}

std::string describe(const RepresentativeErrorMeasurement& m) {
  char text[200];
  std::snprintf(text, sizeof text, "%+.1f %% against every node, measured on DLRM-DCNv2 at %zu nodes of a %s %g:1 fabric",
                100.0 * m.error(), m.nodes, m.fabric == FabricKind::rail_optimized ? "rail-optimised" : "fat-tree",
                m.oversubscription);
  return text;
}

}  // namespace dlrmsim::models
