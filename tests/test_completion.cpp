// Tests of completion generation (tools/completion.hpp): options read back from Boost's own
// printed description, and the bash script built from them.
#include <doctest/doctest.h>

#include <sstream>
#include <string>

#include <boost/program_options.hpp>

#include "tools/completion.hpp"

using namespace dlrmsim::tools;
namespace po = boost::program_options;

namespace {
const CompletionOption* find(const std::vector<CompletionOption>& options, const std::string& name) {
  for (const auto& o : options) {
    if (o.long_name == name) return &o;
  }
  return nullptr;
}
}  // namespace

// System: a description with every shape Boost prints: a switch with a short form, a valued
// option with a short form and a default, a custom value name, a default so long that the
// description is separated by one space only, a name too long to share its line, and a
// description that wraps onto lines of its own. Printed by Boost itself (operator<<).
// Expected: exactly the 6 options, with short names and "takes a value" as declared; the
// wrapped description and the usage line are not options.
TEST_CASE("options are read back from Boost's printed description") {
  po::options_description d("usage: x [options]");
  d.add_options()("quiet,q", "a switch")("jobs,j", po::value<int>()->default_value(1), "valued, with a default")(
      "dot", po::value<std::string>()->value_name("PATH"), "custom value name")(
      "dir", po::value<std::string>()->default_value("validation/cases"), "a long default")(
      "an-option-with-a-very-long-name-indeed", "long name")(
      "set", po::value<std::vector<std::string>>(),
      "a description long enough to wrap onto a second line of its own in Boost's printed form, "
      "--not-an-option here");
  std::ostringstream help;
  help << d;
  const auto options = options_from_help(help.str());
  CHECK(options.size() == 6);
  REQUIRE(find(options, "quiet"));
  CHECK(find(options, "quiet")->short_name == "q");
  CHECK_FALSE(find(options, "quiet")->takes_value);
  REQUIRE(find(options, "jobs"));
  CHECK(find(options, "jobs")->short_name == "j");
  CHECK(find(options, "jobs")->takes_value);
  REQUIRE(find(options, "dot"));
  CHECK(find(options, "dot")->takes_value);
  REQUIRE(find(options, "dir"));
  CHECK(find(options, "dir")->takes_value);
  REQUIRE(find(options, "an-option-with-a-very-long-name-indeed"));
  CHECK_FALSE(find(options, "an-option-with-a-very-long-name-indeed")->takes_value);
  REQUIRE(find(options, "set"));
  CHECK(find(options, "set")->takes_value);
  CHECK_FALSE(find(options, "not-an-option"));
}

// System: two commands, one with a valued option -o/--output and a switch --resume.
// Expected: the script lists both commands for the first word, the command's options (long
// and short) in its case branch, and marks only the valued ones as taking a file name.
TEST_CASE("the bash script lists the commands and each command's options") {
  const std::string script = bash_completion_script(
      {{"sweep", {{"output", "o", true}, {"resume", "", false}}}, {"list", {{"paths", "", false}}}});
  CHECK(script.find("local commands=\"sweep list help\"") != std::string::npos);
  CHECK(script.find("sweep) options='--output -o --resume'; valued=' --output  -o ' ;;") != std::string::npos);
  CHECK(script.find("list) options='--paths'; valued='' ;;") != std::string::npos);
  CHECK(script.find("complete -o filenames -o bashdefault -F _dlrmsim dlrmsim") != std::string::npos);
}
