#include "tools/progress.hpp"

#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <mutex>
#include <stop_token>
#include <utility>

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
  return progress_text(done, total, done > 0 && elapsed_s > 0.0 ? static_cast<double>(done) / elapsed_s : 0.0, unit, "");
}

std::string progress_text(std::size_t done, std::size_t total, double rate, const std::string& unit,
                          const std::string& detail) {
  char head[96];
  std::snprintf(head, sizeof head, "%zu/%zu %s", done, total, unit.c_str());
  std::string text = head;
  if (!detail.empty()) text += " (" + detail + ")";
  if (done == 0 || !(rate > 0.0) || !std::isfinite(rate)) return text;
  char rate_text[64];
  std::snprintf(rate_text, sizeof rate_text, rate >= 10.0 ? "%.0f" : "%.2g", rate);
  text += "  " + std::string(rate_text) + " " + unit + "/s";
  if (done < total) text += "  " + human_duration(static_cast<double>(total - done) / rate) + " left";
  return text;
}

ProgressLine::ProgressLine(std::size_t total, std::string unit, bool enabled, std::FILE* out)
    : total_(total), unit_(std::move(unit)), enabled_(enabled), out_(out) {
  if (!enabled_) return;
  ticker_ = std::jthread([this](std::stop_token stop) {
    std::unique_lock lock(mutex_);
    while (!stop.stop_requested()) {
      (void)wake_.wait_for(lock, stop, kProgressRedraw, [] { return false; });
      if (!stop.stop_requested()) draw(Clock::now(), false);
    }
  });
}

ProgressLine::~ProgressLine() {
  if (ticker_.joinable()) {
    ticker_.request_stop();
    ticker_.join();
  }
  if (drawn_) {
    std::fputs("\r\x1b[K", out_);  // carriage return, erase to the end of the line
    std::fflush(out_);
  }
}

void ProgressLine::draw(Clock::time_point now, bool force) {
  if (now - start_ < kProgressDelay || (drawn_ && !force && now - last_draw_ < kProgressRedraw)) return;
  const double elapsed = std::chrono::duration<double>(now - start_).count();
  std::string text;
  if (done_ == 0 && total_ == 0) {
    text = "0 " + unit_ + " done, " + human_duration(elapsed) + " so far";
  } else {
    // The rate since the pass's first item finished; with one finished, since the start.
    double rate = 0.0;
    if (first_done_ && done_ > done_at_first_) {
      const double since = std::chrono::duration<double>(now - *first_done_).count();
      if (since > 0.0) rate = static_cast<double>(done_ - done_at_first_) / since;
    } else if (done_ > 0 && elapsed > 0.0) {
      rate = static_cast<double>(done_) / elapsed;
    }
    text = progress_text(done_, total_, rate, unit_, detail_);
  }
  std::fprintf(out_, "\r\x1b[K%s", text.c_str());
  std::fflush(out_);
  last_draw_ = now;
  drawn_ = true;
}

void ProgressLine::count(std::size_t done, Clock::time_point now) {
  if (done < done_ || (done > 0 && !first_done_)) {
    first_done_ = now;
    done_at_first_ = done;
  }
  done_ = done;
}

void ProgressLine::advance(std::size_t n) {
  if (!enabled_) return;
  std::lock_guard lock(mutex_);
  const auto now = Clock::now();
  count(done_ + n, now);
  draw(now, done_ >= total_);
}

void ProgressLine::set_total(std::size_t total) {
  std::lock_guard<std::mutex> lock(mutex_);
  total_ = total;
}

void ProgressLine::update(std::size_t done, std::size_t total, std::string detail) {
  if (!enabled_) return;
  std::lock_guard lock(mutex_);
  const auto now = Clock::now();
  total_ = total;
  detail_ = std::move(detail);
  count(done, now);
  draw(now, done_ >= total_);
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
