// The C++ half of the Python module `dlrmsim` (python/dlrmsim/__init__.py is the Python half,
// which turns the JSON text returned here into dicts and runs sweep points on threads).
//
// Each entry point does what the command of the same name does, through the same library
// code, so that a number from Python is the number the command line prints: run() returns
// `dlrmsim run --json`'s document, place() `dlrmsim place --json`'s, validate() `dlrmsim
// validate --json`'s, and a sweep point's row has the fields of `dlrmsim sweep`'s CSV row.
// The GIL is released while simulating, so Python threads run points in parallel.
//
// Errors become Python exceptions carrying the command's message (the located
// "FILE:LINE:COL: key: ..." text, without the "error: " prefix): BadInput for what the
// command reports with exit status 2, Infeasible for status 1, OutputFailed for status 4.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <boost/program_options/errors.hpp>

#include <exception>
#include <stdexcept>
#include <string>
#include <vector>

#include "common/config.hpp"
#include "common/files.hpp"
#include "models/scenario.hpp"
#include "models/simulation.hpp"
#include "models/training_mode.hpp"
#include "placement/placement.hpp"
#include "tools/plan_report.hpp"
#include "models/placement_problem.hpp"
#include "sim/activity_graph.hpp"
#include "tools/commands.hpp"
#include "tools/platform_report.hpp"
#include "tools/run_report.hpp"
#include "tools/scenario_command.hpp"
#include "topologies/platform_loader.hpp"
#include "tools/scenario_runner.hpp"
#include "tools/sweep.hpp"
#include "tools/validate.hpp"

namespace py = pybind11;
using namespace dlrmsim;

namespace {

/// A scenario file, or a scenario given as text (a Python dict as JSON, which is YAML):
/// `source` names it in messages and relative references resolve against the working
/// directory, then the data search path.
models::Scenario load(const std::string& path_or_text, bool is_text, const std::vector<std::string>& overrides) {
  if (is_text) return models::load_scenario_text(path_or_text, "<scenario dict>", "", overrides);
  return models::load_scenario(path_or_text, overrides);
}

std::string run_json(const std::string& scenario, bool is_text, const std::vector<std::string>& overrides) {
  py::gil_scoped_release release;
  const models::Scenario sc = load(scenario, is_text, overrides);
  try {
    if (!sc.jobs.empty()) return tools::jobs_json(models::run_jobs(sc));
    return tools::run_json(models::run_scenario(sc));
  } catch (const placement::InfeasiblePlacement& e) {
    throw tools::InfeasibleJob(tools::infeasible_placement_message(e, "the job does not fit"));
  }
}

/// As `dlrmsim platform --json` (tools/platform_report.hpp).
std::string platform_json(const std::string& path) {
  py::gil_scoped_release release;
  return tools::platform_json(topo::load_platform(path));
}

/// As `dlrmsim place` (tools/cmd_place.cpp): the training mode's default tiers unless the
/// scenario names some; the search policy evaluates candidates with the simulator.
std::string place_json(const std::string& scenario, bool is_text, const std::vector<std::string>& overrides) {
  py::gil_scoped_release release;
  const models::Scenario sc = load(scenario, is_text, overrides);
  placement::PlacementOptions options = sc.placement;
  const auto& mode = models::training_mode(sc.training.mode);
  if (options.tiers.empty()) options.tiers.assign(mode.default_tiers.begin(), mode.default_tiers.end());
  const topo::DeviceProfileSet profiles(sc.calibration_dir);
  const auto problem = placement::make_placement_problem(sc, profiles);
  const placement::StepTimeEvaluator evaluator = [&](const placement::PlacementPlan& candidate) {
    return models::simulate_plan_step_time(sc, problem, candidate, profiles, 1, 1);
  };
  try {
    return tools::plan_json(problem, placement::place(problem, options, evaluator));
  } catch (const placement::InfeasiblePlacement& e) {
    throw tools::InfeasibleJob(tools::infeasible_placement_message(e, "the tables do not fit"));
  }
}

std::string validate_json(const std::string& dir) {
  py::gil_scoped_release release;
  return tools::validation_json(validation::run_validation_dir(dir, tools::scenario_metric));
}

/// A loaded sweep whose points are evaluated one call at a time (from any thread).
class PySweep {
 public:
  explicit PySweep(const std::string& path) : sweep_(tools::load_sweep(path)) {}
  [[nodiscard]] std::size_t size() const { return sweep_.size(); }
  [[nodiscard]] std::vector<std::string> columns() const {
    return tools::sweep_columns(sweep_, tools::scenario_output_columns());
  }
  /// Point `index`'s row, field by field as in the CSV file (a failing point is a row with
  /// its status and error, as in `dlrmsim sweep`).
  [[nodiscard]] std::vector<std::string> row(std::size_t index) const {
    if (index >= sweep_.size()) throw py::index_error("sweep point " + std::to_string(index) + " out of range");
    std::string line;
    {
      py::gil_scoped_release release;
      tools::SweepPoint point;
      point.index = index;
      point.inputs.assign(sweep_.input_keys().size(), {});
      tools::PointOutcome outcome;
      try {
        point = sweep_.point(index);
        outcome = tools::run_scenario_point(point);
      } catch (const std::exception& e) {
        outcome.status = "error";
        outcome.error = e.what();
      }
      line = tools::sweep_row(point, outcome, tools::scenario_output_columns());
    }
    auto fields = tools::csv_split_strict(line);
    if (!fields) throw std::logic_error("a sweep row that its own reader refuses: " + line);
    return *fields;
  }

