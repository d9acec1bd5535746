// The C++ half of the Python module `dlrmsim` (python/dlrmsim/__init__.py is the Python half,
// which turns the JSON text returned here into dicts and runs sweep points on threads).
//
// Each entry point does what the command of the same name does, through the same library
// code, so that a number from Python is the number the command line prints: run() returns
// `dlrmsim run --json`'s document, place() `dlrmsim place --json`'s, validate() `dlrmsim
// validate --json`'s, compare() `dlrmsim compare --json`'s, plan() the choice `dlrmsim
// plan` prints (as JSON: plan_result_json), and a sweep point's row has the fields of `dlrmsim sweep`'s CSV row.
// The GIL is released while simulating, so Python threads run points in parallel.
//
// Errors become Python exceptions carrying the command's message (the located
// "FILE:LINE:COL: key: ..." text, without the "error: " prefix), classified as the command
// line classifies them (app/failure.hpp): BadInput for what the command reports with exit
// status 2, Infeasible for status 1, OutputFailed for status 4.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <exception>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "app/failure.hpp"
#include "app/compare.hpp"
#include "app/plan.hpp"
#include "app/plan_report.hpp"
#include "app/platform_report.hpp"
#include "app/scenario_run.hpp"
#include "app/scenario_runner.hpp"
#include "app/sweep.hpp"
#include "app/validate.hpp"
#include "common/version.hpp"
#include "common/classic_locale.hpp"
#include "common/config.hpp"
#include "common/files.hpp"
#include "common/json.hpp"
#include "common/sample_rate.hpp"
#include "common/units.hpp"
#include "models/cost.hpp"
#include "models/scenario.hpp"

namespace py = pybind11;
using namespace dlrmsim;

