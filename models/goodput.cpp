#include "models/goodput.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string_view>

#include "common/param.hpp"
#include "models/scenario_parameters.hpp"

namespace dlrmsim::models {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

/// The 54-day snapshot of the Llama 3 report, in seconds (54 x 24 h = 1,296 h).
constexpr double kLlama3SnapshotSeconds = 54.0 * 24.0 * 3600.0;

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

/// E(t, c): expected time of t seconds of work followed by a checkpoint of c seconds, with
/// restarts of r seconds, under Poisson failures of rate lambda (Bougeret et al., SC 2011).
double expected_segment(double t, double c, double r, double lambda) {
  if (lambda <= 0.0) return t + c;
  return std::exp(lambda * r) * std::expm1(lambda * (t + c)) / lambda;
}

/// Expected time of W cut into k equal segments (checkpoints after all but the last).
double expected_time_segments(double work, double k, double checkpoint, double restart, double lambda) {
  const double t = work / k;
  const double last = expected_segment(t, 0.0, restart, lambda);
  const double total = k > 1.0 ? (k - 1.0) * expected_segment(t, checkpoint, restart, lambda) + last : last;
  return std::isnan(total) ? kInf : total;
}

}  // namespace

Hertz parse_failure_rate(const ConfigNode& node) {
  if (!node.is_scalar()) node.fail("expected a failure rate such as '1 per 80000 h' (failures of one component per time)");
  const std::string text = node.as<std::string>();
  const std::string_view all = trim(text);
  const std::size_t per = all.find(" per ");
  if (per == std::string_view::npos) {
    node.fail("'" + text + "' is a failure rate with no unit; expected failures of one component per time such as "
              "'1 per 80000 h' or '2.5e-5 per h' ('0 per h' for none)");
  }
  const std::string_view count_text = trim(all.substr(0, per));
  std::string time_text(trim(all.substr(per + 5)));
  double count = 0.0;
  const auto [end, ec] = std::from_chars(count_text.data(), count_text.data() + count_text.size(), count);
  if (ec != std::errc{} || end != count_text.data() + count_text.size() || !std::isfinite(count)) {
    node.fail("'" + std::string(count_text) + "' before 'per' is not a number; expected a failure rate such as "
              "'1 per 80000 h'");
  }
  if (count < 0.0) node.fail("'" + text + "' is a negative failure rate; expected a count of failures >= 0");
  // The time may be far longer than a simulation's range ("1 per 80000 h"): its number and
  // its unit are read apart, the unit through parse_quantity ("1 h").
  // The number is what std::from_chars reads ("80000", "1e4", "2.5"); no number is one unit.
  double number = 1.0;
  std::size_t unit_at = 0;
  {
    const auto [n_end, n_ec] = std::from_chars(time_text.data(), time_text.data() + time_text.size(), number);
    if (n_ec == std::errc::result_out_of_range || (n_ec == std::errc{} && !std::isfinite(number))) {
      node.fail("'" + text + "': after 'per' the number is out of range; expected a time such as '80000 h'");
    }
    if (n_ec == std::errc{}) {
      unit_at = static_cast<std::size_t>(n_end - time_text.data());
    } else {
      number = 1.0;
    }
  }
  double seconds = 0.0;
  try {
    seconds = number * parse_quantity("1 " + time_text.substr(unit_at), Dimension::seconds);
  } catch (const UnitError& e) {
    node.fail("'" + text + "': after 'per' " + e.what());
  }
  if (!(seconds > 0.0)) node.fail("'" + text + "': the time after 'per' must be longer than zero");
  return Hertz(count / seconds);
}

