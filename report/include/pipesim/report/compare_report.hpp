#pragma once
// What `compare` prints and plots: every ranked row in a table over the options that vary,
// the rows that could not be ranked with their status, and the line plot of the ranking
// metric (best configuration per x when other options vary too).

#include <string>
#include <vector>

#include "pipesim/report/plot_data.hpp"
#include "pipesim/scenario/row.hpp"

namespace pipesim::report {

//! The metric the rows are ranked by.
struct RankedBy {
  std::string metric;
  bool higher_is_better = true;
};

//! Rows that do the same work per iteration (one mini-batch), ranked against each other.
struct RankedGroup {
  std::string label;          //!< e.g. "mini-batch 32 samples", "8 micro-batches"
  std::vector<size_t> order;  //!< best first
  //! When the group's rows run on different GPU counts: those counts, ascending, and the
  //! group is ranked by the metric per GPU (sweep::fair_metric); empty otherwise.
  std::vector<int> gpu_counts;
};

//! The text: a heading, one ranked table per group (a group on several GPU counts says so and
//! shows the metric per GPU) (rows in its order, best first; the groups
//! are never ranked against each other), then "not ranked" lines for the other rows.
std::string compare_table(const std::vector<scenario::SweepRow>& rows,
                          const std::vector<RankedGroup>& groups, const RankedBy& ranked_by);

//! The plot of the ranking metric: `x` and `group` when given, else the varied option with
//! the most values against the schedule (when it varies).
LinePlotSpec compare_plot_spec(const std::vector<scenario::SweepRow>& rows,
                               const RankedBy& ranked_by, const std::string& x,
                               const std::string& group);

}  // namespace pipesim::report
