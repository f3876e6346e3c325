#pragma once
// Search's winners: the best row per schedule, ranked as a sweep's rows are (sweep/ranking.hpp).

#include <cstddef>
#include <vector>

#include "pipesim/scenario/row.hpp"
#include "pipesim/sweep/ranking.hpp"

namespace pipesim::search {

//! The best row per value of an input column, and what they were ranked by.
struct Winners {
  sweep::RankMetric metric;
  std::vector<size_t> rows;  //!< best first
};

//! best_per_group by the default metric (default_rank_metric), per GPU when the ok rows run on
//! different GPU counts (fair_metric): search's winners, one per schedule.
Winners winners_per_group(const std::vector<scenario::SweepRow>& rows, size_t group);

}  // namespace pipesim::search