std::optional<std::array<ComponentFailureRate, kFailureComponents>> failure_rate_preset(const std::string& name) {
  if (name != "llama3_16k_h100") return std::nullopt;
  // Llama 3 report, table 5 (see goodput.hpp): interruptions / (instances x 1,296 h).
  const std::string src = "llama3_16k_h100 preset";
  auto rate = [&](double interruptions, double instances) {
    return ComponentFailureRate{Hertz(interruptions / (instances * kLlama3SnapshotSeconds)), src};
  };
  return std::array<ComponentFailureRate, kFailureComponents>{
      rate(268, 16384),  // gpu
      rate(46, 2048),    // host
      rate(7, 16384),    // link (NIC)
      rate(35, 1024),    // switch (ToR; network switch / cable)
      rate(63, 16384),   // software, per GPU
  };
}

namespace {

// The `goodput:` keys read below (goodput_parameter_rows() lists them); defaults are
// GoodputOptions' member initialisers.
const GoodputOptions kDefaults;
constexpr std::string_view kFractionMessage = "expected a fraction in [0, 1] of the embedding bytes that one checkpoint writes";
const Param<double> kEmbeddingFractionWritten{
    .key_path = "goodput.checkpoint.embedding_fraction_written", .unit = "fraction",
    .fallback = kDefaults.embedding_fraction_written,
    .range = {.min = Bound<double>{0.0, true, kFractionMessage}, .max = Bound<double>{1.0, true, kFractionMessage},
              .interval = true},
    .meaning = "Fraction of the embedding bytes one checkpoint writes."};
const Param<Seconds> kRestart{.key_path = "goodput.restart", .unit = "s (\"10 min\")",
                              .range = {.min = Bound<Seconds>{Seconds{0.0}}},
                              .meaning = "Time to restart after a failure, besides reading the checkpoint."};

}  // namespace

std::vector<ParameterRow> goodput_parameter_rows() {
  return {
      Parameter{"goodput", "", "none (no goodput report)", "a mapping; the platform needs storage",
                "Failures, checkpoints and goodput over a training run (models/goodput.hpp)."},
      Parameter{"goodput.samples", "samples", "required", "> 0, finite", "Samples of the whole training run."},
      Parameter{"goodput.failure_rates", "", "required", "a mapping of component to rate",
                "Failure rates of one component each; components not given fail never (or as the preset says)."},
      Parameter{"goodput.failure_rates.preset", "", "none", "llama3_16k_h100", "Published rates to start from."},
      Parameter{"goodput.failure_rates.gpu", "failures per time (\"1 per 80000 h\")", "0 per h (or the preset's)", ">= 0",
                "Per GPU."},
      Parameter{"goodput.failure_rates.host", "failures per time", "0 per h (or the preset's)", ">= 0", "Per node."},
      Parameter{"goodput.failure_rates.link", "failures per time", "0 per h (or the preset's)", ">= 0", "Per NIC."},
      Parameter{"goodput.failure_rates.switch", "failures per time", "0 per h (or the preset's)", ">= 0",
                "Per network switch."},
      Parameter{"goodput.failure_rates.software", "failures per time", "0 per h (or the preset's)", ">= 0", "Per GPU."},
      Parameter{"goodput.checkpoint", "", "the defaults below", "{interval, embedding_fraction_written}", "Checkpointing."},
      Parameter{"goodput.checkpoint.interval", "s (\"30 min\")", "best", "best | > 0",
                "Time between checkpoints; best: the optimum."},
      kEmbeddingFractionWritten.row(),
      kRestart.row(),
  };
}

