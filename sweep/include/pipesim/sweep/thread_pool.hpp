#pragma once
// Runs body(i) for every i in [0, n) on a few std::threads. Each thread takes the next index
// from one atomic counter, so the work is balanced, and writes its result by index, so what a
// caller collects does not depend on the number of threads or on timing.

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <exception>
#include <functional>
#include <mutex>
#include <system_error>
#include <thread>
#include <vector>

namespace pipesim::sweep {

//! Most threads a sweep or search starts: more only adds stacks (8 MiB each), since every
//! simulation is compute-bound.
inline constexpr int kMaxJobs = 256;

//! std::thread::hardware_concurrency(), at least 1.
inline int default_jobs() {
  return std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
}

//! The threads "one per hardware thread" means for one of `processes` processes on this
//! machine (the ranks of an MPI job on one node): its share of the hardware threads, at least 1.
inline int shared_jobs(int processes) {
  return std::clamp(default_jobs() / std::max(processes, 1), 1, kMaxJobs);
}

//! The job count for a request of `requested` jobs: itself, clamped to [1, kMaxJobs], or `all`
//! when 0.
inline int job_count(int requested, int all = shared_jobs(1)) {
  return requested > 0 ? std::min(requested, kMaxJobs) : std::clamp(all, 1, kMaxJobs);
}

//! Calls body(i) once for each i in [0, n) on min(jobs, n) threads and returns when all are
//! done. `on_progress(done)` (optional) is called from the calling thread a few times a second
//! and once at the end. The first exception a body throws stops the remaining work and is
//! rethrown here after every thread has joined. When the system refuses to create a thread
//! (std::system_error: a memory or process limit), the work runs on the threads that were
//! created, or on the calling thread when none was: fewer threads, same results.
inline void parallel_for(size_t n, int jobs, const std::function<void(size_t)>& body,
                         const std::function<void(size_t)>& on_progress = {}) {
  std::atomic<size_t> next{0};
  std::atomic<size_t> done{0};
  std::atomic<bool> stop{false};
  std::exception_ptr error;
  std::mutex mutex;
  std::condition_variable finished;
  auto worker = [&] {
    while (!stop.load(std::memory_order_relaxed)) {
      const size_t i = next.fetch_add(1, std::memory_order_relaxed);
      if (i >= n) break;
      try {
        body(i);
      } catch (...) {
        const std::lock_guard lock(mutex);
        if (!error) error = std::current_exception();
        stop = true;
      }
      if (done.fetch_add(1) + 1 == n) {
        const std::lock_guard lock(mutex);
        finished.notify_all();
      }
    }
    const std::lock_guard lock(mutex);
    finished.notify_all();
  };
  const size_t threads = std::min(n, static_cast<size_t>(std::clamp(jobs, 1, kMaxJobs)));
  {
    std::vector<std::jthread> pool;
    pool.reserve(threads);
    try {
      for (size_t t = 0; t < threads; ++t)
        pool.emplace_back(worker);
    } catch (const std::system_error&) {
      if (pool.empty()) worker();  // no thread at all: do the work here
    }
    if (on_progress) {
      std::unique_lock lock(mutex);
      while (done.load() < n && !stop.load()) {
        finished.wait_for(lock, std::chrono::milliseconds(200));
        lock.unlock();
        on_progress(done.load());
        lock.lock();
      }
    }
  }  // joins
  if (error) std::rethrow_exception(error);
  if (on_progress) on_progress(done.load());
}

}  // namespace pipesim::sweep
