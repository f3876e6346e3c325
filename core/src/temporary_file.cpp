#include "pipesim/core/temporary_file.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <mutex>
#include <random>

namespace pipesim::core {
namespace {

// The one piece of process-wide state in pipesim, and necessarily so: a signal handler can
// reach nothing else. A fixed table (no allocation) of paths, each slot published with an
// atomic state, so the handler only calls async-signal-safe unlink() on complete names.
constexpr int kSlots = 64;
constexpr std::size_t kPathMax = 4096;
struct Slot {
  std::atomic<int> state{0};  // 0 free, 1 being filled, 2 live
  char path[kPathMax]{};
};
std::array<Slot, kSlots> g_slots;
static_assert(std::atomic<int>::is_always_lock_free, "the signal handler reads the states");
constexpr std::array<int, 3> kSignals{SIGINT, SIGTERM, SIGHUP};

extern "C" void remove_temporaries_and_reraise(int sig) {
  for (Slot& slot : g_slots) {
    if (slot.state.load() == 2) ::unlink(slot.path);
  }
  ::signal(sig, SIG_DFL);
  ::raise(sig);
}

void install_handlers_once() {
  static std::once_flag once;
  std::call_once(once, [] {
    for (const int sig : kSignals) {
      struct sigaction old {};
      if (::sigaction(sig, nullptr, &old) != 0 || (old.sa_flags & SA_SIGINFO) != 0 ||
          old.sa_handler != SIG_DFL) {
        continue;  // someone else handles (or ignores) it: leave it alone
      }
      struct sigaction sa {};
      sa.sa_handler = remove_temporaries_and_reraise;
      sigemptyset(&sa.sa_mask);
      ::sigaction(sig, &sa, nullptr);
    }
  });
}

}  // namespace

TemporaryFile::TemporaryFile(const std::filesystem::path& target) {
  install_handlers_once();
  const std::filesystem::path dir =
      target.has_parent_path() ? target.parent_path() : std::filesystem::path(".");
  thread_local std::mt19937_64 rng{std::random_device{}() ^ static_cast<unsigned long>(::getpid())};
  int err = 0;
  for (int attempt = 0; attempt < 100 && fd_ < 0; ++attempt) {
    name_ = fmt::format("{}/.{}.tmp.{:06x}", dir.string(), target.filename().string(),
                        rng() & 0xffffff);
    claim_slot();  // registered before it exists: a signal never misses it
    fd_ = ::open(name_.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd_ < 0) {
      err = errno;
      release_slot();
      if (err != EEXIST) break;
    }
  }
  if (fd_ < 0) errno = err;
}

TemporaryFile::~TemporaryFile() {
  if (fd_ >= 0) ::close(fd_);
  if (!committed_ && !name_.empty()) ::unlink(name_.c_str());
  release_slot();
}

bool TemporaryFile::close() {
  const int fd = fd_;
  fd_ = -1;
  return ::close(fd) == 0;
}

int TemporaryFile::live() {
  int n = 0;
  for (const Slot& slot : g_slots)
    n += slot.state.load() == 2 ? 1 : 0;
  return n;
}

void TemporaryFile::claim_slot() {
  if (name_.size() >= kPathMax) return;
  for (Slot& s : g_slots) {
    int expected = 0;
    if (s.state.compare_exchange_strong(expected, 1)) {
      std::memcpy(s.path, name_.c_str(), name_.size() + 1);
      s.state.store(2);
      slot_ = static_cast<int>(&s - g_slots.data());
      return;
    }
  }
  // Table full (64 outputs in flight at once): the file is still written safely, only not
  // removed if a signal lands while it exists.
}

void TemporaryFile::release_slot() {
  if (slot_ >= 0) g_slots[static_cast<std::size_t>(slot_)].state.store(0);
  slot_ = -1;
}

}  // namespace pipesim::core
