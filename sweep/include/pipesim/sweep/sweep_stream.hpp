#pragma once
// A sweep whose memory does not grow with its grid: rows go from the thread pool through a
// ReorderWindow to their output in grid-index order as they finish. To a file, they go to its
// journal (sweep_journal.hpp) first, and the file is written from the journal at the end,
// atomically; an interrupted sweep is resumed from the journal. To a stream (stdout, a device)
// they go directly. The output is the same bytes for any number of jobs, interrupted and
// resumed or not.

#include <cstddef>
#include <filesystem>
#include <functional>
#include <string>

#include "pipesim/scenario/spec_cache.hpp"
#include "pipesim/sweep/part_merge.hpp"
#include "pipesim/sweep/reorder_window.hpp"
#include "pipesim/sweep/row_job.hpp"
#include "pipesim/sweep/sweep_grid.hpp"
#include "pipesim/sweep/sweep_runner.hpp"
#include "pipesim/sweep/sweep_shard.hpp"

namespace pipesim::sweep {

struct StreamOptions {
  int jobs = 1;
  size_t window = kReorderWindow;  //!< most finished rows held for an earlier one
  DescribeError describe;          //!< how an invalid row's error is worded
  //! Who evaluates the rows (the ranks of an MPI job); nullptr: `jobs` threads of this process.
  RowEvaluator* evaluator = nullptr;
  //! Called from the calling thread now and then: the shard's positions finished (resumed ones
  //! included) and its size.
  std::function<void(size_t done, size_t total)> on_progress;
};

//! What a sweep writes: the sweep CSV, or the part file of its shard (part_file.hpp).
enum class SweepOutput { Csv, Part };

//! The text a row becomes in the output.
using RenderRow = std::function<std::string(size_t grid_index, const scenario::SweepRow& row)>;

//! The row of position p of `shard` of `grid`: its grid index's point, evaluated with the
//! files of `specs` (kept alive by the caller, as `grid` is).
MakeRow shard_rows(const SweepGrid& grid, Shard shard, scenario::SpecCache& specs,
                   const DescribeError& describe);

//! Evaluates the positions [first, shard.size(grid.size())) of `shard` (model and hardware
//! loaded once) with options.evaluator or on options.jobs threads, and passes
//! render(grid index, row) of each to `write` in position order. Returns the most rows held at
//! once (≤ options.window).
size_t stream_shard(const SweepGrid& grid, Shard shard, size_t first, const StreamOptions& options,
                    const RenderRow& render, const TextSink& write);

//! The whole output of `shard` of `grid` (with SweepOutput::Csv, shard is 0/1) to `write`.
void sweep_to_stream(const SweepGrid& grid, Shard shard, SweepOutput kind,
                     const StreamOptions& options, const TextSink& write);

//! The output of `shard` of `grid` as file `output` (a regular file or a new one), through
//! journal_path(output): a fresh journal, or with `resume` the existing one continued (a fresh
//! one when there is none). When every row is in the journal, `output` is written from it
//! atomically and the journal is removed. Interrupted, the journal stays. Throws
//! core::ConfigError naming the file.
void sweep_to_file(const SweepGrid& grid, Shard shard, SweepOutput kind,
                   const std::filesystem::path& output, bool resume, const StreamOptions& options);

}  // namespace pipesim::sweep
