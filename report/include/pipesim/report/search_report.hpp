#pragma once
// What `search` prints: a heading with the status counts, each schedule's best fitting
// configuration ranked against the others with what limits it, and why a schedule has no
// fitting configuration; and the winners as CSV (rank, the row, limited_by).

#include <string>
#include <vector>

#include "pipesim/scenario/row.hpp"

namespace pipesim::report {

//! The search the rows came from, for the heading.
struct SearchHeading {
  std::string model;
  std::string hardware;
  int gpus = 0;
  int mini_batch = 0;
  std::vector<std::string> schedules;  //!< in the order they were asked for
  std::string rank_metric;             //!< what the winners are ranked by
};

//! The text table. `winners` are row indices, best first (one per schedule).
std::string search_table(const SearchHeading& heading, const std::vector<scenario::SweepRow>& rows,
                         const std::vector<size_t>& winners);

//! Header `rank`, csv_columns(), `limited_by`; one line per winner.
std::string winners_csv(const std::vector<scenario::SweepRow>& rows,
                        const std::vector<size_t>& winners);

//! The index of input column `name`, or input_columns().size() when there is none.
size_t input_column(const std::string& name);

}  // namespace pipesim::report
