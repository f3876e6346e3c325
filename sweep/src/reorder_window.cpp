#include "pipesim/sweep/reorder_window.hpp"

#include "pipesim/core/assert.hpp"

namespace pipesim::sweep {

ReorderWindow::ReorderWindow(size_t first, size_t capacity,
                             std::function<void(std::string_view)> sink)
    : slots_(capacity), sink_(std::move(sink)), next_(first) {
  PIPESIM_ASSERT(capacity > 0, "a window holds at least one row");
}

bool ReorderWindow::wait_for(size_t position) {
  std::unique_lock lock(mutex_);
  PIPESIM_ASSERT(position >= next_, "a position is started once, after the written ones");
  moved_.wait(lock, [&] { return aborted_ || position < next_ + slots_.size(); });
  return !aborted_;
}

void ReorderWindow::put(size_t position, std::string text) {
  const std::lock_guard lock(mutex_);
  if (aborted_) return;
  PIPESIM_ASSERT(position >= next_ && position < next_ + slots_.size(), "position in the window");
  auto& slot = slots_[position % slots_.size()];
  PIPESIM_ASSERT(!slot, "each position is put once");
  slot = std::move(text);
  peak_held_ = std::max(peak_held_, ++held_);
  std::string run;
  while (auto& head = slots_[next_ % slots_.size()]) {
    run += *head;
    head.reset();
    --held_;
    ++next_;
  }
  if (run.empty()) return;
  try {
    sink_(run);  // under the lock: one writer, in order
  } catch (...) {
    aborted_ = true;
    moved_.notify_all();
    throw;
  }
  moved_.notify_all();
}

void ReorderWindow::abort() {
  const std::lock_guard lock(mutex_);
  aborted_ = true;
  moved_.notify_all();
}

size_t ReorderWindow::next() const {
  const std::lock_guard lock(mutex_);
  return next_;
}

size_t ReorderWindow::horizon() const {
  const std::lock_guard lock(mutex_);
  return next_ + slots_.size();
}

size_t ReorderWindow::peak_held() const {
  const std::lock_guard lock(mutex_);
  return peak_held_;
}

}  // namespace pipesim::sweep
