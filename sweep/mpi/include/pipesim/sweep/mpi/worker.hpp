#pragma once
// Every rank but 0 of an MPI run: instead of running the command, it evaluates the positions
// rank 0 sends (messages.hpp) and returns their rows; it writes no output. Whatever ends it
// early (bad input, an error while evaluating) goes to rank 0 as its message and exit status,
// and the worker then waits for the status the whole run ends with, so every rank exits alike.

#include <mpi.h>

#include <optional>
#include <string>
#include <utility>

#include "pipesim/sweep/row_job.hpp"

namespace pipesim::sweep::mpi {

class Worker final : public RowServer {
 public:
  //! `command` is this rank's command line (command_line()), which rank 0 checks against its own.
  Worker(MPI_Comm comm, std::string command) : comm_(comm), command_(std::move(command)) {}

  //! Checks in with rank 0, then evaluates each block it is sent on `jobs` threads until rank 0
  //! ends the run; returns the run's exit status.
  int serve(const MakeRow& make_row, int jobs) override;

  //! Ends this rank's part once its command returned `code`: when it did not serve to the end,
  //! tells rank 0 that it left, with `code` and `message` (what it would have printed), and
  //! waits for the end. Returns the run's exit status.
  int finish(int code, const std::string& message);

 private:
  MPI_Comm comm_;
  std::string command_;
  bool owing_ = true;           //!< whether rank 0 waits for a message from this rank
  std::optional<int> verdict_;  //!< the run's exit status, once rank 0 sent it
};

}  // namespace pipesim::sweep::mpi
