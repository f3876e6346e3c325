#include "sweep_options.hpp"

#include "run_options.hpp"
#include "thread_pool.hpp"

namespace pipesim::cli {

void add_sweep_options(CLI::App& cmd, SweepArgs& args) {
  for (const RunOption& option : run_options()) {
    cmd.add_option(option.names, args.values[option.flag()],
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

SweepGrid make_grid(const SweepArgs& args) {
  return make_grid(args.values, args.file);
}

int job_count(const SweepArgs& args) {
  return args.jobs > 0 ? args.jobs : default_jobs();
}

}  // namespace pipesim::cli
