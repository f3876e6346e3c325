// main() of the build without MPI (tools/mpi_main.cpp is the MPI build's).
#include <iostream>

#include "cli/commands.hpp"
#include "pipesim/core/allocator.hpp"

int main(int argc, char** argv) {
  pipesim::core::keep_freed_memory_for_reuse();
  return pipesim::cli::run_main(argc, argv, std::cout, std::cerr);
}
