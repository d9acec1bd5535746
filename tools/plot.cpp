#include "tools/plot.hpp"
#include "tools/tick_label.hpp"
#include "common/text.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <filesystem>
#include <limits>
#include <map>
#include <memory>
#include <sstream>
#include <stdexcept>
#include <string_view>
#include <unordered_map>

#include "common/config.hpp"
#include "common/files.hpp"
#include "app/sweep.hpp"

#ifdef DLRMSIM_WITH_RSVG
#include <cairo.h>
#include <librsvg/rsvg.h>
#endif

namespace dlrmsim::tools {

using app::csv_split;
namespace {

constexpr double kWidth = 900, kHeight = 440, kLeft = 80, kRight = 290, kTop = 40, kBottom = 60;
constexpr double kMaxDouble = std::numeric_limits<double>::max();
// Colour-blind-safe palettes: Okabe & Ito ("Color Universal Design", 2002), then Paul Tol's
// "muted" scheme for series beyond eight.
constexpr const char* kColours[] = {"#0072B2", "#E69F00", "#009E73", "#D55E00", "#CC79A7", "#56B4E9",
                                    "#F0E442", "#000000", "#882255", "#44AA99", "#999933", "#AA4499"};
constexpr std::size_t kColourCount = sizeof(kColours) / sizeof(kColours[0]);

/// The length of the valid UTF-8 sequence at the start of `s`, 0 if there is none.
std::size_t utf8_sequence(std::string_view s) {
  const auto b = [&](std::size_t i) { return static_cast<unsigned char>(s[i]); };
  const unsigned char c = b(0);
  std::size_t n = 0;
  unsigned lo = 0x80, hi = 0xBF;  // the allowed range of the second byte (RFC 3629 table)
  if (c < 0x80) return 1;
  if (c >= 0xC2 && c <= 0xDF) n = 2;
  else if (c >= 0xE0 && c <= 0xEF) n = 3, lo = c == 0xE0 ? 0xA0 : 0x80, hi = c == 0xED ? 0x9F : 0xBF;
  else if (c >= 0xF0 && c <= 0xF4) n = 4, lo = c == 0xF0 ? 0x90 : 0x80, hi = c == 0xF4 ? 0x8F : 0xBF;
  else return 0;
  if (s.size() < n || b(1) < lo || b(1) > hi) return 0;
  for (std::size_t i = 2; i < n; ++i) {
    if (b(i) < 0x80 || b(i) > 0xBF) return 0;
  }
  return n;
}

/// Text for SVG character data and attribute values: markup characters escaped, and bytes
/// an XML document cannot hold (control characters, invalid UTF-8, as a CSV file may
/// contain) replaced by U+FFFD, so that the document always parses.
std::string escape(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (std::size_t i = 0; i < s.size();) {
    const char c = s[i];
    switch (c) {
      case '<': out += "&lt;"; ++i; continue;
      case '>': out += "&gt;"; ++i; continue;
      case '&': out += "&amp;"; ++i; continue;
      case '"': out += "&quot;"; ++i; continue;
      default: break;
    }
    const auto u = static_cast<unsigned char>(c);
    const std::size_t n = utf8_sequence(s.substr(i));
    if (n == 0 || (u < 0x20 && c != '\t') || u == 0x7F) {
      out += "\xEF\xBF\xBD";
      ++i;
      continue;
    }
    out.append(s.substr(i, n));
    i += n;
  }
  return out;
}

double clamp_finite(double v) { return std::clamp(v, -kMaxDouble, kMaxDouble); }

/// -0 printed as "0".
double positive_zero(double v) { return v == 0.0 ? 0.0 : v; }

struct Axis {
  double lo, hi;
  bool log;
  /// Where `v` lies between lo (0) and hi (1). Differences are taken of halves, so that
  /// an axis from -1.8e308 to 1.8e308 does not overflow; not finite for a non-positive
  /// value on a log axis.
  double fraction(double v) const {
    const double a = log ? std::log10(lo) : lo;
    const double b = log ? std::log10(hi) : hi;
    const double x = log ? (v > 0.0 ? std::log10(v) : std::numeric_limits<double>::quiet_NaN()) : v;
    const double span = b / 2 - a / 2;
    return span > 0.0 ? (x / 2 - a / 2) / span : 0.5;
  }
  double map(double v, double from, double to) const { return from + (to - from) * fraction(v); }
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
    // About five steps of 2, 5 or 10 times a power of ten; counted, so that a span too
    // small for the magnitude of its ends (1e15 .. 1e15 + 1) cannot loop for ever.
    const double raw = (hi / 2 - lo / 2) / 2.5;
    if (!(raw > 0.0)) return {lo, hi};
    const double mag = std::pow(10.0, std::floor(std::log10(raw)));
    const double step = raw / mag < 2 ? 2 * mag : raw / mag < 5 ? 5 * mag : 10 * mag;
    const double first = std::ceil(lo / step);
    for (int k = 0; k < 12; ++k) {
      const double v = (first + k) * step;
      if (!std::isfinite(v) || !(v <= clamp_finite(hi + step * 1e-9))) break;
      t.push_back(positive_zero(v));
    }
    return t;
  }
};

Axis make_axis(const std::vector<double>& values, bool log, bool from_zero) {
  double lo = kMaxDouble, hi = -kMaxDouble;
  for (double v : values) {
    if (!std::isfinite(v) || (log && v <= 0.0)) continue;
    lo = std::min(lo, v);
    hi = std::max(hi, v);
  }
  if (lo > hi) return log ? Axis{1, 10, true} : Axis{0, 1, false};  // nothing to show
  if (log) {
    lo = std::max(lo, 1e-300);
    return {std::pow(10.0, std::floor(std::log10(lo))), std::min(std::pow(10.0, std::ceil(std::log10(hi))), kMaxDouble),
            true};
  }
  if (from_zero) lo = std::min(lo, 0.0);
  if (hi == lo) {
    // One value: a unit around it, or 10 % of it where a unit is lost in its magnitude.
    hi = lo + std::max(1.0, std::abs(lo) * 0.1);
    if (!std::isfinite(hi)) lo = lo - std::abs(lo) * 0.1, hi = kMaxDouble;
  }
  const double pad = (hi / 2 - lo / 2) * 0.1;  // 5 % of the span
  return {from_zero && lo == 0.0 ? 0.0 : clamp_finite(lo - pad), clamp_finite(hi + pad), false};
}

/// The vertices of a line through `pts` (page coordinates, sorted by x) that looks the same
/// at the page's resolution: of each run of points within one quarter of a pixel column, the
/// first, the lowest, the highest and the last, in their order. A line through 100,000
/// points otherwise costs the PNG renderer seconds per series; this keeps at most four
/// vertices per quarter pixel (about 8,500 for the plot's width). Linear time.
std::vector<std::pair<double, double>> line_through(const std::vector<std::pair<double, double>>& pts) {
  std::vector<std::pair<double, double>> line;
  for (std::size_t begin = 0; begin < pts.size();) {
    const double column = std::floor(pts[begin].first * 4.0);
    std::size_t end = begin + 1, low = begin, high = begin;
    for (; end < pts.size() && std::floor(pts[end].first * 4.0) == column; ++end) {
      if (pts[end].second < pts[low].second) low = end;
      if (pts[end].second > pts[high].second) high = end;
    }
    std::size_t keep[] = {begin, std::min(low, high), std::max(low, high), end - 1};
    for (std::size_t k = 0; k < 4; ++k) {
      if (k == 0 || keep[k] != keep[k - 1]) line.push_back(pts[keep[k]]);
    }
    begin = end;
  }
  return line;
}

/// Whether a text starts with a number, and whether that number is finite.
enum class Leading { none, finite, not_finite };
Leading leading_kind(const std::string& text, double& value) {
  const char* b = text.data();
  const char* e = text.data() + text.size();
  while (b < e && *b == ' ') ++b;
  const auto [end, ec] = std::from_chars(b, e, value);
  if (ec == std::errc::result_out_of_range) return Leading::not_finite;  // 1e999
  if (ec != std::errc() || end == b) return Leading::none;
  return std::isfinite(value) ? Leading::finite : Leading::not_finite;
}

}  // namespace

