// File-system queries that answer "no" instead of throwing when a path cannot even be
// examined (too long, not permitted): callers report a missing file as a located error.
#pragma once

#include <filesystem>

namespace dlrmsim {

bool path_exists(const std::filesystem::path& p);
bool regular_file_exists(const std::filesystem::path& p);
bool directory_exists(const std::filesystem::path& p);

}  // namespace dlrmsim
