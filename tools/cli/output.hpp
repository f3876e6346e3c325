#pragma once
// Where a command's main output goes: stdout, or a file written atomically.

#include <string>
#include <string_view>

namespace pipesim::cli {

//! Prints `content` to stdout when `path` is empty or "-", else writes the file atomically.
void emit(const std::string& path, std::string_view content);

}  // namespace pipesim::cli