 private:
  tools::Sweep sweep_;
};

/// The Python exception class `name` of this module (looked up when raised: no state kept).
void raise(const char* name, const char* message) {
  const py::object type = py::module_::import("dlrmsim._dlrmsim").attr(name);
  PyErr_SetString(type.ptr(), message);
}

/// The command line's mapping of exceptions to exit statuses (tools/main.cpp), as classes.
void translate(std::exception_ptr p) {
  try {
    if (p) std::rethrow_exception(p);
  } catch (const OutputError& e) {
    raise("OutputFailed", e.what());
  } catch (const ConfigError& e) {
    raise("BadInput", e.what());
  } catch (const boost::program_options::error& e) {
    raise("BadInput", e.what());
  } catch (const sim::GraphError& e) {
    raise("BadInput", e.what());
  } catch (const placement::InfeasiblePlacement& e) {
    raise("Infeasible", e.what());
  } catch (const tools::InfeasibleJob& e) {
    raise("Infeasible", e.what());
  } catch (const std::invalid_argument& e) {
    raise("BadInput", e.what());
  }
}

}  // namespace

PYBIND11_MODULE(_dlrmsim, m) {
  m.doc() = "dlrmsim's simulator (use the dlrmsim package, not this module)";
  const py::object error = py::exception<std::exception>(m, "Error");
  py::exception<ConfigError>(m, "BadInput", error);
  py::exception<tools::InfeasibleJob>(m, "Infeasible", error);
  py::exception<OutputError>(m, "OutputFailed", error);
  py::register_exception_translator(&translate);

  m.def("run_json", &run_json, py::arg("scenario"), py::arg("is_text"), py::arg("overrides"));
  m.def("place_json", &place_json, py::arg("scenario"), py::arg("is_text"), py::arg("overrides"));
  m.def("validate_json", &validate_json, py::arg("dir"));
  m.def("platform_json", &platform_json, py::arg("path"));
  py::class_<PySweep>(m, "Sweep")
      .def(py::init<const std::string&>(), py::arg("path"))
      .def("__len__", &PySweep::size)
      .def_property_readonly("columns", &PySweep::columns)
      .def("row", &PySweep::row, py::arg("index"));
}
