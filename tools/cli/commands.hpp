#pragma once
// Subcommands of the `pipesim` executable. Each add_* registers its options on the app and
// returns the action to run when that subcommand is chosen.

#include <CLI/CLI.hpp>
#include <functional>
#include <iosfwd>
#include <string_view>

#include "distribution.hpp"

namespace pipesim::cli {

using Action = std::function<int()>;

//! `simulate`'s exit code when the run completed but the configuration does not fit the GPUs'
//! memory (status `oom`); 2 is a user error, 3 is taken by "out of budget".
inline constexpr int kExitOutOfMemory = 4;
//! Any command's exit code when a run's estimated size is above the task budget (--max-tasks).
inline constexpr int kExitOutOfBudget = 3;

//! What every error line starts with.
inline constexpr std::string_view kErrorPrefix = "pipesim: error: ";

Action add_simulate_command(CLI::App& app);
Action add_list_command(CLI::App& app);
//! `sweep` and `search` evaluate their rows where `distribution` says (distribution.hpp).
Action add_sweep_command(CLI::App& app, const Distribution& distribution = {});
Action add_merge_command(CLI::App& app);
Action add_compare_command(CLI::App& app);
Action add_plot_command(CLI::App& app);
Action add_search_command(CLI::App& app, const Distribution& distribution = {});
Action add_calibrate_command(CLI::App& app);
Action add_validate_command(CLI::App& app);

//! Parses argv and runs the chosen subcommand. Every user error, from CLI11 or from deeper
//! (core::ConfigError), is printed as one line on `err`, and the return value is 2. In a
//! spread run (an MPI job) only `sweep` and `search` run; any other command is refused.
int run_cli(int argc, char** argv, std::ostream& out, std::ostream& err,
            const Distribution& distribution = {});

//! run_cli(), then stdout closed: a command that succeeded still fails (2) when stdout did not
//! take its output. What main() returns.
int run_main(int argc, char** argv, std::ostream& out, std::ostream& err,
             const Distribution& distribution = {});

}  // namespace pipesim::cli
