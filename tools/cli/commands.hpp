#pragma once
// Subcommands of the `pipesim` executable. Each add_* registers its options on the app and
// returns the action to run when that subcommand is chosen.

#include <CLI/CLI.hpp>
#include <functional>
#include <iosfwd>

namespace pipesim::cli {

using Action = std::function<int()>;

//! `simulate`'s exit code when the run completed but the configuration does not fit the GPUs'
//! memory (status `oom`); 2 is a user error, 3 is taken by "out of budget".
inline constexpr int kExitOutOfMemory = 4;

Action add_simulate_command(CLI::App& app);
Action add_list_command(CLI::App& app);
Action add_sweep_command(CLI::App& app);
Action add_merge_command(CLI::App& app);
Action add_compare_command(CLI::App& app);
Action add_plot_command(CLI::App& app);
Action add_search_command(CLI::App& app);
Action add_calibrate_command(CLI::App& app);
Action add_validate_command(CLI::App& app);

//! Parses argv and runs the chosen subcommand. Every user error, from CLI11 or from deeper
//! (core::ConfigError), is printed as one line on `err`, and the return value is 2.
int run_cli(int argc, char** argv, std::ostream& out, std::ostream& err);

}  // namespace pipesim::cli
