// Typed parameters (common/param.hpp): what a reader gets from a Param or a Choice, and the
// registry row each writes from its typed values.
#include <doctest/doctest.h>

#include <string>

#include "common/param.hpp"
#include "models/software_stack.hpp"

namespace dlrmsim {
namespace {

ConfigNode yaml(const std::string& text) { return ConfigNode::load_string(text, "t.yaml"); }

/// The message of the ConfigError `f` throws ("" when it throws none).
template <class F>
std::string error_of(F f) {
  try {
    f();
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "";
}

const Param<int> kWorkers{
    .key_path = "host.loader.workers", .unit = "count", .fallback = 1,
    .range = {.min = Bound<int>{0, false}, .max = Bound<int>{1024, true, "expected at most 1024 loader threads"}},
    .meaning = "Loader threads."};

// System: Param::read. Input: a mapping without the key, then with it. Expected: the
// fallback (1) when absent, the written value (4) when present; the key asked for is the key
// path's last segment, so finish() accepts the mapping.
TEST_CASE("a parameter reads its default when absent and its value when present") {
  const auto none = yaml("{}");
  CHECK(kWorkers.read(none) == 1);
  const auto four = yaml("workers: 4\n");
  CHECK(kWorkers.read(four) == 4);
  CHECK_NOTHROW(four.finish());
  CHECK(kWorkers.key() == "workers");
}

// System: Param::read out of range. Inputs: 0 against the exclusive lower bound 0, 2000
// against the upper bound 1024 with its own message. Expected: ConfigNode::check_positive's
// message for the first (as get_positive gave before), the bound's message for the second,
// both located at the value: "t.yaml:1:10" is line 1, column 10, after "workers: ".
TEST_CASE("a parameter refuses out-of-range values with a located message") {
  CHECK(error_of([] { (void)kWorkers.read(yaml("workers: 0\n")); }) == "t.yaml:1:10: workers: value 0 must be positive");
  CHECK(error_of([] { (void)kWorkers.read(yaml("workers: 2000\n")); }) ==
        "t.yaml:1:10: workers: expected at most 1024 loader threads");
  CHECK(error_of([] { (void)kWorkers.read(yaml("workers: 1024\n")); }) == "");  // inclusive bound
  const Param<int> at_least_two{.key_path = "n", .fallback = 2, .range = {.min = Bound<int>{2}}};
  CHECK(error_of([&] { (void)at_least_two.read(yaml("n: 1\n")); }) == "t.yaml:1:4: n: value 1 must be >= 2");
  const Param<int> required{.key_path = "run.steps"};
  CHECK(error_of([&] { (void)required.read(yaml("{}")); }) != "");
}

// System: Param::row. Expected strings, each written from the typed value: the default with
// its note in parentheses; ranges as comparisons joined by ", " ("> 0, <= 1024"), or in
// interval notation when asked ("[0, 1)"); a bound of zero written "0" whatever its unit;
// quantities as units.hpp prints them (25 MiB in binary prefixes, 5.3e-6 s as "5.3 us").
TEST_CASE("a parameter's row writes its default and range from the typed values") {
  const ParameterRow workers = kWorkers.row();
  CHECK(workers.key_path == "host.loader.workers");
  CHECK(workers.default_value == "1");
  CHECK(workers.range == "> 0, <= 1024");
  const Param<Bytes> bucket{.key_path = "b", .fallback = Bytes{25.0 * 1024 * 1024}, .default_note = "DDP",
                            .range = {.min = Bound<Bytes>{Bytes{0.0}, false}}};
  CHECK(bucket.row().default_value == "25 MiB (DDP)");
  CHECK(bucket.row().range == "> 0");
  const Param<Seconds> dispatch{.key_path = "d", .fallback = Seconds{5.3e-6}, .range = {.min = Bound<Seconds>{Seconds{0.0}}}};
  CHECK(dispatch.row().default_value == "5.3 us");
  CHECK(dispatch.row().range == ">= 0");
  const Param<double> fraction{.key_path = "f", .fallback = 0.0,
                               .range = {.min = Bound<double>{0.0}, .max = Bound<double>{1.0, false}, .interval = true}};
  CHECK(fraction.row().default_value == "0");
  CHECK(fraction.row().range == "[0, 1)");
  const Param<std::string> text{.key_path = "name", .fallback = ""};
  CHECK(text.row().default_value == "\"\"");
  CHECK(text.row().range == "text");
  const Param<bool> flag{.key_path = "p2p", .fallback = true};
  CHECK(flag.row().default_value == "true");
  CHECK(flag.row().range == "true | false");
  const Param<Bytes> none{.key_path = "m", .absent = "none (feature off)", .range = {.min = Bound<Bytes>{Bytes{0.0}}}};
  CHECK(none.row().default_value == "none (feature off)");
}

// System: how rows write numbers and text. Expected: doubles in the shortest form that reads
// back as the same value, exponents as a file writes them ("1e18", not "1e+18" or
// "4.1952e+09"); text bare when it is one word, in quotes when empty or holding a space (so
// that "" and a name with a space stay readable in a table cell).
TEST_CASE("a row writes numbers in their shortest form and text quoted only when needed") {
  const Param<double> samples{.key_path = "s", .fallback = 4195197692.0,
                              .range = {.min = Bound<double>{0.0, false}, .max = Bound<double>{1e18}}};
  CHECK(samples.row().default_value == "4195197692");
  CHECK(samples.row().range == "> 0, <= 1e18");
  CHECK(param_text(0.2) == "0.2");
  CHECK(param_text(std::string("trainer")) == "trainer");
  CHECK(param_text(std::string("torchrec-fbgemm (modified)")) == "\"torchrec-fbgemm (modified)\"");
  const Param<std::string> dir{.key_path = "d", .fallback = "../calibration", .range = {.note = "a directory"}};
  CHECK(dir.row().default_value == "../calibration");
  CHECK(dir.row().range == "a directory");
}

// System: a lower bound of 1 on a whole number. Expected: written ">= 1" but refused as
// ConfigNode::get_positive refuses (the message readers gave for run.steps before), since
// for whole numbers >= 1 and > 0 are the same range.
TEST_CASE("a whole number's lower bound of 1 refuses with the positive message") {
  const Param<int> steps{.key_path = "steps", .fallback = 3, .range = {.min = Bound<int>{1}, .max = Bound<int>{1000}, .interval = true}};
  CHECK(steps.row().range == "[1, 1000]");
  CHECK(error_of([&] { (void)steps.read(yaml("steps: -3\n")); }) == "t.yaml:1:8: steps: value -3 must be positive");
  CHECK(error_of([&] { (void)steps.read(yaml("steps: many\n")); }) == "t.yaml:1:8: steps: expected a whole number, found 'many'");
}

// System: a Param with an auto word. Expected: nullopt when absent or "auto", the value
// otherwise (checked against the range); its row writes "auto" as the default and puts it
// before the range.
TEST_CASE("a parameter with an auto word reads nullopt for it and documents it") {
  const Param<int> sms{.key_path = "sms", .auto_word = "auto", .default_note = "the library's",
                       .range = {.min = Bound<int>{0}, .max = Bound<int>{1024}}};
  CHECK(sms.read_optional(yaml("{}")) == std::nullopt);
  CHECK(sms.read_optional(yaml("sms: auto\n")) == std::nullopt);
  CHECK(sms.read_optional(yaml("sms: 0\n")) == 0);
  CHECK(error_of([&] { (void)sms.read_optional(yaml("sms: 1025\n")); }) == "t.yaml:1:6: sms: value 1025 must be <= 1024");
  CHECK(sms.row().default_value == "auto (the library's)");
  CHECK(sms.row().range == "auto | >= 0, <= 1024");
}

enum class Colour { red, green };

// System: Choice. Expected: each word maps to its value, the fallback when absent, a
// did-you-mean error for a near miss (ConfigNode::get_choice's message); the row writes the
// fallback's word and the words in order.
TEST_CASE("a choice maps words to values and documents them in order") {
  const Choice<Colour> colour{.key_path = "paint.colour", .words = {{"red", Colour::red}, {"green", Colour::green}},
                              .fallback = Colour::green};
  CHECK(colour.read(yaml("{}")) == Colour::green);
  CHECK(colour.read(yaml("colour: red\n")) == Colour::red);
  CHECK(error_of([&] { (void)colour.read(yaml("colour: gren\n")); }) ==
        "t.yaml:1:9: colour: 'gren' is not one of 'red', 'green'; did you mean 'green'?");
  CHECK(colour.row().default_value == "green");
  CHECK(colour.row().range == "red | green");
}

// System: the software stack's collectives.sms, declared once. Expected: the documented range
// names the bound the reader enforces (1024 accepted, 1025 refused with its own message).
TEST_CASE("software.collectives.sms documents the range its reader enforces") {
  const Parameter& p = declared(models::software_parameters(), "software.collectives.sms");
  CHECK(p.range == "auto | >= 0, <= 1024");
  CHECK(p.default_value == "auto (NCCL: 16 with NVLink, 2 without)");
  const auto read = [](const std::string& sms) {
    return models::SoftwareStack::from_config(yaml("collectives: {sms: " + sms + "}\n")).collective_sms;
  };
  CHECK(read("auto") == std::nullopt);
  CHECK(read("1024") == 1024);
  CHECK(error_of([&] { (void)read("1025"); }).ends_with("expected at most 1024 SMs (NCCL runs one CTA per channel, 64 channels at most)"));
}

}  // namespace
}  // namespace dlrmsim
