#pragma once
// The rows of a sweep or a search as one job for whoever evaluates them: the positions
// [first, end), the row of each and where each finished row goes. This process's threads run it
// by default; in the MPI build the ranks of an MPI job do (sweep/mpi/), behind the same two
// interfaces, so a command, its row order and its output do not depend on where the rows were
// evaluated, and the commands build without MPI.

#include <cstddef>
#include <functional>
#include <stdexcept>
#include <string>

#include "pipesim/scenario/row.hpp"
#include "pipesim/sweep/reorder_window.hpp"

namespace pipesim::sweep {

//! The row of one position. Called on several threads at once, and in an MPI job on every
//! rank, which must all give the same row for the same position (same options and files).
using MakeRow = std::function<scenario::SweepRow(size_t position)>;

struct RowJob {
  size_t first = 0;  //!< the first position to evaluate
  size_t end = 0;    //!< one past the last
  MakeRow make_row;
  //! Takes each position's row once, in any order, on any thread, several at once.
  std::function<void(size_t position, scenario::SweepRow row)> put;
  //! When set, put() hands the rows to this window (same positions), and a position is started
  //! only once the window takes it, so the finished rows held for an earlier one stay bounded.
  ReorderWindow* window = nullptr;
  int jobs = 1;  //!< threads of this process
  //! Called on the calling thread now and then, and once at the end: positions finished.
  std::function<void(size_t done)> on_progress;
};

//! Who evaluates a job's rows: this process's threads, or the ranks of an MPI job.
class RowEvaluator {
 public:
  virtual ~RowEvaluator() = default;
  //! Returns once every position of `job` was put. The first exception stops the rest and is
  //! rethrown here.
  virtual void run(const RowJob& job) = 0;
};

//! The other end of a RowEvaluator that spreads a job over processes: a process that evaluates
//! the positions it is sent instead of running the command itself.
class RowServer {
 public:
  virtual ~RowServer() = default;
  //! Evaluates what is sent with `make_row` on `jobs` threads until the run ends; returns the
  //! exit status the whole run ends with.
  virtual int serve(const MakeRow& make_row, int jobs) = 0;
};

//! Another process of a spread job failed: what() is its message, already worded for the
//! user; code() is the exit status it chose.
class RemoteError : public std::runtime_error {
 public:
  RemoteError(int code, const std::string& message) : std::runtime_error(message), code_(code) {}
  int code() const { return code_; }

 private:
  int code_;
};

//! Runs `job` with `evaluator`, or on job.jobs threads of this process when it is nullptr.
void run_rows(const RowJob& job, RowEvaluator* evaluator);

}  // namespace pipesim::sweep
