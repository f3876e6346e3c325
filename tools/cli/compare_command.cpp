#include <fmt/format.h>

#include <algorithm>
#include <iostream>
#include <memory>

#include "commands.hpp"
#include "output.hpp"
#include "pipesim/explore/ranking.hpp"
#include "pipesim/report/csv.hpp"
#include "pipesim/report/gnuplot.hpp"
#include "pipesim/report/plot_data.hpp"
#include "pipesim/report/ranked_table.hpp"
#include "pipesim/report/rows_csv.hpp"
#include "sweep_options.hpp"

namespace pipesim::cli {

using explore::RankMetric;
using report::RankedColumns;
using scenario::SweepRow;

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
                  "Metric to rank by (default: throughput, or iteration_time in unit-cost mode)");
  cmd->add_option("--csv", o->csv, "Also write the sweep's CSV to this file (atomically)");
  cmd->add_option("--plot", o->plot,
                  "Also plot the ranking metric to this figure (.svg or .png) with gnuplot");
  cmd->add_option("--x", o->x, "Plot: x column (default: the first varied option but the group)");
  cmd->add_option("--group", o->group,
                  "Plot: one line per value of this column (default: schedule when it varies)");
  cmd->add_option("--gnuplot", o->gnuplot, "gnuplot executable")->capture_default_str();
  return [o] {
    const auto rows = run_grid(make_grid(o->sweep), job_count(o->sweep));
    const RankMetric metric =
        o->rank_by.empty() ? explore::default_rank_metric(rows) : explore::rank_metric(o->rank_by);
    const auto order = explore::rank_rows(rows, metric);
    const auto inputs = scenario::input_columns();
    RankedColumns columns;
    columns.inputs = report::varied_inputs(rows);
    if (columns.inputs.empty()) columns.inputs.push_back(0);
    columns.metrics = report::present_metrics(
        rows, order,
        {"iteration_time", "throughput", "tokens_per_second", "mfu", "bubble_ratio",
         "exposed_comm_ratio", "peak_memory_max", "memory_headroom", "peak_activations_max"});
    if (std::find(columns.metrics.begin(), columns.metrics.end(), metric.name) ==
        columns.metrics.end()) {
      columns.metrics.insert(columns.metrics.begin(), metric.name);
    }
    std::string text =
        fmt::format("{} configurations, {} ranked by {} ({} is better)\n\n", rows.size(),
                    order.size(), metric.name, metric.higher_is_better ? "higher" : "lower");
    text += report::render_ranked(rows, order, columns);
    std::vector<std::vector<std::string>> unranked;
    for (size_t i = 0; i < rows.size(); ++i) {
      if (std::find(order.begin(), order.end(), i) != order.end()) continue;
      std::string what;
      for (size_t c : columns.inputs)
        what += fmt::format("{}{}={}", what.empty() ? "" : " ", inputs[c], rows[i].inputs[c]);
      text += fmt::format("{}not ranked: {}: {}\n", unranked.empty() ? "\n" : "", what,
                          rows[i].status.text());
      unranked.push_back({});
    }
    if (!o->csv.empty()) emit(o->csv, report::rows_to_csv(rows));
    if (!o->plot.empty()) {
      report::LinePlotSpec spec;
      spec.y = metric.name;
      const auto varied = report::varied_inputs(rows);
      auto varies = [&](const std::string& name) {
        return std::any_of(varied.begin(), varied.end(),
                           [&](size_t c) { return inputs[c] == name; });
      };
      spec.group = !o->group.empty() ? o->group : varies("schedule") ? "schedule" : "";
      spec.x = o->x;
      if (spec.x.empty()) {  // the varied option with the most values, but the group
        size_t most = 0;
        for (size_t c : varied) {
          std::vector<std::string> distinct;
          for (const SweepRow& row : rows) {
            if (std::find(distinct.begin(), distinct.end(), row.inputs[c]) == distinct.end()) {
              distinct.push_back(row.inputs[c]);
            }
          }
          if (inputs[c] != spec.group && distinct.size() > most) {
            most = distinct.size();
            spec.x = inputs[c];
          }
        }
      }
      // Other options vary too: draw the best configuration at each x.
      spec.reduce = metric.higher_is_better ? "max" : "min";
      spec.title = fmt::format("best {} per {}", metric.name, spec.x);
      if (spec.x.empty()) {  // only the group varies: one point per group value
        spec.x = spec.group.empty() ? inputs.front() : spec.group;
        spec.group.clear();
        spec.title = fmt::format("best {} per {}", metric.name, spec.x);
      }
      report::render_figure(
          o->plot, report::line_plot(report::rows_to_table(rows), "compare", spec), o->gnuplot);
    }
    emit("", text);
    return 0;
  };
}

}  // namespace pipesim::cli
