#pragma once
// What `search` prints: a heading with the status counts, each schedule's best fitting
// configuration ranked against the others with what limits it, and why a schedule has no
// fitting configuration; and the winners as CSV (rank, the row, limited_by).

#include <cstddef>
#include <map>
#include <set>
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

//! What a search's candidates came to, counted as they were settled: the table's heading and
//! its line for a schedule without a fitting run come from here, not from the rows (a search
//! for its table keeps the inputs of its fitting rows only).
struct SearchTally {
  //! Per schedule, how many of its candidates ended in each status.
  std::map<std::string, std::map<scenario::Status::Kind, size_t>> statuses;
  //! The options shown as columns: the layout degrees (tensor_parallel, ...) some candidate
  //! runs at above 1, and the knobs search tried around its best configurations.
  std::set<std::string> varied_degrees;
  //! What search chose itself and why, one line each, printed under the heading.
  std::vector<std::string> notes;
  //! Per schedule without a fitting configuration: the limit that binds and what to vary.
  std::map<std::string, std::string> binding;
  //! When no schedule has a fitting configuration: the binding limit over all of them.
  std::string nothing_fits;

  size_t count(scenario::Status::Kind kind) const;
  size_t total() const;
};

//! The text table. `winners` are row indices, best first (one per schedule); only the winners'
//! rows are read.
std::string search_table(const SearchHeading& heading, const SearchTally& tally,
                         const std::vector<scenario::SweepRow>& rows,
                         const std::vector<size_t>& winners);

//! Header `rank`, csv_columns(), `limited_by`; one line per winner.
std::string winners_csv(const std::vector<scenario::SweepRow>& rows,
                        const std::vector<size_t>& winners);

//! The index of input column `name`, or input_columns().size() when there is none.
size_t input_column(const std::string& name);

}  // namespace pipesim::report
