#include "pipesim/sweep/row_job.hpp"

#include "pipesim/sweep/thread_pool.hpp"

namespace pipesim::sweep {

void run_rows(const RowJob& job, RowEvaluator* evaluator) {
  if (evaluator != nullptr) {
    evaluator->run(job);
    return;
  }
  if (job.first >= job.end) {
    if (job.on_progress) job.on_progress(0);
    return;
  }
  parallel_for(
      job.end - job.first, job.jobs,
      [&](size_t k) {
        const size_t position = job.first + k;
        try {
          if (job.window != nullptr && !job.window->wait_for(position)) return;  // stopping
          job.put(position, job.make_row(position));
        } catch (...) {
          // Wakes the threads waiting for this position to be written.
          if (job.window != nullptr) job.window->abort();
          throw;
        }
      },
      job.on_progress);
}

}  // namespace pipesim::sweep
