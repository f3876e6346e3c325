#include <memory>

#include "commands.hpp"
#include "flags.hpp"
#include "pipesim/scenario/spec_cache.hpp"
#include "sweep_options.hpp"

namespace pipesim::cli {

Action add_sweep_command(CLI::App& app, const Distribution& distribution) {
  struct Options {
    SweepArgs sweep;
    std::string output;
    std::string shard;
    const CLI::Option* shard_flag = nullptr;
    bool resume = false;
  };
  auto o = std::make_shared<Options>();
  CLI::App* cmd = app.add_subcommand(
      "sweep",
      "Simulate the cartesian product of option lists in parallel; one CSV row per "
      "configuration (the last option in --help order varies fastest)");
  add_sweep_options(*cmd, o->sweep);
  cmd->add_option("--output,-o", o->output,
                  "Write the CSV (with --shard: the part file) to this file, atomically; rows "
                  "go to PATH.journal as they finish, until the end")
      ->type_name("PATH")
      ->group("Output");
  o->shard_flag = cmd->add_option("--shard", o->shard,
                                  "Run only shard i of K (the grid indices j with j % K == i) "
                                  "and write a part file for `pipesim merge`")
                      ->type_name("i/K")
                      ->group("Output");
  cmd->add_flag("--resume", o->resume,
                "Continue an interrupted sweep from PATH.journal (same options and -o)")
      ->group("Output");
  return [o, distribution] {
    const sweep::SweepGrid grid = make_grid(o->sweep);
    const bool sharded = o->shard_flag->count() > 0;
    const sweep::Shard shard =
        sharded ? sweep::parse_shard("command line", "--shard", o->shard) : sweep::Shard{};
    const int jobs = job_count(o->sweep, distribution.default_jobs);
    if (distribution.server != nullptr) {  // an MPI rank but 0: rows only, no output
      scenario::SpecCache specs;
      return distribution.server->serve(sweep::shard_rows(grid, shard, specs, describe_error),
                                        jobs);
    }
    stream_grid(grid, shard, sharded ? sweep::SweepOutput::Part : sweep::SweepOutput::Csv,
                o->output, o->resume, jobs, distribution.evaluator);
    return 0;
  };
}

}  // namespace pipesim::cli
