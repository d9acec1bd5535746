// Where dlrmsim finds its data (platforms, models, software stacks, scenarios, sweeps and
// device profiles) when a scenario's reference does not name an existing file by itself.
//
// A reference (a scenario's `platform: ../platforms/dgx-h100.yaml`, its calibration
// directory, a sweep's `base:`) is looked up, first match wins:
//   1. as written: absolute, or relative to the directory of the file that holds it (the
//      scenario's own references, as before any search path existed);
//   2. in each data root, with the reference's leading "./" and "../" parts removed
//      (`../platforms/dgx-h100.yaml` -> ROOT/platforms/dgx-h100.yaml). The roots, in order:
//        - each directory of the environment variable DLRMSIM_DATA (':'-separated);
//        - the installed share directory, PREFIX/share/dlrmsim, found from where the running
//          program (or the Python module) lies, so an installed tree can be moved;
//        - the source tree's configs/ folder this binary was built from.
// A root whose directory does not exist is skipped (and shown as missing by `dlrmsim list
// --paths`). A reference found nowhere is returned as written, so the error that follows
// names the path the file asked for.
//
// The roots are computed from the environment and the program's location on each call:
// there is no cached, global or mutable state.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace dlrmsim {

/// One place data is searched for. `origin`: "DLRMSIM_DATA", "installed" or "source tree".
struct DataRoot {
  std::string origin;
  std::filesystem::path dir;
  bool exists = false;
};

/// The data roots in search order (see the top of this file), missing ones included.
std::vector<DataRoot> data_search_path();

/// The data roots for explicit inputs: `env` is DLRMSIM_DATA's value (nullopt when unset),
/// `installed` and `source_tree` are candidate directories (empty: none).
std::vector<DataRoot> data_search_path(std::optional<std::string_view> env, const std::filesystem::path& installed,
                                       const std::filesystem::path& source_tree);

/// The installed share directory next to the running program or module (PREFIX/share/dlrmsim
/// when it lies in PREFIX/bin or in the Python module directory), or empty when dlrmsim is
/// not run from an installed tree.
std::filesystem::path installed_data_dir();

/// Resolves `reference` as the top of this file describes: the existing path it names
/// relative to `base_dir` (the referring file's directory; "" is the working directory), or
/// in the first root of `roots` that has it; otherwise `reference` unchanged.
std::string resolve_data_path(const std::string& reference, const std::string& base_dir,
                              const std::vector<DataRoot>& roots);

/// Why `reference` is found nowhere, for an error message: the places searched (next to the
/// referring file, then each existing root), and the nearest existing file name in those
/// folders ("did you mean"), e.g. "'../platforms/dgx-h10.yaml' is not in any of: a/platforms,
/// /usr/share/dlrmsim/platforms (installed); did you mean 'dgx-h100.yaml'?".
std::string data_file_not_found(const std::string& reference, const std::string& base_dir,
                                const std::vector<DataRoot>& roots);

}  // namespace dlrmsim
