#pragma once
// Plain-text tables for the terminal: columns padded to their widest cell, numbers right
// aligned, text left aligned.

#include <string>
#include <vector>

namespace pipesim::report {

//! Renders `header` and `rows` (each as wide as the header), two spaces between columns.
std::string render_table(const std::vector<std::string>& header,
                         const std::vector<std::vector<std::string>>& rows);

}  // namespace pipesim::report
