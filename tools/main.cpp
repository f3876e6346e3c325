// main() of the build without MPI (tools/mpi_main.cpp is the MPI build's).
#include <iostream>

#include "cli/commands.hpp"

int main(int argc, char** argv) {
  return pipesim::cli::run_main(argc, argv, std::cout, std::cerr);
}
