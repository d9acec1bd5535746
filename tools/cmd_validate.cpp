// dlrmsim validate [DIR] [--match GLOB] [--set KEY=VALUE]... [--json PATH|-] [--plot PATH]:
// runs the validation cases against published results (validation/cases/ by default) and
// prints the table. --set overrides a key in every case's scenarios after the case's own
// overrides: how the table moves when an assumption does. Each output is
// written whole or not at all (common/files.hpp); with --json - standard output carries the
// JSON alone.
#include <iostream>

#include <filesystem>

#include <boost/program_options.hpp>

#include "common/config.hpp"
#include "common/data_paths.hpp"
#include "common/files.hpp"
#include "tools/commands.hpp"
#include "tools/scenario_command.hpp"
#include "tools/progress.hpp"
#include "app/validate.hpp"
#include "common/text.hpp"
#include "tools/plot.hpp"

namespace po = boost::program_options;

namespace dlrmsim::tools {

using app::scenario_metric;
using app::validation_json;
using app::validation_table;
namespace {

using app::ValidationResult;

/// Log-log chart of predicted against published values (numeric cases).
void write_validation_plot(const std::vector<ValidationResult>& results, const std::string& path) {
  Chart chart;
  chart.title = "dlrmsim predictions against published results";
  chart.x_label = "published";
  chart.y_label = "predicted";
  chart.log_log_diagonal = true;
  Series within{"within tolerance", {}, {}};
  Series outside{"outside tolerance", {}, {}};
  for (const auto& r : results) {
    if (!r.predicted_value || !r.published_value || *r.predicted_value <= 0.0) continue;
    Series& s = r.passed ? within : outside;
    s.x.push_back(format_number(*r.published_value, 4));
    s.y.push_back(*r.predicted_value);
  }
  for (Series* s : {&within, &outside}) {
    if (!s->y.empty()) chart.series.push_back(*s);
  }
  write_chart(chart, path);
}

}  // namespace

int cmd_validate(const std::vector<std::string>& args) {
  po::options_description opts(
      "dlrmsim validate [DIR] [options]\n"
      "DIR defaults to validation/cases, found from the working directory, then in the data\n"
      "search path (an installed tree's share/dlrmsim/validation/cases).\n"
      "exit status: 0 every case within its tolerance; 5 every case evaluated, some outside\n"
      "their tolerance (marked in the table); 2 a malformed case or scenario; 3 internal error;\n"
      "4 an output could not be written");
  opts.add_options()("help,h", "show this help")("dir", po::value<std::string>()->default_value("validation/cases"),
                                                  "directory of validation cases")(
      "json", po::value<std::string>(), "write the table as JSON to PATH ('-' for stdout)")(
      "plot", po::value<std::string>(), "write predicted vs published (log-log) to PATH.svg or PATH.png")(
      "match", po::value<std::string>()->default_value("*"),
      "only the case files whose name matches this shell pattern (e.g. 'dle_*')")(
      "set", po::value<std::vector<std::string>>()->composing(),
      "override a key in every case's scenarios, after the case's own: key.path=value (repeatable)")(
      "quiet,q", "no progress line on standard error (shown only when it is a terminal)");
  po::positional_options_description pos;
  pos.add("dir", 1);
  po::variables_map vm;
  po::store(po::command_line_parser(args).options(opts).positional(pos).run(), vm);
  if (vm.count("help")) {
    std::cout << opts;
    return kExitOk;
  }
  const std::vector<std::string> extra =
      vm.count("set") ? vm["set"].as<std::vector<std::string>>() : std::vector<std::string>{};
  for (const auto& o : extra) {
    if (o.find('=') == std::string::npos) throw ConfigError("--set '" + o + "': expected key.path=value");
  }
  // The default folder of cases is the source tree's, or the installed one (data search path).
  const std::string dir = resolve_data_path(vm["dir"].as<std::string>(), "", data_search_path());
  {
    // The case files (and anything else) in the directory are inputs no output may replace.
    std::vector<std::filesystem::path> inputs;
    std::error_code ec;
    for (std::filesystem::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
      inputs.push_back(it->path());
    }
    check_outputs(given_outputs(vm, {{"--json", "json"}, {"--plot", "plot"}}), inputs);
  }
  ProgressLine line(0, "cases", progress_wanted(vm.count("quiet") > 0));
  const auto results = validation::run_validation_dir(
      dir, validation::with_overrides(scenario_metric, extra),
      [&](std::size_t, std::size_t total) {
        line.set_total(total);
        line.advance();
      },
      vm["match"].as<std::string>());
  const std::string json_path = vm.count("json") ? vm["json"].as<std::string>() : "";
  if (json_path != "-") std::cout << validation_table(results);
  if (!json_path.empty()) write_output_file(json_path, validation_json(results));
  if (vm.count("plot")) write_validation_plot(results, vm["plot"].as<std::string>());
  return validation::summarize(results).failed == 0 ? kExitOk : kExitOutsideTolerance;
}

}  // namespace dlrmsim::tools
