#include "tools/progress.hpp"

#include <unistd.h>

#include <cmath>
#include <cstdio>

namespace dlrmsim::tools {

bool progress_wanted(bool quiet) { return !quiet && ::isatty(STDERR_FILENO) != 0; }

std::string human_duration(double seconds) {
  char text[48];
  if (!std::isfinite(seconds) || seconds < 0.0) return "?";
  if (seconds < 1.0) {
    std::snprintf(text, sizeof text, "%.0f ms", seconds * 1e3);
  } else if (seconds < 60.0) {
    std::snprintf(text, sizeof text, "%.0f s", seconds);
  } else if (seconds < 3600.0) {
    const long s = std::lround(seconds);
    std::snprintf(text, sizeof text, "%ld min %02ld s", s / 60, s % 60);
  } else if (seconds < 1e9) {
    const long m = std::lround(seconds / 60.0);
    std::snprintf(text, sizeof text, "%ld h %02ld min", m / 60, m % 60);
  } else {
    return "years";
  }
  return text;
}

std::string progress_text(std::size_t done, std::size_t total, double elapsed_s, const std::string& unit) {
  char head[96];
  std::snprintf(head, sizeof head, "%zu/%zu %s", done, total, unit.c_str());
  std::string text = head;
  if (done == 0 || !(elapsed_s > 0.0)) return text;
  const double rate = static_cast<double>(done) / elapsed_s;
  char rate_text[64];
  std::snprintf(rate_text, sizeof rate_text, rate >= 10.0 ? "%.0f" : "%.2g", rate);
  text += "  " + std::string(rate_text) + " " + unit + "/s";
  if (done < total) text += "  " + human_duration(static_cast<double>(total - done) / rate) + " left";
  return text;
}

ProgressLine::ProgressLine(std::size_t total, std::string unit, bool enabled, std::FILE* out)
    : total_(total), unit_(std::move(unit)), enabled_(enabled), out_(out) {}

ProgressLine::~ProgressLine() {
  if (drawn_) {
    std::fputs("\r\x1b[K", out_);  // carriage return, erase to the end of the line
    std::fflush(out_);
  }
}

void ProgressLine::advance(std::size_t n) {
  if (!enabled_) return;
  std::lock_guard lock(mutex_);
  done_ += n;
  const auto now = Clock::now();
  if (now - start_ < kProgressDelay || (drawn_ && now - last_draw_ < kProgressRedraw && done_ < total_)) return;
  const double elapsed = std::chrono::duration<double>(now - start_).count();
  std::fprintf(out_, "\r\x1b[K%s", progress_text(done_, total_, elapsed, unit_).c_str());
  std::fflush(out_);
  last_draw_ = now;
  drawn_ = true;
}

void ProgressLine::set_total(std::size_t total) {
  std::lock_guard<std::mutex> lock(mutex_);
  total_ = total;
}

std::function<void(std::size_t, std::size_t)> progress_callback(std::optional<ProgressLine>& line) {
  return [&line](std::size_t done, std::size_t total) {
    if (!line) return;
    if (done == 1) line->set_total(total);
    line->advance();
    if (done == total) line.reset();
  };
}

}  // namespace dlrmsim::tools
