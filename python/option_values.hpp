#pragma once
// Python keyword arguments → typed option values. A value is checked by its option's own
// declaration (kind, range, choices: core::OptionSpec::check), so it means the same thing and a
// bad one fails with the same words as on the command line: an int for an integer option, an
// int or float for a real one, True/False (or "on"/"off") for a switch, a str for a choice or a
// name.

#include <pybind11/pybind11.h>

#include <string>
#include <utility>
#include <vector>

#include "pipesim/core/option_spec.hpp"
#include "pipesim/scenario/options.hpp"

namespace pipesim::python {

//! `value` as a value of `option` (checked). Throws pybind11::type_error naming the option for a
//! Python type no option takes, core::ConfigError for a bad value.
core::OptionValue option_value(const scenario::Option& option, pybind11::handle value);

//! A sweep value as list text: a list, tuple or range of values joined with commas, else one
//! value's text (so a str may hold any list or range text, e.g. "8:64:x2").
std::string values_text(const scenario::Option& option, pybind11::handle value);

//! The keyword arguments of `function` with their options, skipping None (the option's
//! default); a keyword is an option's name or one of its aliases (Megatron-LM's names). Throws
//! pybind11::type_error for a keyword that names no option, as Python does for an unexpected
//! keyword argument, and core::ConfigError for one option given twice with different values.
std::vector<std::pair<const scenario::Option*, pybind11::handle>> option_arguments(
    const char* function, const pybind11::kwargs& kwargs);

}  // namespace pipesim::python
