#pragma once
// What `plot` and `compare` draw, as gnuplot data and commands (see gnuplot.hpp).

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "pipesim/report/csv.hpp"
#include "pipesim/report/gnuplot.hpp"

namespace pipesim::report {

struct LinePlotSpec {
  std::string x;      //!< column on the x axis (numeric, or categories in order of appearance)
  std::string y;      //!< numeric column on the y axis
  std::string group;  //!< one line per distinct value of this column; "" for a single line
  std::string reduce = "none";  //!< rows sharing (group, x): none (plot all), min or max
  std::string title;
};

//! A metric against a column, one line per group, from a sweep or search CSV. Rows whose
//! `status` column (when there is one) is not `ok`, or whose y is empty, are left out. Throws
//! core::ConfigError(source, column, ...) for an unknown column, a non-numeric y, or no rows.
GnuplotFigure line_plot(const CsvTable& table, std::string_view source, const LinePlotSpec& spec);

//! Bars of a per-worker field of a `simulate --format json` result: `field` ("" = peak_memory
//! when present, else peak_activations). Throws core::ConfigError naming `source`.
GnuplotFigure worker_bar_plot(const nlohmann::json& run, std::string_view source, std::string field,
                              const std::string& title);

//! Memory over time, one step line per worker, in GiB, from a `simulate --memory-timeline
//! --format json` result, with the GPU's capacity as a dashed line when the run names it.
//! Throws core::ConfigError naming `source` when a worker has no `memory_timeline`.
GnuplotFigure memory_plot(const nlohmann::json& run, std::string_view source,
                          const std::string& title);

}  // namespace pipesim::report
