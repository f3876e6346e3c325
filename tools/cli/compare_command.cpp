#include <fmt/format.h>

#include <iostream>
#include <memory>

#include "commands.hpp"
#include "output.hpp"
#include "pipesim/report/compare_report.hpp"
#include "pipesim/report/csv.hpp"
#include "pipesim/report/gnuplot.hpp"
#include "pipesim/report/plot_data.hpp"
#include "pipesim/report/rows_csv.hpp"
#include "pipesim/sweep/ranking.hpp"
#include "sweep_options.hpp"

namespace pipesim::cli {

using sweep::RankMetric;

Action add_compare_command(CLI::App& app) {
  struct Options {
    SweepArgs sweep;
    std::string rank_by;
    std::string csv;
    std::string plot;
    std::string x;
    std::string group;
    std::string gnuplot = "gnuplot";
  };
  auto o = std::make_shared<Options>();
  CLI::App* cmd = app.add_subcommand(
      "compare",
      "Run a sweep (same options as `sweep`) and print it as a ranked table, optionally with a "
      "plot");
  add_sweep_options(*cmd, o->sweep);
  cmd->add_option("--rank-by", o->rank_by,
                  "Metric to rank by, within each mini-batch (default: throughput, or "
                  "iteration_time in unit-cost mode)")
      ->type_name("METRIC")
      ->group("Compare");
  cmd->add_option("--csv", o->csv, "Also write the sweep's CSV to this file (atomically)")
      ->type_name("PATH")
      ->group("Output");
  cmd->add_option("--plot", o->plot,
                  "Also plot the ranking metric to this figure (.svg or .png) with gnuplot")
      ->type_name("PATH")
      ->group("Output");
  cmd->add_option("--x", o->x, "Plot: x column (default: the first varied option but the group)")
      ->type_name("COLUMN")
      ->group("Output");
  cmd->add_option("--group", o->group,
                  "Plot: one line per value of this column (default: schedule when it varies)")
      ->type_name("COLUMN")
      ->group("Output");
  cmd->add_option("--gnuplot", o->gnuplot, "gnuplot executable")
      ->type_name("PATH")
      ->capture_default_str()
      ->group("Output");
  return [o] {
    // A figure gnuplot cannot write is refused before the grid runs and any file is written.
    if (!o->plot.empty()) require_figure_path("--plot", o->plot);
    const auto rows = cli::run_grid(make_grid(o->sweep), job_count(o->sweep));
    const RankMetric metric =
        o->rank_by.empty() ? sweep::default_rank_metric(rows) : sweep::rank_metric(o->rank_by);
    const report::RankedBy ranked_by{metric.name, metric.higher_is_better};
    // Rows of one mini-batch each; on different GPU counts, per GPU (README, "compare").
    const std::vector<report::RankedGroup> groups = sweep::ranked_groups(rows, metric);
    const std::string text = report::compare_table(rows, groups, ranked_by);
    if (!o->csv.empty()) emit(o->csv, report::rows_to_csv(rows));
    if (!o->plot.empty()) {
      const report::LinePlotSpec spec = report::compare_plot_spec(rows, ranked_by, o->x, o->group);
      report::render_figure(
          o->plot, report::line_plot(report::rows_to_table(rows), "compare", spec), o->gnuplot);
    }
    emit("", text);
    return 0;
  };
}

}  // namespace pipesim::cli
