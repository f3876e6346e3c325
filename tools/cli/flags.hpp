#pragma once
// The command line's spelling of scenario options: `micro_batches` → `--micro-batches` (with
// its one-letter alias, `-N`), and errors re-worded to name the flag the user typed.

#include <CLI/CLI.hpp>
#include <string>

#include "pipesim/core/config_error.hpp"
#include "pipesim/scenario/options.hpp"

namespace pipesim::cli {

//! "--micro-batches" for "micro_batches".
std::string flag_of(const std::string& option);

//! CLI11 names: "--stages,-D".
std::string cli_names(const scenario::Option& option);

//! How --help shows a scenario option: the type of its value (`INT`, `SLOTS`, `NAME|PATH`,
//! the allowed names), its group (`Schedule`, `Unit-cost mode`, `Real-cost mode`) and the value
//! used when it is not given (the scheme's own default, e.g. 2 pipelines for chimera).
struct OptionHelp {
  std::string type;
  std::string group;
  std::string default_value;
};
OptionHelp option_help(const scenario::Option& option);

//! Registers scenario option `option` on `cmd`, its text stored in `text`, with its type, group
//! and default in the help. `list`: sweep and compare take a LIST of values (the syntax is
//! explained once, in list_syntax_note()).
CLI::Option* add_scenario_option(CLI::App& cmd, const scenario::Option& option, std::string& text,
                                 bool list);

//! The one note on list and range values that sweep and compare show under their options.
const char* list_syntax_note();

//! The one line to print for `error`: an OptionError as "command line: <flag>: <problem>",
//! anything else as its what().
std::string describe_error(const core::ConfigError& error);

}  // namespace pipesim::cli
