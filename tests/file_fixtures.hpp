// Files and errors for the tests that write inputs, read outputs or expect a refusal: a
// scratch directory per test case, a file's whole text, and the message of a ConfigError.
#pragma once

#include <doctest/doctest.h>

#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "common/config.hpp"

namespace dlrmsim::testing {

/// A fresh directory under the system's temporary directory (mkdtemp: unique to this test
/// case, even when test programs run in parallel), removed with its contents at the end.
struct ScratchDir {
  std::filesystem::path dir;
  explicit ScratchDir(const std::string& prefix = "dlrmsim_test") {
    std::string pattern = (std::filesystem::temp_directory_path() / (prefix + "_XXXXXX")).string();
    REQUIRE(::mkdtemp(pattern.data()) != nullptr);
    dir = pattern;
  }
  ~ScratchDir() {
    std::error_code ignored;
    std::filesystem::remove_all(dir, ignored);
  }
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;

  /// Writes `text` to `relative` (its folders created as needed); returns the file's path.
  std::string write(const std::string& relative, const std::string& text) const {
    const std::filesystem::path p = dir / relative;
    std::filesystem::create_directories(p.parent_path());
    std::ofstream out(p, std::ios::binary | std::ios::trunc);
    out << text;
    out.close();
    REQUIRE_MESSAGE(out.good(), "could not write " << p.string());
    return p.string();
  }
};

/// The whole content of the file at `path`. A file that cannot be opened fails the test
/// (it would otherwise read as empty and compare equal to another missing file).
inline std::string read_text(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  REQUIRE_MESSAGE(in.is_open(), "cannot open " << path.string());
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

/// The message of the ConfigError that `load()` throws, or "" when it throws none.
template <class Load>
std::string config_error_of(Load&& load) {
  try {
    load();
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "";
}

}  // namespace dlrmsim::testing
