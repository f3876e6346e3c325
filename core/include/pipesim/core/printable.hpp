#pragma once
// Echoed input must not be able to break the one-line error contract or drive the terminal:
// control characters in file names, keys and values are shown escaped.

#include <string>
#include <string_view>

namespace pipesim::core {

//! `s` with every control byte (< 0x20, 0x7f) escaped as \n, \r, \t or \xNN and backslashes kept
//! as they are; bytes >= 0x80 (UTF-8) pass through unchanged.
std::string printable(std::string_view s);

}  // namespace pipesim::core