namespace {

/// How a scenario given as a dict is named in messages.
constexpr const char* kDictSource = "<scenario dict>";

/// A scenario file, or a scenario given as text (a Python dict as JSON, which is YAML):
/// `source` names it in messages and relative references resolve against the working
/// directory, then the data search path.
models::Scenario load(const std::string& path_or_text, bool is_text, const std::vector<std::string>& overrides) {
  if (is_text) return models::load_scenario_text(path_or_text, kDictSource, "", overrides);
  return models::load_scenario(path_or_text, overrides);
}

/// As `dlrmsim run --json` (app/run_report.hpp lists the keys).
std::string run_json(const std::string& scenario, bool is_text, const std::vector<std::string>& overrides) {
  py::gil_scoped_release release;
  const ClassicLocaleScope classic;
  return app::run_report_json(load(scenario, is_text, overrides));
}

/// As `dlrmsim platform --json` (app/platform_report.hpp).
std::string platform_json(const std::string& path) {
  py::gil_scoped_release release;
  const ClassicLocaleScope classic;
  return app::platform_file_json(path);
}

/// As `dlrmsim place --json` (tools/cmd_place.cpp): the training mode's default tiers unless
/// the scenario names some; the search policy evaluates candidates with the simulator.
std::string place_json(const std::string& scenario, bool is_text, const std::vector<std::string>& overrides) {
  py::gil_scoped_release release;
  const ClassicLocaleScope classic;
  const models::Scenario sc = load(scenario, is_text, overrides);
  const auto placed = app::place_job(sc, is_text ? std::string(kDictSource) : scenario);
  return app::plan_json(placed.problem, placed.plan);
}

/// As `dlrmsim compare A B --json -` (app/compare.hpp): `both` overrides both scenarios,
/// `only_a` and `only_b` one (after `both`, as --set-a and --set-b).
std::string compare_json(const std::string& a, bool a_is_text, const std::string& b, bool b_is_text,
                         const std::vector<std::string>& both, const std::vector<std::string>& only_a,
                         const std::vector<std::string>& only_b) {
  py::gil_scoped_release release;
  const ClassicLocaleScope classic;
  auto with = [&both](const std::vector<std::string>& extra) {
    std::vector<std::string> o = both;
    o.insert(o.end(), extra.begin(), extra.end());
    return o;
  };
  const models::Scenario sa = load(a, a_is_text, with(only_a));
  const models::Scenario sb = load(b, b_is_text, with(only_b));
  const models::RunReport ra = app::run_job(sa, {}, "scenario A does not fit");
  const models::RunReport rb = app::run_job(sb, {}, "scenario B does not fit");
  return json_text(app::comparison_json(app::compare_runs(ra, sa.platform.nodes().size(), rb, sb.platform.nodes().size())));
}

/// A PlanPoint as JSON (null when absent).
Json plan_point_json(const std::optional<app::PlanPoint>& p) {
  if (!p) return Json();
  return {{"point", p->index},
          {"label", p->label},
          {"throughput_samples_per_s", json_number(p->throughput)},
          {"time_to_train_s", json_number(p->time_to_train_s)},
          {"objective_per_run", p->objective ? json_number(*p->objective) : Json()},
          {"currency", p->currency.empty() ? Json() : Json(p->currency)}};
}

/// As `dlrmsim plan SPACE --throughput TARGET --samples SAMPLES --objective OBJECTIVE -o
/// OUTPUT -j THREADS` (app/plan.hpp): every point's row goes to `output`; the choice as JSON
/// {points, pruned, simulated, failed, without_objective, target_samples_per_s,
/// training_samples, objective, winner, fastest, front: [points]}, each point {point, label,
/// throughput_samples_per_s, time_to_train_s, objective_per_run, currency}.
std::string plan_result_json(const std::string& space_text, bool is_text, double target, double samples,
                             const std::string& objective, const std::string& output, unsigned threads, bool resume) {
  py::gil_scoped_release release;
  const ClassicLocaleScope classic;
  if (objective != "cost" && objective != "energy") throw ConfigError("objective: expected cost or energy, got '" + objective + "'");
  if (!(target > 0.0) || !(samples > 0.0)) throw ConfigError("plan: expected a positive throughput target and number of samples");
  const app::Sweep space = is_text ? app::load_sweep_text(space_text, "<plan space dict>") : app::load_sweep(space_text);
  app::PlanOptions options;
  options.target_samples_per_s = target;
  options.training_samples = samples;
  options.objective = objective == "cost" ? app::PlanObjective::cost : app::PlanObjective::energy;
  app::SweepOptions sweep;
  sweep.output_path = output;
  sweep.threads = threads;
  sweep.resume = resume;
  const auto& outputs = app::scenario_output_columns();
  app::run_sweep(space, app::run_plan_point, outputs, sweep);
  const auto rows = app::read_result_rows(output, space, outputs);
  const app::PlanResult r = app::select_plan(rows.rows, app::sweep_columns(space, outputs), options);
  Json front = Json::array();
  for (const auto& p : r.front) front.push_back(plan_point_json(p));
  Json doc = {{"points", r.points},
              {"pruned", r.pruned},
              {"simulated", r.simulated},
              {"failed", r.failed},
              {"without_objective", r.without_objective},
              {"target_samples_per_s", json_number(target)},
              {"training_samples", json_number(samples)},
              {"objective", objective},
              {"winner", plan_point_json(r.winner)},
              {"fastest", plan_point_json(r.fastest)},
              {"front", std::move(front)}};
  return json_text(doc);
}

/// A throughput as `dlrmsim plan --throughput` reads it ("40M", "40 M samples/s", "4e7").
double sample_rate(const std::string& text) {
  const ClassicLocaleScope classic;
  return parse_sample_rate(text);
}

std::string validate_json(const std::string& dir) {
  py::gil_scoped_release release;
  const ClassicLocaleScope classic;
  return app::validation_json(validation::run_validation_dir(dir, app::scenario_metric));
}

/// A loaded sweep whose points are evaluated one call at a time (from any thread).
class PySweep {
 public:
  /// A sweep file, or a sweep given as text (a Python dict as JSON, which is YAML).
  PySweep(const std::string& path_or_text, bool is_text) : sweep_(load(path_or_text, is_text)) {}
  [[nodiscard]] std::size_t size() const { return sweep_.size(); }
  [[nodiscard]] std::vector<std::string> columns() const {
    return app::sweep_columns(sweep_, app::scenario_output_columns());
  }
  /// Point `index`'s row, field by field as in the CSV file (a failing point is a row with
  /// its status and error, as in `dlrmsim sweep`).
  [[nodiscard]] std::vector<std::string> row(std::size_t index) const {
    if (index >= sweep_.size()) throw py::index_error("sweep point " + std::to_string(index) + " out of range");
    std::string line;
    {
      py::gil_scoped_release release;
  const ClassicLocaleScope classic;
      line = app::run_point_row(sweep_, index, app::run_scenario_point, app::scenario_output_columns()).line;
    }
    auto fields = app::csv_split_strict(line);
    if (!fields) throw std::logic_error("a sweep row that its own reader refuses: " + line);
    return *fields;
  }

