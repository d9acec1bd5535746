// Reading inputs and writing outputs safely.
//
// Inputs: every file dlrmsim reads (configuration, CSV results, measurements) is read through
// read_input_file, which accepts only a regular file of at most kMaxInputBytes: a device such
// as /dev/zero, a pipe that never ends or a directory is refused with a message naming the
// path, never read without bound.
//
// Outputs: write_output_file writes the whole content to a temporary file beside the target
// and renames it into place, so a reader never sees a half-written result and a failed
// write (disk full, missing directory, no permission) leaves the old file untouched and is
// an OutputError naming the path. "-" is standard output. An existing target that is not a
// regular file (a terminal, /dev/null, /dev/full, a pipe) is written in place, never
// replaced, and its write errors are reported too. A file with several hard links is
// rewritten in place once the temporary file holds the whole result, so no link is split.
//
// File-system queries answer "no" instead of throwing when a path cannot even be examined
// (too long, not permitted): callers report a missing file as a located error.
#pragma once

#include <cstdint>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace dlrmsim {

/// The largest input file dlrmsim reads: 256 MiB. The largest shipped input is under 1 MiB;
/// a 10,000-point sweep's CSV result is about 10 MiB.
inline constexpr std::uintmax_t kMaxInputBytes = std::uintmax_t{256} << 20;

/// An output that could not be written (exit status 4). The message names the path and the
/// system's reason.
class OutputError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

bool path_exists(const std::filesystem::path& p);
bool regular_file_exists(const std::filesystem::path& p);
bool directory_exists(const std::filesystem::path& p);

/// The whole content of the regular file `path`. A ConfigError ("PATH: ...") when the file
/// cannot be opened, is not a regular file, or is larger than `limit` bytes.
std::string read_input_file(const std::filesystem::path& path, std::uintmax_t limit = kMaxInputBytes);

/// Writes `content` to `path` ("-": standard output) as the header describes; an OutputError
/// on any failure. An existing file keeps its mode; a read-only one (no write permission bit
/// at all) is refused and kept; a symbolic link is written through to its target; a file with
/// several hard links is rewritten in place so every link sees the result; a pipe is
/// written only when something reads it; an empty path is refused. SIGINT, SIGTERM and SIGHUP
/// are held while the temporary file exists, so an interrupted write leaves none behind.
void write_output_file(const std::filesystem::path& path, std::string_view content);

/// Whether `a` and `b` name the same existing file (through links, "..", hard links).
bool same_file(const std::filesystem::path& a, const std::filesystem::path& b);

/// A ConfigError when the output `output` is one of `inputs` (it would destroy an input).
/// `what` names the output in the message ("the result file", "-o").
void refuse_output_over_inputs(const std::filesystem::path& output, const std::vector<std::filesystem::path>& inputs,
                               std::string_view what);

/// One output of a command: the option that names it ("--json", "-o") and the path given.
struct OutputPath {
  std::string option;
  std::filesystem::path path;
};

/// The check every command makes of its outputs before it runs (a ConfigError, exit status
/// 2): no output path is empty; no output is any file the command reads (`inputs`: the same
/// file by device and inode, after following links, so another spelling, a link or a hard
/// link is caught); no two outputs are the same file ("-", standard output, included). A
/// command lists the outputs whose options were given.
void check_outputs(const std::vector<OutputPath>& outputs, const std::vector<std::filesystem::path>& inputs);

/// An exclusive lock on an output for the life of the object, so that two runs cannot write
/// one output at once (a sweep's result file is appended to, rewritten and read back while
/// it runs). The lock is flock(2) on a hidden file beside the output's target (".NAME.lock",
/// removed again when the lock is released); a lock held by another process is an
/// OutputError saying so.
class OutputLock {
 public:
  explicit OutputLock(const std::filesystem::path& output);
  ~OutputLock();
  OutputLock(const OutputLock&) = delete;
  OutputLock& operator=(const OutputLock&) = delete;

 private:
  std::string lock_path_;
  int fd_ = -1;
};

/// Flushes standard output and reports a failed write to it (a full disk, a closed pipe) as
/// an OutputError.
void flush_standard_output();

}  // namespace dlrmsim
