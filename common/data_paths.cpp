#include "common/data_paths.hpp"

#include <dlfcn.h>
#include <sys/stat.h>

#include <cerrno>
#include <cstdlib>

#include "common/config.hpp"
#include "common/files.hpp"

namespace dlrmsim {
namespace fs = std::filesystem;

namespace {

/// The file of the program or shared object that holds this code: the dlrmsim executable,
/// or the Python extension module that links the same libraries.
fs::path this_binary() {
  Dl_info info{};
  if (dladdr(reinterpret_cast<const void*>(&installed_data_dir), &info) == 0 || info.dli_fname == nullptr) return {};
  std::error_code ec;
  fs::path p = fs::canonical(info.dli_fname, ec);
  return ec ? fs::path(info.dli_fname) : p;
}

/// `reference` without its leading "." and ".." parts: what it names inside a data root.
/// Whether `p` names something, or cannot be examined for a reason other than its absence
/// (a folder on the way without permission): then it is the file meant, and reading it says
/// why it cannot be read, rather than another root's file being read in its place.
bool present_or_unexaminable(const fs::path& p) {
  struct stat st {};
  if (::stat(p.c_str(), &st) == 0) return true;
  return errno != ENOENT && errno != ENOTDIR && errno != ENAMETOOLONG;
}

fs::path inside_root(const fs::path& reference) {
  fs::path rest;
  bool leading = true;
  for (const auto& part : reference) {
    if (leading && (part == "." || part == "..")) continue;
    leading = false;
    rest /= part;
  }
  return rest;
}

}  // namespace

fs::path installed_data_dir() {
  const fs::path binary = this_binary();
  if (binary.empty()) return {};
  // Where PREFIX/share/dlrmsim lies relative to the folders the programs and the Python
  // module are installed in (computed by CMake from the install layout).
  for (const char* relative : {DLRMSIM_BIN_TO_DATA, DLRMSIM_PYTHON_TO_DATA}) {
    const fs::path candidate = (binary.parent_path() / relative).lexically_normal();
    if (directory_exists(candidate / "scenarios")) return candidate;
  }
  return {};
}

std::vector<DataRoot> data_search_path(std::optional<std::string_view> env, const fs::path& installed,
                                       const fs::path& source_tree) {
  std::vector<DataRoot> roots;
  auto add = [&roots](std::string origin, const fs::path& dir) {
    roots.push_back({std::move(origin), dir, directory_exists(dir)});
  };
  if (env) {
    std::string_view rest = *env;
    while (!rest.empty()) {
      const auto colon = rest.find(':');
      const std::string_view dir = rest.substr(0, colon);
      if (!dir.empty()) add("DLRMSIM_DATA", fs::path(dir));
      if (colon == std::string_view::npos) break;
      rest.remove_prefix(colon + 1);
    }
  }
  if (!installed.empty()) add("installed", installed);
  if (!source_tree.empty()) add("source tree", source_tree);
  return roots;
}

std::vector<DataRoot> data_search_path() {
  const char* env = std::getenv("DLRMSIM_DATA");
  return data_search_path(env ? std::optional<std::string_view>(env) : std::nullopt, installed_data_dir(),
                          fs::path(DLRMSIM_SOURCE_DATA_DIR));
}

std::string resolve_data_path(const std::string& reference, const std::string& base_dir,
                              const std::vector<DataRoot>& roots) {
  const fs::path ref(reference);
  if (reference.empty() || ref.is_absolute()) return reference;
  const fs::path own = base_dir.empty() ? ref : fs::path(base_dir) / ref;
  if (present_or_unexaminable(own)) return own.lexically_normal().string();
  const fs::path inside = inside_root(ref);
  if (!inside.empty()) {
    for (const DataRoot& root : roots) {
      if (!root.exists) continue;
      const fs::path candidate = root.dir / inside;
      if (present_or_unexaminable(candidate)) return candidate.lexically_normal().string();
    }
  }
  return reference;
}

std::string data_file_not_found(const std::string& reference, const std::string& base_dir,
                                const std::vector<DataRoot>& roots) {
  const fs::path ref(reference);
  std::vector<std::pair<fs::path, std::string>> places;  // the file looked for, and its origin
  places.emplace_back(base_dir.empty() || ref.is_absolute() ? ref : fs::path(base_dir) / ref, "");
  const fs::path inside = ref.is_absolute() ? fs::path() : inside_root(ref);
  if (!inside.empty()) {
    for (const DataRoot& root : roots) {
      if (root.exists) places.emplace_back(root.dir / inside, root.origin);
    }
  }
  std::string message = "'" + reference + "' is not in any of: ";
  std::vector<std::string> names;
  for (std::size_t i = 0; i < places.size(); ++i) {
    const fs::path folder = places[i].first.lexically_normal().parent_path();
    message += (i ? ", " : "") + (folder.empty() ? std::string(".") : folder.string());
    if (!places[i].second.empty()) message += " (" + places[i].second + ")";
    std::error_code ec;
    for (fs::directory_iterator it(folder.empty() ? fs::path(".") : folder, ec), end; !ec && it != end; it.increment(ec)) {
      if (it->is_regular_file(ec)) names.push_back(it->path().filename().string());
    }
  }
  if (auto guess = did_you_mean(ref.filename().string(), names)) message += "; did you mean '" + *guess + "'?";
  return message;
}

}  // namespace dlrmsim