 private:
  static app::Sweep load(const std::string& path_or_text, bool is_text) {
    const ClassicLocaleScope classic;  // range values are written as numbers
    if (is_text) return app::load_sweep_text(path_or_text, "<sweep dict>");
    return app::load_sweep(path_or_text);
  }
  app::Sweep sweep_;
};

/// The Python exception class `name` of this module (looked up when raised: no state kept).
void raise(const char* name, const char* message) {
  const py::object type = py::module_::import("dlrmsim._dlrmsim").attr(name);
  PyErr_SetString(type.ptr(), message);
}

/// The command line's classification of exceptions (app/failure.hpp), as classes; anything
/// else goes on to pybind11's own translation.
void translate(std::exception_ptr p) {
  try {
    if (p) std::rethrow_exception(p);
  } catch (const std::exception& e) {
    const app::Failure failure = app::classify_failure(e);
    switch (failure.kind) {
      case app::FailureKind::bad_input:
        return raise("BadInput", failure.message.c_str());
      case app::FailureKind::infeasible:
        return raise("Infeasible", failure.message.c_str());
      case app::FailureKind::output_failed:
        return raise("OutputFailed", failure.message.c_str());
      case app::FailureKind::internal:
        break;
    }
    throw;
  }
}

/// A sweep field written with a unit ("2000 GB/s", "1.5 ms"): its value in the base unit of
/// its dimension and that unit's name (B, s, FLOP, B/s, FLOP/s, Hz), as the scenario reader
/// would read it (common/units.hpp); None when the text is no quantity of any dimension.
py::object quantity(const std::string& text) {
  static constexpr std::pair<Dimension, const char*> kDimensions[] = {
      {Dimension::bytes, "B"},         {Dimension::seconds, "s"},          {Dimension::flops, "FLOP"},
      {Dimension::bytes_per_second, "B/s"}, {Dimension::flops_per_second, "FLOP/s"}, {Dimension::hertz, "Hz"}};
  const ClassicLocaleScope classic;
  for (const auto& [dimension, unit] : kDimensions) {
    try {
      return py::make_tuple(parse_quantity(text, dimension), unit);
    } catch (const UnitError&) {
      // not of this dimension: try the next
    }
  }
  return py::none();
}

}  // namespace

PYBIND11_MODULE(_dlrmsim, m) {
  m.doc() = "dlrmsim's simulator (use the dlrmsim package, not this module)";
  m.attr("__version__") = std::string(version());
  const py::object error = py::exception<std::exception>(m, "Error");
  py::exception<ConfigError>(m, "BadInput", error);
  py::exception<app::InfeasibleJob>(m, "Infeasible", error);
  py::exception<OutputError>(m, "OutputFailed", error);
  py::register_exception_translator(&translate);

  m.def("run_json", &run_json, py::arg("scenario"), py::arg("is_text"), py::arg("overrides"));
  m.def("place_json", &place_json, py::arg("scenario"), py::arg("is_text"), py::arg("overrides"));
  m.def("validate_json", &validate_json, py::arg("dir"));
  m.def("compare_json", &compare_json, py::arg("a"), py::arg("a_is_text"), py::arg("b"), py::arg("b_is_text"),
        py::arg("both"), py::arg("only_a"), py::arg("only_b"));
  m.def("plan_result_json", &plan_result_json, py::arg("space"), py::arg("is_text"), py::arg("target"),
        py::arg("samples"), py::arg("objective"), py::arg("output"), py::arg("threads"), py::arg("resume"));
  m.def("sample_rate", &sample_rate, py::arg("text"));
  m.attr("default_training_samples") = models::kDefaultTrainingSamples;
  m.def("platform_json", &platform_json, py::arg("path"));
  m.def("quantity", &quantity, py::arg("text"));
  py::class_<PySweep>(m, "Sweep")
      .def(py::init<const std::string&, bool>(), py::arg("sweep"), py::arg("is_text"))
      .def("__len__", &PySweep::size)
      .def_property_readonly("columns", &PySweep::columns)
      .def("row", &PySweep::row, py::arg("index"));
}
