// dlrmsim list [--paths | --keys [KIND] [--markdown]]: the registered implementations (engine
// backends, training modes, placement policies, memory tiers), with --paths the data search path
// (common/data_paths.hpp) and what each of its directories holds, with --keys every
// configuration key of one kind or all (tools/parameter_registry.hpp).
#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <iostream>

#include <boost/program_options.hpp>

#include "common/config.hpp"
#include "common/data_paths.hpp"
#include "common/files.hpp"
#include "models/training_mode.hpp"
#include "placement/placement.hpp"
#include "placement/tier.hpp"
#include "sim/backend.hpp"
#include "tools/commands.hpp"
#include "tools/parameter_registry.hpp"

namespace dlrmsim::tools {
namespace {

namespace fs = std::filesystem;

/// "12 scenarios, 24 platforms, ..." for the kinds of data a root holds.
std::string root_contents(const fs::path& dir) {
  std::string out;
  for (const char* kind : {"scenarios", "platforms", "models", "software", "sweeps", "calibration"}) {
    std::size_t n = 0;
    std::error_code ec;
    if (directory_exists(dir / kind)) {
      for (const auto& e : fs::directory_iterator(dir / kind, ec)) {
        if (e.path().extension() == ".yaml") ++n;
      }
    }
    if (n == 0) continue;
    out += (out.empty() ? "" : ", ") + std::to_string(n) + " " + kind;
  }
  return out.empty() ? "no data files" : out;
}

void print_paths(std::ostream& out) {
  out << "data search path (a scenario's own relative references first, then these, first match wins):\n";
  const std::vector<DataRoot> roots = data_search_path();
  for (const DataRoot& root : roots) {
    out << "  " << root.origin << std::string(14 - root.origin.size(), ' ') << root.dir.string();
    out << (root.exists ? "\n      " + root_contents(root.dir) : "  (missing: skipped)") << "\n";
  }
  if (std::none_of(roots.begin(), roots.end(), [](const DataRoot& r) { return r.origin == "installed"; })) {
    out << "  (this dlrmsim does not run from an installed tree: no PREFIX/share/dlrmsim next to it)\n";
  }
  if (!std::getenv("DLRMSIM_DATA")) out << "  (DLRMSIM_DATA is not set; set it to DIR[:DIR...] to search your own data first)\n";
}

}  // namespace

int cmd_list(const std::vector<std::string>& args) {
  namespace po = boost::program_options;
  po::options_description opts("dlrmsim list [--paths | --keys [KIND] [--markdown]]");
  opts.add_options()("help,h", "show this help")("paths", "show the data search path and what it holds")(
      "keys", "show every configuration key (of KIND: scenario, platform, model, software or sweep) with its unit, "
              "default, valid range and meaning")("markdown", "with --keys: as the Markdown of docs/configuration.md");
  po::options_description hidden;
  std::string kind_name;
  hidden.add_options()("kind", po::value<std::string>(&kind_name), "kind of configuration file");
  po::options_description all;
  all.add(opts).add(hidden);
  po::positional_options_description positional;
  positional.add("kind", 1);
  po::variables_map vm;
  po::store(po::command_line_parser(args).options(all).positional(positional).run(), vm);
  po::notify(vm);
  if (vm.count("help")) {
    std::cout << opts;
    return kExitOk;
  }
  if (vm.count("keys")) {
    std::vector<ParameterKind> kinds = parameter_kinds();
    if (!kind_name.empty()) {
      std::erase_if(kinds, [&](const ParameterKind& k) { return k.name != kind_name; });
      if (kinds.empty()) {
        throw ConfigError("list --keys: unknown kind '" + kind_name + "'; expected one of " + parameter_kind_names());
      }
    }
    std::cout << (vm.count("markdown") ? format_parameters_markdown(kinds) : format_parameters_text(kinds));
    return kExitOk;
  }
  if (vm.count("markdown") || !kind_name.empty()) {
    throw ConfigError("list: " + std::string(vm.count("markdown") ? "--markdown" : "a kind ('" + kind_name + "')") +
                      " goes with --keys: dlrmsim list --keys [KIND] [--markdown]");
  }
  if (vm.count("paths")) {
    print_paths(std::cout);
    return kExitOk;
  }
  std::cout << "engine backends (run.backend):\n";
  for (const auto& b : sim::backends()) std::cout << "  " << b.name << ": " << b.description << "\n";
  std::cout << "\ntraining modes (training.mode):\n";
  for (const auto& m : models::training_modes()) std::cout << "  " << m.name << ": " << m.description << "\n";
  std::cout << "\nplacement policies (placement.policy):\n";
  for (const auto& p : placement::placement_policies()) std::cout << "  " << p.name << ": " << p.description << "\n";
  std::cout << "\nmemory tiers (placement.tiers):\n";
  for (const placement::MemoryTier* t : placement::memory_tiers()) {
    std::cout << "  " << t->name() << ": " << t->description() << " (owners: " << t->owners_description() << ")\n";
  }
  return kExitOk;
}

}  // namespace dlrmsim::tools
