#pragma once
// Between the thread pool and the one writer of a streamed sweep: rows finish in any order,
// the writer needs them in position order, and memory must not grow with the grid. The window
// holds at most `capacity` finished rows that wait for an earlier one; a worker about to start
// position p waits until p < next + capacity (next = the first position not yet written). The
// worker holding position `next` never waits (next < next + capacity), so the window always
// drains: no deadlock, whatever the timing, and the output is the same for any thread count.

#include <condition_variable>
#include <cstddef>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace pipesim::sweep {

//! Finished rows one sweep may hold while an earlier one runs: ~300 bytes each as text, so
//! about a megabyte, and far more than the 256 jobs that can be running.
inline constexpr size_t kReorderWindow = 4096;

class ReorderWindow {
 public:
  //! Positions start at `first`; `sink` receives the rows' text in position order, a run of
  //! consecutive rows at a time, on the thread whose put() completed the run, never two at once.
  ReorderWindow(size_t first, size_t capacity, std::function<void(std::string_view)> sink);

  //! Blocks until `position` fits in the window; false when the window was aborted (the caller
  //! then gives up on the position).
  bool wait_for(size_t position);
  //! Stores the text of `position` (which fits in the window) and writes every row that is now
  //! next. What the sink throws aborts the window and is rethrown here.
  void put(size_t position, std::string text);
  //! Wakes and fails every waiting and later wait_for(): the sweep stops.
  void abort();

  //! The first position not yet written.
  size_t next() const;
  //! The first position put() cannot take yet (next() + capacity): what a scheduler that must
  //! not block, such as rank 0 of an MPI run, hands out stays below it.
  size_t horizon() const;
  //! The most rows held at once so far (≤ capacity).
  size_t peak_held() const;

 private:
  mutable std::mutex mutex_;
  std::condition_variable moved_;
  std::vector<std::optional<std::string>> slots_;  //!< position p in slot p % capacity
  std::function<void(std::string_view)> sink_;
  size_t next_;
  size_t held_ = 0;
  size_t peak_held_ = 0;
  bool aborted_ = false;
};

}  // namespace pipesim::sweep
