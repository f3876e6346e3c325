#pragma once
// The journal of a sweep that writes file OUT: OUT.journal, a part file in progress
// (part_file.hpp), appended to as rows finish, in grid-index order. Each run of rows is one
// write() to the descriptor, never held in a user-space buffer, so a sweep killed by Ctrl-C,
// SIGTERM, SIGKILL or a lost node leaves every row it had written, plus at most a half-written
// last line, which resume() cuts off. An advisory lock (flock) keeps a second pipesim from
// writing the same journal.

#include <cstddef>
#include <filesystem>
#include <string>
#include <string_view>

#include "pipesim/sweep/part_file.hpp"

namespace pipesim::sweep {

//! OUT.journal, beside OUT.
std::filesystem::path journal_path(const std::filesystem::path& output);

class SweepJournal {
 public:
  //! Starts a journal at `path` with `header`'s two lines. An existing file is an error: it
  //! holds an interrupted sweep's rows. Throws core::ConfigError naming the path.
  static SweepJournal create(const std::filesystem::path& path, const PartHeader& header);
  //! Continues the journal at `path`: its header must be `header` (the same sweep, shard and
  //! pipesim version; PartReader checks the version) and its rows the shard's first done() ones, in
  //! order; a half-written last line is cut off. Throws core::ConfigError naming the path.
  static SweepJournal resume(const std::filesystem::path& path, const PartHeader& header);

  SweepJournal(SweepJournal&& other) noexcept;
  SweepJournal& operator=(SweepJournal&&) = delete;
  SweepJournal(const SweepJournal&) = delete;
  ~SweepJournal();

  //! Rows the journal held when opened: the shard's positions [0, done()) are finished.
  size_t done() const { return done_; }
  //! Appends `text` (whole rows) at once. Throws core::ConfigError naming the path.
  void append(std::string_view text);
  //! Closes the descriptor (and the lock). Throws core::ConfigError on a close error.
  void close();

 private:
  SweepJournal(std::string path, int fd, size_t done);

  std::string path_;
  int fd_ = -1;
  size_t done_ = 0;
};

}  // namespace pipesim::sweep
