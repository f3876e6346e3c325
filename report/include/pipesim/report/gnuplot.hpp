#pragma once
// Figures through gnuplot. A figure `fig.svg` (or `fig.png`) comes with `fig.gp`, the script,
// and `fig.dat`, its data, side by side, so a user can restyle it and rerun `gnuplot fig.gp`
// in that folder. All three are written atomically: gnuplot renders to a temporary file that
// is renamed over the figure only when it succeeded.

#include <string>

namespace pipesim::report {

struct GnuplotFigure {
  std::string data;  //!< the contents of fig.dat
  //! Plot commands after the terminal and output are set; they read the data file through the
  //! gnuplot variable `datafile`.
  std::string body;
};

//! Writes `<stem>.gp` and `<stem>.dat` beside `figure`, then runs `gnuplot` (a name looked up
//! on PATH, or a path) to render `figure`: svg, pngcairo or pdfcairo by extension (.svg, .png,
//! .pdf). Throws core::ConfigError with one line for another extension, a missing gnuplot, or a
//! gnuplot that fails (its exit status and last line of stderr). Returns what gnuplot wrote to
//! stderr on success: its warnings ("" for none; a warning usually means a wrong figure, and
//! the tests treat one as an error).
std::string render_figure(const std::string& figure, const GnuplotFigure& fig,
                          const std::string& gnuplot = "gnuplot");

//! `text` as a gnuplot double-quoted string literal.
std::string gnuplot_string(const std::string& text);

}  // namespace pipesim::report
