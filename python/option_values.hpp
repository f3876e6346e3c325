#pragma once
// Python keyword arguments → the option texts scenario::options() parses. The bindings hand
// every value to the same parser as the command line, so a value means the same thing and a
// bad one fails with the same message: a Python value is first written as the text a user
// would type.

#include <pybind11/pybind11.h>

#include <string>
#include <utility>
#include <vector>

namespace pipesim::python {

//! The text of one value: a str as is, a bool as true/false, an int in decimal, a float as
//! Python's repr (the shortest text that reads back as the same number). Throws
//! pybind11::type_error naming `option` for any other type.
std::string value_text(const std::string& option, pybind11::handle value);

//! The text of a sweep value: a list, tuple or range joined with commas (a comma list), else
//! value_text() (so a str may hold any list or range text, e.g. "8:64:x2").
std::string values_text(const std::string& option, pybind11::handle value);

//! The keyword arguments of `function` as (option name, text), skipping None and "" (the
//! option's default, as an empty value on the command line). Throws pybind11::type_error for
//! a keyword that names no option, as Python does for an unexpected keyword argument.
std::vector<std::pair<std::string, std::string>> option_values(
    const char* function, const pybind11::kwargs& kwargs,
    std::string (*to_text)(const std::string&, pybind11::handle));

}  // namespace pipesim::python
