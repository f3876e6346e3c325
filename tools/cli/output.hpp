#pragma once
// Where a command's main output goes: stdout, or a file written atomically. A write error on
// either is an error (one line, non-zero exit), never a silent success.

#include <string>
#include <string_view>

namespace pipesim::cli {

//! Prints `content` to stdout when `path` is empty or "-", else writes the file atomically.
//! Throws core::ConfigError when stdout refuses the bytes (/dev/full, a closed descriptor).
void emit(const std::string& path, std::string_view content);

//! Refuses a figure path gnuplot cannot be asked for before anything runs: `flag` names the
//! option. The extension must be .svg, .png or .pdf and a name must precede it (".pdf" is a
//! hidden file with no extension, not a PDF).
void require_figure_path(const std::string& flag, const std::string& path);

//! Flushes and closes stdout at exit: "" when everything written reached it, else the reason
//! (errno text). A stdout that was closed before the run and never written to is not an error.
std::string close_stdout();

}  // namespace pipesim::cli
