#include "app/trace.hpp"

#include <cstdint>
#include <optional>
#include <vector>

#include "common/json.hpp"

namespace dlrmsim::app {
namespace {

/// Numbers carry 10 significant digits, as in the report (app/run_report.hpp).
Json num(double v) { return json_number(v, 10); }

}  // namespace

/// Chrome trace-event format (chrome://tracing, ui.perfetto.dev): one complete event ("X")
/// per compute task and transfer; compute tasks under their engine (process) and stream
/// (thread), transfers under the first resource of their route. Each event's args hold the
/// step it belongs to (`step`, 0 = the first warm-up step) and, where the mode names it, its
/// `role`; transfers' args also their `bytes` and `hops`. Written on one line: the file is for
/// trace viewers, and it is the largest output (about 120 bytes per activity).
std::string trace_json(const models::RunReport& r) {
  const auto& g = *r.graph;
  const auto& res = *r.result;
  const auto& cats = g.categories();
  const std::uint32_t link_pid_base = static_cast<std::uint32_t>(g.engine_count()) + 1;
  Json doc;
  doc["displayTimeUnit"] = "ns";
  Json& events = doc["traceEvents"] = Json::array();
  auto metadata = [&](const char* what, std::uint32_t pid, std::optional<std::size_t> tid, const std::string& name) {
    Json e = {{"ph", "M"}, {"name", what}, {"pid", pid}};
    if (tid) e["tid"] = *tid;
    e["args"] = {{"name", name}};
    events.push_back(std::move(e));
  };
  for (std::size_t e = 0; e < g.engine_count(); ++e) {
    metadata("process_name", static_cast<std::uint32_t>(e), std::nullopt,
             g.engine(sim::EngineId{static_cast<std::uint32_t>(e)}).name);
  }
  for (std::size_t s = 0; s < g.stream_count(); ++s) {
    const auto& st = g.stream(sim::StreamId{static_cast<std::uint32_t>(s)});
    metadata("thread_name", st.engine.index, s, st.name);
  }
  std::vector<bool> named(g.resource_count(), false);
  for (std::size_t a = 0; a < g.activity_count(); ++a) {
    const sim::ActivityId id{static_cast<std::uint32_t>(a)};
    const auto& act = g.activity(id);
    if (act.kind == sim::ActivityKind::marker) continue;
    const double ts = res.start[a].seconds().value() * 1e6;
    const double dur = (res.end[a] - res.start[a]).seconds().value() * 1e6;
    const std::string& cat = cats[act.category];
    Json args = Json::object();
    if (const int step = r.step_of(id); step >= 0) args["step"] = step;
    if (const auto role = r.activity_roles.find(id.index); role != r.activity_roles.end()) args["role"] = role->second;
    if (act.stream != sim::Stream::kNone) {  // compute tasks and kernels, on their stream's row
      if (act.kind == sim::ActivityKind::transfer) {
        args[act.on_cores ? "core_seconds" : "bytes"] = num(act.on_cores ? act.amount / sim::kWorkUnitsPerCoreSecond : act.amount);
      }
      const auto& st = g.stream(sim::StreamId{act.stream});
      events.push_back({{"ph", "X"},
                        {"name", cat},
                        {"cat", cat},
                        {"pid", st.engine.index},
                        {"tid", act.stream},
                        {"ts", num(ts)},
                        {"dur", num(dur)},
                        {"args", std::move(args)}});
    } else {
      const auto route = g.route(id);
      const std::uint32_t r0 = route.empty() ? 0 : route.front().index;
      if (!route.empty() && !named[r0]) {
        named[r0] = true;
        metadata("process_name", link_pid_base + r0, std::nullopt, "link " + g.resource(route.front()).name);
      }
      if (act.on_cores) {
        args["cpu_time_s"] = num(act.cpu_time().value());
      } else {
        args["bytes"] = num(act.bytes().value());
      }
      args["hops"] = route.size();
      events.push_back({{"ph", "X"},
                        {"name", cat},
                        {"cat", cat},
                        {"pid", link_pid_base + r0},
                        {"tid", 0},
                        {"ts", num(ts)},
                        {"dur", num(dur)},
                        {"args", std::move(args)}});
    }
  }
  return json_text(doc, -1);
}

}  // namespace dlrmsim::app
