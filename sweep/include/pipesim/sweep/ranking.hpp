#pragma once
// Ranking sweep and search rows: which configurations are best, and what limits each.
//
// Only rows with status `ok` are ranked (an `oom` row has fits_memory = false and never wins).
// The ranking metric is `throughput` (higher is better) when the rows have it, otherwise
// `iteration_time` (lower is better; unit-cost mode). Ties keep row order, so a ranking is as
// deterministic as the rows. Real-cost rows on different GPU counts are ranked per GPU: a rate
// divided by the row's GPUs, a time multiplied by them (GPU-seconds per iteration), since more
// GPUs buy more throughput by themselves (fair_metric).

#include <optional>
#include <string>
#include <vector>

#include "pipesim/report/compare_report.hpp"
#include "pipesim/scenario/row.hpp"

namespace pipesim::sweep {

using scenario::SweepRow;

struct RankMetric {
  std::string name;  //!< a metric column
  bool higher_is_better = true;
  //! Ranked per GPU (scenario::row_gpus): a rate / GPUs, iteration_time × GPUs.
  bool per_gpu = false;

  //! "throughput", "throughput per GPU", "iteration_time × GPUs".
  std::string label() const;
};

//! The value `row` is ranked by under `metric`, when the row has it (and its GPUs, per GPU).
std::optional<double> rank_value(const SweepRow& row, const RankMetric& metric);

//! `metric` made per GPU when the ok real-cost rows of `subset` run on different GPU counts
//! and it can be (throughput, tokens_per_second, iteration_time); else `metric` as it is.
RankMetric fair_metric(const std::vector<SweepRow>& rows, const std::vector<size_t>& subset,
                       RankMetric metric);

//! The distinct GPU counts of the ok rows of `subset`, ascending (empty in unit-cost mode).
std::vector<int> gpu_counts(const std::vector<SweepRow>& rows, const std::vector<size_t>& subset);

//! A metric column by name; throws core::ConfigError::option("rank_by", ...) for a
//! column that cannot rank (no direction in scenario::metrics(), or unknown).
RankMetric rank_metric(const std::string& name);

//! throughput when any ok row has it, else iteration_time.
RankMetric default_rank_metric(const std::vector<SweepRow>& rows);

//! Indices of the ok rows that have the metric, best first.
std::vector<size_t> rank_rows(const std::vector<SweepRow>& rows, const RankMetric& metric);

//! `subset` (ok rows) reordered by `metric`, best first, ties by row index.
std::vector<size_t> rank_subset(const std::vector<SweepRow>& rows, std::vector<size_t> subset,
                                const RankMetric& metric);

//! The amount of work one iteration of `row` does, which a ranking must hold equal: in
//! real-cost mode the mini-batch B̂ = B·N·W ("mini-batch 32 samples"), in unit-cost mode the
//! micro-batches N ("8 micro-batches"). Iteration time and even throughput favour a bigger
//! mini-batch (its bubbles are amortised), so configurations are ranked only against equals.
std::string mini_batch_of(const SweepRow& row);

//! `order` split by mini_batch_of(), each part keeping `order`'s order; parts in the order of
//! their best row.
std::vector<std::vector<size_t>> split_by_mini_batch(const std::vector<SweepRow>& rows,
                                                     const std::vector<size_t>& order);

//! The ranked rows of a comparison: rank_rows by `metric`, split by mini_batch_of(), and each
//! part on several GPU counts ranked again per GPU (fair_metric), its counts in the group.
std::vector<report::RankedGroup> ranked_groups(const std::vector<SweepRow>& rows,
                                               const RankMetric& metric);

//! For each distinct value of input column `group` (an index into SweepRow::inputs), the best
//! ranked row; returned best first (so the groups come out ranked against each other).
std::vector<size_t> best_per_group(const std::vector<SweepRow>& rows, size_t group,
                                   const RankMetric& metric);

}  // namespace pipesim::sweep
