// Configuration reading: values with units, locations in errors, unknown keys, overrides.
#include <doctest/doctest.h>

#include <algorithm>

#include "approx.hpp"

#include "common/config.hpp"

using namespace dlrmsim;

namespace {
const char* kGpu = R"(gpu:
  hbm_capacity: 80 GiB
  hbm_bandwidth: 3.35 TB/s
  sm_count: 132
  nvlink: true
)";
}

TEST_CASE("typed values with units are read from a mapping") {
  const ConfigNode root = ConfigNode::load_string(kGpu, "gpu.yaml");
  const ConfigNode gpu = root.child("gpu");
  CHECK(gpu.get<Bytes>("hbm_capacity").value() == 80.0 * 1073741824.0);
  CHECK(gpu.get<BytesPerSecond>("hbm_bandwidth").value() == dlrmsim::rel(3.35e12));
  CHECK(gpu.get<int>("sm_count") == 132);
  CHECK(gpu.get<bool>("nvlink"));
  CHECK(gpu.get_or<double>("efficiency", 0.5) == 0.5);
  CHECK_NOTHROW(gpu.finish());
}

TEST_CASE("a misspelt key names file, line, column and key path, with a did-you-mean") {
  // Line 3 column 3 holds 'hbm_bandwith' (a typo of hbm_bandwidth).
  const ConfigNode root = ConfigNode::load_string("gpu:\n  hbm_capacity: 80 GiB\n  hbm_bandwith: 3 TB/s\n", "gpu.yaml");
  const ConfigNode gpu = root.child("gpu");
  gpu.get<Bytes>("hbm_capacity");
  gpu.get_or<BytesPerSecond>("hbm_bandwidth", BytesPerSecond(1.0));
  CHECK_THROWS_WITH_AS(gpu.finish(),
                       "gpu.yaml:3:3: gpu.hbm_bandwith: unknown key 'hbm_bandwith'; did you mean 'hbm_bandwidth'?",
                       ConfigError);
}

TEST_CASE("missing unit, missing key, wrong type and non-positive values are located errors") {
  const ConfigNode root = ConfigNode::load_string("link:\n  bandwidth: 100\n  latency: -2 us\n  lanes: many\n", "p.yaml");
  const ConfigNode link = root.child("link");
  CHECK_THROWS_WITH_AS(link.get<BytesPerSecond>("bandwidth"),
                       "p.yaml:2:14: link.bandwidth: '100' has no unit; expected a bandwidth with a unit, such as "
                       "'900 GB/s' or '100 Gbit/s'",
                       ConfigError);
  CHECK_THROWS_WITH_AS(link.get<Seconds>("delay"), "p.yaml:2:3: link: missing required key 'delay'", ConfigError);
  CHECK_THROWS_WITH_AS(link.get<int>("lanes"), doctest::Contains("p.yaml:4:10: link.lanes: expected a whole number"),
                       ConfigError);
  CHECK_THROWS_WITH_AS(link.get_positive<Seconds>("latency", true), doctest::Contains("must be zero or positive"),
                       ConfigError);
}

TEST_CASE("a key that is a list is refused with its location (found by fuzzing the platform loader)") {
  const ConfigNode root = ConfigNode::load_string("a: 1\n? [x, y]\n: 2\n", "k.yaml");
  CHECK_THROWS_WITH_AS(root.entries(), doctest::Contains("k.yaml:2:3: (top level): a key must be a plain name"), ConfigError);
  root.get<int>("a");
  CHECK_THROWS_WITH_AS(root.finish(), doctest::Contains("a key must be a plain name"), ConfigError);
}

TEST_CASE("a YAML syntax error names the line") {
  CHECK_THROWS_WITH_AS(ConfigNode::load_string("a: [1, 2\nb: 3\n", "bad.yaml"), doctest::Contains("bad.yaml:"),
                       ConfigError);
  CHECK_THROWS_WITH_AS(ConfigNode::load_file("/nonexistent/x.yaml"), doctest::Contains("cannot open"), ConfigError);
}

TEST_CASE("choices reject near misses with a suggestion") {
  const ConfigNode root = ConfigNode::load_string("policy: cost_greddy\n", "s.yaml");
  CHECK_THROWS_WITH_AS(root.get_choice("policy", {"all_gpu", "cost_greedy", "size_greedy"}),
                       doctest::Contains("did you mean 'cost_greedy'?"), ConfigError);
}

