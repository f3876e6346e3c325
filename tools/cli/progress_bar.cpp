#include "progress_bar.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <ostream>
#include <string>

namespace pipesim::cli {
namespace {

std::string clock(double seconds) {
  const long s = static_cast<long>(seconds + 0.5);
  if (s >= 3600) return fmt::format("{}:{:02}:{:02}", s / 3600, s / 60 % 60, s % 60);
  return fmt::format("{}:{:02}", s / 60, s % 60);
}

}  // namespace

ProgressBar::ProgressBar(std::ostream& out, size_t total, bool enabled)
    : out_(out),
      total_(total),
      enabled_(enabled && total > 0),
      start_(std::chrono::steady_clock::now()) {}

bool ProgressBar::stderr_is_terminal() {
  return ::isatty(STDERR_FILENO) == 1;
}

void ProgressBar::update(size_t done) {
  if (!enabled_ || finished_) return;
  constexpr size_t kWidth = 30;
  const double fraction = static_cast<double>(done) / static_cast<double>(total_);
  const size_t filled = static_cast<size_t>(fraction * kWidth);
  const double elapsed =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  const std::string eta =
      done > 0 ? clock(elapsed / static_cast<double>(done) * static_cast<double>(total_ - done))
               : "?";
  out_ << fmt::format("\r[{}{}] {:>{}}/{} {:3.0f}%  elapsed {}  ETA {}  ", std::string(filled, '#'),
                      std::string(kWidth - filled, '.'), done, fmt::format("{}", total_).size(),
                      total_, fraction * 100.0, clock(elapsed), eta);
  if (done >= total_) {
    out_ << "\n";
    finished_ = true;
  }
  out_.flush();
}

}  // namespace pipesim::cli
