#pragma once
// Every output file goes through here. A regular file (or a new one) is written to a temporary
// file beside it, flushed, then renamed over it, so an interrupted run never leaves a
// half-written CSV or JSON. The rules:
//  - a symlink is written through: its final target is replaced, the link stays a link;
//  - a target that is not a regular file (character device such as /dev/null, a FIFO), and any
//    path under /dev or /proc (/dev/stdout), is written in place and never replaced; a
//    directory is an error;
//  - an existing file keeps its permission bits; a new one is 0644;
//  - any open, write, flush, close or rename error is a ConfigError naming the path;
//  - temporaries are named .NAME.tmp.XXXXXX beside the target and are removed on error and
//    when the process is killed by SIGINT, SIGTERM or SIGHUP (a handler is installed on first
//    use where the signal still has its default action; it unlinks the live temporaries and
//    re-raises the signal).

#include <filesystem>
#include <memory>
#include <span>
#include <string>
#include <string_view>

namespace pipesim::core {

class TemporaryFile;

//! Whether `path` is written in place rather than replaced (a device, a FIFO, a socket, or any
//! path under /dev or /proc). Throws ConfigError for a directory or a path that cannot be
//! inspected.
bool written_in_place(const std::filesystem::path& path);

//! One output written piece by piece under the rules above, for outputs too large to hold in
//! memory: the pieces go to the temporary (or, in place, to the device), commit() flushes and
//! renames it into place. Destroyed without commit() (an exception, an interrupt) the
//! temporary is removed and the target is untouched. Not thread-safe.
class AtomicFileWriter {
 public:
  //! Creates the temporary (or opens the in-place target). Throws ConfigError naming the path.
  explicit AtomicFileWriter(const std::filesystem::path& path);
  AtomicFileWriter(const AtomicFileWriter&) = delete;
  AtomicFileWriter& operator=(const AtomicFileWriter&) = delete;
  ~AtomicFileWriter();

  //! Appends `text` (buffered). Throws ConfigError naming the path on a write error.
  void write(std::string_view text);
  //! Flushes, syncs, closes and renames into place. Throws ConfigError naming the path.
  void commit();

 private:
  void flush();

  std::filesystem::path original_, target_;
  std::unique_ptr<TemporaryFile> temporary_;  //!< null when written in place
  int fd_ = -1;                               //!< the in-place target's descriptor
  unsigned mode_ = 0644;
  std::string buffer_;
  bool committed_ = false;
};

//! Writes `content` to `path` atomically. Throws ConfigError naming the path on failure.
void write_file_atomically(const std::filesystem::path& path, std::string_view content);

struct OutputFile {
  std::filesystem::path path;
  std::string content;
};

//! Several outputs of one command, all or none: every temporary is written and flushed first;
//! only when all succeeded are they renamed into place (device/FIFO targets written last). On
//! any failure before the renames every temporary is removed and nothing is changed.
void write_files_atomically(std::span<const OutputFile> files);

}  // namespace pipesim::core
