#pragma once
// A temporary file beside an output (.NAME.tmp.XXXXXX), removed when it goes out of scope
// unless committed, and removed by a fatal SIGINT, SIGTERM or SIGHUP while it lives: a handler
// (installed on first use, only where the signal still has its default action) unlinks every
// live temporary and re-raises the signal, so the process still dies of it.

#include <filesystem>
#include <string>

namespace pipesim::core {

class TemporaryFile {
 public:
  //! Creates the file (0600, O_EXCL) in `target`'s directory; ok() says whether that worked
  //! (errno is set when not).
  explicit TemporaryFile(const std::filesystem::path& target);
  TemporaryFile(const TemporaryFile&) = delete;
  TemporaryFile& operator=(const TemporaryFile&) = delete;
  //! Closes and, unless committed(), unlinks the file.
  ~TemporaryFile();

  bool ok() const { return fd_ >= 0; }
  int fd() const { return fd_; }
  const std::string& name() const { return name_; }
  //! Closes the descriptor; false (errno set) on a close error.
  bool close();
  //! The file was renamed into place: keep it.
  void committed() { committed_ = true; }

  //! How many temporaries are registered for removal on a signal right now.
  static int live();

 private:
  void claim_slot();
  void release_slot();

  std::string name_;
  int fd_ = -1;
  int slot_ = -1;
  bool committed_ = false;
};

}  // namespace pipesim::core
