#include "pipesim/sweep/sweep_journal.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "pipesim/core/config_error.hpp"

namespace pipesim::sweep {
namespace {

[[noreturn]] void fail(const std::string& path, const std::string& what, int err) {
  throw core::ConfigError(path, "journal", fmt::format("{}: {}", what, std::strerror(err)));
}

bool write_all(int fd, std::string_view text) {
  while (!text.empty()) {
    const ssize_t n = ::write(fd, text.data(), text.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    text.remove_prefix(static_cast<size_t>(n));
  }
  return true;
}

void lock(const std::string& path, int fd) {
  if (::flock(fd, LOCK_EX | LOCK_NB) == 0) return;
  const int err = errno;
  ::close(fd);
  if (err == EWOULDBLOCK) {
    throw core::ConfigError(path, "journal", "another pipesim is writing it right now");
  }
  fail(path, "cannot lock", err);
}

}  // namespace

std::filesystem::path journal_path(const std::filesystem::path& output) {
  std::filesystem::path p = output;
  p += ".journal";
  return p;
}

SweepJournal::SweepJournal(std::string path, int fd, size_t done)
    : path_(std::move(path)), fd_(fd), done_(done) {}

SweepJournal::SweepJournal(SweepJournal&& other) noexcept
    : path_(std::move(other.path_)), fd_(other.fd_), done_(other.done_) {
  other.fd_ = -1;
}

SweepJournal::~SweepJournal() {
  if (fd_ >= 0) ::close(fd_);
}

SweepJournal SweepJournal::create(const std::filesystem::path& path, const PartHeader& header) {
  const std::string name = path.string();
  const int fd = ::open(name.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_APPEND | O_CLOEXEC, 0644);
  if (fd < 0) {
    if (errno == EEXIST) {
      throw core::ConfigError(name, "journal",
                              "exists: it holds the rows of an interrupted sweep; continue it "
                              "or delete it");
    }
    fail(name, "cannot create", errno);
  }
  lock(name, fd);
  SweepJournal journal(name, fd, 0);
  journal.append(part_preamble(header));
  return journal;
}

SweepJournal SweepJournal::resume(const std::filesystem::path& path, const PartHeader& header) {
  const std::string name = path.string();
  const int fd = ::open(name.c_str(), O_WRONLY | O_APPEND | O_CLOEXEC);
  if (fd < 0) fail(name, "cannot open", errno);
  lock(name, fd);  // before reading: a journal still being written is not read half-done
  SweepJournal journal(name, fd, 0);
  PartReader reader(path);
  const PartHeader& found = reader.header();
  if (found.spec != header.spec || found.points != header.points) {
    reader.fail(1, fmt::format("from another sweep (spec {} with {} points, this one is {} with "
                               "{}): rerun with the options it was made with, or delete it",
                               found.spec, found.points, header.spec, header.points));
  }
  if (found.shard != header.shard) {
    reader.fail(1, fmt::format("of shard {}/{}, this sweep is shard {}/{}", found.shard.index,
                               found.shard.count, header.shard.index, header.shard.count));
  }
  PartRow row;
  const Shard shard = header.shard;
  while (reader.next(row, true)) {
    const size_t expected = shard.grid_index(journal.done_);
    if (journal.done_ >= shard.size(header.points) || row.index != expected) {
      reader.fail(row.line, fmt::format("grid index {} where {} was expected: the journal is "
                                        "damaged; delete it",
                                        row.index, expected));
    }
    ++journal.done_;
  }
  if (reader.half_line() && ::ftruncate(fd, static_cast<off_t>(reader.complete_bytes())) != 0) {
    fail(name, "cannot cut off the half-written last line", errno);
  }
  return journal;
}

void SweepJournal::append(std::string_view text) {
  if (!write_all(fd_, text)) fail(path_, "cannot write", errno);
}

void SweepJournal::close() {
  const int fd = fd_;
  fd_ = -1;
  if (fd >= 0 && ::close(fd) != 0) fail(path_, "cannot close", errno);
}

}  // namespace pipesim::sweep
