// `dlrmsim report`: one self-contained HTML page of a run (no network access, no external
// file: styles, charts and the one small script are inline).
//
// The page is drawn from the run's JSON document (`dlrmsim run --json`, app/run_report.hpp),
// so a report from a scenario and a report from a saved run's JSON are the same page. It
// holds what `dlrmsim run` prints: the run's identity and headline figures; the step-time
// breakdown per category (busy, exposed, critical path) as an inline SVG chart with a time
// axis; utilisation per resource class; memory per device split into weights, optimiser
// state, cache and activations (per device kind beyond 16 devices); stragglers and goodput
// when the scenario has them; power, energy and cost; and the placement table
// (tools/report_sections.hpp, tools/report_chart.hpp). A scenario with `jobs:` gives one
// section per job. Numbers are printed with
// their units; every text from the input is HTML-escaped. A sweep's result file gives a page
// with one chart per chosen output key.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace dlrmsim::tools {

/// The HTML page of a run document. A ConfigError (naming `source`) when the document lacks
/// a key the page needs or holds one of the wrong type. A document with `jobs` (a scenario
/// with `jobs:`) gives jobs_report_html's page.
std::string report_html(const nlohmann::json& run, const std::string& source);

/// The HTML page of a scenario with `jobs:` (app/run_report.hpp jobs_json): each job's step
/// time shared and alone on one chart, and a section per job with its figures.
std::string jobs_report_html(const nlohmann::json& doc, const std::string& source);

/// The HTML page of a sweep's result file (`dlrmsim sweep`'s CSV): one inline SVG chart per
/// key of `y_keys` against `x_key` (one line or bar group per value of `group_key`, as
/// `dlrmsim plot` draws them, tools/plot.hpp), and the count of points per status.
std::string sweep_report_html(const std::string& csv_path, const std::string& x_key,
                              const std::vector<std::string>& y_keys, const std::string& group_key);

/// `text` with &, <, >, " and ' escaped for HTML text and attribute values.
std::string html_escape(const std::string& text);

}  // namespace dlrmsim::tools
