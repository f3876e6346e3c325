#pragma once
// The command line's spelling of scenario options: `micro_batches` → `--micro-batches` (with
// its one-letter alias, `-N`), registered from the option table with its type, group and
// default in the help.

#include <CLI/CLI.hpp>
#include <string>

#include "pipesim/core/wording.hpp"
#include "pipesim/scenario/options.hpp"

namespace pipesim::cli {

//! "--micro-batches" for "micro_batches".
inline std::string flag_of(const std::string& option) {
  return core::flag_spelling(option);
}

//! CLI11 names: "--stages,-D".
std::string cli_names(const scenario::Option& option);

//! Registers scenario option `option` on `cmd`, its text stored in `text`, with its type, group
//! and default (each scheme's own for a scheme option) in the help. `list`: sweep and compare
//! take a LIST of values (the syntax is explained once, in list_syntax_note()).
CLI::Option* add_scenario_option(CLI::App& cmd, const scenario::Option& option, std::string& text,
                                 bool list);

//! The text of a given option: as typed, except that a bare switch (`--sequence-parallel`) is
//! "on".
std::string given_text(const scenario::Option& option, const std::string& text);

//! The one note on list and range values that sweep and compare show under their options.
const char* list_syntax_note();

//! The one line to print for `error` (core::cli_wording).
inline std::string describe_error(const core::ConfigError& error) {
  return core::cli_wording(error);
}

}  // namespace pipesim::cli
