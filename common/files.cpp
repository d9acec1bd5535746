#include "common/files.hpp"

#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
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

namespace {

/// The file an output path finally names: symbolic links followed (a relative link from the
/// link's directory), so that writing replaces the link's target and keeps the link. A
/// dangling link names the file it points to, which the write creates.
fs::path resolve_output_links(const fs::path& path) {
  fs::path current = path;
  for (int hops = 0; hops < 40; ++hops) {
    struct stat st {};
    if (::lstat(current.c_str(), &st) != 0 || !S_ISLNK(st.st_mode)) return current;
    std::error_code ec;
    const fs::path target = fs::read_symlink(current, ec);
    if (ec) return current;
    current = target.is_absolute() ? target : current.parent_path() / target;
  }
  output_failed(path, "too many levels of symbolic links");
}

/// Blocks SIGINT, SIGTERM and SIGHUP in this thread while it lives: a signal that arrives
/// while a temporary file exists is delivered after it has been renamed or removed, so
/// interrupting a write leaves no temporary file behind.
class TerminationSignalsDeferred {
 public:
  TerminationSignalsDeferred() {
    sigset_t deferred;
    sigemptyset(&deferred);
    sigaddset(&deferred, SIGINT);
    sigaddset(&deferred, SIGTERM);
    sigaddset(&deferred, SIGHUP);
    active_ = ::pthread_sigmask(SIG_BLOCK, &deferred, &previous_) == 0;
  }
  TerminationSignalsDeferred(const TerminationSignalsDeferred&) = delete;
  TerminationSignalsDeferred& operator=(const TerminationSignalsDeferred&) = delete;
  ~TerminationSignalsDeferred() {
    if (active_) ::pthread_sigmask(SIG_SETMASK, &previous_, nullptr);
  }

 private:
  sigset_t previous_{};
  bool active_ = false;
};

/// Writes to an existing file that is not a regular file, in place. A character device (a
/// terminal, /dev/null, /dev/full) is written; a pipe only when something reads it (opening
/// one without a reader would wait for ever); a directory or a socket is refused.
void write_in_place(const fs::path& path, const fs::path& target, const struct stat& st, std::string_view content) {
  if (S_ISDIR(st.st_mode)) output_failed(path, "it is a directory; expected a file name");
  if (!S_ISCHR(st.st_mode) && !S_ISFIFO(st.st_mode)) {
    output_failed(path, kind_of(st.st_mode) + "; expected a regular file, a device such as /dev/null, or '-'");
  }
  Descriptor out(::open(target.c_str(), O_WRONLY | O_CLOEXEC | (S_ISFIFO(st.st_mode) ? O_NONBLOCK : 0)));
  if (out.fd < 0 && S_ISFIFO(st.st_mode) && errno == ENXIO) {
    output_failed(path, "it is a pipe that nothing reads (writing would wait for ever); start its reader first");
  }
  if (out.fd < 0) output_failed(path, system_reason(errno));
  if (S_ISFIFO(st.st_mode)) {
    const int flags = ::fcntl(out.fd, F_GETFL);
    if (flags < 0 || ::fcntl(out.fd, F_SETFL, flags & ~O_NONBLOCK) != 0) output_failed(path, system_reason(errno));
  }
  if (const int e = write_all(out.fd, content)) output_failed(path, system_reason(e));
  if (const int e = out.close_now()) output_failed(path, system_reason(e));
}

/// A file with several hard links is rewritten in place, so that every name of it sees the
/// new content (a rename would give this name a new file and leave the others on the old
/// one). The complete content is first in the temporary file `tmp` (so a full disk fails before
/// the target is touched); if the in-place write still fails, `tmp` is kept and named.
void copy_over_hard_linked(const fs::path& path, const fs::path& target, const std::string& tmp,
                           std::string_view content) {
  Descriptor out(::open(target.c_str(), O_WRONLY | O_TRUNC | O_CLOEXEC));
  int error = out.fd < 0 ? errno : 0;
  if (!error) error = write_all(out.fd, content);
  if (!error && ::fsync(out.fd) != 0) error = errno;
  if (const int e = out.close_now(); !error) error = e;
  if (error) output_failed(path, system_reason(error) + "; the hard-linked file may be incomplete, the whole result is in '" + tmp + "'");
  ::unlink(tmp.c_str());
}

}  // namespace

