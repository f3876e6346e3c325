#include "pipesim/core/text_file.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "pipesim/core/config_error.hpp"

namespace pipesim::core {

std::string_view strip_bom(std::string_view text) {
  constexpr std::string_view kBom = "\xEF\xBB\xBF";
  if (text.starts_with(kBom)) text.remove_prefix(kBom.size());
  return text;
}

std::string read_text_file(const std::filesystem::path& path) {
  const std::string name = path.string();
  // POSIX calls rather than ifstream: ifstream "opens" a directory and then fails (or throws
  // std::ios_base::failure) on the first read, and hides errno.
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    throw ConfigError(name, "file", fmt::format("cannot open: {}", std::strerror(errno)));
  }
  struct ::stat st {};
  if (::fstat(fd, &st) != 0 || S_ISDIR(st.st_mode)) {
    ::close(fd);
    throw ConfigError(name, "file", "is a directory, expected a file");
  }
  if (S_ISREG(st.st_mode) && static_cast<std::size_t>(st.st_size) > kMaxInputBytes) {
    ::close(fd);
    throw ConfigError(
        name, "file",
        fmt::format("is {} bytes, inputs are at most {}", st.st_size, kMaxInputBytes));
  }
  std::string text;
  char buffer[1 << 16];
  for (;;) {
    const ssize_t n = ::read(fd, buffer, sizeof buffer);
    if (n == 0) break;
    if (n < 0) {
      if (errno == EINTR) continue;
      const int err = errno;
      ::close(fd);
      throw ConfigError(name, "file", fmt::format("read error: {}", std::strerror(err)));
    }
    text.append(buffer, static_cast<std::size_t>(n));
    if (text.size() > kMaxInputBytes) {  // a pipe or device: no size up front
      ::close(fd);
      throw ConfigError(name, "file", fmt::format("is over {} bytes", kMaxInputBytes));
    }
  }
  ::close(fd);
  const std::string_view body = strip_bom(text);
  return body.size() == text.size() ? text : std::string(body);
}

}  // namespace pipesim::core
