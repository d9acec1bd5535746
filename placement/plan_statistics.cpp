// Planner statistics of a placement plan (placement/plan_statistics.hpp).
#include "placement/plan_statistics.hpp"

#include <algorithm>
#include <set>

#include "placement/lookup_cost.hpp"
#include "placement/tier.hpp"
#include "placement/torchrec_plan.hpp"

namespace dlrmsim::placement {

std::string_view sharding_abbreviation(Sharding s) {
  switch (s) {
    case Sharding::table_wise: return "TW";
    case Sharding::row_wise: return "RW";
    case Sharding::column_wise: return "CW";
    case Sharding::table_row_wise: return "TWRW";
    case Sharding::data_parallel: return "DP";
  }
  return "?";
}

double OwnerStatistics::figure(OwnerFigure f) const {
  switch (f) {
    case OwnerFigure::hbm: return hbm.value();
    case OwnerFigure::dram: return dram.value();
    case OwnerFigure::forward_compute: return forward_compute.value();
    case OwnerFigure::forward_comms: return forward_comms.value();
    case OwnerFigure::backward_compute: return backward_compute.value();
    case OwnerFigure::backward_comms: return backward_comms.value();
    case OwnerFigure::total: return total().value();
    case OwnerFigure::sent: return sent().value();
    case OwnerFigure::received: return received().value();
  }
  return 0.0;
}

PlanStatistics plan_statistics(const PlacementProblem& problem, const PlacementPlan& plan) {
  PlanStatistics st;
  st.global_batch = problem.global_batch;
  st.owners.resize(plan.devices.size());
  for (std::uint32_t d = 0; d < plan.devices.size(); ++d) {
    OwnerStatistics& o = st.owners[d];
    o.device = d;
    const DeviceUsage& u = plan.devices[d];
    o.name = u.name;
    o.kind = u.kind;
    if (u.kind == OwnerKind::gpu) o.hbm = u.used();
    else o.dram = u.used();
  }
  for (std::size_t i = 0; i < plan.tables.size(); ++i) {
    const TablePlacement& tp = plan.tables[i];
    const TableDemand& table = problem.tables.at(tp.table);
    const double distinct = tp.distinct_fraction ? *tp.distinct_fraction : table_distinct_fraction(problem, table);
    TableStatistics ts;
    ts.table = i;
    ts.name = tp.name;
    ts.tier = tp.shards.empty() ? tp.tier : tp.shards.front().tier;
    ts.sharding = tp.sharding;
    ts.shards = tp.shards.size();
    ts.pooling_factor = table.lookups_per_sample;
    ts.shard_type = std::string(sharding_abbreviation(tp.sharding));
    std::set<std::uint32_t> owners;
    std::set<std::string> kernels;
    for (const Shard& s : tp.shards) {
      const std::string_view kernel = torchrec_compute_kernel(s.tier, s.cache_rows > 0);
      kernels.insert(std::string(kernel.empty() ? to_string(s.tier) : kernel));
      const LookupWork work = shard_work(problem, table, s, tp.sharding, distinct);
      const auto& tier = tier_of(s.tier);
      for (std::uint32_t owner : s.owners) {
        owners.insert(owner);
        const PlacementDevice& dev = problem.devices.at(owner);
        const topo::DeviceProfile* profile = dev.kind == OwnerKind::gpu ? dev.profile.get() : nullptr;
        const ShardCost c = tier.cost({problem, dev, table, work, profile, problem.gpu_embedding});
        OwnerStatistics& o = st.owners.at(owner);
        o.forward_compute += c.forward_compute();
        o.backward_compute += c.backward_compute();
        o.forward_comms += c.forward_comms();
        o.backward_comms += c.backward_comms();
        o.ids_received += work.ids_in;
        o.outputs_sent += work.outputs_out;
        o.gradients_received += work.gradients_in;
        ++o.shards[static_cast<std::size_t>(tp.sharding)];
        ts.estimate += c.estimate();
        // A GPU's UVM shard keeps its weights and state in host memory: TorchRec's DDR of the rank.
        if (plan.devices.at(owner).kind == OwnerKind::gpu && tier.properties().hbm_cache) {
          o.dram += table.footprint(s.row_count(), s.column_count());
        }
      }
    }
    ts.owners = owners.size();
    for (const auto& k : kernels) ts.kernel += (ts.kernel.empty() ? "" : ",") + k;
    st.tables.push_back(std::move(ts));
  }
  for (OwnerKind kind : {OwnerKind::gpu, OwnerKind::cpu_socket, OwnerKind::parameter_server}) {
    std::vector<const OwnerStatistics*> members;
    for (const auto& o : st.owners) {
      if (o.kind == kind) members.push_back(&o);
    }
    if (members.empty()) continue;
    Imbalance im;
    im.kind = kind;
    im.devices = members.size();
    for (std::size_t f = 0; f < kOwnerFigures; ++f) {
      const auto figure = [f](const OwnerStatistics* o) { return o->figure(static_cast<OwnerFigure>(f)); };
      double sum = 0.0;
      for (const auto* o : members) sum += figure(o);
      const auto by = [&](const OwnerStatistics* a, const OwnerStatistics* b) { return figure(a) < figure(b); };
      // The first device with the largest (smallest) figure.
      const auto hi = std::max_element(members.begin(), members.end(), by);
      const auto lo = std::min_element(members.begin(), members.end(), by);
      im.mean[f] = sum / static_cast<double>(members.size());
      im.max_over_mean[f] = im.mean[f] > 0.0 ? figure(*hi) / im.mean[f] : 0.0;
      im.max_device[f] = (*hi)->device;
      im.min_device[f] = (*lo)->device;
    }
    st.imbalance.push_back(im);
  }
  return st;
}

}  // namespace dlrmsim::placement
