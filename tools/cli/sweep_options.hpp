#pragma once
// The options `sweep` and `compare` share: every run option as a list or range (registered
// from run_options(), so options added to that table become sweepable), a sweep file, and the
// number of jobs.

#include <CLI/CLI.hpp>
#include <string>

#include "sweep_grid.hpp"

namespace pipesim::cli {

struct SweepArgs {
  OptionTexts values;  //!< long flag → list or range text as given
  std::string file;    //!< YAML sweep file, "" for none
  int jobs = 0;        //!< 0 = one per hardware thread
};

//! Registers every run option (taking lists and ranges), --file and --jobs on `cmd`.
void add_sweep_options(CLI::App& cmd, SweepArgs& args);

//! The grid the arguments describe (throws core::ConfigError for bad lists, ranges, values).
SweepGrid make_grid(const SweepArgs& args);

//! The job count to use: args.jobs, or the hardware concurrency when 0.
int job_count(const SweepArgs& args);

}  // namespace pipesim::cli
