#include <iostream>

#include "cli/commands.hpp"
#include "cli/output.hpp"

int main(int argc, char** argv) {
  const int code = pipesim::cli::run_cli(argc, argv, std::cout, std::cerr);
  if (code != 0) return code;
  // A command that succeeded still fails when its stdout did not take the output.
  if (const std::string why = pipesim::cli::close_stdout(); !why.empty()) {
    std::cerr << "pipesim: error: stdout: write: " << why << "\n";
    return 2;
  }
  return 0;
}
