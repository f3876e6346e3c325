#pragma once
// The options `sweep` and `compare` share: every scenario option as a list or range
// (registered from scenario::options(), so options added to that table become sweepable), a
// sweep file, and the number of jobs; and running the grid with a progress bar.

#include <CLI/CLI.hpp>
#include <map>
#include <string>
#include <vector>

#include "megatron_input.hpp"
#include "pipesim/scenario/row.hpp"
#include "pipesim/sweep/sweep_grid.hpp"
#include "pipesim/sweep/sweep_stream.hpp"
#include "pipesim/sweep/thread_pool.hpp"

namespace pipesim::cli {

struct SweepArgs {
  sweep::OptionTexts values;  //!< option name → list or range text (bound to the flags)
  std::map<std::string, const CLI::Option*> flags;  //!< option name → its flag (none: given)
  std::string file;                                 //!< YAML sweep file, "" for none
  std::string jobs = "0";                           //!< 0 = one per hardware thread
  MegatronFlags megatron;  //!< a Megatron-LM script or list: fixed values of the grid
};

//! Registers every option (taking lists and ranges), --file and --jobs on `cmd`.
void add_sweep_options(CLI::App& cmd, SweepArgs& args);

//! The grid the arguments describe (throws core::ConfigError for bad lists, ranges, values);
//! a Megatron-LM script's settings are single values of it, and its used, ignored and unknown
//! arguments are listed on stderr (the CSV on stdout stays the sweep's).
sweep::SweepGrid make_grid(const SweepArgs& args);

//! The job count to use: args.jobs, or `all` when 0.
int job_count(const SweepArgs& args, int all = sweep::shared_jobs(1));

//! `--jobs` text → a job count in [1, sweep::kMaxJobs] (0 = `all`, clamped to that range).
int parse_jobs(const std::string& text, int all = sweep::shared_jobs(1));

//! Evaluates every point of the grid (sweep::run_grid), with a progress bar on a terminal's
//! stderr.
std::vector<scenario::SweepRow> run_grid(const sweep::SweepGrid& grid, int jobs);

//! Runs `shard` of the grid with a progress bar, streaming its output (`kind`) to `output`:
//! stdout for "" or "-", a device or FIFO in place, a file through its journal (continued with
//! `resume`), so memory does not grow with the grid. The rows are evaluated with `evaluator`
//! (an MPI job's ranks), or on `jobs` threads when it is nullptr.
void stream_grid(const sweep::SweepGrid& grid, sweep::Shard shard, sweep::SweepOutput kind,
                 const std::string& output, bool resume, int jobs,
                 sweep::RowEvaluator* evaluator = nullptr);

}  // namespace pipesim::cli
