#include "common/files.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <iostream>

#include "common/config.hpp"

namespace dlrmsim {

namespace fs = std::filesystem;

bool path_exists(const fs::path& p) {
  std::error_code ec;
  return fs::exists(p, ec);
}

bool regular_file_exists(const fs::path& p) {
  std::error_code ec;
  return fs::is_regular_file(p, ec);
}

bool directory_exists(const fs::path& p) {
  std::error_code ec;
  return fs::is_directory(p, ec);
}

namespace {

std::string system_reason(int error) { return std::strerror(error); }

/// Closes a descriptor when it goes out of scope.
struct Descriptor {
  int fd = -1;
  explicit Descriptor(int f) : fd(f) {}
  Descriptor(const Descriptor&) = delete;
  Descriptor& operator=(const Descriptor&) = delete;
  ~Descriptor() {
    if (fd >= 0) ::close(fd);
  }
  /// Closes now and returns errno of a failed close (0 on success).
  int close_now() {
    const int rc = ::close(fd);
    fd = -1;
    return rc == 0 ? 0 : errno;
  }
};

std::string kind_of(mode_t mode) {
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISCHR(mode) || S_ISBLK(mode)) return "a device";
  if (S_ISFIFO(mode)) return "a pipe";
  if (S_ISSOCK(mode)) return "a socket";
  return "not a regular file";
}

/// Writes all of `content` to `fd`; errno of the first failure, 0 on success.
int write_all(int fd, std::string_view content) {
  while (!content.empty()) {
    const ssize_t n = ::write(fd, content.data(), content.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      return errno;
    }
    content.remove_prefix(static_cast<std::size_t>(n));
  }
  return 0;
}

[[noreturn]] void output_failed(const fs::path& path, const std::string& reason) {
  throw OutputError(path.string() + ": cannot write the output: " + reason);
}

}  // namespace

std::string read_input_file(const fs::path& path, std::uintmax_t limit) {
  // Open first and examine the opened file, so that what was checked is what is read.
  Descriptor in(::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK));
  if (in.fd < 0) throw ConfigError(path.string() + ": cannot open file: " + system_reason(errno));
  struct stat st {};
  if (::fstat(in.fd, &st) != 0) throw ConfigError(path.string() + ": cannot examine file: " + system_reason(errno));
  if (!S_ISREG(st.st_mode)) {
    throw ConfigError(path.string() + ": " + kind_of(st.st_mode) + ", not a regular file; expected a file to read");
  }
  if (static_cast<std::uintmax_t>(st.st_size) > limit) {
    throw ConfigError(path.string() + ": the file has " + std::to_string(st.st_size) + " bytes, more than the limit of " +
                      std::to_string(limit) + " bytes for an input file");
  }
  std::string text;
  text.reserve(static_cast<std::size_t>(st.st_size));
  char buffer[1 << 16];
  while (true) {
    const ssize_t n = ::read(in.fd, buffer, sizeof buffer);
    if (n < 0) {
      if (errno == EINTR) continue;
      throw ConfigError(path.string() + ": cannot read file: " + system_reason(errno));
    }
    if (n == 0) break;
    text.append(buffer, static_cast<std::size_t>(n));
    // The file may grow while it is read: the limit holds for what is read, too.
    if (text.size() > limit) {
      throw ConfigError(path.string() + ": the file has more than the limit of " + std::to_string(limit) +
                        " bytes for an input file");
    }
  }
  return text;
}

void write_output_file(const fs::path& path, std::string_view content) {
  if (path == "-") {
    std::cout << content;
    flush_standard_output();
    return;
  }
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode)) {
    if (S_ISDIR(st.st_mode)) output_failed(path, "it is a directory; expected a file name");
    // A device, a pipe or a terminal: written in place, never replaced by a rename.
    Descriptor out(::open(path.c_str(), O_WRONLY | O_CLOEXEC));
    if (out.fd < 0) output_failed(path, system_reason(errno));
    if (const int e = write_all(out.fd, content)) output_failed(path, system_reason(e));
    if (const int e = out.close_now()) output_failed(path, system_reason(e));
    return;
  }
  // A temporary file in the target's directory (a rename stays within one file system),
  // created exclusively under the first free name.
  const fs::path dir = path.has_parent_path() ? path.parent_path() : fs::path(".");
  if (!directory_exists(dir)) output_failed(path, "the directory '" + dir.string() + "' does not exist");
  const std::string stem = path.string() + ".tmp" + std::to_string(::getpid()) + "-";
  std::string tmp;
  int fd = -1;
  for (int attempt = 0; fd < 0; ++attempt) {
    tmp = stem + std::to_string(attempt);
    fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd < 0 && (errno != EEXIST || attempt > 1000)) output_failed(path, system_reason(errno));
  }
  Descriptor out(fd);
  int error = write_all(out.fd, content);
  if (!error && ::fsync(out.fd) != 0) error = errno;
  if (const int e = out.close_now(); !error) error = e;
  if (!error && ::rename(tmp.c_str(), path.c_str()) != 0) error = errno;
  if (error) {
    ::unlink(tmp.c_str());
    output_failed(path, system_reason(error));
  }
}

bool same_file(const fs::path& a, const fs::path& b) {
  std::error_code ec;
  const bool same = fs::equivalent(a, b, ec);
  return !ec && same;
}

void refuse_output_over_inputs(const fs::path& output, const std::vector<fs::path>& inputs, std::string_view what) {
  for (const fs::path& input : inputs) {
    if (same_file(output, input)) {
      throw ConfigError(output.string() + ": " + std::string(what) + " is the input file '" + input.string() +
                        "'; writing it would destroy the input; choose another output path");
    }
  }
}

void flush_standard_output() {
  std::cout.flush();
  const bool stream_failed = !std::cout;
  if (stream_failed || std::fflush(stdout) != 0 || std::ferror(stdout)) {
    const int e = errno;
    std::cout.clear();
    throw OutputError(std::string("standard output: cannot write the output: ") +
                      (e ? system_reason(e) : std::string("write failed")));
  }
}

}  // namespace dlrmsim
