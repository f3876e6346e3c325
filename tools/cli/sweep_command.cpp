#include <memory>

#include "commands.hpp"
#include "output.hpp"
#include "pipesim/report/rows_csv.hpp"
#include "sweep_options.hpp"

namespace pipesim::cli {

Action add_sweep_command(CLI::App& app) {
  struct Options {
    SweepArgs sweep;
    std::string output;
  };
  auto o = std::make_shared<Options>();
  CLI::App* cmd = app.add_subcommand(
      "sweep",
      "Simulate the cartesian product of option lists in parallel; one CSV row per "
      "configuration (the last option in --help order varies fastest)");
  add_sweep_options(*cmd, o->sweep);
  cmd->add_option("--output,-o", o->output, "Write the CSV to this file (atomically)");
  return [o] {
    const auto rows = run_grid(make_grid(o->sweep), job_count(o->sweep));
    emit(o->output, report::rows_to_csv(rows));
    return 0;
  };
}

}  // namespace pipesim::cli
