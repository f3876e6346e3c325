#include "pipesim/core/atomic_write.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "pipesim/core/assert.hpp"
#include "pipesim/core/config_error.hpp"
#include "pipesim/core/temporary_file.hpp"

namespace pipesim::core {
namespace {

namespace fs = std::filesystem;

[[noreturn]] void fail(const fs::path& path, const std::string& what, int err) {
  throw ConfigError(path.string(), "output", fmt::format("{}: {}", what, std::strerror(err)));
}

bool write_all(int fd, std::string_view content) {
  size_t written = 0;
  while (written < content.size()) {
    const ssize_t n = ::write(fd, content.data() + written, content.size() - written);
    if (n < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    written += static_cast<size_t>(n);
  }
  return true;
}

// The file a path finally names: symlinks followed (relative ones from their own directory),
// even when the last one dangles (the file it names is then created).
fs::path resolve_links(const fs::path& path) {
  fs::path p = path;
  for (int hops = 0; hops < 40; ++hops) {
    std::error_code ec;
    if (!fs::is_symlink(fs::symlink_status(p, ec))) return p;
    const fs::path link = fs::read_symlink(p, ec);
    if (ec) fail(path, "cannot read the symlink", ec.value());
    p = link.is_absolute() ? link : p.parent_path() / link;
  }
  fail(path, "cannot resolve", ELOOP);
}

enum class TargetKind { Replace, InPlace };

// What `path` names, following every link the way open() would: a directory is an error; a
// device, FIFO or socket is written in place, and so is anything under /dev or /proc
// (/dev/stdout is a link to a "pipe:[N]" that only open() understands); a regular or missing
// file is replaced, keeping an existing file's permission bits.
TargetKind classify(const fs::path& path, mode_t& mode) {
  mode = 0644;
  const std::string s = path.string();
  struct ::stat st {};
  if (::stat(path.c_str(), &st) != 0) {
    if (errno == ENOENT) return TargetKind::Replace;
    fail(path, "cannot inspect", errno);
  }
  if (S_ISDIR(st.st_mode)) fail(path, "is a directory", EISDIR);
  if (!S_ISREG(st.st_mode) || s.starts_with("/dev/") || s.starts_with("/proc/")) {
    return TargetKind::InPlace;
  }
  mode = st.st_mode & 07777;
  return TargetKind::Replace;
}

void write_in_place(const fs::path& original, const fs::path& target, std::string_view content) {
  const int fd = ::open(target.c_str(), O_WRONLY | O_CLOEXEC);
  if (fd < 0) fail(original, "cannot open", errno);
  if (!write_all(fd, content)) {
    const int err = errno;
    ::close(fd);
    fail(original, "cannot write", err);
  }
  if (::close(fd) != 0) fail(original, "cannot close", errno);
}

// The temporary a replaced `path` is written to, beside the file its links finally name.
std::unique_ptr<TemporaryFile> open_temporary(const fs::path& path, const fs::path& target) {
  auto t = std::make_unique<TemporaryFile>(target);
  if (!t->ok()) fail(path, "cannot create a temporary file beside it", errno);
  return t;
}

// Gives the written temporary its mode, syncs and closes it: ready to be renamed.
void seal(TemporaryFile& t, const fs::path& path, mode_t mode) {
  if (::fchmod(t.fd(), mode) != 0) fail(path, "cannot set permissions", errno);
  if (::fsync(t.fd()) != 0) fail(path, "cannot flush", errno);
  if (!t.close()) fail(path, "cannot close", errno);
}

void rename_into_place(TemporaryFile& t, const fs::path& path, const fs::path& target) {
  if (::rename(t.name().c_str(), target.c_str()) != 0) {
    fail(path, "cannot rename into place", errno);
  }
  t.committed();
}

struct Prepared {
  fs::path original, target;
  TargetKind kind = TargetKind::Replace;
  std::unique_ptr<TemporaryFile> temporary;
};

Prepared prepare(const fs::path& path, std::string_view content) {
  Prepared p;
  p.original = path;
  p.target = path;
  mode_t mode = 0644;
  p.kind = classify(path, mode);
  if (p.kind == TargetKind::InPlace) return p;
  p.target = resolve_links(path);
  p.temporary = open_temporary(path, p.target);
  if (!write_all(p.temporary->fd(), content)) fail(path, "cannot write", errno);
  seal(*p.temporary, path, mode);
  return p;
}

}  // namespace

bool written_in_place(const fs::path& path) {
  mode_t mode = 0644;
  return classify(path, mode) == TargetKind::InPlace;
}

AtomicFileWriter::AtomicFileWriter(const fs::path& path) : original_(path), target_(path) {
  mode_t mode = 0644;
  if (classify(path, mode) == TargetKind::InPlace) {
    fd_ = ::open(path.c_str(), O_WRONLY | O_CLOEXEC);
    if (fd_ < 0) fail(path, "cannot open", errno);
    return;
  }
  mode_ = mode;
  target_ = resolve_links(path);
  temporary_ = open_temporary(path, target_);
}

AtomicFileWriter::~AtomicFileWriter() {
  if (fd_ >= 0) ::close(fd_);
}  // temporary_'s own destructor removes an uncommitted temporary

void AtomicFileWriter::write(std::string_view text) {
  PIPESIM_ASSERT(!committed_, "no write after commit");
  // 1 MiB of buffer: few system calls for millions of small rows, little memory.
  constexpr size_t kBuffer = size_t{1} << 20;
  if (buffer_.size() + text.size() > kBuffer) flush();
  if (text.size() > kBuffer) {
    const int fd = temporary_ ? temporary_->fd() : fd_;
    if (!write_all(fd, text)) fail(original_, "cannot write", errno);
    return;
  }
  buffer_ += text;
}

void AtomicFileWriter::flush() {
  const int fd = temporary_ ? temporary_->fd() : fd_;
  if (!write_all(fd, buffer_)) fail(original_, "cannot write", errno);
  buffer_.clear();
}

void AtomicFileWriter::commit() {
  PIPESIM_ASSERT(!committed_, "commit once");
  flush();
  committed_ = true;
  if (!temporary_) {
    const int fd = fd_;
    fd_ = -1;
    if (::close(fd) != 0) fail(original_, "cannot close", errno);
    return;
  }
  seal(*temporary_, original_, static_cast<mode_t>(mode_));
  rename_into_place(*temporary_, original_, target_);
}

void write_file_atomically(const fs::path& path, std::string_view content) {
  AtomicFileWriter out(path);
  out.write(content);
  out.commit();
}

void write_files_atomically(std::span<const OutputFile> files) {
  std::vector<Prepared> prepared;
  prepared.reserve(files.size());
  for (const OutputFile& f : files)
    prepared.push_back(
        prepare(f.path, f.content));  // a throw here unlinks every temporary made so far
  for (Prepared& p : prepared) {
    if (p.kind == TargetKind::Replace) rename_into_place(*p.temporary, p.original, p.target);
  }
  for (size_t i = 0; i < files.size(); ++i) {
    if (prepared[i].kind == TargetKind::InPlace) {
      write_in_place(files[i].path, prepared[i].target, files[i].content);
    }
  }
}

}  // namespace pipesim::core
