#include "tools/plot.hpp"
#include "common/text.hpp"

#include <sys/wait.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <stdexcept>

#include "common/config.hpp"
#include "tools/sweep.hpp"

namespace dlrmsim::tools {
namespace {

constexpr double kWidth = 900, kHeight = 440, kLeft = 80, kRight = 290, kTop = 40, kBottom = 60;
// Colour-blind-safe palettes: Okabe & Ito ("Color Universal Design", 2002), then Paul Tol's
// "muted" scheme for series beyond eight.
constexpr const char* kColours[] = {"#0072B2", "#E69F00", "#009E73", "#D55E00", "#CC79A7", "#56B4E9",
                                    "#F0E442", "#000000", "#882255", "#44AA99", "#999933", "#AA4499"};
constexpr std::size_t kColourCount = sizeof(kColours) / sizeof(kColours[0]);

std::string escape(const std::string& s) {
  std::string out;
  for (char c : s) {
    switch (c) {
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '&': out += "&amp;"; break;
      case '"': out += "&quot;"; break;
      default: out += c;
    }
  }
  return out;
}

struct Axis {
  double lo, hi;
  bool log;
  double map(double v, double from, double to) const {
    const double a = log ? std::log10(lo) : lo;
    const double b = log ? std::log10(hi) : hi;
    const double x = log ? std::log10(v) : v;
    return from + (to - from) * (b == a ? 0.5 : (x - a) / (b - a));
  }
  std::vector<double> ticks() const {
    std::vector<double> t;
    if (log) {
      for (double p = std::floor(std::log10(lo)); p <= std::ceil(std::log10(hi)); p += 1.0) {
        const double v = std::pow(10.0, p);
        if (v >= lo * 0.999 && v <= hi * 1.001) t.push_back(v);
      }
      if (t.size() < 2) t = {lo, hi};
      return t;
    }
    const double span = hi - lo;
    const double raw = span / 5.0;
    const double mag = std::pow(10.0, std::floor(std::log10(raw > 0 ? raw : 1.0)));
    const double step = raw / mag < 2 ? 2 * mag : raw / mag < 5 ? 5 * mag : 10 * mag;
    for (double v = std::ceil(lo / step) * step; v <= hi + step * 1e-9; v += step) t.push_back(v);
    return t;
  }
};

Axis make_axis(std::vector<double> values, bool log, bool from_zero) {
  if (values.empty()) return {0, 1, log};
  double lo = *std::min_element(values.begin(), values.end());
  double hi = *std::max_element(values.begin(), values.end());
  if (log) {
    lo = std::max(lo, 1e-300);
    return {std::pow(10.0, std::floor(std::log10(lo))), std::pow(10.0, std::ceil(std::log10(hi))), true};
  }
  if (from_zero) lo = std::min(lo, 0.0);
  if (hi == lo) hi = lo + 1.0;
  const double pad = (hi - lo) * 0.05;
  return {from_zero && lo == 0.0 ? 0.0 : lo - pad, hi + pad, false};
}

}  // namespace

std::optional<double> leading_number(const std::string& text) {
  double v = 0.0;
  const char* b = text.data();
  while (b < text.data() + text.size() && *b == ' ') ++b;
  const auto [end, ec] = std::from_chars(b, text.data() + text.size(), v);
  if (ec != std::errc() || end == b || !std::isfinite(v)) return std::nullopt;
  return v;
}

std::string render_svg(const Chart& chart) {
  const double x0 = kLeft, x1 = kWidth - kRight, y0 = kHeight - kBottom, y1 = kTop;
  bool numeric_x = true;
  std::vector<double> xs, ys;
  std::vector<std::string> categories;
  for (const Series& s : chart.series) {
    for (std::size_t i = 0; i < s.x.size(); ++i) {
      const auto v = leading_number(s.x[i]);
      if (!v) numeric_x = false;
      else xs.push_back(*v);
      if (std::find(categories.begin(), categories.end(), s.x[i]) == categories.end()) categories.push_back(s.x[i]);
      ys.push_back(s.y[i]);
    }
  }
  std::ostringstream svg;
  svg << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << kWidth << "\" height=\"" << kHeight
      << "\" font-family=\"sans-serif\" font-size=\"12\">\n<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n";
  svg << "<text x=\"" << kWidth / 2 << "\" y=\"22\" text-anchor=\"middle\" font-size=\"15\">" << escape(chart.title)
      << "</text>\n";
  const bool log = chart.log_log_diagonal;
  if (log) {
    std::vector<double> all = xs;
    all.insert(all.end(), ys.begin(), ys.end());
    xs = ys = all;
  }
  const Axis ay = make_axis(ys, log, !log);
  const Axis ax = numeric_x ? make_axis(xs, log, false) : Axis{0, static_cast<double>(categories.size()), false};
  // frame, ticks and labels
  svg << "<path d=\"M" << x0 << " " << y1 << " V" << y0 << " H" << x1 << "\" stroke=\"black\" fill=\"none\"/>\n";
  for (double t : ay.ticks()) {
    const double y = ay.map(t, y0, y1);
    svg << "<line x1=\"" << x0 - 4 << "\" x2=\"" << x1 << "\" y1=\"" << y << "\" y2=\"" << y
        << "\" stroke=\"#ddd\"/><text x=\"" << x0 - 6 << "\" y=\"" << y + 4 << "\" text-anchor=\"end\">" << format_number(t, 4)
        << "</text>\n";
  }
  if (numeric_x) {
    for (double t : ax.ticks()) {
      const double x = ax.map(t, x0, x1);
      svg << "<line x1=\"" << x << "\" x2=\"" << x << "\" y1=\"" << y0 << "\" y2=\"" << y0 + 4
          << "\" stroke=\"black\"/><text x=\"" << x << "\" y=\"" << y0 + 18 << "\" text-anchor=\"middle\">" << format_number(t, 4)
          << "</text>\n";
    }
  } else {
    for (std::size_t c = 0; c < categories.size(); ++c) {
      const double x = ax.map(static_cast<double>(c) + 0.5, x0, x1);
      svg << "<text x=\"" << x << "\" y=\"" << y0 + 18 << "\" text-anchor=\"middle\">" << escape(categories[c])
          << "</text>\n";
    }
  }
  svg << "<text x=\"" << (x0 + x1) / 2 << "\" y=\"" << kHeight - 15 << "\" text-anchor=\"middle\">"
      << escape(chart.x_label) << "</text>\n";
  svg << "<text transform=\"translate(18 " << (y0 + y1) / 2 << ") rotate(-90)\" text-anchor=\"middle\">"
      << escape(chart.y_label) << "</text>\n";
  if (log) {
    svg << "<line x1=\"" << ax.map(ax.lo, x0, x1) << "\" y1=\"" << ay.map(ay.lo, y0, y1) << "\" x2=\""
        << ax.map(ax.hi, x0, x1) << "\" y2=\"" << ay.map(ay.hi, y0, y1) << "\" stroke=\"#999\" stroke-dasharray=\"4 3\"/>\n";
  }
  const std::size_t n = chart.series.size();
  for (std::size_t s = 0; s < n; ++s) {
    const Series& series = chart.series[s];
    const char* colour = kColours[s % kColourCount];
    if (numeric_x) {
      std::vector<std::pair<double, double>> pts;
      for (std::size_t i = 0; i < series.x.size(); ++i) pts.emplace_back(*leading_number(series.x[i]), series.y[i]);
      std::sort(pts.begin(), pts.end());
      if (!log && pts.size() > 1) {
        svg << "<polyline fill=\"none\" stroke=\"" << colour << "\" stroke-width=\"2\" points=\"";
        for (const auto& [x, y] : pts) svg << ax.map(x, x0, x1) << "," << ay.map(y, y0, y1) << " ";
        svg << "\"/>\n";
      }
      for (const auto& [x, y] : pts) {
        svg << "<circle cx=\"" << ax.map(x, x0, x1) << "\" cy=\"" << ay.map(y, y0, y1) << "\" r=\"3.5\" fill=\""
            << colour << "\"/>\n";
      }
    } else {
      const double slot = (x1 - x0) / static_cast<double>(std::max<std::size_t>(categories.size(), 1));
      const double bar = slot * 0.8 / static_cast<double>(n);
      for (std::size_t i = 0; i < series.x.size(); ++i) {
        const auto c = static_cast<double>(std::find(categories.begin(), categories.end(), series.x[i]) - categories.begin());
        const double x = x0 + slot * c + slot * 0.1 + bar * static_cast<double>(s);
        const double top = ay.map(series.y[i], y0, y1);
        svg << "<rect x=\"" << x << "\" y=\"" << top << "\" width=\"" << bar << "\" height=\"" << y0 - top
            << "\" fill=\"" << colour << "\"/>\n";
      }
    }
    svg << "<rect x=\"" << x1 + 15 << "\" y=\"" << y1 + 18 * static_cast<double>(s) << "\" width=\"10\" height=\"10\" fill=\""
        << colour << "\"/><text x=\"" << x1 + 30 << "\" y=\"" << y1 + 18 * static_cast<double>(s) + 10 << "\">"
        << escape(series.name) << "</text>\n";
  }
  svg << "</svg>\n";
  return svg.str();
}

void write_chart(const Chart& chart, const std::string& path) {
  const std::filesystem::path p(path);
  const std::string ext = p.extension().string();
  if (ext != ".svg" && ext != ".png") {
    throw std::invalid_argument("plot output '" + path + "': expected a file name ending in .svg or .png");
  }
  const std::string svg_path = ext == ".svg" ? path : path + ".svg";
  {
    std::ofstream out(svg_path);
    out << render_svg(chart);
    if (!out) throw std::invalid_argument("cannot write '" + svg_path + "'");
  }
  if (ext == ".png") {
    const std::string cmd = "rsvg-convert -o '" + path + "' '" + svg_path + "' 2>/dev/null";
    const int rc = std::system(cmd.c_str());
    std::filesystem::remove(svg_path);
    if (rc != 0) {
      throw std::invalid_argument("writing PNG needs rsvg-convert (Debian package librsvg2-bin); write .svg instead "
                                  "or install it");
    }
  }
}

Chart chart_from_csv(const std::string& csv_path, const std::string& x_key, const std::string& y_key,
                     const std::string& group_key) {
  std::ifstream in(csv_path);
  if (!in) throw ConfigError(csv_path + ": cannot open file");
  std::string line;
  if (!std::getline(in, line)) throw ConfigError(csv_path + ":1: the file is empty; expected a CSV header");
  const std::vector<std::string> header = csv_split(line);
  auto column = [&](const std::string& key) -> std::size_t {
    const auto it = std::find(header.begin(), header.end(), key);
    if (it == header.end()) {
      std::string msg = csv_path + ":1: no column '" + key + "'";
      if (auto guess = did_you_mean(key, header)) msg += "; did you mean '" + *guess + "'?";
      throw ConfigError(msg);
    }
    return static_cast<std::size_t>(it - header.begin());
  };
  const std::size_t xc = column(x_key), yc = column(y_key);
  // Several group columns ("platform,model") name a series by all of them.
  std::vector<std::size_t> group_columns;
  std::stringstream keys(group_key);
  for (std::string key; std::getline(keys, key, ',');) {
    if (!key.empty()) group_columns.push_back(column(key));
  }
  // A file path reads better as its stem ("../platforms/zion.yaml" -> "zion").
  auto shown = [](const std::string& v) {
    const std::filesystem::path p(v);
    return p.extension() == ".yaml" || p.extension() == ".yml" ? p.stem().string() : v;
  };
  Chart chart;
  chart.title = y_key + " vs " + x_key;
  chart.x_label = x_key;
  chart.y_label = y_key;
  std::map<std::string, std::size_t> series_of;
  while (std::getline(in, line)) {
    const auto f = csv_split(line);
    if (f.size() != header.size()) continue;
    const auto y = leading_number(f[yc]);
    if (!y) continue;
    std::string g;
    for (std::size_t c : group_columns) g += (g.empty() ? "" : " / ") + shown(f[c]);
    if (g.empty()) g = y_key;
    auto [it, inserted] = series_of.emplace(g, chart.series.size());
    if (inserted) chart.series.push_back(Series{g, {}, {}});
    chart.series[it->second].x.push_back(shown(f[xc]));
    chart.series[it->second].y.push_back(*y);
  }
  if (chart.series.empty()) throw ConfigError(csv_path + ": no row has a number in column '" + y_key + "'");
  return chart;
}

}  // namespace dlrmsim::tools
