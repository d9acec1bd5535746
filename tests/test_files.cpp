// The output writer (common/files.hpp write_output_file): what an existing output keeps when
// it is rewritten, which outputs are refused, and what an interrupted write leaves behind.
#include <doctest/doctest.h>

#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <string>
#include <thread>

#include "common/files.hpp"
#include "file_fixtures.hpp"

using namespace dlrmsim;
using dlrmsim::testing::read_text;
using dlrmsim::testing::ScratchDir;
namespace fs = std::filesystem;

namespace {

unsigned mode_of(const fs::path& p) {
  struct stat st {};
  REQUIRE(::stat(p.c_str(), &st) == 0);
  return static_cast<unsigned>(st.st_mode & 07777);
}

/// The names in `dir` that a temporary output file would have (NAME.tmpPID-N).
std::vector<std::string> temporary_files(const fs::path& dir) {
  std::vector<std::string> out;
  for (const auto& e : fs::directory_iterator(dir)) {
    if (e.path().filename().string().find(".tmp") != std::string::npos) out.push_back(e.path().filename().string());
  }
  return out;
}

std::string output_error_of(const fs::path& path, std::string_view content) {
  try {
    write_output_file(path, content);
  } catch (const OutputError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

// System: an existing output file of mode 0600 (a private result) rewritten by the writer.
// Expected: the new content under mode 0600; the writer's temporary file is created 0666 less
// the umask (0644 typically), and the rename once made the private file world-readable.
TEST_CASE("a rewritten output keeps the existing file's mode") {
  const ScratchDir scratch;
  const std::string path = scratch.write("private.json", "old");
  fs::permissions(path, fs::perms::owner_read | fs::perms::owner_write);
  write_output_file(path, "new");
  CHECK(read_text(path) == "new");
  CHECK(mode_of(path) == 0600);
}

// System: an existing output file of mode 0444. Expected: an OutputError naming the file and
// saying it is read-only, the old content kept (a rename ignores the file's own permissions,
// so a read-only result was silently replaced).
TEST_CASE("a read-only existing output is refused and kept") {
  const ScratchDir scratch;
  const std::string path = scratch.write("kept.json", "old");
  fs::permissions(path, fs::perms::owner_read | fs::perms::group_read | fs::perms::others_read);
  const std::string message = output_error_of(path, "new");
  CHECK(message.find(path) != std::string::npos);
  CHECK(message.find("read-only (mode 0444)") != std::string::npos);
  CHECK(read_text(path) == "old");
  CHECK(temporary_files(scratch.dir).empty());
}

// System: an output path that is a symbolic link to a file in another directory, and a
// dangling one. Expected: the link stays a link and its target gets the content (the rename
// once replaced the link with a regular file); a dangling link's target is created.
TEST_CASE("an output that is a symbolic link is written through to its target") {
  const ScratchDir scratch;
  const std::string target = scratch.write("data/result.json", "old");
  const fs::path link = scratch.dir / "result.json";
  fs::create_symlink("data/result.json", link);
  write_output_file(link, "new");
  CHECK(fs::is_symlink(link));
  CHECK(read_text(target) == "new");
  const fs::path dangling = scratch.dir / "later.json";
  fs::create_symlink("data/later.json", dangling);
  write_output_file(dangling, "made");
  CHECK(fs::is_symlink(dangling));
  CHECK(read_text(scratch.dir / "data/later.json") == "made");
  CHECK(temporary_files(scratch.dir).empty());
  CHECK(temporary_files(scratch.dir / "data").empty());
}

// System: an existing output with a second hard link elsewhere. Expected: both names show the
// new content and are still one file (a rename gave the output name a new file and left the
// other name on the old content: the link was split); no temporary file is left.
TEST_CASE("an output with several hard links is rewritten for every link") {
  const ScratchDir scratch;
  const std::string path = scratch.write("result.json", "old");
  const fs::path other = scratch.dir / "copy-of-result.json";
  fs::create_hard_link(path, other);
  write_output_file(path, "new");
  CHECK(read_text(path) == "new");
  CHECK(read_text(other) == "new");
  CHECK(fs::hard_link_count(path) == 2);
  CHECK(fs::equivalent(path, other));
  CHECK(temporary_files(scratch.dir).empty());
}

// System: output names of 240, 250 and 255 bytes (255 is the longest name a directory entry
// may have). Expected: each written; the temporary name was the target's plus ".tmpPID-N",
// longer than 255 bytes, and the write failed with "File name too long".
TEST_CASE("an output name of up to 255 bytes can be written") {
  const ScratchDir scratch;
  for (const std::size_t length : {240, 250, 255}) {
    const fs::path path = scratch.dir / std::string(length, 'r');
    CHECK_MESSAGE(output_error_of(path, "x") == "", length);
    CHECK(read_text(path) == "x");
  }
  CHECK(temporary_files(scratch.dir).empty());
}

// System: an empty output path, a FIFO that nothing reads and a path under a regular file.
// Expected: each an OutputError at once, saying what is wrong (an empty path once wrote
// nothing and succeeded; a FIFO without a reader waited for ever; a regular file as a
// directory was called "the directory does not exist").
TEST_CASE("an empty path, a pipe without a reader and a file as a directory are refused") {
  const ScratchDir scratch;
  CHECK(output_error_of("", "x").find("an empty file name") != std::string::npos);
  const fs::path fifo = scratch.dir / "pipe";
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  CHECK(output_error_of(fifo, "x").find("a pipe that nothing reads") != std::string::npos);
  const std::string file = scratch.write("afile", "x");
  CHECK(output_error_of(fs::path(file) / "x.json", "y").find("is not a directory") != std::string::npos);
}

// System: a child process writing 128 MiB to an output file gets SIGTERM while the writer's
// temporary file exists. Expected: the child ends by SIGTERM and leaves no temporary file
// (the signal is held until the temporary file is renamed; it once left a 37.7 MB *.tmpPID-0
// file behind).
TEST_CASE("a termination signal during a write leaves no temporary file") {
  const ScratchDir scratch;
  const fs::path path = scratch.dir / "trace.json";
  const pid_t child = ::fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    try {
      write_output_file(path, std::string(std::size_t{128} << 20, 'x'));
    } catch (...) {
      ::_exit(3);
    }
    ::_exit(0);
  }
  bool seen = false;
  for (int i = 0; i < 20000 && !seen; ++i) {
    seen = !temporary_files(scratch.dir).empty();
    if (!seen) std::this_thread::sleep_for(std::chrono::microseconds(500));
  }
  CHECK(seen);
  ::kill(child, SIGTERM);
  int status = 0;
  REQUIRE(::waitpid(child, &status, 0) == child);
  CHECK(WIFSIGNALED(status));
  CHECK(temporary_files(scratch.dir).empty());
}
