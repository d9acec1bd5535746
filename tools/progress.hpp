// A progress line on standard error for long loops (sweep points, validation cases, a run's
// simulated steps).
//
// Shown only when standard error is a terminal and the user did not ask for --quiet
// (progress_wanted), and only once the loop has run for kProgressDelay, so that quick
// commands print nothing extra: "  37/1000 points  12.3 points/s  1 min 18 s left". From then
// on it is redrawn in place (carriage return) every kProgressRedraw by its own thread, so it
// shows from the first second even while nothing has finished yet ("0 steps done, 3 s so
// far"), and erased at the end, so the command's own final message is what stays on the
// screen. The rate, and the time left at that rate, count the items finished since the first
// one did (the set-up before it, such as a run's placement and step graph, is not a step's
// time); with one item finished, the time since the start. A detail names what the count is
// made of ("12 steps (2 warm-up, 8 measured, 2 cool-down)"). Piped or redirected standard
// error receives nothing from it, which keeps logs and scripted output unchanged.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdio>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

namespace dlrmsim::tools {

inline constexpr std::chrono::milliseconds kProgressDelay{1000};
inline constexpr std::chrono::milliseconds kProgressRedraw{100};

/// Whether a command shows progress: standard error is a terminal and `quiet` is false.
bool progress_wanted(bool quiet);

/// The line's text for `done` of `total` `unit` (plural noun) after `elapsed_s` seconds:
/// count, rate and the time left at that rate ("" rate and time before anything is done).
std::string progress_text(std::size_t done, std::size_t total, double elapsed_s, const std::string& unit);
/// The same with the rate (`unit` per second; none when not positive) and a `detail` after
/// the count: "3/13 steps (2 warm-up, 8 measured, 3 cool-down)  25 steps/s  400 ms left".
std::string progress_text(std::size_t done, std::size_t total, double rate, const std::string& unit,
                          const std::string& detail);

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
  /// Sets the count itself (a loop that reports done and total), with the detail of what the
  /// total is made of. A count lower than the last starts the rate over (a second pass).
  void update(std::size_t done, std::size_t total, std::string detail);

 private:
  using Clock = std::chrono::steady_clock;
  /// Draws the line if it is due (mutex_ held): after kProgressDelay, at most every
  /// kProgressRedraw unless `force`.
  void draw(Clock::time_point now, bool force);
  void count(std::size_t done, Clock::time_point now);
  std::size_t total_;
  std::string unit_;
  bool enabled_;
  std::FILE* out_;
  std::mutex mutex_;
  std::size_t done_ = 0;
  std::string detail_;
  Clock::time_point start_ = Clock::now();
  Clock::time_point last_draw_{};
  /// When the first item of the pass finished, and the count then (the rate's origin).
  std::optional<Clock::time_point> first_done_;
  std::size_t done_at_first_ = 0;
  bool drawn_ = false;
  std::condition_variable_any wake_;
  std::jthread ticker_;  // redraws every kProgressRedraw once due (enabled lines only)
};

/// A loop's (done, total) callback that draws `line` (models::RunOptions::on_step,
/// app::SweepOptions::on_point): the total is set at the first call and the line erased
/// (reset) at the last, before the command prints its result. `line` must outlive the loop.
std::function<void(std::size_t done, std::size_t total)> progress_callback(std::optional<ProgressLine>& line);

}  // namespace dlrmsim::tools
