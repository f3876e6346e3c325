#include "sweep_options.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <iostream>

#include "flags.hpp"
#include "pipesim/explore/spec_cache.hpp"
#include "pipesim/explore/sweep_runner.hpp"
#include "pipesim/explore/thread_pool.hpp"
#include "pipesim/scenario/options.hpp"
#include "progress_bar.hpp"

namespace pipesim::cli {

void add_sweep_options(CLI::App& cmd, SweepArgs& args) {
  for (const scenario::Option& option : scenario::options()) {
    args.flags[option.name] = add_scenario_option(cmd, option, args.values[option.name], true);
  }
  cmd.add_option("--file,-f", args.file,
                 "YAML sweep file: option names (without --) to values, lists or ranges; "
                 "the command line wins over it")
      ->type_name("PATH")
      ->group("Sweep");
  cmd.add_option("--jobs,-j", args.jobs,
                 fmt::format("Parallel simulations, 0..{} (0 = one per hardware thread)",
                             explore::kMaxJobs))
      ->type_name("INT")
      ->capture_default_str()
      ->group("Sweep");
  cmd.footer(list_syntax_note());
}

explore::SweepGrid make_grid(const SweepArgs& args) {
  explore::GivenSource source;
  source.field = flag_of;
  explore::OptionTexts given;  // only the options on the command line, empty texts included
  // A value without a flag (the Python module sets values directly) was given by its caller.
  for (const auto& [name, text] : args.values) {
    const auto flag = args.flags.find(name);
    if (flag == args.flags.end() || flag->second->count() > 0) given[name] = text;
  }
  return explore::make_grid(given, args.file, source);
}

int parse_jobs(const std::string& text) {
  const int jobs = scenario::parse_int("jobs", text, 0, explore::kMaxJobs);
  return jobs > 0 ? jobs : std::min(explore::default_jobs(), explore::kMaxJobs);
}

int job_count(const SweepArgs& args) {
  return parse_jobs(args.jobs);
}

std::vector<scenario::SweepRow> run_grid(const explore::SweepGrid& grid, int jobs) {
  explore::SpecCache specs;
  ProgressBar bar(std::cerr, grid.size(), ProgressBar::stderr_is_terminal());
  return explore::evaluate_all(
      grid.size(),
      [&](size_t i) {
        return explore::evaluate(grid.point(i), specs, describe_error, grid.given());
      },
      jobs, [&](size_t done) { bar.update(done); });
}

}  // namespace pipesim::cli