TEST_CASE("--set overrides create, replace and index into the tree") {
  YAML::Node root = YAML::Load("platform:\n  nic: 100 Gbit/s\ntables:\n  - rows: 10\n  - rows: 20\n");
  apply_override(root, "platform.nic=400 Gbit/s");
  apply_override(root, "tables.1.rows=1000");
  apply_override(root, "run.steps=5");
  const ConfigNode n(root, "--set");
  CHECK(n.child("platform").get<BytesPerSecond>("nic").value() == dlrmsim::rel(50e9));
  CHECK(n.child("tables").elements()[1].get<int>("rows") == 1000);
  CHECK(n.child("run").get<int>("steps") == 5);
  CHECK_THROWS_AS(apply_override(root, "tables.7.rows=1"), ConfigError);
  CHECK_THROWS_AS(apply_override(root, "no_equals_sign"), ConfigError);
  CHECK_THROWS_WITH_AS(apply_override(root, "platform.nic.speed=1"), doctest::Contains("holds a value ('400 Gbit/s')"),
                       ConfigError);
  CHECK_THROWS_WITH_AS(apply_override(root, "platform.nic.speed.x=1"), doctest::Contains("holds a value"), ConfigError);
}

// A list element selected by its `name` instead of its index: a node template's devices
// (`devices.nic.bandwidth`), a cluster's groups. Expected: the named element changes and only
// it; a name no element has, or two elements share, is an error that lists the names.
TEST_CASE("--set selects a list element by its name") {
  YAML::Node root = YAML::Load(
      "devices:\n  - {name: gpu, count: 8}\n  - {name: nic, bandwidth: 100 Gbit/s}\n"
      "groups:\n  - {name: dgx, count: 4}\n  - {name: dgx, count: 2}\n");
  apply_override(root, "devices.nic.bandwidth=400 Gbit/s");
  apply_override(root, "devices.gpu.count=4");
  CHECK(root["devices"][1]["bandwidth"].Scalar() == "400 Gbit/s");
  CHECK(root["devices"][0]["count"].as<int>() == 4);
  CHECK(root["devices"][0]["name"].Scalar() == "gpu");
  CHECK_THROWS_WITH_AS(apply_override(root, "devices.cpu.cores=8"),
                       doctest::Contains("'cpu' is neither an index nor the name of an element of the list at "
                                         "'devices': give an index (it has 2 elements, numbered from 0) or one of "
                                         "the names gpu, nic"),
                       ConfigError);
  CHECK_THROWS_WITH_AS(apply_override(root, "groups.dgx.count=1"),
                       doctest::Contains("'dgx' names 2 elements of the list at 'groups'"), ConfigError);
  apply_override(root, "groups.1.count=1");  // an index still works
  CHECK(root["groups"][1]["count"].as<int>() == 1);
}

// A null value removes the key (a sweep point that leaves a key unset): "platform.nic=~"
// leaves platform without nic, "run.steps=null" likewise, and a key that is not there stays
// absent; the sibling keys are untouched.
TEST_CASE("an override with a null value removes the key") {
  YAML::Node root = YAML::Load("platform:\n  nic: 100 Gbit/s\n  pcie: 32 GB/s\nrun:\n  steps: 5\n");
  apply_override(root, "platform.nic=~");
  apply_override(root, "run.steps=null");
  apply_override(root, "run.warmup_steps=~");
  const ConfigNode n(root, "--set");
  CHECK_FALSE(n.child("platform").has("nic"));
  CHECK(n.child("platform").has("pcie"));
  CHECK_FALSE(n.child("run").has("steps"));
  CHECK_FALSE(n.child("run").has("warmup_steps"));
}

TEST_CASE("did_you_mean only suggests close words") {
  CHECK(did_you_mean("bandwith", {"bandwidth", "latency"}) == std::optional<std::string>("bandwidth"));
  CHECK_FALSE(did_you_mean("zzzzzz", {"bandwidth", "latency"}).has_value());
}