GoodputOptions GoodputOptions::from_config(const ConfigNode& node) {
  if (!node.is_map()) node.fail("expected a mapping with samples, failure_rates, checkpoint and restart");
  GoodputOptions o;
  {
    const ConfigNode samples = node.child("samples");
    o.samples = samples.as<double>();
    if (!std::isfinite(o.samples) || o.samples > kMaxMagnitude) samples.fail("expected a finite number of samples");
    samples.check_positive(o.samples, false);
  }
  for (auto& r : o.failure_rates) r = ComponentFailureRate{Hertz(0.0), "not given"};
  const ConfigNode rates = node.child("failure_rates");
  if (!rates.is_map()) {
    rates.fail("expected a mapping of component (gpu, host, link, switch, software) to a failure rate such as "
               "'1 per 80000 h', optionally with preset: llama3_16k_h100");
  }
  if (rates.has("preset")) {
    const std::string preset = rates.get_choice("preset", {"llama3_16k_h100"});
    o.failure_rates = *failure_rate_preset(preset);
  }
  for (std::size_t c = 0; c < kFailureComponents; ++c) {
    if (auto r = rates.optional_child(to_string(static_cast<FailureComponent>(c)))) {
      o.failure_rates[c] = ComponentFailureRate{parse_failure_rate(*r), "scenario"};
    }
  }
  rates.finish();
  if (auto cp = node.optional_child("checkpoint")) {
    if (!cp->is_map()) cp->fail("expected a mapping with interval and embedding_fraction_written");
    if (auto interval = cp->optional_child("interval")) {
      const std::string text = interval->is_scalar() ? interval->as<std::string>() : "";
      if (text == "best") {
        o.checkpoint_interval.reset();
      } else if (text.empty() || !(std::isdigit(static_cast<unsigned char>(text.front())) || text.front() == '.')) {
        interval->fail("expected 'best' or a time such as '30 min'");
      } else {
        const auto t = interval->as<Seconds>();
        interval->check_positive(t.value(), false);
        o.checkpoint_interval = t;
      }
    }
    o.embedding_fraction_written = kEmbeddingFractionWritten.read(*cp);
    cp->finish();
  }
  o.restart = kRestart.read(node);
  node.finish();
  return o;
}

GoodputInputs goodput_inputs(const GoodputOptions& options, const ModelSpec& model, const topo::Platform& platform,
                             double throughput_samples_per_s) {
  if (!platform.storage() || !platform.storage()->checkpoint_bandwidth) {
    throw std::invalid_argument("platform '" + platform.name() + "' gives no storage.checkpoint_bandwidth");
  }
  GoodputInputs in;
  in.throughput_samples_per_s = throughput_samples_per_s;
  const double gpus = static_cast<double>(platform.all_gpus().size());
  double nics = 0.0;
  for (const auto& n : platform.nodes()) nics += static_cast<double>(n.nics.size());
  double switches = 0.0;
  for (const auto& d : platform.devices()) switches += platform.is_fabric_device(d.id) ? 1.0 : 0.0;
  in.component_counts = {gpus, static_cast<double>(platform.nodes().size()), nics, switches, gpus};
  const Bytes embedding = model.embedding_weight_bytes() + model.embedding_optimizer_state_bytes();
  const Bytes dense = model.dense_weight_bytes() + model.dense_optimizer_state_bytes();
  in.checkpoint_full_bytes = embedding + dense;
  in.checkpoint_written_bytes = embedding * options.embedding_fraction_written + dense;
  in.storage_bandwidth = *platform.storage()->checkpoint_bandwidth;
  return in;
}

double expected_run_time(double work, double interval, double checkpoint, double restart, double lambda) {
  if (work <= 0.0) return 0.0;
  if (interval >= work) return expected_segment(work, 0.0, restart, lambda);
  const double full = std::floor(work / interval);
  const double rest = work - full * interval;
  if (rest <= work * 1e-12) return expected_time_segments(work, full, checkpoint, restart, lambda);
  return full * expected_segment(interval, checkpoint, restart, lambda) + expected_segment(rest, 0.0, restart, lambda);
}

