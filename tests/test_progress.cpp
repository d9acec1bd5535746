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

// System: 3 of 13 steps done at 25 steps/s, the 13 being 2 warm-up, 8 measured and 3
// cool-down. Expected: the count names them, and the 10 left take 10 / 25 = 400 ms.
TEST_CASE("the progress text names what the count is made of") {
  CHECK(progress_text(3, 13, 25.0, "steps", "2 warm-up, 8 measured, 3 cool-down") ==
        "3/13 steps (2 warm-up, 8 measured, 3 cool-down)  25 steps/s  400 ms left");
  CHECK(progress_text(0, 13, 0.0, "steps", "2 warm-up") == "0/13 steps (2 warm-up)");
}

// System: an enabled line whose loop finishes nothing for kProgressDelay + 250 ms (a run still
// placing and building its steps). Expected: the line is drawn anyway, by its own thread,
// saying nothing is done yet and for how long ("1 s so far"), then erased.
TEST_CASE("the progress line shows from the first second before anything finishes") {
  const std::string text = captured([](std::FILE* f) {
    ProgressLine line(0, "steps", true, f);
    std::this_thread::sleep_for(kProgressDelay + std::chrono::milliseconds(250));
  });
  CHECK(text.find("0 steps done, 1 s so far") != std::string::npos);
  CHECK(text.substr(text.size() - 4) == "\r\x1b[K");
}

// System: a loop whose first step ends after kProgressDelay + 100 ms of set-up and whose second
// 100 ms later. Expected: the rate counts the steps since the first ended, 1 step in about
// 100 ms: about 10 steps/s (over 3 unless the machine stalls a third of a second); counted
// from the start it would be 2 in 1.2 s, 1.7 steps/s, and the time left 6x too long.
TEST_CASE("the progress rate counts the steps since the first, not the set-up before it") {
  const std::string text = captured([](std::FILE* f) {
    ProgressLine line(0, "steps", true, f);
    std::this_thread::sleep_for(kProgressDelay + std::chrono::milliseconds(100));
    line.update(1, 2, "1 warm-up, 1 measured");
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    line.update(2, 2, "1 warm-up, 1 measured");
  });
  const auto at = text.find("2/2 steps (1 warm-up, 1 measured)  ");
  REQUIRE(at != std::string::npos);
  const double rate = std::stod(text.substr(at + std::string("2/2 steps (1 warm-up, 1 measured)  ").size()));
  CHECK(rate > 3.0);
  CHECK(rate < 11.0);
}
