#include <fstream>
#include <memory>
#include <sstream>

#include "commands.hpp"
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
      fig = line_plot(parse_csv(o->input, text), o->input, o->line);
    }
    render_figure(o->output, fig, o->gnuplot);
    return 0;
  };
}

}  // namespace pipesim::cli
