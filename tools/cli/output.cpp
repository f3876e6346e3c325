#include "output.hpp"

#include <fmt/format.h>
#include <stdio_ext.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <iostream>

#include "pipesim/core/atomic_write.hpp"
#include "pipesim/core/config_error.hpp"

namespace pipesim::cli {

void emit(const std::string& path, std::string_view content) {
  if (path.empty() || path == "-") {
    errno = 0;
    std::cout << content << std::flush;
    if (!std::cout || std::fflush(stdout) != 0) {
      const int error = errno;
      std::cout.clear();  // nothing more is written; close_stdout() must not report it twice
      throw core::ConfigError("stdout", "write",
                              error != 0 ? std::strerror(error) : "the stream refused the bytes");
    }
    return;
  }
  core::write_file_atomically(path, content);
}

void require_figure_path(const std::string& flag, const std::string& path) {
  const std::filesystem::path p(path);
  const std::string name = p.filename().string();
  for (const char* ext : {".svg", ".png", ".pdf"}) {
    if (name == ext) {
      throw core::ConfigError(
          "command line", flag,
          fmt::format("'{}' has no name before the extension (e.g. fig{})", path, ext));
    }
  }
  const std::string ext = p.extension().string();
  if (ext != ".svg" && ext != ".png" && ext != ".pdf") {
    throw core::ConfigError("command line", flag,
                            fmt::format("extension must be .svg, .png or .pdf, got '{}'",
                                        ext.empty() ? std::string("none") : ext));
  }
}

std::string close_stdout() {
  // As coreutils' close_stdout: a pending or earlier error is reported; EBADF from a stdout
  // that was closed all along (`pipesim ... >&-` with -o) is not, when nothing was pending.
  std::cout.flush();
  const bool failed_before = !std::cout || std::ferror(stdout) != 0;
  const bool pending = __fpending(stdout) != 0;
  errno = 0;
  const bool close_failed = std::fclose(stdout) != 0;
  const int error = errno;
  if (failed_before || (close_failed && (pending || error != EBADF))) {
    return error != 0 ? std::strerror(error) : "write error";
  }
  return {};
}

}  // namespace pipesim::cli
