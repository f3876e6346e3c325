#pragma once
// Evaluates many configurations in parallel; rows come back in index order, so the output is
// the same for any number of jobs.

#include <cstddef>
#include <functional>
#include <vector>

#include "sweep_row.hpp"

namespace pipesim::cli {

//! Calls make_row(i) for i in [0, n) on `jobs` threads and returns the rows by index. With
//! `progress`, a bar with ETA is drawn on stderr when stderr is a terminal.
std::vector<SweepRow> evaluate_all(size_t n, const std::function<SweepRow(size_t)>& make_row,
                                   int jobs, bool progress = true);

}  // namespace pipesim::cli
