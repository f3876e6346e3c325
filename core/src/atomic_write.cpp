#include "pipesim/core/atomic_write.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>

#include <fmt/format.h>

#include "pipesim/core/config_error.hpp"

namespace pipesim::core {
namespace {

[[noreturn]] void fail(const std::filesystem::path& path, const char* what) {
  throw ConfigError(path.string(), "output", std::string(what) + ": " + std::strerror(errno));
}

}  // namespace

void write_file_atomically(const std::filesystem::path& path, std::string_view content) {
  const std::filesystem::path dir = path.has_parent_path() ? path.parent_path() : ".";
  // fmt rather than operator+: g++ 12 raises a false -Wrestrict on the concatenation.
  std::string tmpl = fmt::format("{}/.{}.tmp.XXXXXX", dir.string(), path.filename().string());
  const int fd = ::mkstemp(tmpl.data());
  if (fd < 0) fail(path, "cannot create temporary file");
  size_t written = 0;
  while (written < content.size()) {
    const ssize_t n = ::write(fd, content.data() + written, content.size() - written);
    if (n < 0) {
      if (errno == EINTR) continue;
      ::close(fd);
      ::unlink(tmpl.c_str());
      fail(path, "cannot write");
    }
    written += static_cast<size_t>(n);
  }
  // mkstemp creates 0600; outputs are ordinary files.
  if (::fchmod(fd, 0644) != 0) { /* keep 0600: still a complete file */ }
  if (::fsync(fd) != 0 || ::close(fd) != 0) {
    ::unlink(tmpl.c_str());
    fail(path, "cannot flush");
  }
  if (::rename(tmpl.c_str(), path.c_str()) != 0) {
    ::unlink(tmpl.c_str());
    fail(path, "cannot rename into place");
  }
}

}  // namespace pipesim::core
