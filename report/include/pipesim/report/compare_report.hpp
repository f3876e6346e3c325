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

//! The text: a heading, the ranked table (rows in `order`, best first), then "not ranked"
//! lines for the other rows.
std::string compare_table(const std::vector<scenario::SweepRow>& rows,
                          const std::vector<size_t>& order, const RankedBy& ranked_by);

//! The plot of the ranking metric: `x` and `group` when given, else the varied option with
//! the most values against the schedule (when it varies).
LinePlotSpec compare_plot_spec(const std::vector<scenario::SweepRow>& rows,
                               const RankedBy& ranked_by, const std::string& x,
                               const std::string& group);

}  // namespace pipesim::report