std::optional<double> leading_number(const std::string& text) {
  double v = 0.0;
  if (leading_kind(text, v) != Leading::finite) return std::nullopt;
  return v;
}

std::string render_svg(const Chart& chart, std::size_t* skipped) {
  const double x0 = kLeft, x1 = kWidth - kRight, y0 = kHeight - kBottom, y1 = kTop;
  std::size_t points = 0;
  for (const Series& s : chart.series) points += std::min(s.x.size(), s.y.size());
  // x numbers parsed once; a chart is numeric when every x value is.
  std::vector<std::vector<double>> x_numbers(chart.series.size());
  bool numeric_x = true;
  std::vector<double> xs, ys;
  xs.reserve(points);
  ys.reserve(points);
  for (std::size_t s = 0; s < chart.series.size(); ++s) {
    const Series& series = chart.series[s];
    const std::size_t n = std::min(series.x.size(), series.y.size());
    for (std::size_t i = 0; i < n && numeric_x; ++i) {
      const auto v = leading_number(series.x[i]);
      if (!v) numeric_x = false;
      else x_numbers[s].push_back(*v);
    }
    for (std::size_t i = 0; i < n; ++i) ys.push_back(series.y[i]);
  }
  // Categories in order of first appearance, found through a hash map (linear time).
  std::vector<std::string> categories;
  std::unordered_map<std::string, std::size_t> category_of;
  if (numeric_x) {
    for (const auto& numbers : x_numbers) xs.insert(xs.end(), numbers.begin(), numbers.end());
  } else {
    for (const Series& s : chart.series) {
      for (std::size_t i = 0; i < std::min(s.x.size(), s.y.size()); ++i) {
        if (category_of.emplace(s.x[i], categories.size()).second) categories.push_back(s.x[i]);
      }
    }
  }
  std::ostringstream svg;
  svg << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << kWidth << "\" height=\"" << kHeight
      << "\" font-family=\"sans-serif\" font-size=\"12\">\n<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n";
  svg << "<text x=\"" << kWidth / 2 << "\" y=\"22\" text-anchor=\"middle\" font-size=\"15\">" << escape(chart.title)
      << "</text>\n";
  const bool log = chart.log_log_diagonal || (chart.log_axes && numeric_x);
  if (chart.log_log_diagonal) {
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
        << "\" stroke=\"#ddd\"/><text x=\"" << x0 - 6 << "\" y=\"" << y + 4 << "\" text-anchor=\"end\">" << tick_label(t)
        << "</text>\n";
  }
  if (numeric_x) {
    for (double t : ax.ticks()) {
      const double x = ax.map(t, x0, x1);
      svg << "<line x1=\"" << x << "\" x2=\"" << x << "\" y1=\"" << y0 << "\" y2=\"" << y0 + 4
          << "\" stroke=\"black\"/><text x=\"" << x << "\" y=\"" << y0 + 18 << "\" text-anchor=\"middle\">" << tick_label(t)
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
  if (chart.log_log_diagonal) {
    svg << "<line x1=\"" << ax.map(ax.lo, x0, x1) << "\" y1=\"" << ay.map(ay.lo, y0, y1) << "\" x2=\""
        << ax.map(ax.hi, x0, x1) << "\" y2=\"" << ay.map(ay.hi, y0, y1) << "\" stroke=\"#999\" stroke-dasharray=\"4 3\"/>\n";
  }
  if (!chart.legend_title.empty()) {
    svg << "<text x=\"" << x1 + 15 << "\" y=\"" << y1 + 10 << "\" font-weight=\"bold\">" << escape(chart.legend_title)
        << "</text>\n";
  }
  std::size_t left_out = 0;
  const std::size_t n = chart.series.size();
  for (std::size_t s = 0; s < n; ++s) {
    const Series& series = chart.series[s];
    const std::size_t count = std::min(series.x.size(), series.y.size());
    const char* colour = kColours[s % kColourCount];
    if (numeric_x) {
      std::vector<std::pair<double, double>> pts;  // page coordinates
      pts.reserve(count);
      std::vector<std::pair<double, double>> values;
      values.reserve(count);
      for (std::size_t i = 0; i < count; ++i) values.emplace_back(x_numbers[s][i], series.y[i]);
      std::sort(values.begin(), values.end());
      for (const auto& [x, y] : values) {
        const double px = ax.map(x, x0, x1), py = ay.map(y, y0, y1);
        if (std::isfinite(px) && std::isfinite(py)) pts.emplace_back(px, py);
        else ++left_out;
      }
      if (!chart.log_log_diagonal && !series.points_only && pts.size() > 1) {
        svg << "<polyline fill=\"none\" stroke=\"" << colour << "\" stroke-width=\"2\" points=\"";
        for (const auto& [x, y] : line_through(pts)) svg << x << "," << y << " ";
        svg << "\"/>\n";
      }
      for (const auto& [x, y] : pts) {
        if (series.points_only) {
          svg << "<circle cx=\"" << x << "\" cy=\"" << y << "\" r=\"6\" fill=\"none\" stroke-width=\"2.5\" stroke=\"" << colour
              << "\"/>\n";
        } else {
          svg << "<circle cx=\"" << x << "\" cy=\"" << y << "\" r=\"3.5\" fill=\"" << colour << "\"/>\n";
        }
      }
    } else {
      const double slot = (x1 - x0) / static_cast<double>(std::max<std::size_t>(categories.size(), 1));
      const double bar = slot * 0.8 / static_cast<double>(n);
      for (std::size_t i = 0; i < count; ++i) {
        const auto c = static_cast<double>(category_of.at(series.x[i]));
        const double x = x0 + slot * c + slot * 0.1 + bar * static_cast<double>(s);
        const double top = ay.map(series.y[i], y0, y1);
        if (!std::isfinite(top)) {
          ++left_out;
          continue;
        }
        svg << "<rect x=\"" << x << "\" y=\"" << top << "\" width=\"" << bar << "\" height=\"" << y0 - top
            << "\" fill=\"" << colour << "\"/>\n";
      }
    }
    const double entry = y1 + 18 * static_cast<double>(s + (chart.legend_title.empty() ? 0 : 1));
    svg << "<rect x=\"" << x1 + 15 << "\" y=\"" << entry << "\" width=\"10\" height=\"10\" fill=\""
        << colour << "\"/><text x=\"" << x1 + 30 << "\" y=\"" << entry + 10 << "\">"
        << escape(series.name) << "</text>\n";
  }
  svg << "</svg>\n";
  if (skipped) *skipped = left_out;
  return svg.str();
}

#ifdef DLRMSIM_WITH_RSVG
bool png_supported() { return true; }

std::string render_png(const std::string& svg) {
  // Owners that release the C objects on every path.
  struct Unref {
    void operator()(RsvgHandle* h) const { g_object_unref(h); }
    void operator()(cairo_surface_t* s) const { cairo_surface_destroy(s); }
    void operator()(cairo_t* c) const { cairo_destroy(c); }
  };
  // The SVG is produced by render_svg, so a failure to render it is a defect of this
  // program, not of the user's input: a std::runtime_error.
  auto fail = [](const std::string& what, GError* error) {
    const std::string reason = error ? error->message : "unknown reason";
    if (error) g_error_free(error);
    throw std::runtime_error("rendering the chart as PNG: " + what + ": " + reason);
  };
  GError* error = nullptr;
  std::unique_ptr<RsvgHandle, Unref> handle(
      rsvg_handle_new_from_data(reinterpret_cast<const guint8*>(svg.data()), svg.size(), &error));
  if (!handle) fail("the SVG was not accepted", error);
  const int width = static_cast<int>(kWidth), height = static_cast<int>(kHeight);
  std::unique_ptr<cairo_surface_t, Unref> surface(cairo_image_surface_create(CAIRO_FORMAT_ARGB32, width, height));
  if (cairo_surface_status(surface.get()) != CAIRO_STATUS_SUCCESS) fail("no image surface", nullptr);
  {
    std::unique_ptr<cairo_t, Unref> cr(cairo_create(surface.get()));
    const RsvgRectangle viewport{0.0, 0.0, kWidth, kHeight};
    if (!rsvg_handle_render_document(handle.get(), cr.get(), &viewport, &error)) fail("drawing failed", error);
  }
  std::string png;
  const auto append = [](void* closure, const unsigned char* data, unsigned int length) -> cairo_status_t {
    static_cast<std::string*>(closure)->append(reinterpret_cast<const char*>(data), length);
    return CAIRO_STATUS_SUCCESS;
  };
  if (cairo_surface_write_to_png_stream(surface.get(), append, &png) != CAIRO_STATUS_SUCCESS) {
    fail("encoding the PNG failed", nullptr);
  }
  return png;
}
#else
bool png_supported() { return false; }

std::string render_png(const std::string&) {
  throw std::invalid_argument(
      "this dlrmsim was built without PNG support (librsvg and cairo: install Debian's librsvg2-dev and rebuild); "
      "write .svg instead");
}
#endif

void write_chart(const Chart& chart, const std::string& path) {
  const std::string ext = std::filesystem::path(path).extension().string();
  if (ext != ".svg" && ext != ".png") {
    throw std::invalid_argument("plot output '" + path + "': expected a file name ending in .svg or .png");
  }
  const std::string svg = render_svg(chart);
  write_output_file(path, ext == ".svg" ? svg : render_png(svg));
}

namespace {

/// Why two rows of a CSV cannot both be drawn: they have the same x and group values. Names
/// the other columns whose values differ between them (what --group should add), or says
/// that none does (the rows repeat one point).
std::string overlap_message(const std::string& csv_path, const std::vector<std::string>& header,
                            const std::vector<std::string>& a, const std::vector<std::string>& b,
                            std::pair<std::size_t, std::size_t> lines, std::pair<std::size_t, std::size_t> xy,
                            const std::vector<std::size_t>& group_columns) {
  std::string differing;
  for (std::size_t c = 0; c < header.size(); ++c) {
    const bool used = c == xy.first || c == xy.second ||
                      std::find(group_columns.begin(), group_columns.end(), c) != group_columns.end();
    if (!used && a[c] != b[c]) differing += (differing.empty() ? "" : ", ") + header[c];
  }
  std::string msg = csv_path + ":" + std::to_string(lines.second) + ": this row and line " +
                    std::to_string(lines.first) + " have the same " + header[xy.first] + " (" + a[xy.first] + ")";
  msg += group_columns.empty() ? " and no --group" : " and the same --group values";
  msg += ", so they would be drawn on one bar or point; ";
  if (differing.empty()) return msg + "no other column separates them (the file repeats a point): remove one of them";
  return msg + "add a column that separates them to --group: " + differing;
}

}  // namespace

Chart chart_from_csv(const std::string& csv_path, const std::string& x_key, const std::string& y_key,
                     const std::string& group_key) {
  std::string text = read_input_file(csv_path);
  // A UTF-8 byte order mark (spreadsheets save one) is not part of the first column's name.
  if (text.rfind("\xEF\xBB\xBF", 0) == 0) text.erase(0, 3);
  std::vector<std::string_view> lines;
  for (std::size_t start = 0; start < text.size();) {
    std::size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    std::string_view line(text.data() + start, end - start);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    lines.push_back(line);
    start = end + 1;
  }
  if (lines.empty()) throw ConfigError(csv_path + ":1: the file is empty; expected a CSV header");
  const std::vector<std::string> header = csv_split(std::string(lines[0]));
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
  // The line of the row drawn at each (series, x): two rows there would share one bar or point.
  std::map<std::pair<std::string, std::string>, std::size_t> line_of;
  for (std::size_t l = 1; l < lines.size(); ++l) {
    const auto f = csv_split(std::string(lines[l]));
    if (f.size() != header.size()) continue;
    double y = 0.0, x = 0.0;
    const Leading y_kind = leading_kind(f[yc], y);
    if (y_kind == Leading::none) continue;
    if (y_kind == Leading::not_finite || leading_kind(f[xc], x) == Leading::not_finite) {
      ++chart.skipped_non_finite;
      continue;
    }
    std::string g;
    for (std::size_t c : group_columns) g += (g.empty() ? "" : " / ") + shown(f[c]);
    if (g.empty()) g = y_key;
    if (auto [at, first] = line_of.emplace(std::make_pair(g, f[xc]), l); !first) {
      throw ConfigError(overlap_message(csv_path, header, csv_split(std::string(lines[at->second])), f,
                                        {at->second + 1, l + 1}, {xc, yc}, group_columns));
    }
    auto [it, inserted] = series_of.emplace(g, chart.series.size());
    if (inserted) chart.series.push_back(Series{g, {}, {}});
    chart.series[it->second].x.push_back(shown(f[xc]));
    chart.series[it->second].y.push_back(y);
  }
  if (chart.series.empty()) {
    throw ConfigError(csv_path + ": no row has a finite number in column '" + y_key + "'");
  }
  return chart;
}

}  // namespace dlrmsim::tools
