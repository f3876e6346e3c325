#pragma once
// The bash completion script, generated from the registered subcommands and options, so a
// flag added to any command completes without editing a hand-written script.

#include <CLI/CLI.hpp>
#include <string>

namespace pipesim::cli {

//! A bash script defining `_pipesim` and `complete -F _pipesim pipesim`: subcommands, every
//! option of each, and values: the allowed names of a choice option (type `a|b|c`), schedule
//! names for `--schedule`, file names for options that take a PATH.
std::string bash_completion(const CLI::App& app);

}  // namespace pipesim::cli
