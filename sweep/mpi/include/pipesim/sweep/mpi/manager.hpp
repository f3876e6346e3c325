#pragma once
// Rank 0 of an MPI run: the RowEvaluator that spreads a sweep's or a search's rows over the
// ranks (messages.hpp). It waits until every worker has checked in, so that input every rank
// reads (options, model and hardware files) was accepted everywhere before any work is handed
// out; then it hands out blocks on request (block_queue.hpp) and evaluates on this rank too,
// on job.jobs threads beside the main thread, which alone talks MPI. Rows from everywhere go to
// job.put() on this rank, so the output is the single-process output, byte for byte.

#include <mpi.h>

#include <functional>
#include <string>
#include <vector>

#include "pipesim/sweep/mpi/block_queue.hpp"
#include "pipesim/sweep/mpi/messages.hpp"
#include "pipesim/sweep/row_job.hpp"

namespace pipesim::sweep::mpi {

//! How a run ends: the exit status every rank returns, and, when a worker's failure decided it,
//! that worker's message for rank 0 to print (rank 0 printed its own failure already).
struct Ending {
  int code = 0;
  std::string failure;
};

class Manager final : public RowEvaluator {
 public:
  //! `command` is this rank's command line, which every worker must run too (command_line()).
  Manager(MPI_Comm comm, std::string command);

  //! Evaluates `job` over every rank. A run may call it several times (search's waves), each job
  //! a range of the same positions: the workers serve one MakeRow. A worker that failed is a
  //! RemoteError naming its rank, with its message and exit status.
  void run(const RowJob& job) override;

  //! Ends the run on every worker: receives what each still owes and sends it the exit status,
  //! `code`, or, when that is 0 and a worker failed, the first failed worker's.
  Ending finish(int code);

 private:
  enum class State {
    Owing,    //!< it owes a message: its check-in, or the rows of the block it has
    Waiting,  //!< its request arrived; it waits for a block or the end
    Left,     //!< it stopped serving (an error); it waits for the end
    Stopped,  //!< it was told the end
  };
  struct Peer {
    State state = State::Owing;
    int jobs = 1;
    int code = 0;         //!< with Left: its exit status
    std::string message;  //!< with Left: what it would have printed
  };
  //! Receives what each worker owes (none: every worker waits).
  void receive_owed(const RowJob* job);
  //! Files what a worker sent; the rows of Rows go to job->put() (discarded without a job).
  //! Returns how many rows it held.
  size_t take(const Message& message, const RowJob* job);
  //! The failure of worker `rank` (Left), worded for the user.
  RemoteError failure(int rank) const;
  //! Sends each waiting worker its next block (`next_block(its jobs)`), when there is one.
  //! Returns whether any was sent.
  bool hand_out(const std::function<Block(int jobs)>& next_block);

  MPI_Comm comm_;
  std::string command_;
  std::vector<Peer> peers_;  //!< by rank; peers_[0] is this rank and unused
};

}  // namespace pipesim::sweep::mpi
