#pragma once
// How each front end words an error. Library code names options neutrally
// (core::ConfigError::option: `micro_batches`); the front ends spell them in their own words:
// the CLI `--micro-batches` (its source "command line"), Python `micro_batches=` (its source
// the call). One place, so the CLI, Python and the rows of a sweep say the same thing.

#include <string>
#include <string_view>

#include "pipesim/core/config_error.hpp"

namespace pipesim::core {

//! "--micro-batches" for "micro_batches".
std::string flag_spelling(std::string_view option);
//! "micro_batches=" for "micro_batches".
std::string keyword_spelling(std::string_view option);

//! The CLI's line: "command line: --stages: must be in [1, 4096], got 0"; any other error as
//! its what().
std::string cli_wording(const core::ConfigError& error);
//! Python's: "stages=: must be in [1, 4096], got 0", with `call` ("simulate()") as the
//! source of an option error that has no context of its own.
std::string python_wording(const core::ConfigError& error, std::string_view call = "arguments");

}  // namespace pipesim::core
