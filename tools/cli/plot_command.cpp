#include <fmt/format.h>

#include <cmath>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <sstream>

#include "commands.hpp"
#include "output.hpp"
#include "pipesim/core/config_error.hpp"
#include "pipesim/report/csv.hpp"
#include "pipesim/report/gnuplot.hpp"
#include "pipesim/report/plot_data.hpp"

namespace pipesim::cli {

using namespace pipesim::report;  // NOLINT: the renderings this command drives
namespace {

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw core::ConfigError(path, "file", "cannot be read");
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// A NaN or infinite cell cannot be drawn: refused naming the file, the column and the line,
// rather than plotted as a gap or a point at infinity. Empty cells (a run without the value)
// are the plot's to skip.
void require_finite_cells(const CsvTable& table, const std::string& source,
                          const std::vector<std::string>& columns) {
  for (const std::string& name : columns) {
    const size_t c = table.column(source, name);
    for (size_t r = 0; r < table.rows.size(); ++r) {
      const std::string& cell = table.rows[r][c];
      if (cell.empty()) continue;
      char* end = nullptr;
      const double v = std::strtod(cell.c_str(), &end);
      if (end != cell.c_str() && *end == '\0' && !std::isfinite(v)) {
        throw core::ConfigError(source, name,
                                fmt::format("row {} (line {}) is '{}': a plot needs finite numbers",
                                            r + 1, r + 2, cell));
      }
    }
  }
}

}  // namespace

Action add_plot_command(CLI::App& app) {
  struct Options {
    std::string input;
    std::string kind = "line";
    LinePlotSpec line;
    std::string output;
    std::string gnuplot = "gnuplot";
  };
  auto o = std::make_shared<Options>();
  CLI::App* cmd = app.add_subcommand(
      "plot",
      "Plot with gnuplot (SVG or PNG by extension): a metric of a sweep/search CSV against a "
      "column, grouped by another, bars of a simulate JSON's per-worker peak memory, or its "
      "memory over time per worker (--memory-timeline); the "
      "script and data are saved beside the figure (fig.gp, fig.dat)");
  cmd->add_option("input", o->input, "sweep/search CSV (line) or simulate JSON (bars, memory)")
      ->required();
  cmd->add_option("--kind", o->kind,
                  "line: --y against --x per --group; bars: per worker; memory: over time per "
                  "worker")
      ->check(CLI::IsMember({"line", "bars", "memory"}))
      ->capture_default_str();
  cmd->add_option("--x", o->line.x, "line: the x column");
  cmd->add_option("--y", o->line.y, "line: the y column; bars: the per-worker field")
      ->default_str("bars: peak_memory, else peak_activations");
  cmd->add_option("--group", o->line.group, "line: one line per value of this column");
  cmd->add_option("--reduce", o->line.reduce,
                  "line: rows sharing group and x: none (draw all), min or max")
      ->capture_default_str();
  cmd->add_option("--title", o->line.title, "Figure title");
  cmd->add_option("--output,-o", o->output, "Figure: .svg or .png")->required();
  cmd->add_option("--gnuplot", o->gnuplot, "gnuplot executable (name on PATH or path)")
      ->capture_default_str();
  return [o] {
    require_figure_path("--output", o->output);
    const std::string text = read_file(o->input);
    GnuplotFigure fig;
    if (o->kind == "bars" || o->kind == "memory") {
      nlohmann::json run;
      try {
        run = nlohmann::json::parse(text);
      } catch (const nlohmann::json::exception& e) {
        throw core::ConfigError(o->input, "json", e.what());
      }
      fig = o->kind == "bars" ? worker_bar_plot(run, o->input, o->line.y, o->line.title)
                              : memory_plot(run, o->input, o->line.title);
    } else {
      if (o->line.x.empty() || o->line.y.empty()) {
        throw core::ConfigError("command line", "--x/--y", "a line plot needs both columns");
      }
      const CsvTable table = parse_csv(o->input, text);
      require_finite_cells(table, o->input, {o->line.x, o->line.y});
      fig = line_plot(table, o->input, o->line);
    }
    render_figure(o->output, fig, o->gnuplot);
    return 0;
  };
}

}  // namespace pipesim::cli
