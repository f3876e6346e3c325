#pragma once
// Where `sweep` and `search` evaluate their rows: on this process's threads (the default), or
// spread over the ranks of an MPI job (tools/mpi_main.cpp fills this in the MPI build). The
// commands see only the MPI-free interfaces of row_job.hpp, so this library builds without MPI.

#include "pipesim/sweep/row_job.hpp"
#include "pipesim/sweep/thread_pool.hpp"

namespace pipesim::cli {

struct Distribution {
  //! Rank 0 of an MPI job: spreads the rows over every rank. nullptr: this process's threads.
  sweep::RowEvaluator* evaluator = nullptr;
  //! Any other rank: evaluates the rows rank 0 sends instead of running the command.
  sweep::RowServer* server = nullptr;
  //! The threads `--jobs 0` means for this process.
  int default_jobs = sweep::default_jobs();

  //! Whether this run is one of several processes of an MPI job.
  bool spread() const { return evaluator != nullptr || server != nullptr; }
};

}  // namespace pipesim::cli
