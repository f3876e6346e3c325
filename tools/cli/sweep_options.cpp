#include "sweep_options.hpp"

#include <iostream>

#include "flags.hpp"
#include "pipesim/explore/spec_cache.hpp"
#include "pipesim/explore/sweep_runner.hpp"
#include "pipesim/explore/thread_pool.hpp"
#include "progress_bar.hpp"

namespace pipesim::cli {

void add_sweep_options(CLI::App& cmd, SweepArgs& args) {
  for (const scenario::Option& option : scenario::options()) {
    cmd.add_option(cli_names(option), args.values[option.name],
                   option.help + "; a list a,b,c or a range a:b, a:b:+step, a:b:xfactor")
        ->default_str(option.default_value);
  }
  cmd.add_option("--file,-f", args.file,
                 "YAML sweep file: option names (without --) to values, lists or ranges; "
                 "the command line wins over it");
  cmd.add_option("--jobs,-j", args.jobs, "Parallel simulations (0 = one per hardware thread)")
      ->check(CLI::Range(0, 4096))
      ->capture_default_str();
}

explore::SweepGrid make_grid(const SweepArgs& args) {
  explore::GivenSource source;
  source.field = flag_of;
  return explore::make_grid(args.values, args.file, source);
}

int job_count(const SweepArgs& args) {
  return args.jobs > 0 ? args.jobs : explore::default_jobs();
}

std::vector<scenario::SweepRow> run_grid(const explore::SweepGrid& grid, int jobs) {
  explore::SpecCache specs;
  ProgressBar bar(std::cerr, grid.size(), ProgressBar::stderr_is_terminal());
  return explore::evaluate_all(
      grid.size(),
      [&](size_t i) { return explore::evaluate(grid.point(i), specs, describe_error); }, jobs,
      [&](size_t done) { bar.update(done); });
}

}  // namespace pipesim::cli
