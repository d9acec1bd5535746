// A progress line on standard error for long loops (sweep points, validation cases).
//
// Shown only when standard error is a terminal and the user did not ask for --quiet
// (progress_wanted), and only once the loop has run for kProgressDelay, so that quick
// commands print nothing extra: "  37/1000 points  12.3 points/s  1 min 18 s left". It is
// redrawn in place (carriage return) at most every kProgressRedraw and erased at the end, so
// the command's own final message is what stays on the screen. Piped or redirected standard
// error receives nothing from it, which keeps logs and scripted output unchanged.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdio>
#include <functional>
#include <mutex>
#include <optional>
#include <string>

namespace dlrmsim::tools {

inline constexpr std::chrono::milliseconds kProgressDelay{1000};
inline constexpr std::chrono::milliseconds kProgressRedraw{100};

/// Whether a command shows progress: standard error is a terminal and `quiet` is false.
bool progress_wanted(bool quiet);

/// The line's text for `done` of `total` `unit` (plural noun) after `elapsed_s` seconds:
/// count, rate and the time left at that rate ("" rate and time before anything is done).
std::string progress_text(std::size_t done, std::size_t total, double elapsed_s, const std::string& unit);

/// "850 ms", "12 s", "3 min 05 s", "2 h 07 min": a duration as a person reads it.
std::string human_duration(double seconds);

/// One loop's progress line. advance() may be called from several threads.
class ProgressLine {
 public:
  ProgressLine(std::size_t total, std::string unit, bool enabled, std::FILE* out = stderr);
  ~ProgressLine();  // erases the line if it was drawn
  ProgressLine(const ProgressLine&) = delete;
  ProgressLine& operator=(const ProgressLine&) = delete;

  void advance(std::size_t n = 1);
  /// For loops whose length is known only once they start (a run's steps, after its graph
  /// is built): the line's clock still starts at construction.
  void set_total(std::size_t total);

 private:
  using Clock = std::chrono::steady_clock;
  std::size_t total_;
  std::string unit_;
  bool enabled_;
  std::FILE* out_;
  std::mutex mutex_;
  std::size_t done_ = 0;
  Clock::time_point start_ = Clock::now();
  Clock::time_point last_draw_{};
  bool drawn_ = false;
};

/// A loop's (done, total) callback that draws `line` (models::RunOptions::on_step,
/// app::SweepOptions::on_point): the total is set at the first call and the line erased
/// (reset) at the last, before the command prints its result. `line` must outlive the loop.
std::function<void(std::size_t done, std::size_t total)> progress_callback(std::optional<ProgressLine>& line);

}  // namespace dlrmsim::tools
