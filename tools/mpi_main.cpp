// main() of the MPI build. Started by an MPI launcher with more than one rank, `sweep` and
// `search` spread their rows over the ranks: rank 0 runs the command and writes its output
// (sweep::mpi::Manager), every other rank only evaluates rows (sweep::mpi::Worker). Started
// any other way, or with one rank, this is main.cpp: MPI is not even initialised without a
// launcher.

#include <exception>
#include <iostream>
#include <sstream>
#include <string>
#include <string_view>

#include "cli/commands.hpp"
#include "cli/distribution.hpp"
#include "cli/sweep_options.hpp"
#include "pipesim/core/allocator.hpp"
#include "pipesim/sweep/mpi/manager.hpp"
#include "pipesim/sweep/mpi/session.hpp"
#include "pipesim/sweep/mpi/worker.hpp"
#include "pipesim/sweep/thread_pool.hpp"

namespace {

using namespace pipesim;

// What a worker's run printed, as rank 0 prints it after "rank N: ": without the prefix and
// the line end that run_cli added.
std::string failure_text(std::string text) {
  while (!text.empty() && text.back() == '\n')
    text.pop_back();
  if (text.starts_with(cli::kErrorPrefix)) text.erase(0, cli::kErrorPrefix.size());
  return text;
}

int run_ranks(const sweep::mpi::Session& session, int argc, char** argv) {
  cli::Distribution distribution;
  distribution.default_jobs = sweep::shared_jobs(session.local_size());
  const std::string command = sweep::mpi::command_line(argc, argv);
  if (session.rank() == 0) {
    sweep::mpi::Manager manager(session.comm(), command);
    distribution.evaluator = &manager;
    const int code = cli::run_main(argc, argv, std::cout, std::cerr, distribution);
    const sweep::mpi::Ending ending = manager.finish(code);
    if (!ending.failure.empty()) std::cerr << cli::kErrorPrefix << ending.failure << "\n";
    return ending.code;
  }
  // A worker prints nothing: rank 0 speaks for the run, and a worker's own failure reaches the
  // user through it, once.
  sweep::mpi::Worker worker(session.comm(), command);
  distribution.server = &worker;
  std::ostringstream out;
  std::ostringstream err;
  const int code = cli::run_main(argc, argv, out, err, distribution);
  return worker.finish(code, failure_text(err.str()));
}

}  // namespace

int main(int argc, char** argv) {
  core::keep_freed_memory_for_reuse();
  if (!sweep::mpi::launched_by_mpi()) {
    return cli::run_main(argc, argv, std::cout, std::cerr, cli::Distribution{});
  }
  const sweep::mpi::Session session(argc, argv);
  if (session.size() == 1) {
    return cli::run_main(argc, argv, std::cout, std::cerr, cli::Distribution{});
  }
  try {
    return run_ranks(session, argc, argv);
  } catch (const std::exception& e) {
    // Only a bug gets here (run_main reports every error itself); the other ranks may be waiting
    // for this one, so the whole job ends.
    std::cerr << cli::kErrorPrefix << "MPI run: " << e.what() << "\n";
    MPI_Abort(session.comm(), 1);
  }
  return 1;
}