// System: did_you_mean on a short key typed with two adjacent letters swapped.
// Inputs: "mdoe" against {"mode", "name"}; "mdoe" against {"name"}.
// Expected: "mode" is suggested: a swap of adjacent letters is one edit, and one edit in four
// letters is within the third allowed (plain Levenshtein counts it as two, too far for a
// four-letter word). "name" is three edits from "mdoe": no suggestion.
TEST_CASE("did_you_mean counts two swapped adjacent letters as one edit") {
  CHECK(did_you_mean("mdoe", {"mode", "name"}) == std::optional<std::string>("mode"));
  CHECK_FALSE(did_you_mean("mdoe", {"name"}).has_value());
}

TEST_CASE("a key given twice in one mapping is an error naming both places") {
  // yaml-cpp keeps the first 'run' and drops the second silently; both are on column 1, at
  // lines 2 and 3. Keys of different mappings (steps under run, steps under other) may repeat.
  CHECK_THROWS_WITH_AS(ConfigNode::load_string("name: x\nrun: {steps: 1}\nrun: {steps: 2}\n", "s.yaml"),
                       "s.yaml:3:1: run: duplicate key 'run' (first at line 2, column 1)", ConfigError);
  CHECK_THROWS_WITH_AS(ConfigNode::load_string("a:\n  - {b: 1, c: 2, b: 3}\n", "s.yaml"),
                       "s.yaml:2:18: a.0.b: duplicate key 'b' (first at line 2, column 6)", ConfigError);
  CHECK_NOTHROW(ConfigNode::load_string("run: {steps: 1}\nother: {steps: 2}\n", "s.yaml"));
  // An alias shares its target, which is checked once (10 aliases of 10 aliases of ... stay linear).
  CHECK_NOTHROW(ConfigNode::load_string("a: &x {k: 1}\nb: [*x, *x, *x]\n", "s.yaml"));
}

TEST_CASE("control characters and deep nesting are refused with their location") {
  // A NUL byte at line 2, column 3 (yaml-cpp would take it for UTF-16 and complain about an escape).
  CHECK_THROWS_WITH_AS(ConfigNode::load_string(std::string("a: 1\nru\0m: 2\n", 13), "n.yaml"),
                       doctest::Contains("n.yaml:2:3: control character 0x00 (NUL) in the text"), ConfigError);
  // kMaxYamlDepth levels are fine; one more is not, and 10000 (yaml-cpp's own guard at 2000)
  // is the same error rather than a crash or "bad file".
  const auto nested = [](int levels) { return std::string(levels, '[') + std::string(levels, ']'); };
  CHECK_NOTHROW(ConfigNode::load_string(nested(kMaxYamlDepth), "d.yaml"));
  CHECK_THROWS_WITH_AS(ConfigNode::load_string(nested(kMaxYamlDepth + 1), "d.yaml"),
                       doctest::Contains("nested more than 256 levels deep"), ConfigError);
  CHECK_THROWS_WITH_AS(ConfigNode::load_string(std::string(10000, '['), "d.yaml"),
                       doctest::Contains("nested more than 256 levels deep"), ConfigError);
}

TEST_CASE("numbers out of the range of a double or a 64-bit integer say so") {
  const ConfigNode root = ConfigNode::load_string("d: 1e400\ni: 99999999999999999999\nj: 1e19\n", "r.yaml");
  CHECK_THROWS_WITH_AS(root.get<double>("d"), doctest::Contains("r.yaml:1:4: d: number '1e400' is out of range"),
                       ConfigError);
  CHECK_THROWS_WITH_AS(root.get<std::int64_t>("i"), doctest::Contains("whole number '99999999999999999999' is out of range"),
                       ConfigError);
  CHECK_THROWS_WITH_AS(root.get<std::int64_t>("j"), doctest::Contains("whole number '1e19' is out of range"), ConfigError);
}

TEST_CASE("--set paths with an empty name are refused the same way wherever the dot is") {
  YAML::Node root = YAML::Load("run: {steps: 3}\n");
  for (const char* bad : {"run.steps.=4", ".run.steps=4", "run..steps=4"}) {
    CAPTURE(bad);
    CHECK_THROWS_WITH_AS(apply_override(root, bad), doctest::Contains("empty name in the key path"), ConfigError);
  }
  CHECK(root["run"]["steps"].as<int>() == 3);
  CHECK_THROWS_WITH_AS(apply_override(root, "run={a: 1, a: 2}"), doctest::Contains("duplicate key 'a'"), ConfigError);
}

