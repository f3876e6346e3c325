// Sweep files through sweep::load_sweep_file, which reads a path: each input is written to a
// per-process scratch file first.
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "fuzz_support.hpp"
#include "pipesim/sweep/sweep_file.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const std::string path = (std::filesystem::temp_directory_path() /
                                   ("pipesim-fuzz-sweep-" + std::to_string(::getpid()) + ".yaml"))
                                      .string();
  {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  }
  pipesim::fuzz::expect_only_config_errors([&] { pipesim::sweep::load_sweep_file(path); });
  return 0;
}
