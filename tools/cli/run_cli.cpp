#include <iostream>
#include <map>
#include <string>

#include "commands.hpp"
#include "flags.hpp"
#include "pipesim/core/config_error.hpp"
#include "pipesim/core/version.hpp"

namespace pipesim::cli {

int run_cli(int argc, char** argv, std::ostream& out, std::ostream& err) {
  CLI::App app{"pipesim: simulate pipeline-parallel training schedules", "pipesim"};
  app.require_subcommand(1);
  app.set_help_all_flag("--help-all", "Help for every subcommand");
  app.set_version_flag("--version", "pipesim " + std::string(core::version));
  std::map<const CLI::App*, Action> actions;
  const Action simulate = add_simulate_command(app);
  actions[app.get_subcommand("simulate")] = simulate;
  const Action list = add_list_command(app);
  actions[app.get_subcommand("list")] = list;
  const Action sweep = add_sweep_command(app);
  actions[app.get_subcommand("sweep")] = sweep;
  const Action compare = add_compare_command(app);
  actions[app.get_subcommand("compare")] = compare;
  const Action plot = add_plot_command(app);
  actions[app.get_subcommand("plot")] = plot;
  const Action search = add_search_command(app);
  actions[app.get_subcommand("search")] = search;
  actions[app.get_subcommand("calibrate")] = add_calibrate_command(app);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return app.exit(e, out, err);  // --help, --version
    err << "pipesim: error: " << e.what() << "\n";
    return 2;
  }
  try {
    for (const CLI::App* sub : app.get_subcommands())
      return actions.at(sub)();
  } catch (const core::ConfigError& e) {
    err << "pipesim: error: " << describe_error(e) << "\n";
    return 2;
  }
  return 2;
}

}  // namespace pipesim::cli