TEST_CASE("a value set by an override is located at the override, not at a line of the file") {
  // run.steps came from --set: the error names the assignment and the full key path (with the
  // prefix of the referenced file it reached into); run.backend came from the file, line 1.
  YAML::Node root = YAML::Load("run: {steps: 3, backend: native}\n");
  const Override o = parse_override("run.steps=-3");
  apply_override(root, o);
  const ConfigNode node(root, "s.yaml", "", {{"run.steps", "--set 'model.run.steps=-3'", "model."}});
  CHECK_THROWS_WITH_AS(node.child("run").get_positive<int>("steps"),
                       "--set 'model.run.steps=-3': model.run.steps: value -3 must be positive", ConfigError);
  CHECK(node.child("run").child("backend").where() == "s.yaml:1:26: run.backend");
}

// System: YAML whose alias lies inside the node its anchor names, in a sequence, in a mapping,
// two levels down, and as a --set value. Expected: a located ConfigError saying "alias
// cycle" (the tree would contain itself: it once recursed without end and crashed every
// command); an alias after its anchor's node is no cycle and loads.
TEST_CASE("an alias inside its own anchor's node is refused as an alias cycle, located") {
  CHECK_THROWS_WITH_AS(ConfigNode::load_string("a: &a [*a]\n", "c.yaml"), doctest::Contains("c.yaml:1:4: alias cycle"),
                       ConfigError);
  CHECK_THROWS_WITH_AS(ConfigNode::load_string("a: &m {k: *m}\n", "c.yaml"), doctest::Contains("alias cycle"),
                       ConfigError);
  CHECK_THROWS_WITH_AS(ConfigNode::load_string("a: &o\n  b: [1, {c: *o}]\n", "c.yaml"),
                       doctest::Contains("alias cycle"), ConfigError);
  CHECK_THROWS_WITH_AS(parse_override("run.steps=&a [*a]"), doctest::Contains("--set 'run.steps=&a [*a]':1:1: alias cycle"),
                       ConfigError);
  CHECK_NOTHROW(ConfigNode::load_string("a: &a [1]\nb: [*a, *a]\n", "c.yaml"));
}

// System: YAML text holding a second document after '---', valid or not, in a file and in a
// --set value. Expected: a located ConfigError at the second document (yaml-cpp reads the
// first and ignored the rest silently, so a key written after '---' was never read); one
// document, with or without an explicit '---' start or a '...' end, loads.
TEST_CASE("a second YAML document is refused where it starts") {
  CHECK_THROWS_WITH_AS(ConfigNode::load_string("a: 1\n---\nb: 2\n", "c.yaml"),
                       doctest::Contains("c.yaml:2:1: a second YAML document"), ConfigError);
  CHECK_THROWS_WITH_AS(ConfigNode::load_string("a: 1\n--- [unclosed\n", "c.yaml"),
                       doctest::Contains("c.yaml:2:"), ConfigError);
  CHECK_THROWS_WITH_AS(parse_override("run.steps=4\n---\n5"), doctest::Contains("a second YAML document"), ConfigError);
  CHECK(ConfigNode::load_string("---\na: 1\n", "c.yaml").get<int>("a") == 1);
  CHECK(ConfigNode::load_string("a: 1\n...\n", "c.yaml").get<int>("a") == 1);
}

// System: a flow list of 2^20 + 1 ones (2 MiB of text), and one of 2^20 - 1 inside a mapping.
// Expected: the first is refused, located at its first node past the bound, before the tree is
// built (a parsed node takes about 300 bytes: a 10 MB list took 3 GB); the second loads
// (the bound is 2^20 nodes, the mapping and its key included).
TEST_CASE("a YAML text of more than 2^20 nodes is refused before it is built") {
  const std::size_t bound = std::size_t{1} << 20;
  std::string over = "[";
  for (std::size_t i = 0; i <= bound; ++i) over += i ? ",1" : "1";
  over += "]\n";
  const std::string where = "big.yaml:1:" + std::to_string(2 * bound) + ": more than 1048576 values";
  CHECK_THROWS_WITH_AS(ConfigNode::load_string(over, "big.yaml"), doctest::Contains(where.c_str()), ConfigError);
  std::string under = "a: [";
  for (std::size_t i = 0; i + 3 < bound; ++i) under += i ? ",1" : "1";
  under += "]\n";
  CHECK(ConfigNode::load_string(under, "ok.yaml").child("a").elements().size() == bound - 3);
}

