#pragma once
// Ranking sweep and search rows: which configurations are best, and what limits each.
//
// Only rows with status `ok` are ranked (an `oom` row has fits_memory = false and never wins).
// The ranking metric is `throughput` (higher is better) when the rows have it, otherwise
// `iteration_time` (lower is better; unit-cost mode). Ties keep row order, so a ranking is as
// deterministic as the rows.

#include <optional>
#include <string>
#include <vector>

#include "pipesim/scenario/row.hpp"

namespace pipesim::explore {

using scenario::SweepRow;

struct RankMetric {
  std::string name;  //!< a metric column
  bool higher_is_better = true;
};

//! A metric column by name; throws scenario::OptionError("rank_by", ...) for a
//! column that cannot rank (no direction in scenario::metrics(), or unknown).
RankMetric rank_metric(const std::string& name);

//! throughput when any ok row has it, else iteration_time.
RankMetric default_rank_metric(const std::vector<SweepRow>& rows);

//! Indices of the ok rows that have the metric, best first.
std::vector<size_t> rank_rows(const std::vector<SweepRow>& rows, const RankMetric& metric);

//! For each distinct value of input column `group` (an index into SweepRow::inputs), the best
//! ranked row; returned best first (so the groups come out ranked against each other).
std::vector<size_t> best_per_group(const std::vector<SweepRow>& rows, size_t group,
                                   const RankMetric& metric);

}  // namespace pipesim::explore
