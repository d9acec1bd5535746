#include "models/stragglers.hpp"
#include "sim/critical_path.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>

#include "common/param.hpp"
#include "models/scenario_parameters.hpp"

namespace dlrmsim::models {
namespace {

/// SplitMix64's finaliser (Steele, Lea, Flood, "Fast splittable pseudorandom number
/// generators", OOPSLA 2014): a bijective mix of 64 bits.
std::uint64_t mix(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

/// A uniform number in [0, 1) from the top 53 bits.
double unit(std::uint64_t x) { return static_cast<double>(x >> 11) * 0x1.0p-53; }

/// The largest slowdown a factor may give: a member 1000x slower is a failure, not a
/// straggler (models/goodput.hpp models failures); it also keeps task times within the
/// engine's range.
constexpr double kMaxFactor = 1000.0;

void check_factor(const ConfigNode& node, double f) {
  if (!(f <= kMaxFactor)) node.fail("expected a slowdown factor of at most 1000 (a member 1000x slower has failed)");
}

// The `stragglers:` keys read below (straggler_parameter_rows() lists them).
using Random = StragglerOptions::Random;
constexpr std::string_view kFactorMessage = "expected a slowdown factor of at most 1000 (a member 1000x slower has failed)";
constexpr Range<double> kFactorRange{.min = Bound<double>{0.0, false}, .max = Bound<double>{kMaxFactor, true, kFactorMessage}};
const Choice<Random::Per> kPer{.key_path = "stragglers.random.per",
                               .words = {{"node", Random::Per::node}, {"gpu", Random::Per::gpu}},
                               .fallback = Random::Per::node,
                               .meaning = "What is drawn."};
const Param<double> kProbability{
    .key_path = "stragglers.random.probability", .unit = "probability", .absent = "required (bernoulli)",
    .range = {.min = Bound<double>{0.0, true, "expected a probability in [0, 1]"},
              .max = Bound<double>{1.0, true, "expected a probability in [0, 1]"}, .interval = true},
    .meaning = "Chance of being slow."};
const Param<double> kSlowdown{.key_path = "stragglers.random.slowdown", .unit = "factor", .absent = "required (bernoulli)",
                              .range = kFactorRange, .meaning = "Slowdown when slow."};
const Param<double> kSigma{
    .key_path = "stragglers.random.sigma", .absent = "required (lognormal)",
    .range = {.min = Bound<double>{0.0},
              .max = Bound<double>{2.0, true, "expected sigma of at most 2 (a factor of e^2 = 7.4 per standard deviation)"},
              .interval = true},
    .meaning = "Standard deviation of the log of the slowdown."};
const Param<double> kMedian{.key_path = "stragglers.random.median", .unit = "factor", .fallback = 1.0,
                            .range = kFactorRange, .meaning = "Median slowdown (lognormal)."};
const Param<std::int64_t> kSeed{.key_path = "stragglers.random.seed", .fallback = 1,
                                .range = {.min = Bound<std::int64_t>{0}},
                                .meaning = "Seed of the draws (runs are repeatable)."};

std::optional<topo::NodeId> find_node(const topo::Platform& platform, const std::string& name) {
  for (const auto& n : platform.nodes()) {
    if (n.name == name) return n.id;
  }
  return std::nullopt;
}

}  // namespace

std::vector<ParameterRow> straggler_parameter_rows() {
  return {
      Parameter{"stragglers", "", "none (no slow members)", "{slowdown, random}", "Slow members (models/stragglers.hpp)."},
      Parameter{"stragglers.applies_to", "", "[compute, memory]", "a list of compute, memory, links",
                "What a slow member's factor slows: compute tasks, memory-bound work (lookups, pooling, updates), "
                "transfers over its links."},
      Parameter{"stragglers.slowdown", "", "none", "a mapping of node or device names to factors", "Fixed slow members."},
      Parameter{"stragglers.slowdown.*", "factor", "required", "> 0, <= 1000",
                "How many times slower the named node or device is."},
      Parameter{"stragglers.random", "", "none", "a mapping", "Members slowed at random, drawn per step."},
      kPer.row(),
      Parameter{"stragglers.random.distribution", "", "required", "bernoulli | uniform | lognormal",
                "Distribution of the slowdown."},
      kProbability.row(),
      kSlowdown.row(),
      Parameter{"stragglers.random.min", "factor", "required (uniform)", "> 0", "Smallest slowdown."},
      Parameter{"stragglers.random.max", "factor", "required (uniform)", ">= min, <= 1000", "Largest slowdown."},
      kSigma.row(),
      kMedian.row(),
      kSeed.row(),
  };
}

StragglerOptions StragglerOptions::from_config(const ConfigNode& node, const topo::Platform& platform) {
  if (!node.is_map()) node.fail("expected a mapping with slowdown and/or random");
  StragglerOptions o;
  if (auto fixed = node.optional_child("slowdown")) {
    if (!fixed->is_map()) fixed->fail("expected a mapping of node or device name to a slowdown factor, such as {dgx3: 2}");
    for (const auto& [name, value] : fixed->entries()) {
      const double f = value.as<double>();
      value.check_positive(f, false);
      check_factor(value, f);
      if (!find_node(platform, name) && !platform.find_device(name)) {
        std::vector<std::string> names;
        for (const auto& n : platform.nodes()) names.push_back(n.name);
        for (const auto& d : platform.devices()) {
          if (d.kind == topo::DeviceKind::gpu || d.kind == topo::DeviceKind::cpu) names.push_back(d.name);
        }
        std::string msg = "no node or device named '" + name + "' in platform '" + platform.name() + "'";
        if (auto guess = did_you_mean(name, names)) msg += "; did you mean '" + *guess + "'?";
        value.fail(msg);
      }
      o.fixed[name] = f;
    }
  }
  if (auto rnd = node.optional_child("random")) {
    if (!rnd->is_map()) rnd->fail("expected a mapping such as {per: node, distribution: bernoulli, probability: 0.01, slowdown: 2}");
    Random r;
    r.per = kPer.read(*rnd);
    const std::string dist = rnd->get_choice("distribution", {"bernoulli", "uniform", "lognormal"});
    if (dist == "bernoulli") {
      r.distribution = Random::Distribution::bernoulli;
      r.probability = kProbability.read(*rnd);
      r.slowdown = kSlowdown.read(*rnd);
    } else if (dist == "uniform") {
      r.distribution = Random::Distribution::uniform;
      r.min = rnd->get_positive<double>("min");
      r.max = rnd->get_positive<double>("max");
      if (r.max < r.min) rnd->child("max").fail("max is below min; expected min <= max");
      check_factor(rnd->child("max"), r.max);
    } else {
      r.distribution = Random::Distribution::lognormal;
      r.sigma = kSigma.read(*rnd);
      r.median = kMedian.read(*rnd);
    }
    for (double v : {r.slowdown, r.min, r.max, r.sigma, r.median}) {
      if (!std::isfinite(v)) rnd->fail("expected finite parameters");
    }
    r.seed = static_cast<std::uint64_t>(kSeed.read(*rnd));
    rnd->finish();
    o.random = r;
  }
  if (auto targets = node.optional_child("applies_to")) {
    const auto items = targets->is_sequence() ? targets->elements() : std::vector<ConfigNode>{*targets};
    if (items.empty()) targets->fail("expected a list of compute, memory and links");
    o.compute = o.memory = o.links = false;
    const std::vector<std::string> allowed{"compute", "memory", "links"};
    for (const auto& item : items) {
      const std::string t = item.as<std::string>();
      if (t == "compute") {
        o.compute = true;
      } else if (t == "memory") {
        o.memory = true;
      } else if (t == "links") {
        o.links = true;
      } else {
        const auto guess = did_you_mean(t, allowed);
        item.fail("unknown target '" + t + "'; expected compute, memory or links" +
                  (guess ? "; did you mean '" + *guess + "'?" : ""));
      }
    }
  }
  node.finish();
  return o;
}

Slowdowns::Slowdowns(StragglerOptions options, topo::Platform platform)
    : options_(std::move(options)), platform_(std::move(platform)) {
  fixed_.assign(platform_.devices().size(), 1.0);
  device_named_.assign(platform_.devices().size(), false);
  for (const auto& [name, f] : options_.fixed) {
    if (const auto n = find_node(platform_, name)) {
      const auto& node = platform_.node(*n);
      for (std::uint32_t k = 0; k < node.device_count; ++k) fixed_[node.first_device.index + k] *= f;
    } else if (const auto d = platform_.find_device(name)) {
      fixed_[d->index] *= f;
      device_named_[d->index] = true;
    }
  }
}

double Slowdowns::drawn(int step, topo::DeviceId d) const {
  if (!options_.random) return 1.0;
  const auto& r = *options_.random;
  const auto& dev = platform_.device(d);
  std::uint64_t member = 0;
  if (r.per == StragglerOptions::Random::Per::node) {
    if (platform_.is_fabric_device(d)) return 1.0;
    member = dev.node.index;
  } else {
    if (dev.kind != topo::DeviceKind::gpu) return 1.0;
    member = d.index;
  }
  const std::uint64_t key = mix(mix(mix(r.seed) ^ static_cast<std::uint64_t>(step)) ^ member);
  const double u1 = unit(mix(key));
  switch (r.distribution) {
    case StragglerOptions::Random::Distribution::bernoulli:
      return u1 < r.probability ? r.slowdown : 1.0;
    case StragglerOptions::Random::Distribution::uniform:
      return r.min + u1 * (r.max - r.min);
    case StragglerOptions::Random::Distribution::lognormal: {
      const double u2 = unit(mix(key ^ 0x5bd1e995ull));
      const double z = std::sqrt(-2.0 * std::log1p(-u1)) * std::cos(2.0 * std::numbers::pi * u2);
      return std::clamp(r.median * std::exp(r.sigma * z), 1.0 / kMaxFactor, kMaxFactor);
    }
  }
  return 1.0;
}

double Slowdowns::own(int step, topo::DeviceId d) const { return fixed_[d.index] * drawn(step, d); }

double Slowdowns::link_factor(int step, topo::DirectedLinkId link, bool representative) const {
  const auto& l = platform_.link(topo::link_of(link));
  double f = 1.0;
  for (topo::DeviceId end : {l.a, l.b}) {
    f = std::max(f, representative ? largest_stood_for(step, end).factor : own(step, end));
  }
  return f;
}

Slowdowns::Largest Slowdowns::largest_stood_for(int step, topo::DeviceId d) const {
  Largest best{own(step, d), d};
  if (platform_.is_fabric_device(d)) return best;
  const auto& dev = platform_.device(d);
  const auto& group = platform_.node(dev.node).group;
  for (const auto& n : platform_.nodes_in(group)) {
    const topo::DeviceId other{n.first_device.index + dev.local_index};
    const double f = own(step, other);
    if (f > best.factor) best = {f, other};
  }
  return best;
}

std::string Slowdowns::member_name(topo::DeviceId d) const {
  const auto& dev = platform_.device(d);
  const bool per_device = (options_.random && options_.random->per == StragglerOptions::Random::Per::gpu) ||
                          device_named_[d.index] || platform_.is_fabric_device(d);
  return per_device ? dev.name : platform_.node(dev.node).name;
}

StragglerReport straggler_report(const sim::ActivityGraph& g, const sim::SimResult& r,
                                 const std::vector<sim::ActivityId>& step_end, int first, int count,
                                 const Slowdowns& slowdowns, const topo::Platform& platform, bool representative) {
  return straggler_report(g, r, step_end, first, count, slowdowns, platform, representative, sim::WaitGraph(g));
}

StragglerReport straggler_report(const sim::ActivityGraph& g, const sim::SimResult& r,
                                 const std::vector<sim::ActivityId>& step_end, int first, int count,
                                 const Slowdowns& slowdowns, const topo::Platform& platform, bool representative,
                                 const sim::WaitGraph& waits) {
  StragglerReport rep;
  for (int k = first; k < first + count; ++k) {
    const SimTime begin = k > 0 ? r.end[step_end[static_cast<std::size_t>(k) - 1].index] : SimTime();
    rep.step_times.push_back((r.end[step_end[static_cast<std::size_t>(k)].index] - begin).seconds());
  }
  if (rep.step_times.empty()) return rep;
  std::vector<Seconds> sorted = rep.step_times;
  std::sort(sorted.begin(), sorted.end());
  auto rank = [&](double p) {
    const auto n = static_cast<double>(sorted.size());
    const auto i = static_cast<std::size_t>(std::max(std::ceil(p * n) - 1.0, 0.0));
    return sorted[std::min(i, sorted.size() - 1)];
  };
  rep.p50 = rank(0.50);
  rep.p99 = rank(0.99);
  rep.max = sorted.back();
  Seconds sum{0.0};
  for (const auto& t : rep.step_times) sum += t;
  rep.mean = sum / static_cast<double>(rep.step_times.size());

  // Critical path of each measured step (sim/critical_path.hpp).
  // Engine -> platform device (engines are named after their devices).
  std::vector<std::optional<topo::DeviceId>> device_of_engine(g.engine_count());
  for (std::size_t e = 0; e < g.engine_count(); ++e) {
    device_of_engine[e] = platform.find_device(g.engine(sim::EngineId{static_cast<std::uint32_t>(e)}).name);
  }
  std::map<std::string, int> counts;
  for (int k = first; k < first + count; ++k) {
    const std::int64_t from = k > 0 ? r.end[step_end[static_cast<std::size_t>(k) - 1].index].ps() : 0;
    Slowdowns::Largest worst{1.0, topo::DeviceId{}};
    bool any = false;
    waits.walk_back(step_end[static_cast<std::size_t>(k)], from, r, [&](std::uint32_t a) {
      const auto& act = g.activity(sim::ActivityId{a});
      if (!act.engine_work()) return;
      const auto& dev = device_of_engine[g.stream(sim::StreamId{act.stream}).engine.index];
      if (!dev) return;
      const Slowdowns::Largest f = representative ? slowdowns.largest_stood_for(k, *dev)
                                                  : Slowdowns::Largest{slowdowns.own(k, *dev), *dev};
      if (!any || f.factor > worst.factor) worst = f;
      any = true;
    });
    if (any && worst.factor > 1.0) {
      const std::string who = slowdowns.member_name(worst.device);
      rep.waited_for.push_back(who);
      ++counts[who];
    } else {
      rep.waited_for.emplace_back();
    }
    rep.waited_factor.push_back(any ? worst.factor : 1.0);
  }
  for (const auto& [who, c] : counts) rep.waited_counts.emplace_back(who, c);
  std::stable_sort(rep.waited_counts.begin(), rep.waited_counts.end(),
                   [](const auto& a, const auto& b) { return a.second > b.second; });
  return rep;
}

}  // namespace dlrmsim::models
