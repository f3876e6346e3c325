#pragma once
// The manual page, pipesim(1), generated from the registered commands and options (and so from
// the option table): every flag a command takes is listed with its type, default and help, and
// cannot drift from what the program accepts. Printed by `pipesim --man-page`; the build writes
// it to pipesim.1 and installs it in share/man/man1.

#include <CLI/CLI.hpp>
#include <string>

namespace pipesim::cli {

//! pipesim.1 in man(7) markup: NAME, SYNOPSIS, DESCRIPTION, COMMANDS, OPTIONS (per command),
//! EXAMPLES, EXIT STATUS, ENVIRONMENT, FILES.
std::string man_page(const CLI::App& app);

}  // namespace pipesim::cli