// System: YAML whose quoted values and keys decode to control characters ("\e", "\a",
// "\x9b" as U+009B) though the text itself holds none, in a file and a --set value; and a
// value with a tab and line breaks. Expected: a located ConfigError naming the character, its
// message free of control characters (the value would otherwise reach a terminal, a CSV row
// and an HTML page as an escape sequence); tab and line breaks are text and load.
TEST_CASE("control characters decoded from escapes are refused, located, and not echoed") {
  const auto message = [](const std::string& text) {
    try {
      ConfigNode::load_string(text, "c.yaml");
    } catch (const ConfigError& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  const std::string name = message("name: \"x\\e]52;c;aGk=\\a\"\n");
  CHECK(name.find("c.yaml:1:7: name: control character 0x1B (ESC) written as an escape") == 0);
  const std::string key = message("\"k\\u009b2K\": 1\n");
  CHECK(key.find("c.yaml:1:1: k\\x9B2K: control character U+009B (a C1 control character)") == 0);
  for (const std::string& m : {name, key}) {
    CHECK(std::none_of(m.begin(), m.end(), [](char c) { return static_cast<unsigned char>(c) < 0x20; }));
  }
  CHECK_THROWS_WITH_AS(parse_override("name=\"\\e[2K\""), doctest::Contains("control character 0x1B (ESC)"), ConfigError);
  CHECK(ConfigNode::load_string("d: \"a\\tb\\nc\"\ne: |\n  one\n  two\n", "c.yaml").get<std::string>("d") == "a\tb\nc");
}

// System: a whole-number key given 1e-400 (below a double's range) and 1e400 (above it).
// Expected: 1e-400 is said to be too close to zero and not a whole number (it was "out of
// range (at most 9223372036854775807)", which reads as too large); 1e400 is out of range.
TEST_CASE("a whole number too close to zero is not called too large") {
  const ConfigNode small = ConfigNode::load_string("n: 1e-400\n", "c.yaml");
  CHECK_THROWS_WITH_AS(small.get<int>("n"), doctest::Contains("c.yaml:1:4: n: '1e-400' is closer to zero than a number can be"),
                       ConfigError);
  const ConfigNode large = ConfigNode::load_string("n: 1e400\n", "c.yaml");
  CHECK_THROWS_WITH_AS(large.get<std::int64_t>("n"), doctest::Contains("out of range"), ConfigError);
}

// System: a key of 1,100 characters, plain and quoted, and one of 1,000. Expected: the long
// ones are refused as keys of 1,100 (1,102 with quotes) characters, over YAML's 1,024 for a key
// on one line (yaml-cpp's own words were "illegal map value"); the 1,000-character key loads.
TEST_CASE("a key longer than 1024 characters is said to be one") {
  CHECK_THROWS_WITH_AS(ConfigNode::load_string("a: 1\n" + std::string(1100, 'k') + ": 1\n", "c.yaml"),
                       "c.yaml:2:1101: a key of 1100 characters; a YAML key on one line has at most 1024 characters: "
                       "write it shorter",
                       ConfigError);
  CHECK_THROWS_WITH_AS(ConfigNode::load_string("- \"" + std::string(1100, 'k') + "\": 1\n", "c.yaml"),
                       doctest::Contains("a key of 1102 characters"), ConfigError);
  CHECK(ConfigNode::load_string(std::string(1000, 'k') + ": 1\n", "c.yaml").has(std::string(1000, 'k')));
}

TEST_CASE("aliases that multiply a small text into a huge tree are refused") {
  // a0 holds 10 scalars; each a(i) holds 10 aliases of a(i-1): a7 stands for 10^8 scalars from
  // under 400 bytes. Expected: refused while loading; a few aliases (the linear case) pass.
  std::string text = "a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n";
  for (int i = 1; i <= 7; ++i) {
    text += "a" + std::to_string(i) + ": &a" + std::to_string(i) + " [";
    for (int k = 0; k < 10; ++k) text += (k ? ", *a" : "*a") + std::to_string(i - 1);
    text += "]\n";
  }
  CHECK_THROWS_WITH_AS(ConfigNode::load_string(text, "b.yaml"), doctest::Contains("b.yaml: aliases (*name) repeat"),
                       ConfigError);
  CHECK_NOTHROW(ConfigNode::load_string("a: &x [1, 2]\nb: [*x, *x]\n", "b.yaml"));
}
