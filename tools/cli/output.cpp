#include "output.hpp"

#include <iostream>

#include "pipesim/core/atomic_write.hpp"

namespace pipesim::cli {

void emit(const std::string& path, std::string_view content) {
  if (path.empty() || path == "-") {
    std::cout << content << std::flush;
    return;
  }
  core::write_file_atomically(path, content);
}

}  // namespace pipesim::cli