void write_output_file(const fs::path& path, std::string_view content) {
  if (path == "-") {
    std::cout << content;
    flush_standard_output();
    return;
  }
  if (path.empty()) output_failed(path, "an empty file name; expected a file name, or '-' for standard output");
  const fs::path target = resolve_output_links(path);
  struct stat st {};
  const bool exists = ::stat(target.c_str(), &st) == 0;
  if (exists && !S_ISREG(st.st_mode)) return write_in_place(path, target, st, content);
  if (exists && (st.st_mode & (S_IWUSR | S_IWGRP | S_IWOTH)) == 0) {
    char mode[8];
    std::snprintf(mode, sizeof mode, "%04o", static_cast<unsigned>(st.st_mode & 07777));
    output_failed(path, std::string("the file is read-only (mode ") + mode +
                            "); it is kept as it is: make it writable or choose another output path");
  }
  // A temporary file in the target's directory (a rename stays within one file system),
  // created exclusively under the first free name. Its name is the target's, shortened so
  // that with its suffix it stays within the longest name a directory entry may have (255
  // bytes): a target name of 255 bytes is legal, so its temporary name cannot be longer.
  const fs::path dir = target.has_parent_path() ? target.parent_path() : fs::path(".");
  if (!directory_exists(dir)) {
    std::error_code ec;
    const bool something = fs::exists(dir, ec) || fs::is_symlink(dir, ec);
    output_failed(path, something ? "'" + dir.string() + "' is not a directory"
                                  : "the directory '" + dir.string() + "' does not exist");
  }
  const std::string name = target.filename().string();
  const TerminationSignalsDeferred deferred;
  std::string tmp;
  int fd = -1;
  for (int attempt = 0; fd < 0; ++attempt) {
    const std::string suffix = ".tmp" + std::to_string(::getpid()) + "-" + std::to_string(attempt);
    const std::size_t room = 255 - suffix.size() - 1;
    tmp = (dir / ("." + name.substr(0, std::min(name.size(), room)) + suffix)).string();
    fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd < 0 && (errno != EEXIST || attempt > 1000)) output_failed(path, system_reason(errno));
  }
  Descriptor out(fd);
  // A file that is replaced keeps its permissions (a private 0600 result stays private).
  int error = exists && ::fchmod(out.fd, st.st_mode & 07777) != 0 ? errno : 0;
  if (!error) error = write_all(out.fd, content);
  if (!error && ::fsync(out.fd) != 0) error = errno;
  if (const int e = out.close_now(); !error) error = e;
  if (error) {
    ::unlink(tmp.c_str());
    output_failed(path, system_reason(error));
  }
  if (exists && st.st_nlink > 1) return copy_over_hard_linked(path, target, tmp, content);
  if (::rename(tmp.c_str(), target.c_str()) != 0) {
    error = errno;
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
  check_outputs({{std::string(what), output}}, inputs);
}

namespace {

/// What identifies the file an output path would write: its device and inode when it exists
/// (links followed), else its absolute path with links resolved as far as they exist.
std::string output_identity(const fs::path& path) {
  if (path == "-") return "-";
  const fs::path target = resolve_output_links(path);
  struct stat st {};
  if (::stat(target.c_str(), &st) == 0) return std::to_string(st.st_dev) + ":" + std::to_string(st.st_ino);
  std::error_code ec;
  const fs::path absolute = fs::absolute(target, ec);
  const fs::path resolved = ec ? target : fs::weakly_canonical(absolute, ec);
  return (ec ? absolute : resolved).lexically_normal().string();
}

}  // namespace

void check_outputs(const std::vector<OutputPath>& outputs, const std::vector<fs::path>& inputs) {
  std::vector<std::pair<std::string, const OutputPath*>> seen;
  for (const OutputPath& out : outputs) {
    if (out.path.empty()) {
      throw ConfigError(out.option + ": an empty file name; expected a file name, or '-' for standard output");
    }
    if (out.path != "-") {
      const fs::path target = resolve_output_links(out.path);
      for (const fs::path& input : inputs) {
        if (same_file(target, input)) {
          throw ConfigError(out.path.string() + ": " + out.option + " is the input file '" + input.string() +
                            "'; writing it would destroy the input; choose another output path");
        }
      }
    }
    const std::string id = output_identity(out.path);
    for (const auto& [other_id, other] : seen) {
      if (other_id == id) {
        throw ConfigError((out.path == "-" ? std::string() : out.path.string() + ": ") + out.option + " and " +
                          other->option + (out.path == "-" ? " both name standard output ('-')" : " name the same file") +
                          "; each output needs its own path");
      }
    }
    seen.emplace_back(id, &out);
  }
}

OutputLock::OutputLock(const fs::path& output) {
  const fs::path target = resolve_output_links(output);
  const std::string name = target.filename().string();
  lock_path_ = (target.parent_path() / ("." + name.substr(0, std::min<std::size_t>(name.size(), 240)) + ".lock")).string();
  // A lock file removed by the process that held it may still be opened by another: the lock
  // counts only when the locked file is still the one at the path.
  for (int attempt = 0; attempt < 100; ++attempt) {
    Descriptor lock(::open(lock_path_.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0666));
    if (lock.fd < 0) output_failed(output, "cannot create the lock file '" + lock_path_ + "': " + system_reason(errno));
    if (::flock(lock.fd, LOCK_EX | LOCK_NB) != 0) {
      if (errno == EWOULDBLOCK) {
        output_failed(output, "another process is writing it (it holds the lock '" + lock_path_ +
                                  "'); wait for it to end or choose another output path");
      }
      output_failed(output, "cannot lock '" + lock_path_ + "': " + system_reason(errno));
    }
    struct stat held {}, named {};
    if (::fstat(lock.fd, &held) == 0 && ::stat(lock_path_.c_str(), &named) == 0 && held.st_dev == named.st_dev &&
        held.st_ino == named.st_ino) {
      fd_ = lock.fd;
      lock.fd = -1;
      return;
    }
  }
  output_failed(output, "cannot lock '" + lock_path_ + "': it keeps being replaced");
}

OutputLock::~OutputLock() {
  if (fd_ < 0) return;
  ::unlink(lock_path_.c_str());  // while locked: no other process holds this file
  ::close(fd_);
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
