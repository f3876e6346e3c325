#include <iostream>

#include "cli/commands.hpp"

int main(int argc, char** argv) {
  return pipesim::cli::run_cli(argc, argv, std::cout, std::cerr);
}
