#pragma once
// The command line's spelling of scenario options: `micro_batches` → `--micro-batches` (with
// its one-letter alias, `-N`), and errors re-worded to name the flag the user typed.

#include <string>

#include "pipesim/core/config_error.hpp"
#include "pipesim/scenario/options.hpp"

namespace pipesim::cli {

//! "--micro-batches" for "micro_batches".
std::string flag_of(const std::string& option);

//! CLI11 names: "--stages,-D".
std::string cli_names(const scenario::Option& option);

//! The one line to print for `error`: an OptionError as "command line: <flag>: <problem>",
//! anything else as its what().
std::string describe_error(const core::ConfigError& error);

}  // namespace pipesim::cli
