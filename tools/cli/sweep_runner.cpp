#include "sweep_runner.hpp"

#include <iostream>

#include "progress_bar.hpp"
#include "thread_pool.hpp"

namespace pipesim::cli {

std::vector<SweepRow> evaluate_all(size_t n, const std::function<SweepRow(size_t)>& make_row,
                                   int jobs, bool progress) {
  std::vector<SweepRow> rows(n);
  ProgressBar bar(std::cerr, n, progress && ProgressBar::stderr_is_terminal());
  parallel_for(
      n, jobs, [&](size_t i) { rows[i] = make_row(i); }, [&](size_t done) { bar.update(done); });
  return rows;
}

}  // namespace pipesim::cli
