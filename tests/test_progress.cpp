// Tests of the progress line (tools/progress.hpp): its text, and that it stays silent when
// disabled or when the loop is quick.
#include <doctest/doctest.h>

#include <cstdio>
#include <string>
#include <thread>

#include "tools/progress.hpp"

using namespace dlrmsim::tools;

namespace {
/// Everything a ProgressLine wrote to a temporary file while `body` ran (the line is
/// destroyed at the end of `body`'s scope, which erases it).
template <typename Body>
std::string captured(Body body) {
  std::FILE* f = std::tmpfile();
  REQUIRE(f != nullptr);
  body(f);
  std::rewind(f);
  std::string text;
  char buffer[256];
  while (std::size_t n = std::fread(buffer, 1, sizeof buffer, f)) text.append(buffer, n);
  std::fclose(f);
  return text;
}
}  // namespace

// System: 250 of 1000 points done in 10 s. Expected: rate 25 points/s and the 750 left take
// 750 / 25 = 30 s. Rates under 10 keep two significant digits (0.5 points/s, not 0).
// Nothing done yet: no rate and no time left can be given, so only the count shows.
TEST_CASE("the progress text gives the count, the rate and the time left at that rate") {
  CHECK(progress_text(250, 1000, 10.0, "points") == "250/1000 points  25 points/s  30 s left");
  CHECK(progress_text(1, 3, 2.0, "cases") == "1/3 cases  0.5 cases/s  4 s left");
  CHECK(progress_text(0, 3, 2.0, "cases") == "0/3 cases");
  CHECK(progress_text(3, 3, 2.0, "cases") == "3/3 cases  1.5 cases/s");
}

// Durations: under a second in ms, then s, then min and s (seconds 2 digits), then h and
// min: 185 s = 3 min 05 s; 7620 s = 2 h 07 min.
TEST_CASE("durations read as a person says them") {
  CHECK(human_duration(0.85) == "850 ms");
  CHECK(human_duration(12.4) == "12 s");
  CHECK(human_duration(185.0) == "3 min 05 s");
  CHECK(human_duration(7620.0) == "2 h 07 min");
  CHECK(human_duration(-1.0) == "?");
}

// A disabled line writes nothing even after the delay; an enabled one writes nothing for a
// loop shorter than kProgressDelay; an enabled one whose loop outlasts it draws the count,
// and erases the line at the end (the last thing written is the erase sequence).
TEST_CASE("the progress line is silent when disabled or quick, and drawn then erased otherwise") {
  const std::string disabled = captured([](std::FILE* f) {
    ProgressLine line(2, "points", false, f);
    line.advance();
    std::this_thread::sleep_for(kProgressDelay + std::chrono::milliseconds(50));
    line.advance();
  });
  CHECK(disabled.empty());
  const std::string quick = captured([](std::FILE* f) {
    ProgressLine line(2, "points", true, f);
    line.advance(2);
  });
  CHECK(quick.empty());
  const std::string slow = captured([](std::FILE* f) {
    ProgressLine line(2, "points", true, f);
    line.advance();
    std::this_thread::sleep_for(kProgressDelay + std::chrono::milliseconds(50));
    line.advance();
  });
  CHECK(slow.find("2/2 points") != std::string::npos);
  CHECK(slow.size() >= 4);
  CHECK(slow.substr(slow.size() - 4) == "\r\x1b[K");
}
