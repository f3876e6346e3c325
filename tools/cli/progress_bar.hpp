#pragma once
// A one-line progress bar with an ETA, redrawn in place on a terminal:
//   [##########..........]  512/1024  50%  elapsed 0:03  ETA 0:03
// Shown only when the stream is a terminal, so logs and pipes stay clean.

#include <chrono>
#include <cstddef>
#include <iosfwd>

namespace pipesim::cli {

class ProgressBar {
 public:
  //! Draws on `out` only when `enabled` (callers pass "stderr is a terminal").
  ProgressBar(std::ostream& out, size_t total, bool enabled);
  //! Redraws with `done` items finished; the last call (done == total) ends the line.
  void update(size_t done);

  //! Whether stderr is a terminal (isatty).
  static bool stderr_is_terminal();

 private:
  std::ostream& out_;
  size_t total_;
  bool enabled_;
  bool finished_ = false;
  std::chrono::steady_clock::time_point start_;
};

}  // namespace pipesim::cli
