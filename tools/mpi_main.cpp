// main() of the MPI build. Started by an MPI launcher with more than one rank, `sweep` and
// `search` spread their rows over the ranks: rank 0 runs the command and writes its output
// (explore::mpi::Manager), every other rank only evaluates rows (explore::mpi::Worker). Started
// any other way, or with one rank, this is main.cpp: MPI is not even initialised without a
// launcher.

#include <exception>
#include <iostream>
#include <sstream>
#include <string>
#include <string_view>

#include "pipesim/explore/thread_pool.hpp"
#include "cli/commands.hpp"
#include "cli/distribution.hpp"
#include "cli/sweep_options.hpp"
#include "pipesim/core/allocator.hpp"
#include "pipesim/explore/mpi/manager.hpp"
#include "pipesim/explore/mpi/session.hpp"
#include "pipesim/explore/mpi/worker.hpp"

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

int run_ranks(const explore::mpi::Session& session, int argc, char** argv) {
  cli::Distribution distribution;
  distribution.default_jobs = explore::shared_jobs(session.local_size());
  const std::string command = explore::mpi::command_line(argc, argv);
  if (session.rank() == 0) {
    explore::mpi::Manager manager(session.comm(), command);
    distribution.evaluator = &manager;
    const int code = cli::run_main(argc, argv, std::cout, std::cerr, distribution);
    const explore::mpi::Ending ending = manager.finish(code);
    if (!ending.failure.empty()) std::cerr << cli::kErrorPrefix << ending.failure << "\n";
    return ending.code;
  }
  // A worker prints nothing: rank 0 speaks for the run, and a worker's own failure reaches the
  // user through it, once.
  explore::mpi::Worker worker(session.comm(), command);
  distribution.server = &worker;
  std::ostringstream out;
  std::ostringstream err;
  const int code = cli::run_main(argc, argv, out, err, distribution);
  return worker.finish(code, failure_text(err.str()));
}

}  // namespace

int main(int argc, char** argv) {
  core::keep_freed_memory_for_reuse();
  if (!explore::mpi::launched_by_mpi()) {
    return cli::run_main(argc, argv, std::cout, std::cerr, cli::Distribution{});
  }
  const explore::mpi::Session session(argc, argv);
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