double best_checkpoint_interval(double work, double checkpoint, double restart, double lambda) {
  if (work <= 0.0 || lambda <= 0.0) return work;  // nothing to protect: one segment, no checkpoint
  auto f = [&](double k) { return expected_time_segments(work, k, checkpoint, restart, lambda); };
  // Segments shorter than a millisecond are never worth a checkpoint; at most 1e15 of them
  // keeps k an exact integer in a double.
  const double k_max = std::clamp(std::ceil(work / 1e-3), 1.0, 1e15);
  // Geometric scan of k (5 % apart), then a ternary search between the best point's neighbours.
  double best_k = 1.0, best_t = f(1.0), prev_k = 1.0, next_k = 1.0;
  for (double k = 1.0, last = 1.0; k <= k_max;) {
    const double t = f(k);
    if (t < best_t) {
      best_t = t;
      best_k = k;
      prev_k = last;
    }
    last = k;
    k = std::max(k + 1.0, std::floor(k * 1.05));
    if (best_k == last) next_k = std::min(k, k_max);
  }
  double lo = prev_k, hi = std::max(next_k, best_k);
  while (hi - lo > 2.0) {
    const double m1 = std::floor(lo + (hi - lo) / 3.0);
    const double m2 = std::ceil(hi - (hi - lo) / 3.0);
    if (f(m1) <= f(m2)) {
      hi = m2;
    } else {
      lo = m1;
    }
  }
  for (double k = lo; k <= hi; k += 1.0) {
    const double t = f(k);
    if (t < best_t) {
      best_t = t;
      best_k = k;
    }
  }
  return work / best_k;
}

GoodputReport evaluate_goodput(const GoodputOptions& options, const GoodputInputs& in) {
  if (!(in.throughput_samples_per_s > 0.0)) throw std::invalid_argument("goodput needs a positive throughput");
  GoodputReport rep;
  rep.samples = options.samples;
  rep.throughput_samples_per_s = in.throughput_samples_per_s;
  const double work = options.samples / in.throughput_samples_per_s;
  rep.failure_free_time = Seconds(work);
  double lambda = 0.0;
  for (std::size_t c = 0; c < kFailureComponents; ++c) {
    GoodputReport::Component comp;
    comp.name = to_string(static_cast<FailureComponent>(c));
    comp.count = in.component_counts[c];
    comp.rate = options.failure_rates[c].rate;
    comp.job_rate = comp.rate * comp.count;
    comp.source = options.failure_rates[c].source;
    lambda += comp.job_rate.value();
    rep.components.push_back(comp);
  }
  rep.job_failure_rate = Hertz(lambda);
  rep.job_mtbf = Seconds(lambda > 0.0 ? 1.0 / lambda : kInf);
  rep.checkpoint_full_bytes = in.checkpoint_full_bytes;
  rep.checkpoint_written_bytes = in.checkpoint_written_bytes;
  rep.storage_bandwidth = in.storage_bandwidth;
  const double checkpoint = (in.checkpoint_written_bytes / in.storage_bandwidth).value();
  const double restart = options.restart.value() + (in.checkpoint_full_bytes / in.storage_bandwidth).value();
  rep.checkpoint_time = Seconds(checkpoint);
  rep.restart_time = Seconds(restart);

  auto point = [&](double interval) {
    GoodputPoint p;
    p.interval = Seconds(std::min(interval, work));
    const double t = expected_run_time(work, interval, checkpoint, restart, lambda);
    p.expected_time = Seconds(t);
    p.goodput_samples_per_s = std::isfinite(t) && t > 0.0 ? options.samples / t : 0.0;
    return p;
  };
  const double best = best_checkpoint_interval(work, checkpoint, restart, lambda);
  rep.best = point(best);
  rep.interval_given = options.checkpoint_interval.has_value();
  rep.chosen = rep.interval_given ? point(options.checkpoint_interval->value()) : rep.best;
  rep.young_interval = Seconds(lambda > 0.0 ? std::sqrt(2.0 * checkpoint / lambda) : kInf);
  rep.expected_failures = lambda * rep.chosen.expected_time.value();
  // Goodput against interval: 1/8 to 8 times the best, sqrt(2) apart (intervals beyond the
  // whole run are one segment, all alike, and shown once).
  for (int j = -6; j <= 6; ++j) {
    const double interval = best * std::pow(2.0, j / 2.0);
    if (interval > work && !rep.curve.empty() && rep.curve.back().interval.value() >= work) break;
    rep.curve.push_back(point(interval));
  }
  return rep;
}

}  // namespace dlrmsim::models
